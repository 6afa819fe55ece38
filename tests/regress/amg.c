/* amg.c: CG with the multigrid preconditioner on the shared SPD matrices, b = A*ones, against the iteration counts recorded on the CPU; the GPU run (amg-cuda.sh) shares them. */
#include "../testlib.h"

/*
 * Each case: CG + AMG (the defaults), b = A*ones, x_0 = 0, rtol 1e-8, at most 2,000
 * iterations. Checked: the reason is SPS_CONVERGED_RTOL; the true relative residual, as
 * reported and as recomputed here on the host from the downloaded x, is <= 1e-8; the
 * iteration count equals the recorded one exactly (every operation of the cycle is an SpMV
 * or a backend vector operation that rounds alike on both devices, and the hierarchy is
 * built on the host, so the GPU must take the same count; tests/regress/solvers.c says why a
 * compensated sum may still, rarely, round differently). laplacian7pt_100 is given as stored
 * (negative definite): the solver solves (-A) x = -b and the hierarchy is built on -A.
 * The counts of PyAMG's smoothed aggregation and hypre's BoomerAMG on the same systems are in
 * ../shared/CONVERGENCE.md; doc/performance.md compares them.
 * G3_circuit (1.6M rows) takes about 10 s of the 2-core build machine; an optional argument
 * selects the cases whose file name contains it.
 */
typedef struct amg_case {
  const char *file;
  int expected; /* iterations, recorded on the CPU backend */
} amg_case;

static const amg_case cases[] = {
    {"1138_bus.mtx.gz", 13}, {"G3_circuit.mtx.gz", 11},       {"bcsstk13.mtx.gz", 229},
    {"bcsstk14.mtx.gz", 70}, {"laplacian7pt_100.mtx.gz", 10}, {"nos3.mtx.gz", 23},
};

static void run_case(sps_context *ctx, const char *dir, const amg_case *c)
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
      sps_solver_set_precond(s, SPS_PRECOND_AMG))
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
  sps_diag("%s: %s, %d iterations, relative residual %.3g (host %.3g), %d levels, operator "
           "complexity %.3f, setup %.3f s, solve %.3f s",
           c->file, sps_reason_name(reason), its, rel, hrel, pi.amg_levels,
           pi.amg_operator_complexity, tsetup, tsolve);
  sps_ok(st == SPS_SUCCESS && reason == SPS_CONVERGED_RTOL, "%s cg+amg: %s (%s)", c->file,
         sps_reason_name(reason), st ? sps_context_last_error(ctx) : "solve ok");
  sps_ok(rel <= 1e-8 && hrel <= 1e-8 * (1 + 1e-6),
         "%s cg+amg: true relative residual %.3g, host %.3g <= 1e-8", c->file, rel, hrel);
  sps_ok(its == c->expected, "%s cg+amg: %d iterations, recorded %d", c->file, its, c->expected);

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
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    if (argc < 2 || strstr(cases[k].file, argv[1])) run_case(ctx, dir, &cases[k]);
  sps_context_destroy(&ctx);
  return sps_done();
}
