/* pipelined.c: pipelined CG (sps_solver_set_pipelined) on the bundled SPD matrices, a negative definite Laplacian and bcsstk13 (whose recurrences break down: restarts): it converges to the tolerance on b - Ax formed apart, takes the iterations recorded below (regression values of this implementation on the CPU, not derived independently) within the documented distance of CG's, and on a GPU (pipelined-cuda.sh) gives the CPU backend's x bit for bit.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix and preconditioner is a case. */
#include "model_problems.h"

#define RTOL 1e-8

typedef struct pcase {
  const char *file; /* bundled matrix, or NULL for the negated 32 x 32 Laplacian */
  sps_precond_type precond;
  int iterations;   /* pipelined CG's, recorded on the CPU */
  int cg;           /* CG's on the same system, recorded likewise */
  int shared;       /* 1: file is a shared matrix ($SPS_MATRICES; skipped without it), b = 1,
                     * on which the recurrences break down (restarts: no bound on the distance
                     * to CG's count) */
} pcase;

/* Recorded by this program on the CPU backend (b = A x*, x* seeded below, or b = 1), as regression values:
 * a change of the recurrences or of their rounding shows here first. */
static const pcase cases[] = {
    {"nos3.mtx.gz", SPS_PRECOND_NONE, 245, 244, 0},
    {"nos3.mtx.gz", SPS_PRECOND_JACOBI, 213, 212, 0},
    {"nos3.mtx.gz", SPS_PRECOND_IC0, 45, 45, 0},
    {"bcsstk14.mtx.gz", SPS_PRECOND_JACOBI, 363, 361, 0},
    {"bcsstk14.mtx.gz", SPS_PRECOND_IC0, 78, 71, 0},
    {"1138_bus.mtx.gz", SPS_PRECOND_JACOBI, 914, 910, 0},
    {"1138_bus.mtx.gz", SPS_PRECOND_IC0, 130, 127, 0},
    {NULL, SPS_PRECOND_NONE, 94, 94, 0},
    {NULL, SPS_PRECOND_JACOBI, 94, 94, 0},
    /* (p, Ap) from the recurrences turns negative long before convergence: pipelined CG
     * restarts from the true residual instead of stopping as indefinite (solvers/cg_pipelined.c) */
    {"bcsstk13.mtx.gz", SPS_PRECOND_JACOBI, 3283, 1507, 1},
};

/* Solve on ctx with (pipelined) CG; x on the host; iterations and reason out. */
static void solve(sps_context *ctx, const sps_matrix *A, int64_t n, const double *b, sps_precond_type pc,
                  int pipelined, double *x, int *its, sps_reason *reason)
{
  sps_solver *s = NULL;
  sps_vector *vb = NULL, *vx = NULL;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_CG) || sps_solver_set_precond(s, pc) ||
      sps_solver_set_pipelined(s, pipelined) || sps_solver_set_tolerances(s, RTOL, 0.0) ||
      sps_solver_set_max_iterations(s, 20000) || sps_vector_create(ctx, &vb, n) ||
      sps_vector_create(ctx, &vx, n) || sps_vector_upload(vb, b, n) || sps_solver_setup(s, A) ||
      sps_solver_solve(s, vb, vx) || sps_vector_download(vx, x, n))
    sps_bail("solve: %s", sps_context_last_error(ctx));
  sps_solver_get_iterations(s, its);
  sps_solver_get_reason(s, reason);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
}

int main(void)
{
  sps_context *ctx = sps_test_context(), *cpu = NULL;
  sps_device_kind kind;
  sps_context_get_device(ctx, &kind, NULL);
  if (kind == SPS_DEVICE_CUDA && sps_context_create(&cpu, SPS_DEVICE_CPU, 0)) sps_bail("CPU context");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (!sps_case()) continue;
    const pcase *t = &cases[c];
    sps_matrix *A = NULL, *Acpu = NULL;
    char path[1024], name[64];
    if (t->shared && !sps_test_matrices_dir()) {
      sps_skip("%s + %s: no shared matrices (SPS_MATRICES)", t->file, sps_precond_type_name(t->precond));
      continue;
    }
    if (t->file) {
      snprintf(path, sizeof path, "%s/%s", t->shared ? sps_test_matrices_dir() : sps_test_data_dir(),
               t->file);
      if (sps_matrix_read_mm(ctx, &A, path, 0)) sps_bail("%s", path);
      if (cpu && sps_matrix_read_mm(cpu, &Acpu, path, 0)) sps_bail("%s", path);
      snprintf(name, sizeof name, "%s", t->file);
    } else {
      A = sps_test_conv_diff_or_bail(ctx, 32, 0.0, -4.0, 1.0);
      if (cpu) Acpu = sps_test_conv_diff_or_bail(cpu, 32, 0.0, -4.0, 1.0);
      snprintf(name, sizeof name, "negated 32 x 32 Laplacian");
    }
    int64_t n;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    sps_matrix_get_size(A, &n, NULL, NULL);
    sps_matrix_get_csr(A, &rp, &ci, &va);
    double *xs = malloc((size_t)n * sizeof *xs), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x), *xc = malloc((size_t)n * sizeof *xc);
    double *r = malloc((size_t)n * sizeof *r);
    if (!xs || !b || !x || !xc || !r) sps_bail("out of host memory");
    sps_rng rng = {17};
    for (int64_t i = 0; i < n; i++) xs[i] = sps_rng_uniform(&rng);
    sps_csr_matvec_host(n, rp, ci, va, xs, b);
    if (t->shared)
      for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    int its, its_cg;
    sps_reason reason, reason_cg;
    solve(ctx, A, n, b, t->precond, 1, x, &its, &reason);
    solve(ctx, A, n, b, t->precond, 0, xc, &its_cg, &reason_cg);
    sps_csr_matvec_host(n, rp, ci, va, x, r);
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; i++) {
      rr += (b[i] - r[i]) * (b[i] - r[i]);
      bb += b[i] * b[i];
    }
    const double rel = sqrt(rr / bb);
    /* the documented distance: within 10% of CG's count and 5 iterations, with a preconditioner */
    const int close = t->shared || abs(its - its_cg) <= 5 || abs(its - its_cg) * 10 <= its_cg;
    const int recorded = t->iterations == 0 || (its == t->iterations && its_cg == t->cg);
    sps_ok(reason > 0 && rel <= 1.0001 * RTOL && close && recorded,
           "%s + %s: pipelined CG %d iterations (recorded %d), CG %d (recorded %d), "
           "||b - Ax||/||b|| = %.2e formed apart",
           name, sps_precond_type_name(t->precond), its, t->iterations, its_cg, t->cg, rel);
    if (cpu) {
      int its_cpu;
      sps_reason reason_cpu;
      double *xcpu = malloc((size_t)n * sizeof *xcpu);
      if (!xcpu) sps_bail("out of host memory");
      solve(cpu, Acpu, n, b, t->precond, 1, xcpu, &its_cpu, &reason_cpu);
      sps_ok(its_cpu == its && reason_cpu == reason && memcmp(xcpu, x, (size_t)n * sizeof *x) == 0,
             "%s + %s: the GPU's pipelined CG gives the CPU's iterations and x bit for bit", name,
             sps_precond_type_name(t->precond));
      free(xcpu);
    }
    free(xs);
    free(b);
    free(x);
    free(xc);
    free(r);
    sps_matrix_destroy(&A);
    sps_matrix_destroy(&Acpu);
  }
  sps_context_destroy(&ctx);
  sps_context_destroy(&cpu);
  return sps_done();
}
