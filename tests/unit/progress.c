/* progress.c: the progress callbacks: the solver's, called with growing iterations, changing no bit of a solve, and stopping it with SPS_INTERRUPTED leaving x the iterate reached, for every method; the Matrix Market reader's, with the bytes read, stopping a read with SPS_ERR_INTERRUPTED.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): the arguments, the reader and each method are a case. */
#include "model_problems.h"

#define G 40 /* grid side: n = 1600 */

typedef struct watch {
  int calls;
  int last_it;     /* the iteration of the last call */
  int decreasing;  /* a call came with a smaller iteration than the one before */
  int stop_at;     /* return nonzero from this call on (0: never) */
} watch;

static int on_progress(void *user, int iteration, double residual_norm)
{
  watch *w = user;
  (void)residual_norm;
  if (iteration < w->last_it) w->decreasing = 1;
  w->last_it = iteration;
  w->calls++;
  return w->stop_at > 0 && w->calls >= w->stop_at;
}

typedef struct run {
  sps_reason reason;
  int iterations;
  double rel;     /* the solver's true relative residual */
  double x_rel;   /* the same, recomputed on the host from the downloaded x */
  double *x;      /* n, malloc'ed */
} run;

/* One solve of A x = b from x0 = 0 with method, optionally watched; rtol tiny so that only
 * maxit or the callback ends it unless `rtol` is given. */
static run solve(sps_context *ctx, const sps_matrix *A, const char *method, sps_orthog orthog,
                 sps_precond_type pc, double rtol, int maxit, watch *w)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  run out = {0};
  out.x = malloc((size_t)n * sizeof *out.x);
  double *b = malloc((size_t)n * sizeof *b);
  if (!out.x || !b) sps_bail("out of memory");
  for (int64_t i = 0; i < n; i++) b[i] = 1.0 + (double)(i % 7);
  sps_solver *s;
  sps_vector *vb, *vx;
  if (sps_solver_create_by_name(ctx, &s, method) || sps_solver_set_precond(s, pc) ||
      sps_solver_set_orthogonalization(s, orthog) || sps_solver_set_tolerances(s, rtol, 0.0) ||
      sps_solver_set_max_iterations(s, maxit) ||
      (w && sps_solver_set_progress(s, on_progress, w, 1e-9)) || sps_solver_setup(s, A) ||
      sps_vector_create(ctx, &vb, n) || sps_vector_create(ctx, &vx, n) ||
      sps_vector_upload(vb, b, n) || sps_solver_solve(s, vb, vx) ||
      sps_vector_download(vx, out.x, n))
    sps_bail("%s: %s", method, sps_context_last_error(ctx));
  double abs;
  sps_solver_get_reason(s, &out.reason);
  sps_solver_get_iterations(s, &out.iterations);
  sps_solver_get_residual(s, &abs, &out.rel);
  out.x_rel = sps_test_relres(A, b, out.x);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_solver_destroy(&s);
  free(b);
  return out;
}

static void test_arguments(sps_context *ctx)
{
  sps_solver *s;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_CG)) sps_bail("%s", sps_context_last_error(ctx));
  watch w = {0};
  sps_ok(sps_solver_set_progress(s, on_progress, &w, 0.0) == SPS_ERR_ARGUMENT &&
             strstr(sps_context_last_error(ctx), "interval"),
         "progress interval 0 refused, naming the interval (%s)", sps_context_last_error(ctx));
  sps_ok(sps_solver_set_progress(s, on_progress, &w, NAN) == SPS_ERR_ARGUMENT,
         "progress interval NaN refused");
  sps_ok(sps_solver_set_progress(s, NULL, NULL, 0.0) == SPS_SUCCESS, "a NULL callback turns it off");
  sps_ok(sps_solver_set_progress(NULL, on_progress, &w, 1.0) == SPS_ERR_ARGUMENT, "NULL solver");
  sps_solver_destroy(&s);
}

typedef struct method_case {
  const char *method;
  sps_orthog orthog;
  sps_precond_type pc;
  int spd; /* on the Laplacian, else on the convection-diffusion matrix */
  const char *what;
} method_case;

static const method_case cases[] = {
    {"cg", SPS_ORTHOG_CGS2, SPS_PRECOND_NONE, 1, "CG"},
    {"cg", SPS_ORTHOG_CGS2, SPS_PRECOND_ILU0, 1, "CG + ILU(0) (the deferred, general path)"},
    {"bicgstab", SPS_ORTHOG_CGS2, SPS_PRECOND_JACOBI, 0, "BiCGSTAB + Jacobi"},
    {"gmres", SPS_ORTHOG_CGS2, SPS_PRECOND_NONE, 0, "GMRES (device-driven)"},
    {"gmres", SPS_ORTHOG_MGS, SPS_PRECOND_NONE, 0, "GMRES with MGS (host-driven)"},
    {"auto", SPS_ORTHOG_CGS2, SPS_PRECOND_AUTO, 0, "the automatic choice"},
};

