/* ilut_gmres.c: GMRES(30) with the ILUT preconditioner through the public API on the shared nonsymmetric matrices, against SciPy's threshold ILU.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each solve is a case. */
#include "../testlib.h"

/*
 * Each case solves A x = b with b = A*ones, x_0 = 0, rtol 1e-8, GMRES(30), the ILUT
 * preconditioner with its defaults (fill 10, drop 1e-4, pivot 0.1), and checks that the
 * solve converges, that the true relative residual recomputed here is <= 1e-8, and that it
 * takes at most 4 s + 10 iterations, s the count of SciPy's spilu(drop_tol=1e-4,
 * fill_factor=10) + GMRES(30) on the same system (../shared/CONVERGENCE.md, last column).
 * SciPy's ILU runs after an equilibration, a matching and a fill-reducing column order
 * (COLAMD); ILUT here factors the matrix in its own order, so the bound is loose.
 *
 * Then, with drop 0 and fill 1e6 (no dropping), ILUT is an exact LU of A Q: one iteration.
 * olm1000 and 1138_bus have rows with no entry right of the diagonal (whose U entries are
 * all fill); adder_dcop_05 has zero diagonal entries that ILUTP removes by column swaps.
 */
typedef struct ilut_case {
  const char *file;
  int scipy; /* iterations of SciPy's spilu + GMRES(30), CONVERGENCE.md */
} ilut_case;

static const ilut_case cases[] = {
    {"add20.mtx.gz", 4},     {"add32.mtx.gz", 3},     {"adder_dcop_05.mtx.gz", 4},
    {"orsirr_1.mtx.gz", 7},  {"sherman3.mtx.gz", 34}, {"sherman5.mtx.gz", 5},
    {"watt_2.mtx.gz", 30},   {"olm1000.mtx.gz", 16},  {"rajat12.mtx.gz", 4},
    {"ani5_crop.mtx.gz", 4},
};

static const char *const exact_cases[] = {"olm1000.mtx.gz", "1138_bus.mtx.gz",
                                          "adder_dcop_05.mtx.gz"};

/* Solve with GMRES(30) + ILUT (fill, drop; pivot 0.1); returns the iterations, or -1. */
static int solve(sps_context *ctx, const char *dir, const char *file, double fill, double drop,
                 sps_precond_info *info)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: read: %s", file, sps_context_last_error(ctx));
    return -1;
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
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, SPS_SOLVER_GMRES) ||
      sps_solver_set_tolerances(s, 1e-8, 0.0) || sps_solver_set_max_iterations(s, 1000) ||
      sps_solver_set_restart(s, 30) || sps_solver_set_precond(s, SPS_PRECOND_ILUT) ||
      sps_solver_set_precond_param(s, "ilut.fill", fill) ||
      sps_solver_set_precond_param(s, "ilut.drop", drop))
    sps_bail("%s: %s", file, sps_context_last_error(ctx));
  sps_status st = sps_solver_setup(s, A);
  if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
  sps_reason reason = SPS_REASON_NONE;
  sps_solver_type method;
  sps_precond_type pc = SPS_PRECOND_NONE;
  int its = -1;
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  sps_solver_get_method(s, &method, &pc);
  sps_solver_get_precond_info(s, info);
  sps_vector_download(vx, x, n);
  sps_test_host_mv(A, x, r);
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i] - r[i];
  const double rel = sps_test_norm2(r, n) / sps_test_norm2(b, n);
  sps_diag("%s fill %g drop %g: %s, %d iterations, relative residual %.3g, %lld factor "
           "entries, %lld swaps, %lld pivots replaced",
           file, fill, drop, sps_reason_name(reason), its, rel, (long long)info->nnz_factors,
           (long long)info->pivot_swaps, (long long)info->replaced_pivots);
  const int ok =
      st == SPS_SUCCESS && reason == SPS_CONVERGED_RTOL && pc == SPS_PRECOND_ILUT && rel <= 1e-8;
  sps_ok(ok, "%s fill %g drop %g: GMRES + ILUT converges, true residual %.3g <= 1e-8 (%s)", file,
         fill, drop, rel, st ? sps_context_last_error(ctx) : sps_reason_name(reason));
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(ones);
  free(b);
  free(x);
  free(r);
  return ok ? its : -1;
}

int main(void)
{
  const char *dir = sps_test_matrices_dir();
  if (!dir) sps_skip_all("SPS_MATRICES is not set (the shared real matrices)");
  sps_context *ctx = sps_test_context();
  sps_precond_info info;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (!sps_case()) continue;
    const int its = solve(ctx, dir, cases[k].file, 10.0, 1e-4, &info);
    const int bound = 4 * cases[k].scipy + 10;
    sps_ok(its >= 0 && its <= bound, "%s: %d iterations <= %d (SciPy: %d)", cases[k].file, its,
           bound, cases[k].scipy);
  }
  for (size_t k = 0; k < sizeof exact_cases / sizeof exact_cases[0]; k++) {
    if (!sps_case()) continue;
    const int its = solve(ctx, dir, exact_cases[k], 1e6, 0.0, &info);
    sps_ok(its == 1, "%s, no dropping: exact LU, %d iteration (%lld swaps)", exact_cases[k], its,
           (long long)info.pivot_swaps);
  }
  sps_context_destroy(&ctx);
  return sps_done();
}
