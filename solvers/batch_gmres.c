/* batch_gmres.c: batched restarted GMRES(m), right preconditioned, CGS2: gmres.c's device-driven cycle on every column of a block at once, one SpMM per inner iteration, each column with its own Hessenberg matrix, rotations and cycle. */
#include <math.h>
#include <string.h>

#include "batch.h"

/*
 * Per column, the device-driven cycle of gmres.c (Saad and Schultz 1986; CGS2 Arnoldi,
 * Givens rotations), right preconditioned. The basis of the block is m+1 blocks: column c of
 * block l is v_l of column c's cycle. One batched inner iteration is
 *
 *   Z = M^-1 VCUR, W = sign*A Z, gmres_arnoldi on the block (core/block_ops.h)
 *
 * each column at its own j (its state S[c], struct sps_gmres_state, pointing at its own H,
 * R, rotations, g, y and history). After each batch the host reads the w states and ends
 * the cycle of every column that stopped, as gmres_cycle_end does for one: u = V_k y,
 * x += M^-1 u, the true residual (one SpMM for all of them), the reason, or the next cycle
 * from the true residual. A batch stops at the earliest cycle end of a running column, so
 * columns that started together stay together. Each column takes gmres_solve_device's
 * iterations and gives its x.
 */

#define BGMRES_MIN_BATCH 4
#define BGMRES_FIRST_BATCH 8
#define BGMRES_MAX_BATCH 1024
#define BGMRES_GRAPH_ITERATIONS 4
#define BGMRES_HAPPY_TOL 1e-14

typedef struct bgmres_work {
  int m;
  size_t ndense;          /* doubles of one column's H, R, rotations, g, y and work */
  double *V;              /* m+1 blocks: the bases */
  double *VCUR, *W, *U;   /* the newest basis vectors, A M^-1 VCUR, V_k y */
  double *Z;              /* M^-1 VCUR, then M^-1 U (NULL without preconditioner) */
  double *dense;          /* kmax x ndense, the context's memory */
  sps_gmres_state *S;     /* kmax states in the context's memory */
  sps_gmres_state h[SPS_BLOCK_MAX_COLS];
  void *graph1[SPS_BATCH_MAX_WIDTHS], *graph4[SPS_BATCH_MAX_WIDTHS];
} bgmres_work;

static sps_gmres_state idle_state(void)
{
  sps_gmres_state h;
  memset(&h, 0, sizeof h);
  h.status = SPS_BLOCK_IDLE;
  return h;
}

/* The state of group column g at the start of a solve: its dense arrays, m, the tolerances. */
static sps_gmres_state column_state(const sps_solver *s, const sps_batch *bt, int g)
{
  const bgmres_work *w = bt->mwork;
  const size_t m = (size_t)w->m, ldh = m + 1;
  sps_gmres_state h;
  memset(&h, 0, sizeof h);
  h.H = w->dense + (size_t)g * w->ndense;
  h.R = h.H + ldh * m;
  h.cs = h.R + ldh * m;
  h.sn = h.cs + m;
  h.g = h.sn + m;
  h.y = h.g + ldh;
  h.work = h.y + m;
  h.history = sps_batch_history(s, bt, g);
  h.happy_tol = BGMRES_HAPPY_TOL;
  h.m = w->m;
  h.tol = bt->col[g].tol;
  h.maxit = s->maxit;
  return h;
}

static void bgmres_destroy(sps_solver *s, sps_batch *bt)
{
  bgmres_work *w = bt->mwork;
  if (!w) return;
  sps_context *ctx = s->ctx;
  for (int k = 0; k < SPS_BATCH_MAX_WIDTHS; k++) {
    if (w->graph1[k]) ctx->be->graph_destroy(ctx, w->graph1[k]);
    if (w->graph4[k]) ctx->be->graph_destroy(ctx, w->graph4[k]);
  }
  double *own[] = {w->V, w->VCUR, w->W, w->U, w->Z, w->dense};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (own[k]) ctx->be->free(ctx, own[k]);
  if (w->S) ctx->be->free(ctx, w->S);
  sps_host_free(w);
  bt->mwork = NULL;
}

