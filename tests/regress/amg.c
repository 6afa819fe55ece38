/* amg.c: CG with the multigrid preconditioner on the shared SPD matrices, b = A*ones, with each coarsening and smoother, against the iteration counts recorded on the CPU; the GPU run (amg-cuda.sh) shares them.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix with each configuration is a case. */
#include "../testlib.h"

/*
 * Each case: CG + AMG, b = A*ones, x_0 = 0, rtol 1e-8, at most 2,000 iterations, with the
 * defaults (classical coarsening, Chebyshev smoothing) and with each other coarsening and
 * smoother. Checked: the reason is SPS_CONVERGED_RTOL; the true relative residual, as reported
 * and as recomputed here on the host from the downloaded x, is <= 1e-8; the iteration count
 * equals the recorded one exactly (recorded from a CPU run of this code: a regression value).
 * The setup builds the same hierarchy on the CPU and the GPU (every step gives the reference's
 * bits) and every operation of the cycle is an SpMV, a backend vector operation or a
 * Gauss-Seidel sweep that rounds alike on both, so the GPU must take the same count;
 * tests/regress/solvers.c says why a compensated sum may still, rarely, round differently.
 * laplacian7pt_100 is given as stored (negative definite): the solver solves (-A) x = -b and
 * the hierarchy is built on -A. The counts of PyAMG and hypre's BoomerAMG on the same systems
 * are in ../shared/CONVERGENCE.md; doc/performance.md compares them.
 * G3_circuit and laplacian7pt_100 (1.6 and 1 million rows) take 10 to 30 s each on the 2-core
 * build machine: with the defaults they always run; with the other configurations only on the
 * GPU or when SPS_TEST_LARGE is set. An optional argument selects the cases whose file name
 * contains it.
 */
typedef struct amg_config {
  const char *name;
  int coarsening, smoother; /* amg.coarsening, amg.smoother (-1: the default) */
} amg_config;

static const amg_config configs[] = {
    {"defaults (classical, Chebyshev)", -1, -1},
    {"classical, l1-Jacobi", 1, 1},
    {"classical, Gauss-Seidel", 1, 2},
    {"aggregation, Chebyshev", 0, 0},
    {"aggregation, l1-Jacobi", 0, 1},
    {"aggregation, Gauss-Seidel", 0, 2},
};
#define NCONFIG ((int)(sizeof configs / sizeof configs[0]))

typedef struct amg_case {
  const char *file;
  int large;
  int expected[NCONFIG]; /* iterations per configuration, recorded on the CPU backend */
} amg_case;

static const amg_case cases[] = {
    {"1138_bus.mtx.gz", 0, {7, 9, 6, 13, 21, 13}},
    {"G3_circuit.mtx.gz", 1, {11, 29, 14, 11, 15, 9}},
    {"bcsstk13.mtx.gz", 0, {186, 633, 201, 229, 867, 281}},
    {"bcsstk14.mtx.gz", 0, {55, 227, 102, 70, 250, 111}},
    {"laplacian7pt_100.mtx.gz", 1, {16, 32, 16, 10, 18, 9}},
    {"nos3.mtx.gz", 0, {19, 31, 18, 23, 51, 27}},
};

static void run_case(sps_context *ctx, const char *dir, const amg_case *c, int k)
{
  const amg_config *cf = &configs[k];
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: read: %s", c->file, sps_context_last_error(ctx));
    return;
  }
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *ones = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *x = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
  if (!ones || !b || !x || !r) sps_bail("out of host memory");
  for (int64_t i = 0; i < n; i++)
    ones[i] = 1.0;
  sps_test_host_mv(A, ones, b);

  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, SPS_SOLVER_CG) ||
      sps_solver_set_tolerances(s, 1e-8, 0.0) || sps_solver_set_max_iterations(s, 2000) ||
      sps_solver_set_precond(s, SPS_PRECOND_AMG) ||
      (cf->coarsening >= 0 && sps_solver_set_precond_param(s, "amg.coarsening", cf->coarsening)) ||
      (cf->smoother >= 0 && sps_solver_set_precond_param(s, "amg.smoother", cf->smoother)))
    sps_bail("%s: %s", c->file, sps_context_last_error(ctx));
  sps_status st = sps_solver_setup(s, A);
  if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
  sps_reason reason = SPS_REASON_NONE;
  int its = -1;
  double rel = -1.0, tsetup = 0.0, tsolve = 0.0;
  sps_precond_info pi;
  memset(&pi, 0, sizeof pi);
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  sps_solver_get_residual(s, NULL, &rel);
  sps_solver_get_times(s, &tsetup, &tsolve);
  sps_solver_get_precond_info(s, &pi);
  sps_vector_download(vx, x, n);
  sps_test_host_mv(A, x, r);
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i] - r[i];
  const double hrel = sps_test_norm2(r, n) / sps_test_norm2(b, n);
  sps_diag("%s, %s: %s, %d iterations, relative residual %.3g (host %.3g), %d levels, operator "
           "complexity %.3f, setup %.3f s, solve %.3f s",
           c->file, cf->name, sps_reason_name(reason), its, rel, hrel, pi.amg_levels,
           pi.amg_operator_complexity, tsetup, tsolve);
  sps_ok(st == SPS_SUCCESS && reason == SPS_CONVERGED_RTOL, "%s cg+amg, %s: %s (%s)", c->file,
         cf->name, sps_reason_name(reason), st ? sps_context_last_error(ctx) : "solve ok");
  sps_ok(rel <= 1e-8 && hrel <= 1e-8 * (1 + 1e-6),
         "%s cg+amg, %s: true relative residual %.3g, host %.3g <= 1e-8", c->file, cf->name, rel,
         hrel);
  sps_ok(its == c->expected[k], "%s cg+amg, %s: %d iterations, recorded %d", c->file, cf->name, its,
         c->expected[k]);

  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(ones);
  free(b);
  free(x);
  free(r);
}

int main(int argc, char **argv)
{
  const char *dir = sps_test_matrices_dir();
  if (!dir) sps_skip_all("SPS_MATRICES is not set (the shared real matrices)");
  sps_context *ctx = sps_test_context();
  char dev[128];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  sps_diag("device: %s", dev);
  const char *large = getenv("SPS_TEST_LARGE");
  sps_device_kind kind = SPS_DEVICE_CPU;
  sps_context_get_device(ctx, &kind, NULL);
  const int all = kind == SPS_DEVICE_CUDA || (large && *large);
  for (size_t m = 0; m < sizeof cases / sizeof cases[0]; m++)
    for (int k = 0; k < NCONFIG; k++) {
      if (argc >= 2 && !strstr(cases[m].file, argv[1])) continue;
      if (cases[m].large && k > 0 && !all) continue;
      if (sps_case()) run_case(ctx, dir, &cases[m], k);
    }
  if (!all && sps_case())
    sps_skip("the large matrices with the other configurations (GPU, or SPS_TEST_LARGE)");
  sps_context_destroy(&ctx);
  return sps_done();
}
