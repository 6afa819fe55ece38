/* batch_cg.c: batched preconditioned CG: cg.c's recurrence on every column of a block at once, one SpMM per iteration, each column with its own scalars, stopping test and restarts. */
#include <math.h>
#include <string.h>

#include "batch.h"

/*
 * Per column j, the iteration of cg.c (Saad, Algorithm 9.1) with its stopping test,
 * divergence test and breakdowns; per block iteration
 *
 *   Q = sign*A P                        one SpMM for the w columns
 *   cg_alpha, cg_update (Z = D^-1 R fused for Jacobi), [Z = M^-1 R column by column, cg_rz
 *   for another preconditioner], cg_direction     the block steps (core/block_ops.h)
 *
 * with the scalars of column c in its state S[c] (struct sps_cg_state), so a batch of
 * iterations is issued, or replayed from a CUDA graph captured per width class, without
 * reading anything back. After each batch the host reads the w states and does for each
 * column what cg_solve does for its one: a claimed convergence or divergence is confirmed on
 * the true residual (one SpMM for all the columns that claim one), and the column stops or
 * restarts from it; NaN, indefiniteness and maxit stop it. Since every column step is the
 * single step's on that column (same terms, compensated sums) and the restarts happen at the
 * column's own iteration, each column takes cg_solve's iterations and gives its x.
 */

#define BCG_GRAPH_ITERATIONS 8
#define BCG_MAX_BATCH 1024

typedef struct bcg_work {
  double *P, *Q, *Z;      /* search directions, A P, M^-1 R (NULL without preconditioner) */
  int general;            /* a preconditioner that is not diagonal: applied between the steps */
  sps_cg_state *S;        /* kmax states in the context's memory */
  sps_cg_state h[SPS_BLOCK_MAX_COLS]; /* their host copies, by block position */
  void *graphs[SPS_BATCH_MAX_WIDTHS];
} bcg_work;

/* The state of an idle block position: every step skips it. */
static sps_cg_state idle_state(void)
{
  sps_cg_state h;
  memset(&h, 0, sizeof h);
  h.status = SPS_BLOCK_IDLE;
  return h;
}

static void bcg_destroy(sps_solver *s, sps_batch *bt)
{
  bcg_work *w = bt->mwork;
  if (!w) return;
  sps_context *ctx = s->ctx;
  for (int k = 0; k < SPS_BATCH_MAX_WIDTHS; k++)
    if (w->graphs[k]) ctx->be->graph_destroy(ctx, w->graphs[k]);
  double *own[] = {w->P, w->Q, w->Z};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (own[k]) ctx->be->free(ctx, own[k]);
  if (w->S) ctx->be->free(ctx, w->S);
  sps_host_free(w);
  bt->mwork = NULL;
}

/* One batched iteration at the current width. */
static sps_status bcg_issue(sps_solver *s, sps_batch *bt)
{
  bcg_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  const int64_t n = s->n;
  double *Z = w->Z ? w->Z : bt->R;
  SPS_CHECK(sps_batch_operator(s, bt, w->P, w->Q));
  SPS_CHECK(bk->cg_alpha(ctx, n, bt->w, bt->ld, w->P, w->Q, w->S, bt->ws));
  SPS_CHECK(bk->cg_update(ctx, n, bt->w, bt->ld, w->P, w->Q, bt->dinv, bt->X, bt->R, Z, w->S,
                          bt->ws));
  if (w->general) {
    /* Z <- M^-1 R, then rz and beta */
    SPS_CHECK(sps_batch_precond(s, bt, sps_block_all(bt->w), bt->R, w->Z));
    SPS_CHECK(bk->cg_rz(ctx, n, bt->w, bt->ld, bt->R, w->Z, w->S, bt->ws));
  }
  return bk->cg_direction(ctx, n, bt->w, bt->ld, Z, w->P, w->S);
}

static sps_status bcg_setup(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  bcg_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "batched CG work space"));
  bt->mwork = w;
  w->general = !bt->identity && !bt->dinv;
  if (w->general && !be->cg_rz)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "CG: the %s backend takes diagonal preconditioners only",
             be->name);
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->P, 1, "batched CG p"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->Q, 1, "batched CG q"));
  if (!bt->identity) SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->Z, 1, "batched CG z"));
  SPS_CHECK(be->malloc(ctx, (void **)&w->S, (size_t)bt->kmax * sizeof *w->S, "batched CG states"));
  for (int c = 0; c < bt->kmax; c++) w->h[c] = idle_state();
  SPS_CHECK(be->upload(ctx, w->S, w->h, (size_t)bt->kmax * sizeof *w->S));
  /* The steps read only the states, so the captured iterations serve every solve. */
  return sps_batch_capture(s, bt, BCG_GRAPH_ITERATIONS, bcg_issue, w->graphs);
}