/* One batched inner iteration: Z <- M^-1 VCUR, W <- sign*A Z, the CGS2 step. */
static sps_status bgmres_issue(sps_solver *s, sps_batch *bt)
{
  bgmres_work *w = bt->mwork;
  const double *zin = w->VCUR;
  if (w->Z) {
    SPS_CHECK(sps_batch_precond(s, bt, sps_block_all(bt->w), w->VCUR, w->Z));
    zin = w->Z;
  }
  SPS_CHECK(sps_batch_operator(s, bt, zin, w->W));
  return bt->bk->gmres_arnoldi(s->ctx, s->n, bt->w, bt->ld, w->m, w->V, bt->bstride, w->W, w->VCUR,
                               w->S, bt->ws);
}

static sps_status bgmres_issue_one(sps_solver *s, sps_batch *bt)
{
  bgmres_work *w = bt->mwork;
  if (w->graph1[bt->widx]) return s->ctx->be->graph_launch(s->ctx, w->graph1[bt->widx]);
  return bgmres_issue(s, bt);
}

static sps_status bgmres_setup(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  bgmres_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "batched GMRES work space"));
  bt->mwork = w;
  w->m = s->restart_used;
  const size_t m = (size_t)w->m, ldh = m + 1;
  w->ndense = 2 * ldh * m + 2 * m + ldh + m + ldh;
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->V, w->m + 1, "batched GMRES Krylov bases"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->VCUR, 1, "batched GMRES current basis vectors"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->W, 1, "batched GMRES A M^-1 v"));
  SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->U, 1, "batched GMRES V y"));
  if (!bt->identity) SPS_CHECK(sps_batch_alloc_blocks(s, bt, &w->Z, 1, "batched GMRES M^-1 v"));
  const size_t nd = (size_t)bt->kmax * w->ndense;
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&w->dense, nd * sizeof(double),
                            "batched GMRES Hessenberg matrices and rotations"));
  SPS_CHECK(ctx->be->fill(ctx, (int64_t)nd, 0.0, w->dense));
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&w->S, (size_t)bt->kmax * sizeof *w->S,
                            "batched GMRES states"));
  for (int c = 0; c < bt->kmax; c++) w->h[c] = idle_state();
  SPS_CHECK(ctx->be->upload(ctx, w->S, w->h, (size_t)bt->kmax * sizeof *w->S));
  /* The steps read j and the scalars from the states, so one captured iteration serves all. */
  SPS_CHECK(sps_batch_capture(s, bt, 1, bgmres_issue, w->graph1));
  return sps_batch_capture(s, bt, BGMRES_GRAPH_ITERATIONS, bgmres_issue, w->graph4);
}

static sps_status bgmres_upload(sps_solver *s, sps_batch *bt)
{
  bgmres_work *w = bt->mwork;
  return s->ctx->be->upload(s->ctx, w->S, w->h, (size_t)bt->w * sizeof *w->S);
}

/* gmres_start on the columns of mask (the host copies say j = 0 and RUNNING; the device
 * knows whether the cycle opened). */
static sps_status bgmres_start(sps_solver *s, sps_batch *bt, uint64_t mask)
{
  bgmres_work *w = bt->mwork;
  if (!mask) return SPS_SUCCESS;
  SPS_CHECK(bt->bk->gmres_start(s->ctx, s->n, bt->w, bt->ld, mask, bt->R, w->V, w->VCUR, w->S,
                                bt->ws));
  for (int p = 0; p < bt->w; p++)
    if ((mask >> p) & 1u) {
      w->h[p].j = 0;
      w->h[p].status = SPS_GMRES_RUNNING;
    }
  return SPS_SUCCESS;
}

