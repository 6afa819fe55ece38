/* batch_bicgstab.c: batched right-preconditioned BiCGSTAB: bicgstab.c's recurrence on every column of a block at once, two SpMMs per iteration, each column with its own scalars, restarts and shadow residual. */
#include <math.h>
#include <string.h>

#include "batch.h"

/*
 * Per column, the iteration of bicgstab.c (van der Vorst 1992) with its stopping tests,
 * divergence test, breakdowns and restarts; per block iteration
 *
 *   PHAT = M^-1 P, V = sign*A PHAT, step A, SHAT = M^-1 S, T = sign*A SHAT, step B, direction
 *
 * (two SpMMs for the w columns; M applied on the block: Jacobi at once, another column by
 * column), the scalars of column c in its state S[c] (struct sps_bicgstab_state). After each
 * batch the host reads the w states and does for each column what bicgstab_solve does: a
 * claimed convergence or divergence confirmed on the true residual (one SpMM for all the
 * columns that ask), a breakdown or an overflow that restarts the column with a new shadow
 * residual unless no iteration was made since its last start. Each column therefore takes
 * bicgstab_solve's iterations and gives its x.
 */

#define BBICGSTAB_GRAPH_ITERATIONS 4
#define BBICGSTAB_MAX_BATCH 1024

typedef struct bbicgstab_work {
  double *RHAT;           /* shadow residuals */
  double *P, *V, *SV, *T; /* directions, A PHAT, s, A SHAT */
  double *PHAT, *SHAT;    /* M^-1 P, M^-1 S (NULL without preconditioner: they alias P, SV) */
  sps_bicgstab_state *S;  /* kmax states in the context's memory */
  sps_bicgstab_state h[SPS_BLOCK_MAX_COLS];
  void *graphs[SPS_BATCH_MAX_WIDTHS];
} bbicgstab_work;

static sps_bicgstab_state idle_state(void)
{
  sps_bicgstab_state h;
  memset(&h, 0, sizeof h);
  h.status = SPS_BLOCK_IDLE;
  return h;
}

static void bbicgstab_destroy(sps_solver *s, sps_batch *bt)
{
  bbicgstab_work *w = bt->mwork;
  if (!w) return;
  sps_context *ctx = s->ctx;
  for (int k = 0; k < SPS_BATCH_MAX_WIDTHS; k++)
    if (w->graphs[k]) ctx->be->graph_destroy(ctx, w->graphs[k]);
  double *own[] = {w->RHAT, w->P, w->V, w->SV, w->T, w->PHAT, w->SHAT};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (own[k]) ctx->be->free(ctx, own[k]);
  if (w->S) ctx->be->free(ctx, w->S);
  sps_host_free(w);
  bt->mwork = NULL;
}

static sps_status bbicgstab_issue(sps_solver *s, sps_batch *bt)
{
  bbicgstab_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  const int64_t n = s->n;
  const uint64_t all = sps_block_all(bt->w);
  const double *phat = w->PHAT ? w->PHAT : w->P;
  const double *shat = w->SHAT ? w->SHAT : w->SV;
  if (w->PHAT) SPS_CHECK(sps_batch_precond(s, bt, all, w->P, w->PHAT));
  SPS_CHECK(sps_batch_operator(s, bt, phat, w->V));
  /* alpha = rho / (rhat, v), s <- r - alpha v */
  SPS_CHECK(bk->bicgstab_step_a(ctx, n, bt->w, bt->ld, w->RHAT, w->V, bt->R, w->SV, w->S, bt->ws));
  if (w->SHAT) SPS_CHECK(sps_batch_precond(s, bt, all, w->SV, w->SHAT));
  SPS_CHECK(sps_batch_operator(s, bt, shat, w->T));
  /* omega = (t, s) / (t, t), x += alpha phat + omega shat, r <- s - omega t, rho, beta */
  SPS_CHECK(bk->bicgstab_step_b(ctx, n, bt->w, bt->ld, w->T, w->SV, phat, shat, w->RHAT, bt->X,
                                bt->R, w->S, bt->ws));
  /* p <- r + beta (p - omega v) */
  return bk->bicgstab_direction(ctx, n, bt->w, bt->ld, bt->R, w->V, w->P, w->S);
}

