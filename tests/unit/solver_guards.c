/* solver_guards.c: the solver's guards against wrong answers: b and x the same vector refused, the initial guess honoured, the GMRES restart capped at n, the divergence tolerance (in the device-driven steps and at GMRES cycle ends), and breakdowns told from real NaN.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each method, restart, matrix or SpMV variant of a
 * test is a case. */
#include <float.h>

#include "model_problems.h"
#include "../../solvers/solver_internal.h"

#define N_MAX 1024

/* Make a solver of the named method and preconditioner, set up on A. */
static sps_solver *make_solver(sps_context *ctx, const char *method, sps_precond_type pc,
                               const sps_matrix *A)
{
  sps_solver *s;
  if (sps_solver_create_by_name(ctx, &s, method)) sps_bail("solver: %s", sps_context_last_error(ctx));
  sps_solver_set_precond(s, pc);
  if (sps_solver_setup(s, A)) sps_bail("setup %s: %s", method, sps_context_last_error(ctx));
  return s;
}

/* x and b the same vector: refused with an argument error naming both, b untouched; the
 * same for the SpMV's x and y. */
static void test_aliasing(sps_context *ctx, const sps_matrix *L, const sps_matrix *C)
{
  static const char *methods[] = {"cg", "gmres", "bicgstab", "auto"};
  int64_t n;
  sps_matrix_get_size(C, &n, NULL, NULL);
  static double before[N_MAX], after[N_MAX];
  sps_rng rng = {5};
  for (int64_t i = 0; i < n; i++) before[i] = sps_rng_uniform(&rng);
  for (int m = 0; m < 4; m++) {
    if (!sps_case()) continue;
    sps_solver *s = make_solver(ctx, methods[m], SPS_PRECOND_AUTO, m == 0 ? L : C);
    sps_vector *b;
    sps_vector_create(ctx, &b, n);
    sps_vector_upload(b, before, n);
    const sps_status st = sps_solver_solve(s, b, b);
    const char *msg = sps_context_last_error(ctx);
    sps_vector_download(b, after, n);
    sps_ok(st == SPS_ERR_ARGUMENT && strstr(msg, "'b'") && strstr(msg, "'x'") &&
               !memcmp(before, after, (size_t)n * sizeof *before),
           "%s: solve(s, b, b) is %s (\"%s\"), b unchanged", methods[m], sps_status_name(st), msg);
    sps_vector_destroy(&b);
    sps_solver_destroy(&s);
  }
  if (!sps_case()) return;
  sps_spmv_plan *p;
  sps_vector *x;
  sps_spmv_plan_create(ctx, &p, C, SPS_SPMV_AUTO);
  sps_spmv_plan_setup(p);
  sps_vector_create(ctx, &x, n);
  const sps_status st = sps_spmv_apply(p, 1.0, x, 0.0, x);
  sps_ok(st == SPS_ERR_ARGUMENT, "spmv_apply(x, x) is %s", sps_status_name(st));
  sps_vector_destroy(&x);
  sps_spmv_plan_destroy(&p);
}

/* Solve from the host vector x0 (NULL: zeros) with rtol; returns the iterations. */
static int solve_from(sps_context *ctx, sps_solver *s, const double *b, const double *x0,
                      double *x, int64_t n, sps_reason *reason)
{
  sps_vector *vb, *vx;
  sps_vector_create(ctx, &vb, n);
  sps_vector_create(ctx, &vx, n);
  sps_vector_upload(vb, b, n);
  if (x0) sps_vector_upload(vx, x0, n);
  if (sps_solver_solve(s, vb, vx)) sps_bail("solve: %s", sps_context_last_error(ctx));
  int its;
  sps_solver_get_iterations(s, &its);
  sps_solver_get_reason(s, reason);
  sps_vector_download(vx, x, n);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  return its;
}

/*
 * The initial guess: x on entry. From a solution (solved to rtol 1e-10 first) the solve to
 * rtol 1e-8 takes 0 iterations and returns it unchanged; from a guess near it, fewer
 * iterations than from 0; from a guess with a NaN, DIVERGED_NAN at once.
 */