static sps_status bcg_upload(sps_solver *s, sps_batch *bt)
{
  bcg_work *w = bt->mwork;
  return s->ctx->be->upload(s->ctx, w->S, w->h, (size_t)bt->w * sizeof *w->S);
}

/*
 * Start (or restart) the columns of mask from their residuals in R: Z <- M^-1 R, rz <- (R, Z),
 * P <- Z (cg_start per column). *rz gets each column's rz; the host states are set RUNNING.
 */
static sps_status bcg_start(sps_solver *s, sps_batch *bt, uint64_t mask, double *rz)
{
  bcg_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  double *Z = w->Z ? w->Z : bt->R;
  if (!mask) return SPS_SUCCESS;
  if (w->Z) SPS_CHECK(sps_batch_precond(s, bt, mask, bt->R, w->Z));
  SPS_CHECK(bk->dot(ctx, s->n, bt->w, bt->ld, mask, bt->R, Z, rz, bt->ws));
  int cols[SPS_BLOCK_MAX_COLS], k = 0;
  for (int p = 0; p < bt->w; p++)
    if ((mask >> p) & 1u) {
      cols[k++] = p;
      w->h[p].rz = rz[p];
      w->h[p].above = 0;
      w->h[p].status = SPS_CG_RUNNING;
    }
  return bk->copy_cols(ctx, s->n, k, Z, bt->ld, cols, w->P, bt->ld, cols);
}