static sps_status bbicgstab_setup(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  bbicgstab_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "batched BiCGSTAB work space"));
  bt->mwork = w;
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->RHAT, 1, "batched BiCGSTAB rhat"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->P, 1, "batched BiCGSTAB p"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->V, 1, "batched BiCGSTAB v"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->SV, 1, "batched BiCGSTAB s"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->T, 1, "batched BiCGSTAB t"));
  if (!bt->identity) {
    SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->PHAT, 1, "batched BiCGSTAB M^-1 p"));
    SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->SHAT, 1, "batched BiCGSTAB M^-1 s"));
  }
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&w->S, (size_t)bt->kmax * sizeof *w->S,
                            "batched BiCGSTAB states"));
  for (int c = 0; c < bt->kmax; c++) w->h[c] = idle_state();
  SPS_CHECK(ctx->be->upload(ctx, w->S, w->h, (size_t)bt->kmax * sizeof *w->S));
  return sps_batch_capture(s, bt, BBICGSTAB_GRAPH_ITERATIONS, bbicgstab_issue, w->graphs);
}

static sps_status bbicgstab_upload(sps_solver *s, sps_batch *bt)
{
  bbicgstab_work *w = bt->mwork;
  return s->ctx->be->upload(s->ctx, w->S, w->h, (size_t)bt->w * sizeof *w->S);
}

/*
 * (Re)start the columns of mask from their residuals in R: RHAT <- R, P <- R,
 * rho = (RHAT, R); a rho that is not finite or is 0 stops at once (NAN, BREAKDOWN), as
 * bicgstab_start. The host states are set; the caller uploads them.
 */
static sps_status bbicgstab_start(sps_solver *s, sps_batch *bt, uint64_t mask)
{
  bbicgstab_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  double rho[SPS_BLOCK_MAX_COLS];
  int cols[SPS_BLOCK_MAX_COLS], k = 0;
  if (!mask) return SPS_SUCCESS;
  for (int p = 0; p < bt->w; p++)
    if ((mask >> p) & 1u) cols[k++] = p;
  SPS_CHECK(bk->copy_cols(ctx, s->n, k, bt->R, bt->ld, cols, w->RHAT, bt->ld, cols));
  SPS_CHECK(bk->copy_cols(ctx, s->n, k, bt->R, bt->ld, cols, w->P, bt->ld, cols));
  SPS_CHECK(bk->dot(ctx, s->n, bt->w, bt->ld, mask, w->RHAT, bt->R, rho, bt->ws));
  for (int q = 0; q < k; q++) {
    sps_bicgstab_state *h = &w->h[cols[q]];
    const double r = rho[cols[q]];
    h->rho = r;
    h->rr = r;
    h->half = 0;
    h->above = 0;
    h->status = sps_solver_bad(r) ? SPS_BICGSTAB_NAN
                : r == 0.0        ? SPS_BICGSTAB_BREAKDOWN
                                  : SPS_BICGSTAB_RUNNING;
  }
  return SPS_SUCCESS;
}