static void test_initial_guess(sps_context *ctx, const sps_matrix *L, const sps_matrix *C)
{
  static const char *methods[] = {"cg", "gmres", "bicgstab", "auto"};
  int64_t n;
  sps_matrix_get_size(C, &n, NULL, NULL);
  static double b[N_MAX], xsol[N_MAX], x[N_MAX], near[N_MAX], pert[N_MAX];
  sps_rng rng = {9};
  for (int64_t i = 0; i < n; i++) b[i] = sps_rng_uniform(&rng);
  for (int m = 0; m < 4; m++) {
    /* the guess's perturbation below, drawn in every shard: each method sees the whole run's */
    for (int64_t i = 0; i < n; i++)
      pert[i] = 1.0 + 1e-4 * sps_rng_uniform(&rng);
    if (!sps_case()) continue;
    const sps_matrix *A = m == 0 ? L : C;
    sps_solver *s = make_solver(ctx, methods[m], SPS_PRECOND_AUTO, A);
    sps_reason r0, r1, r2, r3;
    sps_solver_set_tolerances(s, 1e-10, 0.0);
    solve_from(ctx, s, b, NULL, xsol, n, &r0);
    sps_solver_set_tolerances(s, 1e-8, 0.0);
    const int its_zero = solve_from(ctx, s, b, NULL, x, n, &r1);
    const int its_sol = solve_from(ctx, s, b, xsol, x, n, &r2);
    const int same = !memcmp(x, xsol, (size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
      near[i] = xsol[i] * pert[i];
    const int its_near = solve_from(ctx, s, b, near, x, n, &r3);
    sps_ok(r0 > 0 && r1 > 0 && r2 == SPS_CONVERGED_RTOL && its_sol == 0 && same,
           "%s: from the solution, %s in %d iterations, x returned unchanged", methods[m],
           sps_reason_name(r2), its_sol);
    sps_ok(r3 > 0 && its_near < its_zero && sps_test_relres(A, b, x) <= 1.0001e-8,
           "%s: from a guess 1e-4 off the solution, %d iterations, from 0 %d", methods[m],
           its_near, its_zero);
    near[n / 2] = NAN;
    sps_reason r4;
    const int its_nan = solve_from(ctx, s, b, near, x, n, &r4);
    sps_ok(r4 == SPS_DIVERGED_NAN && its_nan == 0, "%s: from a guess with a NaN, %s in %d iterations",
           methods[m], sps_reason_name(r4), its_nan);
    sps_solver_destroy(&s);
  }
}

/* GMRES(m) with m > n runs with m = n, says so, and converges; m <= n is kept. */
static void test_restart_cap(sps_context *ctx)
{
  sps_matrix *A = sps_test_conv_diff_or_bail(ctx, 3, 0.5, 4.0, 1.0); /* n = 9 */
  static const int restarts[] = {30, 9, 5};
  static const int used_want[] = {9, 9, 5};
  for (int k = 0; k < 3; k++) {
    if (!sps_case()) continue;
    sps_solver *s;
    sps_solver_create(ctx, &s, SPS_SOLVER_GMRES);
    sps_solver_set_precond(s, SPS_PRECOND_NONE);
    sps_solver_set_restart(s, restarts[k]);
    int before = 0, after = 0;
    sps_solver_get_restart(s, &before);
    if (sps_solver_setup(s, A)) sps_bail("setup: %s", sps_context_last_error(ctx));
    sps_solver_get_restart(s, &after);
    double b[9], x[9];
    for (int i = 0; i < 9; i++) b[i] = 1.0 + i;
    sps_reason r;
    const int its = solve_from(ctx, s, b, NULL, x, 9, &r);
    sps_ok(before == restarts[k] && after == used_want[k] && r > 0 && its <= 9 + 1,
           "GMRES restart %d on n = 9: %d in use after setup (%d before), %s in %d iterations",
           restarts[k], after, before, sps_reason_name(r), its);
    sps_solver_destroy(&s);
  }
  sps_matrix_destroy(&A);
}

/*
 * The divergence tolerance. CG on a nonsymmetric operator (whose residual grows) and BiCGSTAB
 * on a convection-dominated indefinite one run to maxit with dtol = Inf; with dtol = 10 they
 * stop with DIVERGED_DTOL exactly when their residual has stayed above 10 ||b|| for
 * SPS_DTOL_ITERATIONS iterations (checked against the history), the true residual confirming.
 * The CPU backend runs the same device-driven steps as the GPU, so this is the test inside
 * the batches.
 */
static void test_dtol(sps_context *ctx)
{
  struct {
    const char *method;
    double c, d;
  } cases[] = {{"cg", 0.5, 4.0}, {"bicgstab", 2.0, 0.5}};
  for (int k = 0; k < 2; k++) {
    if (!sps_case()) continue;
    sps_matrix *A = sps_test_conv_diff_or_bail(ctx, 10, cases[k].c, cases[k].d, 1.0);
    double b[100], x[100];
    for (int i = 0; i < 100; i++) b[i] = 1.0;
    const double bnorm = 10.0;
    for (int pass = 0; pass < 2; pass++) {
      sps_solver *s;
      sps_solver_create_by_name(ctx, &s, cases[k].method);
      sps_solver_set_precond(s, SPS_PRECOND_NONE);
      sps_solver_set_max_iterations(s, 2000);
      sps_solver_set_history(s, 1);
      sps_solver_set_dtol(s, pass == 0 ? INFINITY : 10.0);
      if (sps_solver_setup(s, A)) sps_bail("setup: %s", sps_context_last_error(ctx));
      sps_reason r;
      const int its = solve_from(ctx, s, b, NULL, x, 100, &r);
      const double *h;
      int nh;
      double res_abs;
      sps_solver_get_history(s, &h, &nh);
      sps_solver_get_residual(s, &res_abs, NULL);
      if (pass == 0) {
        sps_ok(r == SPS_DIVERGED_MAX_ITERATIONS && its == 2000,
               "%s, dtol inf: %s after %d iterations (the residual is let grow)", cases[k].method,
               sps_reason_name(r), its);
      } else {
        int rule = nh == its + 1 && its >= SPS_DTOL_ITERATIONS;
        for (int i = its - SPS_DTOL_ITERATIONS + 1; rule && i <= its; i++)
          rule = h[i] > 10.0 * bnorm;
        rule = rule && !(h[its - SPS_DTOL_ITERATIONS] > 10.0 * bnorm);
        sps_ok(r == SPS_DIVERGED_DTOL && its < 2000 && rule && res_abs > 10.0 * bnorm,
               "%s, dtol 10: %s after %d iterations, the last %d above 10 ||b|| and not the one "
               "before, true residual %.3g > %.3g",
               cases[k].method, sps_reason_name(r), its, SPS_DTOL_ITERATIONS, res_abs,
               10.0 * bnorm);
      }
      sps_solver_destroy(&s);
    }
    sps_matrix_destroy(&A);
  }
  if (!sps_case()) return;
  sps_solver *s;
  sps_solver_create(ctx, &s, SPS_SOLVER_CG);
  const sps_status a = sps_solver_set_dtol(s, 0.5), b = sps_solver_set_dtol(s, NAN),
                   c = sps_solver_set_dtol(s, INFINITY), d = sps_solver_set_dtol(s, 1.0);
  sps_ok(a == SPS_ERR_ARGUMENT && b == SPS_ERR_ARGUMENT && c == SPS_SUCCESS && d == SPS_SUCCESS,
         "set_dtol refuses 0.5 and NaN, takes Inf and 1");
  /* GMRES's test at cycle ends: above the bound for SPS_DTOL_ITERATIONS iterations. */
  s->dtol_abs = 100.0;
  int since = -1, fired_at = -1;
  const double norms[] = {50, 150, 150, 90, 200, 300, 400, 500};
  for (int k = 0; k < 8 && fired_at < 0; k++)
    if (sps_solver_dtol_cycle(s, norms[k], 30 * (k + 1), &since)) fired_at = 30 * (k + 1);
  sps_ok(fired_at == 7 * 30, "GMRES cycle ends above dtol from iteration 150 on: DTOL at %d (210)",
         fired_at);
  sps_solver_destroy(&s);
}

/*
 * NaN only for a real NaN. A = [[1,1,0],[1,1,1],[0,1,1]] is nonsingular but its LU has the
 * pivot u22 = 0: ILU(0) with pivot.tol = 0 gives an M^-1 r of Inf and NaN. Every method
 * then stops with x finite (the last finite iterate, here x0 = 0) and a finite residual: a
 * breakdown, not DIVERGED_NAN. A NaN in A gives a NaN residual: DIVERGED_NAN.
 */
static void test_breakdown_not_nan(sps_context *ctx)
{
  const int64_t rp[] = {0, 2, 5, 7};
  const int32_t ci[] = {0, 1, 0, 1, 2, 1, 2};
  const double va[] = {1, 1, 1, 1, 1, 1, 1};
  const double vn[] = {1, 1, 1, NAN, 1, 1, 1};
  sps_matrix *A, *An;
  if (sps_matrix_create_csr(ctx, &A, 3, 3, rp, ci, va) ||
      sps_matrix_create_csr(ctx, &An, 3, 3, rp, ci, vn))
    sps_bail("matrices");
  static const char *methods[] = {"cg", "gmres", "bicgstab"};
  const double b[3] = {1, 2, 3};
  for (int m = 0; m < 3; m++) {
    if (!sps_case()) continue;
    sps_solver *s;
    sps_solver_create_by_name(ctx, &s, methods[m]);
    sps_solver_set_precond(s, SPS_PRECOND_ILU0);
    sps_solver_set_precond_param(s, "pivot.tol", 0.0);
    sps_solver_set_precond_param(s, "matching", 0);
    sps_solver_set_precond_param(s, "scaling", 0);
    if (sps_solver_setup(s, A)) sps_bail("setup: %s", sps_context_last_error(ctx));
    double x[3];
    sps_reason r;
    solve_from(ctx, s, b, NULL, x, 3, &r);
    double res;
    sps_solver_get_residual(s, &res, NULL);
    sps_ok(r == SPS_DIVERGED_BREAKDOWN && isfinite(res) && isfinite(x[0]) && isfinite(x[1]) &&
               isfinite(x[2]),
           "%s with an ILU(0) of zero pivot: %s, residual %g, x finite", methods[m],
           sps_reason_name(r), res);
    sps_solver_destroy(&s);
    sps_solver_create_by_name(ctx, &s, methods[m]);
    sps_solver_set_precond(s, SPS_PRECOND_NONE);
    if (sps_solver_setup(s, An)) sps_bail("setup: %s", sps_context_last_error(ctx));
    solve_from(ctx, s, b, NULL, x, 3, &r);
    sps_ok(r == SPS_DIVERGED_NAN, "%s with a NaN in A: %s", methods[m], sps_reason_name(r));
    sps_solver_destroy(&s);
  }
  sps_matrix_destroy(&A);
  sps_matrix_destroy(&An);
}

/*
 * The true residual is the compensated CSR product's whatever the SpMV variant. coo and hyb add
 * in atomic (here: entry) order, so b - Ax of row 1 below, 2 - 1e20 + 1e20, came out 0: from x0
 * with ||b - A x0|| = 2 the solve reported SPS_CONVERGED_ATOL at once (the solver fuzz target's
 * oracle found the case).
 */
static void test_true_residual_any_variant(sps_context *ctx)
{
  /* 3 x 3: row 0 empty; row 1: a_10 = 0 (stored), a_11 = 1, a_12 = -1; row 2: a_20 = -1,
   * a_22 = -6.75. x0 = (0, 1e20, 1e20): A x0 = (0, 0, -6.75e20), b = A x0 + (0, 2, 0). */
  const int64_t rp[4] = {0, 0, 3, 5};
  const int32_t ci[5] = {0, 1, 2, 0, 2};
  const double va[5] = {0.0, 1.0, -1.0, -1.0, -6.75};
  const double hb[3] = {0.0, 2.0, -6.75e20}, hx0[3] = {0.0, 1e20, 1e20};
  static const sps_spmv_kind kinds[] = {SPS_SPMV_COO, SPS_SPMV_HYB, SPS_SPMV_CSR_SCALAR};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (!sps_case()) continue;
    sps_matrix *A;
    sps_solver *s;
    sps_vector *b, *x;
    if (sps_matrix_create_csr(ctx, &A, 3, 3, rp, ci, va) ||
        sps_solver_create(ctx, &s, SPS_SOLVER_GMRES) || sps_solver_set_precond(s, SPS_PRECOND_NONE) ||
        sps_solver_set_tolerances(s, 0.0, 1e-8) || sps_solver_set_max_iterations(s, 1) ||
        sps_solver_set_spmv(s, kinds[k], 0) || sps_solver_setup(s, A) ||
        sps_vector_create(ctx, &b, 3) || sps_vector_create(ctx, &x, 3) ||
        sps_vector_upload(b, hb, 3) || sps_vector_upload(x, hx0, 3))
      sps_bail("%s", sps_context_last_error(ctx));
    if (sps_solver_solve(s, b, x)) sps_bail("%s", sps_context_last_error(ctx));
    sps_reason reason;
    double abs, rel, hx[3];
    sps_solver_get_reason(s, &reason);
    sps_solver_get_residual(s, &abs, &rel);
    sps_vector_download(x, hx, 3);
    const double host = sps_test_relres(A, hb, hx) * sps_test_norm2_scaled(hb, 3);
    sps_ok(reason < 0 && abs >= 1.0 && fabs(abs - host) <= 1e-12 * host,
           "%s: b - A x0 = (0, 2, 0) where the products cancel: %s, ||b - Ax|| = %.3g (host %.3g)",
           sps_spmv_kind_name(kinds[k]), sps_reason_name(reason), abs, host);
    sps_vector_destroy(&b);
    sps_vector_destroy(&x);
    sps_solver_destroy(&s);
    sps_matrix_destroy(&A);
  }
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  sps_matrix *L = sps_test_conv_diff_or_bail(ctx, 12, 0.0, 4.0, 1.0);
  sps_matrix *C = sps_test_conv_diff_or_bail(ctx, 12, 0.5, 4.0, 1.0);
  test_aliasing(ctx, L, C);
  test_initial_guess(ctx, L, C);
  test_restart_cap(ctx);
  test_dtol(ctx);
  test_breakdown_not_nan(ctx);
  test_true_residual_any_variant(ctx);
  sps_matrix_destroy(&L);
  sps_matrix_destroy(&C);
  if (sps_context_destroy(&ctx) != SPS_SUCCESS) sps_bail("context destroy: objects left alive");
  return sps_done();
}