/* The divergence test at a cycle end (sps_solver_dtol_cycle for one column). */
static int dtol_cycle(sps_batch_col *c, double rnorm, int it)
{
  if (!(rnorm > c->dtol_abs)) {
    c->above_since = -1;
    return 0;
  }
  if (c->above_since < 0) c->above_since = it;
  return it - c->above_since >= SPS_DTOL_ITERATIONS;
}

/*
 * The end of the cycles of the columns of `ended` (their states just read, not RUNNING), as
 * gmres_cycle_end for each: x += M^-1 V_k y (not at NAN), the true residual, the reason or the
 * next cycle. The columns of `stopped` were interrupted: they end as interrupted unless they
 * converged or diverged.
 */
static sps_status bgmres_cycle_end(sps_solver *s, sps_batch *bt, uint64_t ended, uint64_t stopped)
{
  bgmres_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  double norms[SPS_BLOCK_MAX_COLS], one[SPS_BLOCK_MAX_COLS];
  uint64_t upd = 0;
  for (int p = 0; p < bt->w; p++) {
    one[p] = 1.0;
    if (((ended >> p) & 1u) && w->h[p].status != SPS_GMRES_NAN) upd |= (uint64_t)1 << p;
  }
  if (upd) {
    /* u <- V_k y, y = R_k^-1 g_k; x <- x + M^-1 u */
    SPS_CHECK(bk->gmres_update(ctx, s->n, bt->w, bt->ld, w->m, upd, w->V, bt->bstride, w->S, w->U));
    if (w->Z) {
      SPS_CHECK(sps_batch_precond(s, bt, upd, w->U, w->Z));
      SPS_CHECK(bk->axpby(ctx, s->n, bt->w, bt->ld, upd, one, w->Z, one, bt->X));
    } else {
      SPS_CHECK(bk->axpby(ctx, s->n, bt->w, bt->ld, upd, one, w->U, one, bt->X));
    }
  }
  SPS_CHECK(sps_batch_true_residual(s, bt, ended, norms));
  uint64_t next = 0;
  for (int p = 0; p < bt->w; p++) {
    if (!((ended >> p) & 1u)) continue;
    sps_batch_col *c = sps_batch_at(bt, p);
    const sps_gmres_state *h = &w->h[p];
    c->rnorm = norms[p];
    if (h->status == SPS_GMRES_NAN) {
      /* x is still the cycle's start: NaN only if its true residual is */
      sps_batch_finish(bt, p, sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : SPS_DIVERGED_BREAKDOWN,
                       h->it);
      continue;
    }
    sps_reason reason = sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : sps_batch_test(s, c, norms[p]);
    if (reason == SPS_REASON_NONE && dtol_cycle(c, norms[p], h->it)) reason = SPS_DIVERGED_DTOL;
    if (reason == SPS_REASON_NONE) {
      if (h->status == SPS_GMRES_BREAKDOWN)
        reason = SPS_DIVERGED_BREAKDOWN;
      else if (h->status == SPS_GMRES_MAX_ITERATIONS)
        reason = SPS_DIVERGED_MAX_ITERATIONS;
      else if (h->status == SPS_GMRES_CONVERGED && h->j == 0)
        /* gmres_start found ||r|| <= tol where the host's norm of the same r did not */
        reason = sps_batch_test(s, c, h->beta);
      else if (h->it >= s->maxit)
        reason = SPS_DIVERGED_MAX_ITERATIONS;
    }
    if ((stopped >> p) & 1u && reason <= 0 && reason != SPS_DIVERGED_DTOL)
      reason = SPS_INTERRUPTED;
    if (reason != SPS_REASON_NONE)
      sps_batch_finish(bt, p, reason, h->it);
    else
      next |= (uint64_t)1 << p;
  }
  for (int p = 0; p < bt->w; p++)
    if (((ended >> p) & 1u) && !sps_batch_at(bt, p)->active) w->h[p].status = SPS_BLOCK_IDLE;
  /* the next cycle from the true residual: v_0 = r / ||r||, g = ||r|| e_1, j = 0 */
  SPS_CHECK(bgmres_upload(s, bt));
  return bgmres_start(s, bt, next);
}