static sps_status bbicgstab_solve(sps_solver *s, sps_batch *bt)
{
  bbicgstab_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  double norms[SPS_BLOCK_MAX_COLS];
  int its[SPS_BLOCK_MAX_COLS];
  uint64_t act = sps_batch_active(bt);
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    w->h[p] = idle_state();
    if (!c || !c->active) continue;
    sps_bicgstab_state *h = &w->h[p];
    h->tol2 = c->tol * c->tol;
    h->dtol2 = c->dtol_abs * c->dtol_abs;
    h->history = sps_batch_history(s, bt, bt->at[p]);
    h->maxit = s->maxit;
  }
  SPS_CHECK(bbicgstab_start(s, bt, act));
  SPS_CHECK(bbicgstab_upload(s, bt));
  for (int p = 0; p < bt->w; p++) its[p] = w->h[p].it;
  int batch = sps_batch_next_len(s, bt, BBICGSTAB_GRAPH_ITERATIONS / 2, its,
                                 BBICGSTAB_GRAPH_ITERATIONS, BBICGSTAB_MAX_BATCH);
  while ((act = sps_batch_active(bt)) != 0) {
    int stop = 0;
    uint64_t running = 0;
    for (int p = 0; p < bt->w; p++)
      if (((act >> p) & 1u) && w->h[p].status == SPS_BICGSTAB_RUNNING) running |= (uint64_t)1 << p;
    if (running) {
      const int it0 = bt->t;
      for (int p = 0; p < bt->w; p++)
        if ((act >> p) & 1u) {
          sps_batch_col *c = sps_batch_at(bt, p);
          c->rnorm_batch = c->rnorm;
          c->it_batch = w->h[p].it;
        }
      SPS_CHECK(sps_batch_issue(s, bt, w->graphs[bt->widx], BBICGSTAB_GRAPH_ITERATIONS, batch,
                                bbicgstab_issue));
      SPS_CHECK(ctx->be->download(ctx, w->h, w->S, (size_t)bt->w * sizeof *w->S));
      bt->t += batch;
      for (int p = 0; p < bt->w; p++) {
        its[p] = w->h[p].it;
        if ((act >> p) & 1u) sps_batch_at(bt, p)->rnorm = sqrt(w->h[p].rr);
      }
      stop = sps_batch_report(s, bt, it0);
      batch = sps_batch_next_len(s, bt, batch, its, BBICGSTAB_GRAPH_ITERATIONS,
                                 BBICGSTAB_MAX_BATCH);
    }
    /* What bicgstab_solve does after its read, column by column. */
    uint64_t confirm = 0;
    for (int p = 0; p < bt->w; p++) {
      if (!((act >> p) & 1u)) continue;
      const sps_bicgstab_state *h = &w->h[p];
      if (h->status == SPS_BICGSTAB_RUNNING) {
        if (stop) sps_batch_finish(bt, p, SPS_INTERRUPTED, h->it);
      } else if (h->status == SPS_BICGSTAB_MAX_ITERATIONS) {
        sps_batch_finish(bt, p, SPS_DIVERGED_MAX_ITERATIONS, h->it);
      } else {
        confirm |= (uint64_t)1 << p; /* CONVERGED, DIVERGED, BREAKDOWN, NAN */
      }
    }
    uint64_t restart = 0;
    if (confirm) {
      SPS_CHECK(sps_batch_true_residual(s, bt, confirm, norms));
      for (int p = 0; p < bt->w; p++) {
        if (!((confirm >> p) & 1u)) continue;
        sps_batch_col *c = sps_batch_at(bt, p);
        const sps_bicgstab_state *h = &w->h[p];
        c->rnorm = norms[p];
        sps_reason reason;
        if (h->status == SPS_BICGSTAB_DIVERGED)
          reason = sps_solver_bad(norms[p])  ? SPS_DIVERGED_NAN
                   : norms[p] > c->dtol_abs ? SPS_DIVERGED_DTOL
                                            : SPS_REASON_NONE;
        else
          reason = sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : sps_batch_test(s, c, norms[p]);
        if (reason != SPS_REASON_NONE) {
          sps_batch_finish(bt, p, reason, h->it);
        } else if (h->status == SPS_BICGSTAB_CONVERGED || h->status == SPS_BICGSTAB_DIVERGED) {
          /* the recurrence drifted from b - Ax, or only it grew: restart from the truth */
          restart |= (uint64_t)1 << p;
        } else if (h->it > c->started_at && h->it < s->maxit) {
          /* a breakdown or an overflow: a new shadow residual, unless the last start broke
           * down before any iteration */
          c->started_at = h->it;
          restart |= (uint64_t)1 << p;
        } else {
          sps_batch_finish(bt, p, SPS_DIVERGED_BREAKDOWN, h->it);
        }
      }
    }
    for (int p = 0; p < bt->w; p++)
      if (((act >> p) & 1u) && !sps_batch_at(bt, p)->active) w->h[p].status = SPS_BLOCK_IDLE;
    if (restart) {
      SPS_CHECK(bbicgstab_start(s, bt, restart));
      SPS_CHECK(bbicgstab_upload(s, bt));
    }
    SPS_CHECK(sps_batch_compact(s, bt));
  }
  return SPS_SUCCESS;
}

static sps_status bbicgstab_compact(sps_solver *s, sps_batch *bt, const int *src)
{
  bbicgstab_work *w = bt->mwork;
  sps_bicgstab_state h[SPS_BLOCK_MAX_COLS];
  for (int q = 0; q < bt->w; q++) h[q] = src[q] >= 0 ? w->h[src[q]] : idle_state();
  memcpy(w->h, h, (size_t)bt->w * sizeof h[0]);
  return bbicgstab_upload(s, bt);
}

const sps_batch_method sps_batch_method_bicgstab = {
    .setup = bbicgstab_setup,
    .solve = bbicgstab_solve,
    .compact = bbicgstab_compact,
    .destroy = bbicgstab_destroy,
};
