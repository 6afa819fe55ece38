/* cg.c: the preconditioned conjugate gradient method for symmetric positive definite A, driven from
 * the device in batches. */
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
 * Divergence: ||r_j|| > dtol*max(||b||, ||r_0||) by the recurrence, confirmed on the true
 * residual (SPS_DIVERGED_DTOL; the iteration restarts from the true residual if that passes).
 *
 * Breakdowns: (p, Ap) <= 0 means A is not positive definite (SPS_DIVERGED_INDEFINITE_MATRIX);
 * (r, M^-1 r) < 0 means M is not (SPS_DIVERGED_INDEFINITE_PRECOND); NaN or Inf in a norm or
 * an inner product gives SPS_DIVERGED_NAN when the true residual of x is NaN or Inf too, and
 * SPS_DIVERGED_BREAKDOWN when it is finite (the scalars overflowed, or M^-1 r did).
 *
 * Execution: one iteration is an SpMV and three fused backend steps (cg_alpha, cg_update,
 * cg_direction; see core/krylov_state.h) whose scalars stay in the backend's memory (on the
 * CPU the product forms (p, q) as it makes q, and cg_alpha_sum takes the sum), so the
 * host issues a batch of iterations without waiting and reads the state back once per
 * batch. A step that finds the state stopped does nothing, so the iteration count is exact
 * however long the batch. Where the backend records graphs, a fixed group of iterations is
 * captured once at setup and replayed. A diagonal preconditioner (Jacobi) is applied inside
 * cg_update; any other one (IC(0), ...) is applied by its own apply between cg_update and the
 * step cg_rz, which forms (r, z) and beta (the state's `deferred` mode), and is captured in
 * the same graph.
 */

/* Iterations captured in one graph, and the longest batch issued between two reads. */
#define CG_GRAPH_ITERATIONS 8
#define CG_MAX_BATCH 1024

typedef struct cg_work {
  double *z;          /* M^-1 r (NULL, z = r, without preconditioner) */
  int general;        /* a preconditioner that is not diagonal: applied between the steps */
  double *p;          /* search direction */
  double *q;          /* A p */
  double *xw;         /* the iterate (x is copied in and out, so graphs see fixed addresses) */
  const double *dinv; /* the preconditioner's inverse diagonal, or NULL */
  int fused_pq;       /* (p, q) formed by the product itself (sps_spmv_apply_dot, CPU) */
  sps_cg_state *S;    /* the scalar state, in the backend's memory */
  double *history;    /* maxit + 1 norms in the backend's memory, or NULL */
  void *graph;        /* CG_GRAPH_ITERATIONS iterations, or NULL */
} cg_work;

static void cg_destroy(sps_solver *s)
{
  cg_work *w = s->work;
  if (!w) return;
  sps_context *ctx = s->ctx;
  if (w->graph) ctx->be->graph_destroy(ctx, w->graph);
  sps_solver_vec_free(s, &w->z);
  sps_solver_vec_free(s, &w->p);
  sps_solver_vec_free(s, &w->q);
  sps_solver_vec_free(s, &w->xw);
  if (w->S) ctx->be->free(ctx, w->S);
  if (w->history) ctx->be->free(ctx, w->history);
  sps_host_free(w);
  s->work = NULL;
}

/* Issue one iteration: q <- A p, the fused steps, and a general preconditioner's apply. */
static sps_status cg_issue(sps_solver *s, void *work)
{
  cg_work *w = work;
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  double *z = w->z ? w->z : s->r;
  if (w->fused_pq) {
    /* q <- A p and (p, q) in one pass, with the bits of the two apart */
    sps_csum pq;
    SPS_CHECK(sps_solver_operator_dot(s, w->p, w->q, &pq));
    SPS_CHECK(be->cg_alpha_sum(ctx, &pq, w->S));
  } else {
    SPS_CHECK(sps_solver_operator(s, w->p, w->q));
    SPS_CHECK(be->cg_alpha(ctx, s->n, w->p, w->q, w->S));
  }
  SPS_CHECK(be->cg_update(ctx, s->n, w->p, w->q, w->dinv, w->xw, s->r, z, w->S));
  if (w->general) {
    /* z <- M^-1 r, then rz <- (r, z) and beta */
    SPS_CHECK(sps_precond_apply(s->pc, s->r, w->z));
    SPS_CHECK(be->cg_rz(ctx, s->n, s->r, w->z, w->S));
  }
  return be->cg_direction(ctx, s->n, z, w->p, w->S);
}

static sps_status cg_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  sps_status st = SPS_SUCCESS;
  if (!be->cg_alpha || !be->cg_update || !be->cg_direction)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "CG: the %s backend has no fused CG steps", be->name);
  const int general = !sps_precond_is_identity(s->pc) && !sps_precond_diagonal_inverse(s->pc);
  if (general && !be->cg_rz)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "CG: the %s backend takes diagonal preconditioners only",
             be->name);
  cg_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "CG work space"));
  s->work = w;
  w->dinv = sps_precond_diagonal_inverse(s->pc);
  w->general = general;
  w->fused_pq = be->cg_alpha_sum && sps_solver_operator_fuses_dot(s);
  if (w->dinv || general) SPS_TRY(sps_solver_vec_alloc(s, &w->z, "CG z"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->p, "CG p"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->q, "CG q"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->xw, "CG x"));
  SPS_TRY(be->malloc(ctx, (void **)&w->S, sizeof *w->S, "CG state"));
  if (s->history_on)
    SPS_TRY(be->malloc(ctx, (void **)&w->history, ((size_t)s->maxit + 1) * sizeof(double),
                       "CG residual history"));
  /* The steps read only the state in S, so the captured iterations serve every solve. */
  SPS_TRY(sps_solver_capture(s, CG_GRAPH_ITERATIONS, cg_issue, w, &w->graph));
