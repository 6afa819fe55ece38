/* bicgstab.c: BiCGSTAB with right preconditioning, for nonsymmetric A. */
#include <math.h>

#include "solver_internal.h"

/*
 * BiCGSTAB (van der Vorst, SIAM J. Sci. Stat. Comput. 13(2), 1992; Saad, Iterative Methods
 * for Sparse Linear Systems, 2nd ed., Algorithm 7.7), right preconditioned so that r is the
 * true residual b - Ax:
 *
 *   r_0 = b - A x_0,  rhat = r_0,  p_0 = r_0
 *   for j = 0, 1, ...
 *     rho_j   = (rhat, r_j);   p_j = r_j + beta_{j-1} (p_{j-1} - omega_{j-1} v_{j-1}) for j > 0,
 *               beta_{j-1} = (rho_j / rho_{j-1}) (alpha_{j-1} / omega_{j-1})
 *     phat    = M^-1 p_j,  v_j = A phat
 *     alpha_j = rho_j / (rhat, v_j)
 *     s       = r_j - alpha_j v_j
 *     shat    = M^-1 s,    t = A shat
 *     omega_j = (t, s) / (t, t)
 *     x_{j+1} = x_j + alpha_j phat + omega_j shat
 *     r_{j+1} = s - omega_j t
 *
 * Stopping test: ||r|| <= max(rtol*||b||, atol), checked on s (half step: x gets only the
 * alpha phat update) and on r_{j+1}. A claimed convergence is confirmed on the true
 * residual; if it fails, r is replaced by it and the iteration restarts (rhat = p = r).
 *
 * Breakdowns: rho_j = 0, (rhat, v_j) = 0 or omega_j = 0 (also (t, t) = 0) stop with
 * SPS_DIVERGED_BREAKDOWN unless the true residual already meets the tolerance.
 *
 * Cost per iteration: two SpMV, two preconditioner applies, four inner products, two norms.
 */

typedef struct bicgstab_work {
  double *rhat; /* the shadow residual */
  double *p, *v, *sv, *t;
  double *phat, *shat; /* M^-1 p, M^-1 s (unused without preconditioner) */
} bicgstab_work;

static void bicgstab_destroy(sps_solver *s)
{
  bicgstab_work *w = s->work;
  if (!w) return;
  sps_solver_vec_free(s, &w->rhat);
  sps_solver_vec_free(s, &w->p);
  sps_solver_vec_free(s, &w->v);
  sps_solver_vec_free(s, &w->sv);
  sps_solver_vec_free(s, &w->t);
  sps_solver_vec_free(s, &w->phat);
  sps_solver_vec_free(s, &w->shat);
  sps_host_free(w);
  s->work = NULL;
}

static sps_status bicgstab_setup(sps_solver *s)
{
  sps_status st = SPS_SUCCESS;
  bicgstab_work *w;
  SPS_CHECK(sps_host_calloc(s->ctx, (void **)&w, 1, sizeof *w, "BiCGSTAB work space"));
  s->work = w;
  SPS_TRY(sps_solver_vec_alloc(s, &w->rhat, "BiCGSTAB rhat"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->p, "BiCGSTAB p"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->v, "BiCGSTAB v"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->sv, "BiCGSTAB s"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->t, "BiCGSTAB t"));
  if (!sps_precond_is_identity(s->pc)) {
    SPS_TRY(sps_solver_vec_alloc(s, &w->phat, "BiCGSTAB M^-1 p"));
    SPS_TRY(sps_solver_vec_alloc(s, &w->shat, "BiCGSTAB M^-1 s"));
  }
cleanup:
  if (st) bicgstab_destroy(s);
  return st;
}

/* A breakdown: converged if the true residual already passes, else SPS_DIVERGED_BREAKDOWN. */
static sps_status bicgstab_breakdown(sps_solver *s, const double *b, const double *x)
{
  double tn;
  sps_reason reason;
  SPS_CHECK(sps_solver_confirm(s, b, x, s->r, &tn, &reason));
  s->reason = reason != SPS_REASON_NONE ? reason : SPS_DIVERGED_BREAKDOWN;
  return SPS_SUCCESS;
}

