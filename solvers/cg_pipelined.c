/* cg_pipelined.c: pipelined preconditioned CG (Ghysels and Vanroose), one reduction per iteration started before the preconditioner and the product and finished after them, so that over MPI its exchange runs behind them. */
#include <math.h>

#include "../core/comm.h"
#include "solver_internal.h"

/*
 * Pipelined CG (P. Ghysels and W. Vanroose, "Hiding global synchronization latency in the
 * preconditioned Conjugate Gradient algorithm", Parallel Computing 40(7), 2014, Algorithm 4),
 * for A and M symmetric positive definite. With u = M^-1 r and w = A u kept by recurrences,
 * the two inner products of an iteration, (r, u) and (w, u), depend only on vectors already
 * known when it starts, so they are started (with (r, r) for the stopping test) before the
 * preconditioner and the product the iteration needs next:
 *
 *   r_0 = b - A x_0,  u_0 = M^-1 r_0,  w_0 = A u_0
 *   for i = 0, 1, ...
 *     gamma_i = (r_i, u_i),  delta = (w_i, u_i),  rr = (r_i, r_i)        (start the reduction)
 *     m_i = M^-1 w_i,  n_i = A m_i                                         (while it runs)
 *                                                                          (finish it)
 *     ||r_i|| = sqrt(rr) <= tol: converged (confirmed on b - A x_i)
 *     beta_i = gamma_i / gamma_{i-1},  alpha_i = gamma_i / (delta - beta_i gamma_i / alpha_{i-1})
 *                                      (i = 0: beta_0 = 0, alpha_0 = gamma_0 / delta)
 *     z_i = n_i + beta_i z_{i-1},  q_i = m_i + beta_i q_{i-1},
 *     s_i = w_i + beta_i s_{i-1},  p_i = u_i + beta_i p_{i-1}
 *     x_{i+1} = x_i + alpha_i p_i,  r_{i+1} = r_i - alpha_i s_i,
 *     u_{i+1} = u_i - alpha_i q_i,  w_{i+1} = w_i - alpha_i z_i
 *
 * In exact arithmetic the iterates are CG's (s = A p, q = M^-1 s, z = A q). In floating point
 * the extra recurrences round differently, so the residual drifts further from b - Ax: the
 * iteration count is CG's or one more on well-conditioned matrices, and up to 2.6 times CG's
 * on the ill-conditioned shared SPD matrices, where the recurrence residual stalls above the
 * tolerance and the method restarts (doc/performance.md); a claimed convergence is always
 * confirmed on the true residual, and when it fails the recurrences restart from it.
 *
 * Stopping, divergence and breakdown as CG (solvers/cg.c): ||r_i|| <= max(rtol ||b||, atol);
 * dtol on ||r_i|| for SPS_DTOL_ITERATIONS iterations, confirmed; delta - beta gamma / alpha
 * (which is (p_i, A p_i)) <= 0 is an indefinite A, gamma < 0 an indefinite M, NaN or Inf in a
 * scalar a NaN or a breakdown by the true residual. Since gamma and delta - beta gamma / alpha
 * come from recurrences, a sign test that fails after the first iteration of a (re)start
 * restarts from the true residual instead, and only the first iteration's, computed from
 * r = b - Ax directly, reports indefiniteness. On bcsstk13 with Jacobi the recurrence's
 * residual had drifted to a fifth of the true one when its (p, Ap) turned negative at
 * iteration 1898 (CG converges in 1507); with the restarts pipelined CG converges, in 3283
 * iterations. Replacing the residuals by their true values while keeping the search direction
 * (Cools et al.'s residual replacement) did not help there: beta, from the drifted
 * (r, M^-1 r) of the iteration before, no longer made the direction conjugate.
 *
 * Execution: driven from the host, one iteration at a time. The update of the eight vectors
 * and the local sums of the next iteration's three products are one pass (the backend's
 * pipecg_update); on a distributed context the three sums travel in one MPI_Iallgather
 * (sps_comm_sum_start/finish), which the preconditioner's apply and the halo-exchanging SpMV
 * hide. Each iteration reads three sums back to the host (on a GPU a synchronisation), which
 * the device-driven CG does not; its per-iteration cost and its iteration counts are in
 * doc/performance.md.
 */

typedef struct pcg_work {
  double *u, *w, *m, *nv; /* M^-1 r, A u, M^-1 w (w itself when M = I), A m */
  double *z, *q, *sv, *p; /* the recurrences of A q, M^-1 s, A p, p */
} pcg_work;

static void pcg_destroy(sps_solver *s)
{
  pcg_work *w = s->work;
  if (!w) return;
  if (w->m == w->w) w->m = NULL; /* M = I: m is w */
  sps_solver_vec_free(s, &w->u);
  sps_solver_vec_free(s, &w->w);
  sps_solver_vec_free(s, &w->m);
  sps_solver_vec_free(s, &w->nv);
  sps_solver_vec_free(s, &w->z);
  sps_solver_vec_free(s, &w->q);
  sps_solver_vec_free(s, &w->sv);
  sps_solver_vec_free(s, &w->p);
  sps_host_free(w);
  s->work = NULL;
}

static sps_status pcg_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  sps_status st = SPS_SUCCESS;
  if (!ctx->be->dots_local || !ctx->be->pipecg_update)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "pipelined CG: the %s backend has no pipelined CG steps",
             ctx->be->name);
  pcg_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "pipelined CG work space"));
  s->work = w;
  SPS_TRY(sps_solver_vec_alloc(s, &w->u, "pipelined CG u"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->w, "pipelined CG w"));
  if (sps_precond_is_identity(s->pc))
    w->m = w->w;
  else
    SPS_TRY(sps_solver_vec_alloc(s, &w->m, "pipelined CG m"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->nv, "pipelined CG n"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->z, "pipelined CG z"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->q, "pipelined CG q"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->sv, "pipelined CG s"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->p, "pipelined CG p"));