static sps_status bcg_solve(sps_solver *s, sps_batch *bt)
{
  bcg_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  double rz[SPS_BLOCK_MAX_COLS], norms[SPS_BLOCK_MAX_COLS];
  int its[SPS_BLOCK_MAX_COLS];
  uint64_t act = sps_batch_active(bt);
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    w->h[p] = idle_state();
    if (!c || !c->active) continue;
    sps_cg_state *h = &w->h[p];
    h->tol2 = c->tol * c->tol;
    h->dtol2 = c->dtol_abs * c->dtol_abs; /* +Inf: no divergence test */
    h->history = sps_batch_history(s, bt, bt->at[p]);
    h->maxit = s->maxit;
    h->deferred = w->general;
  }
  SPS_CHECK(bcg_start(s, bt, act, rz));
  /* rz not finite: NaN or a breakdown by the true residual; rz < 0: M is indefinite */
  uint64_t bad = 0;
  for (int p = 0; p < bt->w; p++)
    if ((act >> p) & 1u) {
      if (sps_solver_bad(rz[p]))
        bad |= (uint64_t)1 << p;
      else if (rz[p] < 0.0) {
        sps_batch_finish(bt, p, SPS_DIVERGED_INDEFINITE_PRECOND, 0);
        w->h[p].status = SPS_BLOCK_IDLE;
      }
    }
  if (bad) {
    SPS_CHECK(sps_batch_true_residual(s, bt, bad, norms));
    for (int p = 0; p < bt->w; p++)
      if ((bad >> p) & 1u) {
        sps_batch_finish(bt, p, sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : SPS_DIVERGED_BREAKDOWN,
                         0);
        w->h[p].status = SPS_BLOCK_IDLE;
      }
  }
  SPS_CHECK(bcg_upload(s, bt));
  for (int p = 0; p < bt->w; p++) its[p] = w->h[p].it;
  int batch = sps_batch_next_len(s, bt, BCG_GRAPH_ITERATIONS / 2, its, BCG_GRAPH_ITERATIONS,
                                 BCG_MAX_BATCH);
  while ((act = sps_batch_active(bt)) != 0) {
    const int it0 = bt->t;
    for (int p = 0; p < bt->w; p++)
      if ((act >> p) & 1u) {
        sps_batch_col *c = sps_batch_at(bt, p);
        c->rnorm_batch = c->rnorm;
        c->it_batch = w->h[p].it;
      }
    SPS_CHECK(sps_batch_issue(s, bt, w->graphs[bt->widx], BCG_GRAPH_ITERATIONS, batch, bcg_issue));
    SPS_CHECK(ctx->be->download(ctx, w->h, w->S, (size_t)bt->w * sizeof *w->S));
    bt->t += batch;
    for (int p = 0; p < bt->w; p++) {
      its[p] = w->h[p].it;
      if ((act >> p) & 1u) sps_batch_at(bt, p)->rnorm = sqrt(w->h[p].rr);
    }
    const int stop = sps_batch_report(s, bt, it0);
    batch = sps_batch_next_len(s, bt, batch, its, BCG_GRAPH_ITERATIONS, BCG_MAX_BATCH);
    /* What cg_solve does after its read, column by column. */
    uint64_t confirm = 0, nan = 0, restart = 0;
    for (int p = 0; p < bt->w; p++) {
      if (!((act >> p) & 1u)) continue;
      const sps_cg_state *h = &w->h[p];
      switch (h->status) {
      case SPS_CG_RUNNING:
        if (stop) sps_batch_finish(bt, p, SPS_INTERRUPTED, h->it);
        break;
      case SPS_CG_CONVERGED:
      case SPS_CG_DIVERGED:
        confirm |= (uint64_t)1 << p;
        break;
      case SPS_CG_MAX_ITERATIONS:
        sps_batch_finish(bt, p, SPS_DIVERGED_MAX_ITERATIONS, h->it);
        break;
      case SPS_CG_INDEFINITE_MATRIX:
        sps_batch_finish(bt, p, SPS_DIVERGED_INDEFINITE_MATRIX, h->it);
        break;
      case SPS_CG_INDEFINITE_PRECOND:
        sps_batch_finish(bt, p, SPS_DIVERGED_INDEFINITE_PRECOND, h->it);
        break;
      default: /* NAN: a real NaN in x, or scalars that overflowed (a breakdown) */
        nan |= (uint64_t)1 << p;
        break;
      }
    }
    if (confirm | nan) {
      SPS_CHECK(sps_batch_true_residual(s, bt, confirm | nan, norms));
      for (int p = 0; p < bt->w; p++) {
        sps_batch_col *c = sps_batch_at(bt, p);
        const sps_cg_state *h = &w->h[p];
        if ((nan >> p) & 1u) {
          c->rnorm = norms[p];
          sps_batch_finish(bt, p,
                           sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : SPS_DIVERGED_BREAKDOWN,
                           h->it);
          continue;
        }
        if (!((confirm >> p) & 1u)) continue;
        c->rnorm = norms[p];
        sps_reason reason;
        if (sps_solver_bad(norms[p]))
          reason = SPS_DIVERGED_NAN;
        else if (h->status == SPS_CG_CONVERGED)
          reason = sps_batch_test(s, c, norms[p]);
        else
          reason = norms[p] > c->dtol_abs ? SPS_DIVERGED_DTOL : SPS_REASON_NONE;
        if (reason != SPS_REASON_NONE)
          sps_batch_finish(bt, p, reason, h->it);
        else
          restart |= (uint64_t)1 << p; /* the true residual does not confirm it */
      }
    }
    if (restart) {
      SPS_CHECK(bcg_start(s, bt, restart, rz));
      for (int p = 0; p < bt->w; p++) {
        if (!((restart >> p) & 1u)) continue;
        if (rz[p] < 0.0)
          sps_batch_finish(bt, p, SPS_DIVERGED_INDEFINITE_PRECOND, w->h[p].it);
        else if (w->h[p].it >= s->maxit)
          sps_batch_finish(bt, p, SPS_DIVERGED_MAX_ITERATIONS, w->h[p].it);
        if (!sps_batch_at(bt, p)->active) w->h[p].status = SPS_BLOCK_IDLE;
      }
      SPS_CHECK(bcg_upload(s, bt));
    }
    SPS_CHECK(sps_batch_compact(s, bt));
  }
  return SPS_SUCCESS;
}

/* New position q takes the state of old position src[q] (an idle state for src[q] < 0). */
static sps_status bcg_compact(sps_solver *s, sps_batch *bt, const int *src)
{
  bcg_work *w = bt->mwork;
  sps_cg_state h[SPS_BLOCK_MAX_COLS];
  for (int q = 0; q < bt->w; q++) h[q] = src[q] >= 0 ? w->h[src[q]] : idle_state();
  memcpy(w->h, h, (size_t)bt->w * sizeof h[0]);
  return bcg_upload(s, bt);
}

const sps_batch_method sps_batch_method_cg = {
    .setup = bcg_setup,
    .solve = bcg_solve,
    .compact = bcg_compact,
    .destroy = bcg_destroy,
};