static sps_status bicgstab_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const sps_solver_fused *fu = s->fused;
  bicgstab_work *w = s->work;
  const int64_t n = s->n;
  double *r = s->r, *rhat = w->rhat, *p = w->p, *v = w->v, *sv = w->sv, *t = w->t;
  double *phat = w->phat ? w->phat : p;
  double *shat = w->shat ? w->shat : sv;
  double rho_old = 1.0, alpha = 1.0, omega = 1.0, rnorm = rnorm0;
  int it = 0, fresh = 1;

  s->reason = SPS_DIVERGED_MAX_ITERATIONS;
  while (it < s->maxit) {
    double rho, rv, tt, ts, snorm;
    if (fresh) SPS_CHECK(be->copy(ctx, n, r, rhat));
    SPS_CHECK(be->dot(ctx, n, rhat, r, &rho));
    if (sps_solver_bad(rho)) {
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (rho == 0.0) {
      SPS_CHECK(bicgstab_breakdown(s, b, x));
      break;
    }
    if (fresh) {
      /* p <- r */
      SPS_CHECK(be->copy(ctx, n, r, p));
      fresh = 0;
    } else {
      const double beta = (rho / rho_old) * (alpha / omega);
      /* p <- r + beta*(p - omega*v) */
      if (fu && fu->bicgstab_step_1) {
        SPS_CHECK(fu->bicgstab_step_1(ctx, n, beta, omega, r, v, p));
      } else {
        SPS_CHECK(be->axpy(ctx, n, -omega, v, p));
        SPS_CHECK(be->axpby(ctx, n, 1.0, r, beta, p));
      }
    }
    /* phat <- M^-1 p, v <- A phat */
    if (phat != p) SPS_CHECK(sps_precond_apply(s->pc, p, phat));
    SPS_CHECK(sps_spmv_apply_raw(s->plan, 1.0, phat, 0.0, v));
    SPS_CHECK(be->dot(ctx, n, rhat, v, &rv));
    if (sps_solver_bad(rv)) {
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (rv == 0.0) {
      SPS_CHECK(bicgstab_breakdown(s, b, x));
      break;
    }
    alpha = rho / rv;
    /* s <- r - alpha*v */
    SPS_CHECK(be->copy(ctx, n, r, sv));
    SPS_CHECK(be->axpy(ctx, n, -alpha, v, sv));
    SPS_CHECK(be->nrm2(ctx, n, sv, &snorm));
    if (sps_solver_bad(snorm)) {
      it++;
      sps_solver_record(s, it, snorm);
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (sps_solver_test(s, snorm) != SPS_REASON_NONE) {
      /* Half step: x <- x + alpha*phat, then confirm on b - Ax. */
      it++;
      sps_solver_record(s, it, snorm);
      SPS_CHECK(be->axpy(ctx, n, alpha, phat, x));
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm(s, b, x, r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      fresh = 1;
      continue;
    }
    /* shat <- M^-1 s, t <- A shat */
    if (shat != sv) SPS_CHECK(sps_precond_apply(s->pc, sv, shat));
    SPS_CHECK(sps_spmv_apply_raw(s->plan, 1.0, shat, 0.0, t));
    SPS_CHECK(be->dot(ctx, n, t, t, &tt));
    SPS_CHECK(be->dot(ctx, n, t, sv, &ts));
    if (sps_solver_bad(tt) || sps_solver_bad(ts)) {
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (tt == 0.0) {
      /* t = A M^-1 s = 0: omega is undefined; keep the half step and stop. */
      it++;
      sps_solver_record(s, it, snorm);
      SPS_CHECK(be->axpy(ctx, n, alpha, phat, x));
      SPS_CHECK(bicgstab_breakdown(s, b, x));
      break;
    }
    omega = ts / tt;
    /* x <- x + alpha*phat + omega*shat, r <- s - omega*t */
    if (fu && fu->bicgstab_step_2) {
      SPS_CHECK(fu->bicgstab_step_2(ctx, n, alpha, omega, phat, shat, sv, t, x, r));
    } else {
      SPS_CHECK(be->axpy(ctx, n, alpha, phat, x));
      SPS_CHECK(be->axpy(ctx, n, omega, shat, x));
      SPS_CHECK(be->copy(ctx, n, sv, r));
      SPS_CHECK(be->axpy(ctx, n, -omega, t, r));
    }
    it++;
    SPS_CHECK(be->nrm2(ctx, n, r, &rnorm));
    sps_solver_record(s, it, rnorm);
    if (sps_solver_bad(rnorm)) {
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (sps_solver_test(s, rnorm) != SPS_REASON_NONE) {
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm(s, b, x, r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      fresh = 1;
      continue;
    }
    if (omega == 0.0) {
      SPS_CHECK(bicgstab_breakdown(s, b, x));
      break;
    }
    rho_old = rho;
  }
  s->iterations = it;
  return SPS_SUCCESS;
}

const sps_solver_method sps_solver_method_bicgstab = {
    .type = SPS_SOLVER_BICGSTAB,
    .name = "bicgstab",
    .setup = bicgstab_setup,
    .solve = bicgstab_solve,
    .destroy = bicgstab_destroy,
};