cleanup:
  if (st) pcg_destroy(s);
  return st;
}

/* z <- M^-1 r (a copy when M = I, unless z is r itself). */
static sps_status pcg_precond(sps_solver *s, const double *r, double *z)
{
  if (sps_precond_is_identity(s->pc)) return z == r ? SPS_SUCCESS : s->ctx->be->copy(s->ctx, s->n, r, z);
  return sps_precond_apply(s->pc, r, z);
}

/* (Re)start from the residual in s->r: u = M^-1 r, w = A u, and start the reduction of
 * (r, u), (w, u), (r, r). */
static sps_status pcg_start(sps_solver *s, pcg_work *w, sps_csum sums[3])
{
  sps_context *ctx = s->ctx;
  SPS_CHECK(pcg_precond(s, s->r, w->u));
  SPS_CHECK(sps_solver_operator(s, w->u, w->w));
  const double *x[3] = {s->r, w->w, s->r}, *y[3] = {w->u, w->u, s->r};
  SPS_CHECK(ctx->be->dots_local(ctx, s->n, 3, x, y, sums));
  return sps_comm_sum_start(ctx, sums, 3);
}

static sps_status pcg_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  pcg_work *w = s->work;
  sps_csum sums[3];
  int it = 0, first = 1, above = 0;
  double gamma_old = 0.0, alpha_old = 0.0, rnorm = rnorm0;
  const double dtol2 = s->dtol_abs * s->dtol_abs;
  s->reason = SPS_REASON_NONE;
  SPS_CHECK(pcg_start(s, w, sums));
  for (;;) {
    /* the reduction runs behind m = M^-1 w and n = A m */
    SPS_CHECK(pcg_precond(s, w->w, w->m));
    SPS_CHECK(sps_solver_operator(s, w->m, w->nv));
    SPS_CHECK(sps_comm_sum_finish(ctx, sums, 3));
    const double gamma = sps_csum_value(sums[0]), delta = sps_csum_value(sums[1]);
    const double rr = sps_csum_value(sums[2]);
    rnorm = sqrt(rr);
    if (it > 0) sps_solver_record(s, it, rnorm);
    if (sps_solver_bad(rr) || sps_solver_bad(gamma) || sps_solver_bad(delta)) {
      SPS_CHECK(sps_solver_nan_reason(s, b, x, s->r, &rnorm, &s->reason));
      break;
    }
    if (it > 0 && sps_solver_test(s, rnorm) != SPS_REASON_NONE) {
      /* the recurrence may have drifted from b - Ax */
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm(s, b, x, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      if (it >= s->maxit) {
        s->reason = SPS_DIVERGED_MAX_ITERATIONS;
        break;
      }
      first = 1;
      above = 0;
      SPS_CHECK(pcg_start(s, w, sums));
      continue;
    }
    if (it >= s->maxit) {
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    }
    if (sps_dtol_exceeded(&above, rr, dtol2)) {
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm_divergence(s, b, x, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      first = 1;
      above = 0;
      SPS_CHECK(pcg_start(s, w, sums));
      continue;
    }
    const double beta = first ? 0.0 : gamma / gamma_old;
    /* (p_i, A p_i) = delta - beta gamma / alpha_old in exact arithmetic */
    const double pap = first ? delta : delta - beta * gamma / alpha_old;
    if (!first && (gamma < 0.0 || (!(pap > 0.0) && !sps_solver_bad(pap)))) {
      /* gamma and pap come from the recurrences, which may have drifted far enough to turn a
       * small positive value negative: restart from the true residual, where (r, M^-1 r) and
       * (A u, u) are computed afresh, and report indefiniteness only there */
      SPS_CHECK(sps_solver_residual(s, b, x, s->r, &rnorm));
      first = 1;
      above = 0;
      SPS_CHECK(pcg_start(s, w, sums));
      continue;
    }
    if (gamma < 0.0) {
      s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
      break;
    }
    if (!(pap > 0.0)) {
      if (sps_solver_bad(pap))
        SPS_CHECK(sps_solver_nan_reason(s, b, x, s->r, &rnorm, &s->reason));
      else
        s->reason = SPS_DIVERGED_INDEFINITE_MATRIX;
      break;
    }
    const double alpha = gamma / pap;
    if (sps_solver_bad(alpha) || sps_solver_bad(beta)) {
      SPS_CHECK(sps_solver_nan_reason(s, b, x, s->r, &rnorm, &s->reason));
      break;
    }
    SPS_CHECK(ctx->be->pipecg_update(ctx, s->n, alpha, beta, w->nv, w->m, w->z, w->q, w->sv, w->p,
                                     x, s->r, w->u, w->w, sums));
    SPS_CHECK(sps_comm_sum_start(ctx, sums, 3));
    it++;
    first = 0;
    gamma_old = gamma;
    alpha_old = alpha;
    if (sps_solver_progress_on(s) && sps_wtime() - s->progress_t >= s->progress_interval &&
        sps_solver_progress(s, it, rnorm)) {
      /* x_it is the iterate reached; the reduction in flight is finished and dropped */
      SPS_CHECK(sps_comm_sum_finish(ctx, sums, 3));
      s->reason = SPS_INTERRUPTED;
      break;
    }
  }
  s->iterations = it;
  return SPS_SUCCESS;
}

const sps_solver_method sps_solver_method_cg_pipelined = {
    .type = SPS_SOLVER_CG,
    .name = "cg",
    .setup = pcg_setup,
    .solve = pcg_solve,
    .destroy = pcg_destroy,
};
