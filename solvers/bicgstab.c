/* bicgstab.c: right-preconditioned BiCGSTAB, driven from the device in batches. */
#include <math.h>

#include "solver_internal.h"

/*
 * BiCGSTAB (van der Vorst, SIAM J. Sci. Stat. Comput. 13(2), 1992; Saad, Iterative Methods
 * for Sparse Linear Systems, 2nd ed., Algorithm 7.7), right preconditioned so that r is the
 * true residual b - Ax:
 *
 *   r_0 = b - A x_0,  rhat = r_0,  p_0 = r_0,  rho_0 = (rhat, r_0)
 *   for j = 0, 1, ...
 *     phat    = M^-1 p_j,  v_j = A phat
 *     alpha_j = rho_j / (rhat, v_j)
 *     s       = r_j - alpha_j v_j
 *     shat    = M^-1 s,    t = A shat
 *     omega_j = (t, s) / (t, t)
 *     x_{j+1} = x_j + alpha_j phat + omega_j shat
 *     r_{j+1} = s - omega_j t
 *     rho_{j+1} = (rhat, r_{j+1}),  beta_j = (rho_{j+1} / rho_j) (alpha_j / omega_j)
 *     p_{j+1} = r_{j+1} + beta_j (p_j - omega_j v_j)
 *
 * Stopping test: ||r|| <= max(rtol*||b||, atol), checked on s (half step: x gets only the
 * alpha phat update, r = s) and on r_{j+1}, both by the recurrence. A claimed convergence is
 * confirmed on the true residual; if it fails, r is replaced by it and the iteration restarts
 * (rhat = p = r).
 *
 * Divergence: ||r_{j+1}|| > dtol*max(||b||, ||r_0||) by the recurrence, confirmed on the
 * true residual (SPS_DIVERGED_DTOL; a recurrence that alone grew restarts from the truth).
 *
 * Breakdowns: (rhat, v_j) = 0, omega_j = 0 (also (t, t) = 0) or rho_{j+1} = 0, and scalars
 * that overflow (sigma, alpha, omega, beta or a norm NaN or Inf: the steps stop before x
 * takes a step that is not finite). Unless the true residual already meets the tolerance,
 * the iteration restarts from it with a new shadow residual rhat = r (rho_{j+1} = 0 is
 * usually rhat and r grown orthogonal in rounding, which a new rhat cures); a breakdown
 * before any iteration of the new start is final, SPS_DIVERGED_BREAKDOWN. SPS_DIVERGED_NAN
 * only when the true residual b - Ax itself is NaN or Inf.
 *
 * Execution: one iteration is two preconditioner applies and two SpMVs issued by the host and
 * three fused backend steps (bicgstab_step_a, bicgstab_step_b, bicgstab_direction; see
 * core/krylov_state.h) whose scalars stay in the backend's memory, so the host issues a batch
 * of iterations without waiting and reads the state back once per batch. A step that finds
 * the state stopped does nothing (the applies and SpMVs after it only recompute vectors the
 * steps no longer read), so the iteration count is exact however long the batch. Where the
 * backend records graphs, BICGSTAB_GRAPH_ITERATIONS iterations are captured once at setup and
 * replayed; the iterate is copied into a work vector so the graph sees fixed addresses. The
 * batch length adapts to the observed rate of decrease, or stops at the next multiple of the
 * monitor interval. The residual history is written on the device and downloaded at the end.
 * Cost per iteration: two SpMVs, two preconditioner applies, five reductions in three steps.
 */

/* Iterations captured in one graph, and the longest batch issued between two reads. */
#define BICGSTAB_GRAPH_ITERATIONS 4
#define BICGSTAB_MAX_BATCH 1024

typedef struct bicgstab_work {
  double *rhat;           /* the shadow residual */
  double *p, *v, *sv, *t; /* direction, A phat, s, A shat */
  double *phat, *shat;    /* M^-1 p, M^-1 s (NULL without preconditioner: they alias p, s) */
  double *xw;             /* the iterate (x is copied in and out, so graphs see fixed addresses) */
  sps_bicgstab_state *S;  /* the scalar state, in the backend's memory */
  double *history;        /* maxit + 1 norms in the backend's memory, or NULL */
  void *graph;            /* BICGSTAB_GRAPH_ITERATIONS iterations, or NULL */
} bicgstab_work;

