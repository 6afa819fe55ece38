/* defaults.c: every square shared matrix converges with the library's defaults (automatic method and preconditioner), with the saved choice and iteration count.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix is a case, read only by its shard. */
#include "../testlib.h"

/*
 * Each case solves A x = b with the defaults of sps_solver_create(SPS_SOLVER_AUTO): the
 * automatic method and preconditioner (and its fallback chain), rtol 1e-8, at most 10,000
 * iterations, GMRES restart 30; b = A x*, x* uniform in [-1, 1) from a fixed seed, x_0 = 0.
 * It checks:
 *   - the reason is SPS_CONVERGED_RTOL and the true relative residual, recomputed here on the
 *     host from the downloaded x, is <= 1e-8;
 *   - the method and preconditioner that finished the solve are the expected ones, and the
 *     iterations equal the recorded count: the automatic choice, the factorisations and the
 *     iterations are the recorded run's, operation for operation. Every reduction is a
 *     compensated sum whose value does not depend on the order of the additions (except within
 *     about n^2 u^2 of a rounding boundary), so the count does not depend on the number of
 *     OpenMP threads (measured: the same counts with 1, 2 and 3 threads) or on the backend.
 * The expectations were measured with this code on the CPU backend (2 OpenMP threads,
 * SPS_TEST_LARGE set; G3_circuit, with more than 30,000 rows and at most 6 entries a row on
 * average, takes algebraic multigrid, laplacian7pt_100 (6.9 a row) and the smaller SPD matrices
 * IC(0) (G3_circuit and laplacian7pt_100 in multicolor order), and rdb3200l reaches
 * ILUT(30, 1e-6) after ILU(0) and ILUT(10, 1e-4) stagnate); they are recorded values of a run
 * (regression values), not computed independently; the GPU run
 * (defaults-cuda.sh, SPS_TEST_DEVICE=cuda) shares them, because both backends round alike
 * and the choice depends on the matrix only; tests/regress/cpu_vs_gpu compares the two runs
 * directly where they part. G3_circuit and laplacian7pt_100 (1.6 and 1
 * million rows) run on the GPU only, and on the CPU when SPS_TEST_LARGE is set. Without the
 * shared matrices the test skips.
 */
typedef struct default_case {
  const char *file;
  int large;              /* GPU only unless SPS_TEST_LARGE is set */
  sps_solver_type method; /* expected: the method that finished the solve */
  sps_precond_type pc;    /* expected: its preconditioner */
  int expected;           /* iterations measured with this code on the CPU backend */
} default_case;

#define CG SPS_SOLVER_CG
#define GMRES SPS_SOLVER_GMRES
static const default_case cases[] = {
    {"1138_bus.mtx.gz", 0, CG, SPS_PRECOND_IC0, 127},
    {"add20.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 150},
    {"add32.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 37},
    {"adder_dcop_05.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 21},
    {"ani5_crop.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 157},
    {"bcsstk13.mtx.gz", 0, CG, SPS_PRECOND_IC0, 357},
    {"bcsstk14.mtx.gz", 0, CG, SPS_PRECOND_IC0, 73},
    {"G3_circuit.mtx.gz", 1, CG, SPS_PRECOND_AMG, 12},
    {"laplacian7pt_100.mtx.gz", 1, CG, SPS_PRECOND_IC0, 135},
    {"nos3.mtx.gz", 0, CG, SPS_PRECOND_IC0, 46},
    {"olm1000.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 20},
    {"orsirr_1.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 32},
    {"orsreg_1.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 39},
    {"rajat12.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 72},
    {"rdb3200l.mtx.gz", 0, GMRES, SPS_PRECOND_ILUT, 405},
    {"sherman3.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 137},
    {"sherman5.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 31},
    {"watt_2.mtx.gz", 0, GMRES, SPS_PRECOND_ILU0, 21},
};
#undef CG
#undef GMRES

static void run_case(sps_context *ctx, const char *dir, const default_case *c)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: read: %s", c->file, sps_context_last_error(ctx));
    return;
  }
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *x = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
  if (!xs || !b || !x || !r) sps_bail("out of host memory");
  sps_rng rng = {0x5eed5eedull};
  for (int64_t i = 0; i < n; i++) xs[i] = sps_rng_uniform(&rng);
  sps_test_host_mv(A, xs, b);

  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, SPS_SOLVER_AUTO))
    sps_bail("%s: %s", c->file, sps_context_last_error(ctx));
  sps_status st = sps_solver_setup(s, A);
  if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
  sps_reason reason = SPS_REASON_NONE;
  sps_solver_type method = SPS_SOLVER_AUTO;
  sps_precond_type pc = SPS_PRECOND_AUTO;
  int its = -1;
  double tsolve = 0.0;
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  sps_solver_get_method(s, &method, &pc);
  sps_solver_get_times(s, NULL, &tsolve);
  sps_vector_download(vx, x, n);
  sps_test_host_mv(A, x, r);
  for (int64_t i = 0; i < n; i++) r[i] = b[i] - r[i];
  const double hrel = sps_test_norm2(r, n) / sps_test_norm2(b, n);
  const sps_solver_attempt *at = NULL;
  int nat = 0;
  sps_solver_get_attempts(s, &at, &nat);
  for (int k = 0; k < nat; k++) sps_diag("  try %d: %s (%d iterations)", k + 1, at[k].note, at[k].iterations);
  sps_diag("%s: %s+%s, %s, %d iterations, host relative residual %.3g, %.3f s", c->file,
           sps_solver_type_name(method), sps_precond_type_name(pc), sps_reason_name(reason), its,
           hrel, tsolve);
  sps_ok(st == SPS_SUCCESS && reason == SPS_CONVERGED_RTOL && hrel <= 1e-8 * (1 + 1e-6),
         "%s: converged to a true relative residual of %.3g (%s)", c->file, hrel,
         st ? sps_context_last_error(ctx) : sps_reason_name(reason));
  sps_ok(method == c->method && pc == c->pc, "%s: chose %s+%s, expected %s+%s", c->file,
         sps_solver_type_name(method), sps_precond_type_name(pc), sps_solver_type_name(c->method),
         sps_precond_type_name(c->pc));
  sps_ok(its == c->expected, "%s: %d iterations, recorded %d", c->file, its, c->expected);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(xs);
  free(b);
  free(x);
  free(r);
}

int main(int argc, char **argv)
{
  const char *dir = sps_test_matrices_dir();
  if (!dir) sps_skip_all("SPS_MATRICES is not set (the shared real matrices)");
  sps_context *ctx = sps_test_context();
  sps_device_kind kind;
  int index;
  sps_context_get_device(ctx, &kind, &index);
  const int large = kind == SPS_DEVICE_CUDA || getenv("SPS_TEST_LARGE");
  char dev[128];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  sps_diag("device: %s", dev);
  /* An optional argument selects the cases whose file name contains it. */
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (argc >= 2 && !strstr(cases[k].file, argv[1])) continue;
    if (!sps_case()) continue;
    if (cases[k].large && !large) {
      sps_skip("%s: GPU only unless SPS_TEST_LARGE is set (1 to 1.6 million rows)", cases[k].file);
      continue;
    }
    run_case(ctx, dir, &cases[k]);
  }
  sps_context_destroy(&ctx);
  return sps_done();
}
