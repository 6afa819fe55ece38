/* cg.c: the preconditioned conjugate gradient method for symmetric positive definite A. */
#include <math.h>

#include "solver_internal.h"

/*
 * Preconditioned CG (Hestenes and Stiefel 1952; Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., Algorithm 9.1), for A and M symmetric positive definite:
 *
 *   r_0 = b - A x_0,  z_0 = M^-1 r_0,  p_0 = z_0
 *   for j = 0, 1, ...
 *     q_j       = A p_j
 *     alpha_j   = (r_j, z_j) / (p_j, q_j)
 *     x_{j+1}   = x_j + alpha_j p_j
 *     r_{j+1}   = r_j - alpha_j q_j
 *     z_{j+1}   = M^-1 r_{j+1}
 *     beta_j    = (r_{j+1}, z_{j+1}) / (r_j, z_j)
 *     p_{j+1}   = z_{j+1} + beta_j p_j
 *
 * Stopping test: ||r_j|| <= max(rtol*||b||, atol), on the unpreconditioned recurrence
 * residual. When the recurrence claims convergence the true residual b - Ax is recomputed;
 * if it does not pass, r is replaced by it and the iteration restarts from p = M^-1 r.
 *
 * Breakdowns: (p, Ap) <= 0 means A is not positive definite (SPS_DIVERGED_INDEFINITE_MATRIX);
 * (r, M^-1 r) < 0 means M is not (SPS_DIVERGED_INDEFINITE_PRECOND); NaN or Inf in a norm or
 * an inner product gives SPS_DIVERGED_NAN.
 *
 * Cost per iteration: one SpMV, one preconditioner apply, two inner products and one norm
 * (without preconditioner (r, z) = ||r||^2, so one inner product and no norm), three updates.
 */

typedef struct cg_work {
  double *z; /* M^-1 r (unused, z = r, without preconditioner) */
  double *p; /* search direction */
  double *q; /* A p */
} cg_work;

static void cg_destroy(sps_solver *s)
{
  cg_work *w = s->work;
  if (!w) return;
  sps_solver_vec_free(s, &w->z);
  sps_solver_vec_free(s, &w->p);
  sps_solver_vec_free(s, &w->q);
  sps_host_free(w);
  s->work = NULL;
}

static sps_status cg_setup(sps_solver *s)
{
  sps_status st = SPS_SUCCESS;
  cg_work *w;
  SPS_CHECK(sps_host_calloc(s->ctx, (void **)&w, 1, sizeof *w, "CG work space"));
  s->work = w;
  if (!sps_precond_is_identity(s->pc)) SPS_TRY(sps_solver_vec_alloc(s, &w->z, "CG z"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->p, "CG p"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->q, "CG q"));
cleanup:
  if (st) cg_destroy(s);
  return st;
}

/* z <- M^-1 r, rz <- (r, z), rnorm <- ||r||. */
static sps_status cg_precondition(sps_solver *s, const double *r, double *z, double *rz,
                                  double *rnorm)
{
  sps_context *ctx = s->ctx;
  if (z == r) {
    SPS_CHECK(ctx->be->dot(ctx, s->n, r, r, rz));
    *rnorm = sqrt(*rz);
    return SPS_SUCCESS;
  }
  SPS_CHECK(sps_precond_apply(s->pc, r, z));
  SPS_CHECK(ctx->be->dot(ctx, s->n, r, z, rz));
  return ctx->be->nrm2(ctx, s->n, r, rnorm);
}

static sps_status cg_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const sps_solver_fused *fu = s->fused;
  cg_work *w = s->work;
  const int64_t n = s->n;
  double *r = s->r, *p = w->p, *q = w->q;
  double *z = w->z ? w->z : r;
  double rz, rnorm = rnorm0;
  int it = 0;

  /* z <- M^-1 r, p <- z */
  SPS_CHECK(cg_precondition(s, r, z, &rz, &rnorm));
  if (sps_solver_bad(rz)) {
    s->reason = SPS_DIVERGED_NAN;
    return SPS_SUCCESS;
  }
  if (rz < 0.0) {
    s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
    return SPS_SUCCESS;
  }
  SPS_CHECK(be->copy(ctx, n, z, p));

  s->reason = SPS_DIVERGED_MAX_ITERATIONS;
  while (it < s->maxit) {
    double pq, rr = 0.0;
    /* q <- A p */
    SPS_CHECK(sps_spmv_apply_raw(s->plan, 1.0, p, 0.0, q));
    SPS_CHECK(be->dot(ctx, n, p, q, &pq));
    if (sps_solver_bad(pq)) {
      s->reason = SPS_DIVERGED_NAN;
      break;
    }
    if (pq <= 0.0) {
      s->reason = SPS_DIVERGED_INDEFINITE_MATRIX;
      break;
    }
    const double alpha = rz / pq;
    /* x <- x + alpha*p, r <- r - alpha*q */
    if (fu && fu->cg_step_2) {
      SPS_CHECK(fu->cg_step_2(ctx, n, alpha, p, q, x, r, &rr));
    } else {
      SPS_CHECK(be->axpy(ctx, n, alpha, p, x));
      SPS_CHECK(be->axpy(ctx, n, -alpha, q, r));
    }
    it++;
    /* z <- M^-1 r; rz_new <- (r, z) (the fused step already gave r.r, which is (r, z) when z = r)
     */
    double rz_new;
    if (fu && fu->cg_step_2 && z == r) {
      rz_new = rr;
      rnorm = sqrt(rr);
    } else {
      SPS_CHECK(cg_precondition(s, r, z, &rz_new, &rnorm));
    }
    sps_solver_record(s, it, rnorm);
    if (sps_solver_bad(rnorm) || sps_solver_bad(rz_new)) {
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
      /* The recurrence drifted from b - Ax: restart from the true residual, p <- M^-1 r. */
      SPS_CHECK(cg_precondition(s, r, z, &rz, &rnorm));
      if (rz < 0.0) {
        s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
        break;
      }
      SPS_CHECK(be->copy(ctx, n, z, p));
      continue;
    }
    if (rz_new < 0.0) {
      s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
      break;
    }
    const double beta = rz_new / rz;
    rz = rz_new;
    /* p <- z + beta*p */
    if (fu && fu->cg_step_1)
      SPS_CHECK(fu->cg_step_1(ctx, n, beta, z, p));
    else
      SPS_CHECK(be->axpby(ctx, n, 1.0, z, beta, p));
  }
  s->iterations = it;
  return SPS_SUCCESS;
}

const sps_solver_method sps_solver_method_cg = {
    .type = SPS_SOLVER_CG,
    .name = "cg",
    .setup = cg_setup,
    .solve = cg_solve,
    .destroy = cg_destroy,
};