static void bicgstab_destroy(sps_solver *s)
{
  bicgstab_work *w = s->work;
  if (!w) return;
  sps_context *ctx = s->ctx;
  if (w->graph) ctx->be->graph_destroy(ctx, w->graph);
  sps_solver_vec_free(s, &w->rhat);
  sps_solver_vec_free(s, &w->p);
  sps_solver_vec_free(s, &w->v);
  sps_solver_vec_free(s, &w->sv);
  sps_solver_vec_free(s, &w->t);
  sps_solver_vec_free(s, &w->phat);
  sps_solver_vec_free(s, &w->shat);
  sps_solver_vec_free(s, &w->xw);
  if (w->S) ctx->be->free(ctx, w->S);
  if (w->history) ctx->be->free(ctx, w->history);
  sps_host_free(w);
  s->work = NULL;
}

/* One iteration: phat <- M^-1 p, v <- A phat, step A, shat <- M^-1 s, t <- A shat, step B, p. */
static sps_status bicgstab_issue(sps_solver *s, void *work)
{
  bicgstab_work *w = work;
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = s->n;
  const double *phat = w->phat ? w->phat : w->p;
  const double *shat = w->shat ? w->shat : w->sv;
  if (w->phat) SPS_CHECK(sps_precond_apply(s->pc, w->p, w->phat));
  SPS_CHECK(sps_solver_operator(s, phat, w->v));
  /* alpha = rho / (rhat, v), s <- r - alpha v */
  SPS_CHECK(be->bicgstab_step_a(ctx, n, w->rhat, w->v, s->r, w->sv, w->S));
  if (w->shat) SPS_CHECK(sps_precond_apply(s->pc, w->sv, w->shat));
  SPS_CHECK(sps_solver_operator(s, shat, w->t));
  /* omega = (t, s) / (t, t), x += alpha phat + omega shat, r <- s - omega t, rho, beta */
  SPS_CHECK(be->bicgstab_step_b(ctx, n, w->t, w->sv, phat, shat, w->rhat, w->xw, s->r, w->S));
  /* p <- r + beta (p - omega v) */
  return be->bicgstab_direction(ctx, n, s->r, w->v, w->p, w->S);
}

static sps_status bicgstab_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  sps_status st = SPS_SUCCESS;
  if (!be->bicgstab_step_a || !be->bicgstab_step_b || !be->bicgstab_direction)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "BiCGSTAB: the %s backend has no BiCGSTAB steps", be->name);
  bicgstab_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "BiCGSTAB work space"));
  s->work = w;
  SPS_TRY(sps_solver_vec_alloc(s, &w->rhat, "BiCGSTAB rhat"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->p, "BiCGSTAB p"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->v, "BiCGSTAB v"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->sv, "BiCGSTAB s"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->t, "BiCGSTAB t"));
  SPS_TRY(sps_solver_vec_alloc(s, &w->xw, "BiCGSTAB x"));
  if (!sps_precond_is_identity(s->pc)) {
    SPS_TRY(sps_solver_vec_alloc(s, &w->phat, "BiCGSTAB M^-1 p"));
    SPS_TRY(sps_solver_vec_alloc(s, &w->shat, "BiCGSTAB M^-1 s"));
  }
  SPS_TRY(be->malloc(ctx, (void **)&w->S, sizeof *w->S, "BiCGSTAB state"));
  if (s->history_on)
    SPS_TRY(be->malloc(ctx, (void **)&w->history, ((size_t)s->maxit + 1) * sizeof(double),
                       "BiCGSTAB residual history"));
  /* The steps read only the state in S, so the captured iterations serve every solve. */
  SPS_TRY(sps_solver_capture(s, BICGSTAB_GRAPH_ITERATIONS, bicgstab_issue, w, &w->graph));
cleanup:
  if (st) bicgstab_destroy(s);
  return st;
}

/*
 * Start (or restart) the recurrence from the residual in s->r: rhat <- r, p <- r,
 * rho = (rhat, r). A rho that is not finite or is 0 stops at once (NAN, BREAKDOWN).
 */
static sps_status bicgstab_start(sps_solver *s, bicgstab_work *w, sps_bicgstab_state *h)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  double rho;
  SPS_CHECK(be->copy(ctx, s->n, s->r, w->rhat));
  SPS_CHECK(be->copy(ctx, s->n, s->r, w->p));
  SPS_CHECK(be->dot(ctx, s->n, w->rhat, s->r, &rho));
  h->rho = rho;
  h->rr = rho;
  h->half = 0;
  h->above = 0;
  if (sps_solver_bad(rho))
    h->status = SPS_BICGSTAB_NAN;
  else if (rho == 0.0)
    h->status = SPS_BICGSTAB_BREAKDOWN;
  else
    h->status = SPS_BICGSTAB_RUNNING;
  return be->upload(ctx, w->S, h, sizeof *h);
}