static sps_status bgmres_solve(sps_solver *s, sps_batch *bt)
{
  bgmres_work *w = bt->mwork;
  sps_context *ctx = s->ctx;
  const int monitor_every = s->monitor ? s->monitor_every : 0;
  int its[SPS_BLOCK_MAX_COLS];
  uint64_t act = sps_batch_active(bt);
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    w->h[p] = c && c->active ? column_state(s, bt, bt->at[p]) : idle_state();
  }
  SPS_CHECK(bgmres_upload(s, bt));
  SPS_CHECK(bgmres_start(s, bt, act));
  /* The first batch is short (gmres.c): a solve that converges within it wastes few launches. */
  int want = w->m < BGMRES_FIRST_BATCH ? w->m : BGMRES_FIRST_BATCH;
  while ((act = sps_batch_active(bt)) != 0) {
    /* To the next monitor call or the adaptive length (cut to the progress interval); never
     * past the earliest cycle end of a running column or the longest maxit left. */
    int len = sps_solver_progress_cap(s, monitor_every > 0 ? monitor_every - bt->t % monitor_every
                                                           : want);
    int to_cycle = w->m, left = 0;
    for (int p = 0; p < bt->w; p++) {
      if (!((act >> p) & 1u)) continue;
      const sps_gmres_state *h = &w->h[p];
      if (h->status == SPS_GMRES_RUNNING && w->m - h->j < to_cycle) to_cycle = w->m - h->j;
      if (s->maxit - h->it > left) left = s->maxit - h->it;
      sps_batch_col *c = sps_batch_at(bt, p);
      c->rnorm_batch = c->rnorm;
      c->it_batch = h->it;
    }
    if (len > to_cycle) len = to_cycle;
    if (len > left) len = left;
    if (len < 1) len = 1;
    const int it0 = bt->t;
    SPS_CHECK(sps_batch_issue(s, bt, w->graph4[bt->widx], BGMRES_GRAPH_ITERATIONS, len,
                              bgmres_issue_one));
    SPS_CHECK(ctx->be->download(ctx, w->h, w->S, (size_t)bt->w * sizeof *w->S));
    bt->t += len;
    for (int p = 0; p < bt->w; p++) {
      its[p] = w->h[p].it;
      if ((act >> p) & 1u) sps_batch_at(bt, p)->rnorm = w->h[p].resid;
    }
    const int stop = sps_batch_report(s, bt, it0);
    want = sps_batch_adaptive(s, bt, want, its, BGMRES_MIN_BATCH, BGMRES_MAX_BATCH);
    uint64_t ended = 0, stopped = 0;
    for (int p = 0; p < bt->w; p++) {
      if (!((act >> p) & 1u)) continue;
      if (w->h[p].status == SPS_GMRES_RUNNING) {
        if (!stop) continue;
        /* stop: x from the part of the cycle done, as at a cycle end */
        w->h[p].status = SPS_GMRES_MAX_ITERATIONS;
        stopped |= (uint64_t)1 << p;
      }
      ended |= (uint64_t)1 << p;
    }
    if (ended) SPS_CHECK(bgmres_cycle_end(s, bt, ended, stopped));
    SPS_CHECK(sps_batch_compact(s, bt));
  }
  return SPS_SUCCESS;
}

static sps_status bgmres_compact(sps_solver *s, sps_batch *bt, const int *src)
{
  bgmres_work *w = bt->mwork;
  sps_gmres_state h[SPS_BLOCK_MAX_COLS];
  for (int q = 0; q < bt->w; q++) h[q] = src[q] >= 0 ? w->h[src[q]] : idle_state();
  memcpy(w->h, h, (size_t)bt->w * sizeof h[0]);
  return bgmres_upload(s, bt);
}

const sps_batch_method sps_batch_method_gmres = {
    .setup = bgmres_setup,
    .solve = bgmres_solve,
    .compact = bgmres_compact,
    .destroy = bgmres_destroy,
};