cleanup:
  if (st) cg_destroy(s);
  return st;
}

/* Start (or restart) the recurrence from the residual in s->r: z <- M^-1 r, p <- z, rz. */
static sps_status cg_start(sps_solver *s, cg_work *w, sps_cg_state *h, double *rz)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  double *z = w->z ? w->z : s->r;
  if (w->dinv) SPS_CHECK(be->pointwise_mult(ctx, s->n, w->dinv, s->r, z));
  if (w->general) SPS_CHECK(sps_precond_apply(s->pc, s->r, z));
  SPS_CHECK(be->dot(ctx, s->n, s->r, z, rz));
  SPS_CHECK(be->copy(ctx, s->n, z, w->p));
  h->rz = *rz;
  h->above = 0;
  h->status = SPS_CG_RUNNING;
  return be->upload(ctx, w->S, h, sizeof *h);
}

static sps_status cg_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  cg_work *w = s->work;
  sps_cg_state h = {0};
  double rz, rnorm = rnorm0;

  SPS_CHECK(be->copy(ctx, s->n, x, w->xw));
  h.tol2 = s->tol * s->tol;
  h.dtol2 = s->dtol_abs * s->dtol_abs; /* +Inf: no divergence test */
  h.history = w->history;
  h.maxit = s->maxit;
  h.deferred = w->general;
  SPS_CHECK(cg_start(s, w, &h, &rz));
  s->reason = SPS_REASON_NONE;
  if (sps_solver_bad(rz))
    SPS_CHECK(sps_solver_nan_reason(s, b, w->xw, s->r, &rnorm, &s->reason));
  else if (rz < 0.0)
    s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;

  int batch = sps_solver_next_batch(s, CG_GRAPH_ITERATIONS / 2, 0.0, rnorm, 0, CG_GRAPH_ITERATIONS,
                                    CG_MAX_BATCH);
  while (s->reason == SPS_REASON_NONE) {
    if (batch <= 0) {
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    }
    const int it0 = h.it;
    const double rnorm0_batch = rnorm;
    SPS_CHECK(sps_solver_issue_batch(s, w->graph, CG_GRAPH_ITERATIONS, batch, cg_issue, w));
    SPS_CHECK(be->download(ctx, &h, w->S, sizeof h));
    rnorm = sqrt(h.rr);
    if (s->monitor && s->monitor_every > 0 && h.it > it0 && h.it % s->monitor_every == 0)
      sps_solver_monitor(s, h.it, rnorm);
    if (sps_solver_progress(s, h.it, rnorm) && h.status == SPS_CG_RUNNING) {
      s->reason = SPS_INTERRUPTED;
      break;
    }
    const double rate = sps_solver_batch_rate(rnorm0_batch, rnorm, h.it - it0);
    batch = sps_solver_next_batch(s, batch, rate, rnorm, h.it, CG_GRAPH_ITERATIONS, CG_MAX_BATCH);
    switch (h.status) {
    case SPS_CG_RUNNING:
      break;
    case SPS_CG_CONVERGED:   /* the recurrence may have drifted from b - Ax */
    case SPS_CG_DIVERGED: {  /* or only the recurrence grew */
      sps_reason reason;
      if (h.status == SPS_CG_CONVERGED)
        SPS_CHECK(sps_solver_confirm(s, b, w->xw, s->r, &rnorm, &reason));
      else
        SPS_CHECK(sps_solver_confirm_divergence(s, b, w->xw, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      /* The true residual does not confirm it: restart from it. */
      SPS_CHECK(cg_start(s, w, &h, &rz));
      if (rz < 0.0)
        s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
      else if (h.it >= s->maxit)
        s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    }
    case SPS_CG_MAX_ITERATIONS:
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    case SPS_CG_INDEFINITE_MATRIX:
      s->reason = SPS_DIVERGED_INDEFINITE_MATRIX;
      break;
    case SPS_CG_INDEFINITE_PRECOND:
      s->reason = SPS_DIVERGED_INDEFINITE_PRECOND;
      break;
    default: /* NAN: a real NaN in x, or scalars that overflowed (a breakdown) */
      SPS_CHECK(sps_solver_nan_reason(s, b, w->xw, s->r, &rnorm, &s->reason));
      break;
    }
  }
  s->iterations = h.it;
  SPS_CHECK(sps_solver_download_history(s, w->history, h.it));
  return be->copy(ctx, s->n, w->xw, x);
}

const sps_solver_method sps_solver_method_cg = {
    .type = SPS_SOLVER_CG,
    .name = "cg",
    .setup = cg_setup,
    .solve = cg_solve,
    .destroy = cg_destroy,
};