static sps_status bicgstab_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  bicgstab_work *w = s->work;
  sps_bicgstab_state h = {0};
  double rnorm = rnorm0;
  int monitored = 0, started_at = 0;

  SPS_CHECK(be->copy(ctx, s->n, x, w->xw));
  h.tol2 = s->tol * s->tol;
  h.dtol2 = s->dtol_abs * s->dtol_abs; /* +Inf: no divergence test */
  h.history = w->history;
  h.maxit = s->maxit;
  SPS_CHECK(bicgstab_start(s, w, &h));
  s->reason = SPS_REASON_NONE;

  int batch = sps_solver_next_batch(s, BICGSTAB_GRAPH_ITERATIONS / 2, 0.0, rnorm, 0,
                                    BICGSTAB_GRAPH_ITERATIONS, BICGSTAB_MAX_BATCH);
  while (s->reason == SPS_REASON_NONE) {
    if (h.status == SPS_BICGSTAB_RUNNING) {
      if (batch <= 0) {
        s->reason = SPS_DIVERGED_MAX_ITERATIONS;
        break;
      }
      const int it0 = h.it;
      const double rnorm_batch = rnorm;
      SPS_CHECK(sps_solver_issue_batch(s, w->graph, BICGSTAB_GRAPH_ITERATIONS, batch,
                                       bicgstab_issue, w));
      SPS_CHECK(be->download(ctx, &h, w->S, sizeof h));
      rnorm = sqrt(h.rr);
      if (s->monitor && s->monitor_every > 0 && h.it > monitored && h.it % s->monitor_every == 0) {
        sps_solver_monitor(s, h.it, rnorm);
        monitored = h.it;
      }
      if (sps_solver_progress(s, h.it, rnorm) && h.status == SPS_BICGSTAB_RUNNING) {
        s->reason = SPS_INTERRUPTED;
        break;
      }
      const double rate = sps_solver_batch_rate(rnorm_batch, rnorm, h.it - it0);
      batch = sps_solver_next_batch(s, batch, rate, rnorm, h.it, BICGSTAB_GRAPH_ITERATIONS,
                                    BICGSTAB_MAX_BATCH);
    }
    switch (h.status) {
    case SPS_BICGSTAB_RUNNING:
      break;
    case SPS_BICGSTAB_CONVERGED: {
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm(s, b, w->xw, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      /* The recurrence drifted from b - Ax: restart from the true residual. */
      SPS_CHECK(bicgstab_start(s, w, &h));
      break;
    }
    case SPS_BICGSTAB_MAX_ITERATIONS:
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    case SPS_BICGSTAB_DIVERGED: {
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm_divergence(s, b, w->xw, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
        break;
      }
      /* Only the recurrence grew: restart from the true residual. */
      SPS_CHECK(bicgstab_start(s, w, &h));
      break;
    }
    case SPS_BICGSTAB_BREAKDOWN:
    case SPS_BICGSTAB_NAN:
    default: {
      /*
       * Converged if the true residual already passes; NaN if it is NaN or Inf (x itself
       * went bad). Otherwise restart with a new shadow residual rhat = r, unless no
       * iteration was made since the last start (the restart itself broke down): then it is
       * a breakdown, overflow of the scalars included.
       */
      sps_reason reason;
      SPS_CHECK(sps_solver_confirm(s, b, w->xw, s->r, &rnorm, &reason));
      if (reason != SPS_REASON_NONE) {
        s->reason = reason;
      } else if (h.it > started_at && h.it < s->maxit) {
        started_at = h.it;
        SPS_CHECK(bicgstab_start(s, w, &h));
      } else {
        s->reason = SPS_DIVERGED_BREAKDOWN;
      }
      break;
    }
    }
  }
  s->iterations = h.it;
  SPS_CHECK(sps_solver_download_history(s, w->history, h.it));
  return be->copy(ctx, s->n, w->xw, x);
}

const sps_solver_method sps_solver_method_bicgstab = {
    .type = SPS_SOLVER_BICGSTAB,
    .name = "bicgstab",
    .setup = bicgstab_setup,
    .solve = bicgstab_solve,
    .destroy = bicgstab_destroy,
};