static void test_method(sps_context *ctx, const sps_matrix *L, const sps_matrix *C,
                        const method_case *c)
{
  const sps_matrix *A = c->spd ? L : C;
  /* Watched but never stopped: the same reason, iterations and bits as unwatched. */
  run plain = solve(ctx, A, c->method, c->orthog, c->pc, 1e-10, 5000, NULL);
  watch w = {0};
  run watched = solve(ctx, A, c->method, c->orthog, c->pc, 1e-10, 5000, &w);
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_ok(plain.reason > 0 && watched.reason == plain.reason &&
             watched.iterations == plain.iterations &&
             !memcmp(plain.x, watched.x, (size_t)n * sizeof *plain.x),
         "%s: watched, the same reason (%s), iterations (%d) and x to the bit as unwatched", c->what,
         sps_reason_name(watched.reason), watched.iterations);
  sps_ok(w.calls > 0 && !w.decreasing && w.last_it <= watched.iterations,
         "%s: called %d times with growing iterations up to %d", c->what, w.calls, w.last_it);
  free(plain.x);
  free(watched.x);

  /* Stopped at the third call of a solve that cannot converge (rtol 1e-300). */
  watch stop = {.stop_at = 3};
  run r = solve(ctx, A, c->method, c->orthog, c->pc, 1e-300, 100000, &stop);
  sps_ok(r.reason == SPS_INTERRUPTED && stop.calls == 3,
         "%s: a nonzero return stops the solve: %s after %d calls", c->what,
         sps_reason_name(r.reason), stop.calls);
  sps_ok(r.iterations > 0 && r.iterations < 100000 && r.iterations >= stop.last_it,
         "%s: %d iterations counted (the last call at %d)", c->what, r.iterations, stop.last_it);
  /* (CG's and BiCGSTAB's residuals need not fall in 10 iterations: what is checked is that x
   * moved from x0 = 0 and that the reported residual is x's own.) */
  int moved = 0;
  for (int64_t i = 0; i < n; i++) moved |= r.x[i] != 0.0;
  sps_ok(moved && isfinite(r.x_rel) && fabs(r.x_rel - r.rel) <= 1e-10 * r.x_rel,
         "%s: x is the iterate reached (not x0): its true relative residual %.3e (host) = %.3e "
         "(reported)",
         c->what, r.x_rel, r.rel);
  free(r.x);
}

/* The readers' progress: bytes growing to the file's size, and a nonzero return stopping the
 * read with SPS_ERR_INTERRUPTED, leaving no matrix. */
typedef struct read_watch {
  int calls, stop_at;
  int64_t last, total;
  int decreasing;
} read_watch;

static int on_read(void *user, int64_t bytes, int64_t total)
{
  read_watch *w = user;
  if (bytes < w->last) w->decreasing = 1;
  w->last = bytes;
  w->total = total;
  w->calls++;
  return w->stop_at > 0 && w->calls >= w->stop_at;
}

static void test_read_progress(sps_context *ctx)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/bcsstk14.mtx.gz", sps_test_data_dir());
  FILE *f = fopen(path, "rb");
  if (!f) sps_bail("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  const int64_t size = (int64_t)ftell(f);
  fclose(f);
  read_watch w = {0};
  sps_matrix *A = NULL;
  sps_ok(sps_context_set_read_progress(ctx, on_read, &w) == SPS_SUCCESS, "set_read_progress");
  sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
  sps_ok(st == SPS_SUCCESS && w.calls > 0 && !w.decreasing && w.last == size && w.total == size,
         "read progress: %d calls, bytes growing to %lld of %lld (the file's size %lld)", w.calls,
         (long long)w.last, (long long)w.total, (long long)size);
  sps_matrix_destroy(&A);
  read_watch stop = {.stop_at = 1};
  sps_context_set_read_progress(ctx, on_read, &stop);
  st = sps_matrix_read_mm(ctx, &A, path, 0);
  sps_ok(st == SPS_ERR_INTERRUPTED && A == NULL && strstr(sps_context_last_error(ctx), "interrupted"),
         "read progress: a nonzero return stops the read: %s, no matrix (%s)", sps_status_name(st),
         sps_context_last_error(ctx));
  sps_context_set_read_progress(ctx, NULL, NULL);
  st = sps_matrix_read_mm(ctx, &A, path, 0);
  sps_ok(st == SPS_SUCCESS, "read progress off: the read succeeds");
  sps_matrix_destroy(&A);
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  sps_matrix *L = sps_test_conv_diff_or_bail(ctx, G, 0.0, 4.0, 1.0);
  sps_matrix *C = sps_test_conv_diff_or_bail(ctx, G, 0.5, 4.0, 1.0);
  if (sps_case()) test_arguments(ctx);
  if (sps_case()) test_read_progress(ctx);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    if (sps_case()) test_method(ctx, L, C, &cases[k]);
  sps_matrix_destroy(&L);
  sps_matrix_destroy(&C);
  if (sps_context_destroy(&ctx) != SPS_SUCCESS) sps_bail("context destroy: objects left alive");
  return sps_done();
}
