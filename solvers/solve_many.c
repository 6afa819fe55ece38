/* solve_many.c: sps_solver_solve_many(): many right-hand sides with one solver, batched (each column its own recurrence, one SpMM per iteration), block CG, or one at a time; the block work space, its compaction, and the per-column results. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "../core/comm.h"

/*
 * The columns go in groups of at most kmax = min(columns, SPS_BLOCK_MAX_COLS). A group runs
 * as the single solve (sps_solver_solve, solver.c) runs one column, each step on every column
 * of the block at once:
 *
 *   ||b_j||, tol_j; b_j = 0 gives x_j = 0; r_j = b_j - A x_j (one SpMM) or b_j (zero guess);
 *   a column whose initial residual is NaN or already meets tol_j stops at 0 iterations;
 *   the scale 2^-k_j of each column (solver.c, solve_scaled: k_j from max(||b_j||, ||r_0j||));
 *   the batched method on the active columns (batch_cg.c, batch_bicgstab.c, batch_gmres.c,
 *   block_cg.c);
 *   x_j scaled back; the true residual of every column recomputed on the user's B and X (one
 *   SpMM); DIVERGED_RANGE where a scaled column's x does not meet the user's tolerance.
 *
 * Every column operation is the single solve's operation on that column with the same
 * rounding (core/block_ops.h), the SpMM gives each column csr-scalar's bits, and the decisions
 * taken on the host (confirmations, restarts, reasons) are the single solve's per column, so a
 * column's iterations, reason and x are the single solve's.
 *
 * Converged columns drop out. The fused steps skip a column from the step after the one
 * that stopped it. The SpMM, the preconditioner and the host-driven operations run on the
 * block's width, which shrinks: after each read of the states, once the active columns fit the
 * next narrower width class (kmax, then halved and rounded up, down to 1), the finished
 * columns are written back to X and the active ones moved to the first positions
 * (sps_batch_compact: one pass over each block vector of the method). Width classes rather
 * than every count because the CUDA graphs of a batched iteration are captured at setup, one
 * per class; so the SpMM never runs on more than twice the active columns, and compaction
 * costs at most log2(kmax) + 1 passes per solve.
 */

/* Width classes: kmax, ceil(kmax/2), ..., 1. */
static void batch_widths(sps_batch *bt)
{
  int w = bt->kmax;
  bt->nwidths = 0;
  for (;;) {
    bt->widths[bt->nwidths++] = w;
    if (w == 1 || bt->nwidths == SPS_BATCH_MAX_WIDTHS) break;
    w = (w + 1) / 2;
  }
  if (bt->widths[bt->nwidths - 1] != 1) bt->widths[bt->nwidths - 1] = 1;
}

/* The narrowest class that holds `count` columns. */
static int batch_class_for(const sps_batch *bt, int count)
{
  int k = 0;
  while (k + 1 < bt->nwidths && bt->widths[k + 1] >= count) k++;
  return k;
}

static void batch_set_width(sps_batch *bt, int widx)
{
  bt->widx = widx;
  bt->w = bt->widths[widx];
  bt->ld = sps_block_ld(bt->w);
}

/* Why the columns cannot be batched with the single solve's bits, or NULL. */
static const char *batch_refusal(const sps_solver *s)
{
  if (!s->ctx->be->block) return "the backend has no block steps";
  /* The block steps' sums are the rank's own: a distributed context solves each column alone,
   * through the single methods, whose reductions reach every rank. */
  if (sps_comm_is_dist(s->ctx)) return "a distributed context";
  if (s->block && s->method->type == SPS_SOLVER_CG) return NULL;
  if (!sps_spmv_plan_rounds_like_csr(s->plan))
    return "the SpMV variant does not round like csr-scalar, which the SpMM's columns do";
  if (s->method->type == SPS_SOLVER_GMRES) {
    if (s->orthog != SPS_ORTHOG_CGS2) return "GMRES with modified Gram-Schmidt";
    if (s->flexible && !sps_precond_is_identity(s->pc))
      return "flexible GMRES with a preconditioner";
    if (!sps_gmres_device_driven(s)) return "GMRES runs host-driven with this restart";
  }
  return NULL;
}

void sps_batch_add_buffer(sps_batch *bt, double *base, int count)
{
  if (bt->nbuffers < SPS_BATCH_MAX_BUFFERS) {
    bt->buffers[bt->nbuffers].base = base;
    bt->buffers[bt->nbuffers].count = count;
    bt->nbuffers++;
  }
}

sps_status sps_batch_alloc_blocks(sps_solver *s, sps_batch *bt, double **p, int count,
                                  const char *what)
{
  sps_context *ctx = s->ctx;
  const size_t len = (size_t)count * (size_t)bt->bstride;
  *p = NULL;
  if (bt->bstride > 0 && (size_t)count > SIZE_MAX / sizeof(double) / (size_t)bt->bstride)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %d blocks of %lld doubles overflow size_t", what, count,
             (long long)bt->bstride);
  SPS_CHECK(ctx->be->malloc(ctx, (void **)p, len * sizeof(double), what));
  /* Zeros, so that every column a kernel reads (padding, idle positions) is defined. */
  const sps_status st = ctx->be->fill(ctx, (int64_t)len, 0.0, *p);
  if (st) {
    ctx->be->free(ctx, *p);
    *p = NULL;
    return st;
  }
  sps_batch_add_buffer(bt, *p, count);
  return SPS_SUCCESS;
}

void sps_batch_destroy(sps_solver *s)
{
  sps_batch *bt = s->batch;
  if (!bt) return;
  sps_context *ctx = s->ctx;
  if (bt->bm && bt->bm->destroy) bt->bm->destroy(s, bt);
  sps_spmm_plan_destroy(&bt->spmm);
  double *own[] = {bt->ws, bt->B, bt->X, bt->R, bt->T, bt->dhist};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (own[k]) ctx->be->free(ctx, own[k]);
  sps_host_free(bt);
  s->batch = NULL;
}

sps_status sps_batch_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  sps_status st = SPS_SUCCESS;
  sps_batch_destroy(s);
  s->many_note[0] = '\0';
  if (s->columns <= 0) return SPS_SUCCESS;
  const char *why = batch_refusal(s);
  if (why) {
    snprintf(s->many_note, sizeof s->many_note, "one at a time: %s", why);
    return SPS_SUCCESS;
  }
  sps_batch *bt;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&bt, 1, sizeof *bt, "block work space"));
  s->batch = bt;
  bt->bk = ctx->be->block;
  bt->method = s->method->type;
  bt->block_cg = s->block && s->method->type == SPS_SOLVER_CG;
  bt->kmax = s->columns < SPS_BLOCK_MAX_COLS ? s->columns : SPS_BLOCK_MAX_COLS;
  bt->ldmax = sps_block_ld(bt->kmax);
  if (s->n > 0 && bt->ldmax > INT64_MAX / 8 / s->n)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "block work space: %lld x %lld doubles overflow",
                 (long long)s->n, (long long)bt->ldmax);
  bt->bstride = s->n * bt->ldmax;
  batch_widths(bt);
  batch_set_width(bt, 0);
  if (bt->kmax > 1) {
    /* AUTO never picks cusparse-spmm, so every column is csr-scalar's SpMV. */
    SPS_TRY(sps_spmm_plan_create(ctx, &bt->spmm, s->A, bt->kmax));
    sps_spmm_plan_set_owned(bt->spmm); /* the solver's own, as its SpMV plan */
    SPS_TRY(sps_spmm_plan_setup(bt->spmm));
  }
  const int m = s->method->type == SPS_SOLVER_GMRES && !bt->block_cg ? s->restart_used : 0;
  const size_t nws = bt->bk->workspace(ctx, s->n, bt->kmax, m);
  SPS_TRY(ctx->be->malloc(ctx, (void **)&bt->ws, nws * sizeof(double), "block reductions"));
  SPS_TRY(ctx->be->fill(ctx, (int64_t)nws, 0.0, bt->ws));
  SPS_TRY(sps_batch_alloc_blocks(s, bt, &bt->B, 1, "block right-hand sides"));
  SPS_TRY(sps_batch_alloc_blocks(s, bt, &bt->X, 1, "block iterates"));
  SPS_TRY(sps_batch_alloc_blocks(s, bt, &bt->R, 1, "block residuals"));
  /* T is scratch (compaction's too), not moved with the columns. */
  SPS_TRY(ctx->be->malloc(ctx, (void **)&bt->T, (size_t)bt->bstride * sizeof(double),
                          "block scratch"));
  SPS_TRY(ctx->be->fill(ctx, bt->bstride, 0.0, bt->T));
  if (s->history_on) {
    const size_t len = (size_t)bt->kmax * ((size_t)s->maxit + 1);
    SPS_TRY(ctx->be->malloc(ctx, (void **)&bt->dhist, len * sizeof(double), "block histories"));
    SPS_TRY(ctx->be->fill(ctx, (int64_t)len, 0.0, bt->dhist));
  }
  bt->identity = sps_precond_is_identity(s->pc);
  bt->dinv = sps_precond_diagonal_inverse(s->pc);
  bt->bm = bt->block_cg                               ? &sps_batch_method_block_cg
           : s->method->type == SPS_SOLVER_CG         ? &sps_batch_method_cg
           : s->method->type == SPS_SOLVER_BICGSTAB   ? &sps_batch_method_bicgstab
                                                      : &sps_batch_method_gmres;
  SPS_TRY(bt->bm->setup(s, bt));
  batch_set_width(bt, 0);
cleanup:
  if (st) sps_batch_destroy(s);
  return st;
}

void sps_solver_many_release(sps_solver *s)
{
  sps_batch_destroy(s);
  sps_solver_vec_free(s, &s->many_b);
  sps_solver_vec_free(s, &s->many_x);
  if (s->many_x0) s->ctx->be->free(s->ctx, s->many_x0);
  s->many_x0 = NULL;
  sps_host_free(s->colrep);
  sps_host_free(s->colhist);
  s->colrep = NULL;
  s->colhist = NULL;
  s->colrep_count = 0;
  memset(&s->many, 0, sizeof s->many);
}

sps_status sps_solver_many_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  sps_solver_many_release(s);
  if (s->columns <= 0) return SPS_SUCCESS;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&s->colrep, (size_t)s->columns, sizeof *s->colrep,
                            "column reports"));
  if (s->history_on)
    SPS_CHECK(sps_host_calloc(ctx, (void **)&s->colhist, (size_t)s->columns,
                              ((size_t)s->maxit + 1) * sizeof(double), "column histories"));
  SPS_CHECK(sps_solver_vec_alloc(s, &s->many_b, "one right-hand side of many"));
  SPS_CHECK(sps_solver_vec_alloc(s, &s->many_x, "one solution of many"));
  if (s->auto_on) {
    const int k = s->columns < SPS_BLOCK_MAX_COLS ? s->columns : SPS_BLOCK_MAX_COLS;
    const size_t len = (size_t)s->n * (size_t)sps_block_ld(k);
    SPS_CHECK(ctx->be->malloc(ctx, (void **)&s->many_x0, (len ? len : 1) * sizeof(double),
                              "initial guesses of many"));
  }
  return sps_batch_setup(s);
}

/* The helpers of the batched methods. */

uint64_t sps_batch_active(const sps_batch *bt)
{
  uint64_t m = 0;
  for (int p = 0; p < bt->w; p++)
    if (bt->at[p] >= 0 && bt->col[bt->at[p]].active) m |= (uint64_t)1 << p;
  return m;
}

double *sps_batch_history(const sps_solver *s, const sps_batch *bt, int g)
{
  return bt->dhist ? bt->dhist + (size_t)g * ((size_t)s->maxit + 1) : NULL;
}

void sps_batch_finish(sps_batch *bt, int pos, sps_reason reason, int iterations)
{
  sps_batch_col *c = sps_batch_at(bt, pos);
  if (!c) return;
  c->active = 0;
  c->reason = reason;
  c->iterations = iterations;
}

sps_reason sps_batch_test(const sps_solver *s, const sps_batch_col *c, double rnorm)
{
  if (!(rnorm <= c->tol)) return SPS_REASON_NONE;
  if (s->rtol > 0.0 && rnorm <= s->rtol * c->bnorm) return SPS_CONVERGED_RTOL;
  return SPS_CONVERGED_ATOL;
}

sps_status sps_batch_operator(sps_solver *s, sps_batch *bt, const double *X, double *Y)
{
  if (bt->w == 1 && bt->ld == 1) return sps_spmv_apply_raw(s->plan, s->sign, X, 0.0, Y);
  return sps_spmm_apply_cols(bt->spmm, bt->w, s->sign, X, bt->ld, 0.0, Y, bt->ld);
}

sps_status sps_batch_precond(sps_solver *s, sps_batch *bt, uint64_t mask, const double *R,
                             double *Z)
{
  sps_context *ctx = s->ctx;
  if (bt->dinv) return bt->bk->pointwise(ctx, s->n, bt->w, bt->ld, mask, bt->dinv, R, Z);
  const int zero = 0;
  for (int c = 0; c < bt->w; c++) {
    if (!((mask >> c) & 1u)) continue;
    /* one column through the preconditioner's own apply */
    SPS_CHECK(bt->bk->copy_cols(ctx, s->n, 1, R, bt->ld, &c, s->many_b, 1, &zero));
    SPS_CHECK(sps_precond_apply(s->pc, s->many_b, s->many_x));
    SPS_CHECK(bt->bk->copy_cols(ctx, s->n, 1, s->many_x, 1, &zero, Z, bt->ld, &c));
  }
  return SPS_SUCCESS;
}

sps_status sps_batch_true_residual(sps_solver *s, sps_batch *bt, uint64_t mask, double *norms)
{
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  const uint64_t all = sps_block_all(bt->w);
  double a[SPS_BLOCK_MAX_COLS], zero[SPS_BLOCK_MAX_COLS];
  for (int c = 0; c < bt->w; c++) {
    a[c] = s->sign;
    zero[c] = 0.0;
  }
  /* T <- sign*B - sign*A*X, as sps_solver_residual forms r (the sign flips both sides) */
  SPS_CHECK(bk->axpby(ctx, s->n, bt->w, bt->ld, all, a, bt->B, zero, bt->T));
  if (bt->w == 1 && bt->ld == 1)
    SPS_CHECK(sps_spmv_apply_raw(s->check_plan ? s->check_plan : s->plan, -s->sign, bt->X, 1.0,
                                 bt->T));
  else
    SPS_CHECK(sps_spmm_apply_cols(bt->spmm, bt->w, -s->sign, bt->X, bt->ld, 1.0, bt->T, bt->ld));
  SPS_CHECK(bk->nrm2(ctx, s->n, bt->w, bt->ld, mask, bt->T, norms, bt->ws));
  int ident[SPS_BLOCK_MAX_COLS], n_m = 0;
  for (int c = 0; c < bt->w; c++)
    if ((mask >> c) & 1u) ident[n_m++] = c;
  if (n_m) SPS_CHECK(bk->copy_cols(ctx, s->n, n_m, bt->T, bt->ld, ident, bt->R, bt->ld, ident));
  return SPS_SUCCESS;
}

sps_status sps_batch_capture(sps_solver *s, sps_batch *bt, int iterations,
                             sps_status (*issue)(sps_solver *s, sps_batch *bt), void **graphs)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  sps_status st = SPS_SUCCESS;
  for (int k = 0; k < bt->nwidths; k++) graphs[k] = NULL;
  if (!be->graph_begin || s->n == 0) return SPS_SUCCESS;
  for (int k = 0; k < bt->nwidths && !st; k++) {
    batch_set_width(bt, k);
    st = be->graph_begin(ctx);
    if (st == SPS_ERR_UNSUPPORTED) { /* the backend captures nothing now */
      st = SPS_SUCCESS;
      break;
    }
    if (st) break;
    for (int it = 0; it < iterations && !st; it++) st = issue(s, bt);
    /* End the capture whatever happened, so the stream is usable again. */
    const sps_status st_end = be->graph_end(ctx, &graphs[k]);
    if (!st) st = st_end;
  }
  batch_set_width(bt, 0);
  return st;
}

sps_status sps_batch_issue(sps_solver *s, sps_batch *bt, void *graph, int per_graph, int count,
                           sps_status (*issue)(sps_solver *s, sps_batch *bt))
{
  sps_context *ctx = s->ctx;
  int k = 0;
  if (graph)
    for (; k + per_graph <= count; k += per_graph) SPS_CHECK(ctx->be->graph_launch(ctx, graph));
  for (; k < count; k++) SPS_CHECK(issue(s, bt));
  return SPS_SUCCESS;
}

int sps_batch_adaptive(const sps_solver *s, const sps_batch *bt, int last, const int *its,
                       int min_batch, int max_batch)
{
  (void)s;
  /* sps_solver_adaptive_batch for the slowest column: twice the last, or fewer when every
   * active column's rate over the last batch says it needs fewer */
  int b = 2 * last;
  double need_max = 0.0;
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = bt->at[p] >= 0 ? &bt->col[bt->at[p]] : NULL;
    if (!c || !c->active) continue;
    const double rate = sps_solver_batch_rate(c->rnorm_batch, c->rnorm, its[p] - c->it_batch);
    if (!(rate > 0.0 && rate < 1.0 && c->rnorm > c->tol)) {
      need_max = INFINITY;
      break;
    }
    const double need = ceil(log(c->tol / c->rnorm) / log(rate));
    if (need > need_max) need_max = need;
  }
  if (need_max < b) b = (int)need_max;
  if (b < min_batch) b = min_batch;
  return b > max_batch ? max_batch : b;
}

int sps_batch_next_len(sps_solver *s, sps_batch *bt, int last, const int *its, int min_batch,
                       int max_batch)
{
  int b = s->monitor && s->monitor_every > 0 ? s->monitor_every - bt->t % s->monitor_every
                                             : sps_batch_adaptive(s, bt, last, its, min_batch,
                                                                  max_batch);
  b = sps_solver_progress_cap(s, b);
  int left = 0;
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    if (c && c->active && s->maxit - its[p] > left) left = s->maxit - its[p];
  }
  if (b > left) b = left;
  return b < 1 ? 1 : b;
}

int sps_batch_report(sps_solver *s, sps_batch *bt, int it0)
{
  double worst = 0.0;
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    if (!c || !c->active) continue;
    const double rel = c->bnorm > 0.0 ? c->rnorm / c->bnorm : c->rnorm;
    if (!(rel <= worst)) worst = rel;
  }
  if (s->monitor && s->monitor_every > 0 && bt->t > it0 && bt->t % s->monitor_every == 0)
    s->monitor(s->monitor_user, bt->t, worst);
  bt->interrupted = sps_solver_progress(s, bt->t, worst);
  return bt->interrupted;
}

sps_status sps_batch_write_back(sps_solver *s, sps_batch *bt, int all)
{
  sps_context *ctx = s->ctx;
  double f[SPS_BLOCK_MAX_COLS];
  int src[SPS_BLOCK_MAX_COLS], dst[SPS_BLOCK_MAX_COLS], k = 0;
  uint64_t scaled = 0;
  for (int p = 0; p < bt->w; p++) {
    sps_batch_col *c = sps_batch_at(bt, p);
    if (!c || c->pos < 0 || (c->active && !all)) continue;
    src[k] = p;
    dst[k] = (int)(c->j - bt->col[0].j);
    k++;
    f[p] = ldexp(1.0, c->scale_exp);
    if (c->scale_exp != 0) scaled |= (uint64_t)1 << p;
    c->pos = -1;
  }
  if (!k) return SPS_SUCCESS;
  /* x = 2^k x' (solver.c, solve_scaled) */
  if (scaled) SPS_CHECK(bt->bk->scale(ctx, s->n, bt->w, bt->ld, scaled, f, bt->X));
  return bt->bk->copy_cols(ctx, s->n, k, bt->X, bt->ld, src, bt->xout, bt->ldxout, dst);
}

sps_status sps_batch_compact(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  int act[SPS_BLOCK_MAX_COLS], a = 0;
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    if (c && c->active) act[a++] = p;
  }
  if (a == 0) return SPS_SUCCESS;
  const int widx = batch_class_for(bt, a);
  if (bt->widths[widx] >= bt->w) return SPS_SUCCESS;
  SPS_CHECK(sps_batch_write_back(s, bt, 0));
  const int wn = bt->widths[widx];
  const int64_t ldn = sps_block_ld(wn);
  /* New position q takes old position src[q]: the active columns in order, then idle ones
   * (their data a copy of the first active column's, so that every column read is defined). */
  int src[SPS_BLOCK_MAX_COLS], from[SPS_BLOCK_MAX_COLS], ident[SPS_BLOCK_MAX_COLS];
  for (int q = 0; q < wn; q++) {
    src[q] = q < a ? act[q] : -1;
    from[q] = q < a ? act[q] : act[0];
    ident[q] = q;
  }
  for (int k = 0; k < bt->nbuffers; k++)
    for (int b = 0; b < bt->buffers[k].count; b++) {
      double *buf = bt->buffers[k].base + (int64_t)b * bt->bstride;
      SPS_CHECK(bt->bk->copy_cols(ctx, s->n, wn, buf, bt->ld, from, bt->T, ldn, ident));
      SPS_CHECK(ctx->be->copy(ctx, s->n * ldn, bt->T, buf));
    }
  int at[SPS_BLOCK_MAX_COLS];
  for (int q = 0; q < wn; q++) {
    at[q] = src[q] >= 0 ? bt->at[src[q]] : -1;
    if (at[q] >= 0) bt->col[at[q]].pos = q;
  }
  memcpy(bt->at, at, sizeof at);
  for (int q = wn; q < SPS_BLOCK_MAX_COLS; q++) bt->at[q] = -1;
  batch_set_width(bt, widx);
  return bt->bm->compact(s, bt, src);
}

/* The driver. */

/* Start a column's report: nothing known yet. */
static void report_clear(sps_column_report *r)
{
  memset(r, 0, sizeof *r);
}

/* The host history of column j. */
static double *col_history(const sps_solver *s, int64_t j)
{
  return s->colhist ? s->colhist + (size_t)j * ((size_t)s->maxit + 1) : NULL;
}

/* Record history entry 0 of a column (user units). */
static void record_initial(sps_solver *s, int64_t j, double rnorm)
{
  double *h = col_history(s, j);
  if (h) {
    h[0] = rnorm;
    s->colrep[j].history_count = 1;
  }
}

/* The device history of a column, entries 1..it, scaled back, after entry 0. */
static sps_status download_history(sps_solver *s, sps_batch *bt, int g)
{
  const sps_batch_col *c = &bt->col[g];
  double *h = col_history(s, c->j);
  const double *dev = sps_batch_history(s, bt, g);
  int it = c->iterations;
  /* block CG records its norms on the host itself */
  if (bt->block_cg || !h || !dev || it <= 0 || s->colrep[c->j].history_count < 1)
    return SPS_SUCCESS;
  if (it > s->maxit) it = s->maxit;
  SPS_CHECK(s->ctx->be->download(s->ctx, h + 1, dev + 1, (size_t)it * sizeof(double)));
  if (c->scale_exp != 0)
    for (int k = 1; k <= it; k++) h[k] = ldexp(h[k], c->scale_exp);
  s->colrep[c->j].history_count = it + 1;
  return SPS_SUCCESS;
}

/* The exponent of a column's scale (solver.c's solve_scale_exponent). */
static int scale_exponent(double big)
{
  int e;
  (void)frexp(big, &e);
  if (e > -64 && e <= 64) return 0;
  if (e < -1022) e = -1022;
  if (e > 1022) e = 1022;
  return e;
}

/*
 * One group of ncol columns from j0: load, the checks of sps_solver_solve per column, the
 * scaling, the batched method, the write-back and the final true residuals.
 */
static sps_status run_group(sps_solver *s, sps_batch *bt, const sps_multivector *B,
                            sps_multivector *X, int64_t j0, int ncol)
{
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = bt->bk;
  const int64_t n = s->n;
  int cols[SPS_BLOCK_MAX_COLS], pos[SPS_BLOCK_MAX_COLS];
  double norms[SPS_BLOCK_MAX_COLS], rn[SPS_BLOCK_MAX_COLS], f[SPS_BLOCK_MAX_COLS];
  double a[SPS_BLOCK_MAX_COLS], zero[SPS_BLOCK_MAX_COLS];
  batch_set_width(bt, batch_class_for(bt, ncol));
  const uint64_t group = sps_block_all(ncol), all = sps_block_all(bt->w);
  bt->ncol = ncol;
  bt->t = 0;
  bt->interrupted = 0;
  bt->xout = X->data + j0;
  bt->ldxout = X->ld;
  for (int c = 0; c < SPS_BLOCK_MAX_COLS; c++) bt->at[c] = c < ncol ? c : -1;
  for (int c = 0; c < ncol; c++) {
    cols[c] = (int)c;
    pos[c] = c;
    sps_batch_col *col = &bt->col[c];
    memset(col, 0, sizeof *col);
    col->j = j0 + c;
    col->pos = c;
    col->above_since = -1;
    report_clear(&s->colrep[col->j]);
    s->colrep[col->j].history = col_history(s, col->j);
  }
  /* Idle positions hold zeros (the SpMM and the column-by-column applies read them). */
  if (bt->w > ncol) {
    SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, all & ~group, 0.0, bt->B));
    SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, all & ~group, 0.0, bt->X));
  }
  SPS_CHECK(bk->copy_cols(ctx, n, ncol, B->data + j0, B->ld, cols, bt->B, bt->ld, pos));
  if (s->zero_guess)
    SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, group, 0.0, bt->X));
  else
    SPS_CHECK(bk->copy_cols(ctx, n, ncol, X->data + j0, X->ld, cols, bt->X, bt->ld, pos));
  bt->x0ld = bt->ld;
  if (s->many_x0 && !s->zero_guess) SPS_CHECK(ctx->be->copy(ctx, n * bt->ld, bt->X, s->many_x0));

  /* ||b_j||, tol_j; b_j = 0: x_j = 0 */
  SPS_CHECK(bk->nrm2(ctx, n, bt->w, bt->ld, group, bt->B, norms, bt->ws));
  uint64_t live = 0;
  for (int c = 0; c < ncol; c++) {
    sps_batch_col *col = &bt->col[c];
    col->bnorm = col->bnorm_user = norms[c];
    col->tol = fmax(s->rtol * col->bnorm, s->atol);
    if (col->bnorm == 0.0) {
      col->reason = SPS_CONVERGED_ZERO_RHS;
      record_initial(s, col->j, 0.0);
    } else {
      live |= (uint64_t)1 << c;
    }
  }
  SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, group & ~live, 0.0, bt->X));
  /* r_0 = b - A x_0 (x_0 = 0: r_0 = sign*b exactly, ||r_0|| = ||b||) */
  if (s->zero_guess) {
    for (int c = 0; c < bt->w; c++) {
      a[c] = s->sign;
      zero[c] = 0.0;
      rn[c] = norms[c];
    }
    SPS_CHECK(bk->axpby(ctx, n, bt->w, bt->ld, live, a, bt->B, zero, bt->R));
  } else if (live) {
    SPS_CHECK(sps_batch_true_residual(s, bt, live, rn));
  }
  uint64_t scaled = 0;
  for (int c = 0; c < ncol; c++) {
    if (!((live >> c) & 1u)) continue;
    sps_batch_col *col = &bt->col[c];
    const double rnorm0 = rn[c];
    if (sps_solver_bad(col->bnorm) || sps_solver_bad(rnorm0)) {
      record_initial(s, col->j, rnorm0);
      col->reason = SPS_DIVERGED_NAN;
    } else if ((col->reason = sps_batch_test(s, col, rnorm0)) != SPS_REASON_NONE) {
      record_initial(s, col->j, rnorm0);
    } else {
      /* the column's scale (solver.c, solve_scaled) */
      const int k = scale_exponent(fmax(col->bnorm, rnorm0));
      col->scale_exp = k;
      col->rnorm = rnorm0;
      if (k != 0) {
        scaled |= (uint64_t)1 << c;
        f[c] = ldexp(1.0, -k);
        col->bnorm = ldexp(col->bnorm, -k);
        col->tol = fmax(s->rtol * col->bnorm, ldexp(s->atol, -k));
        col->rnorm = ldexp(rnorm0, -k);
      }
      col->dtol_abs = s->dtol * fmax(col->bnorm, col->rnorm);
      col->active = 1;
      record_initial(s, col->j, rnorm0);
    }
  }
  if (scaled) {
    /* b' = 2^-k b, x' = 2^-k x, r' = 2^-k r: exact */
    SPS_CHECK(bk->scale(ctx, n, bt->w, bt->ld, scaled, f, bt->B));
    SPS_CHECK(bk->scale(ctx, n, bt->w, bt->ld, scaled, f, bt->X));
    SPS_CHECK(bk->scale(ctx, n, bt->w, bt->ld, scaled, f, bt->R));
  }
  if (sps_batch_active(bt)) SPS_CHECK(bt->bm->solve(s, bt));

  /* x = 2^k x' back into X; the histories */
  SPS_CHECK(sps_batch_write_back(s, bt, 1));
  for (int g = 0; g < ncol; g++) SPS_CHECK(download_history(s, bt, g));

  /* The true residuals on the user's B and X, as sps_solver_solve recomputes them. */
  batch_set_width(bt, batch_class_for(bt, ncol));
  for (int c = 0; c < SPS_BLOCK_MAX_COLS; c++) bt->at[c] = c < ncol ? c : -1;
  SPS_CHECK(bk->copy_cols(ctx, n, ncol, B->data + j0, B->ld, cols, bt->B, bt->ld, pos));
  SPS_CHECK(bk->copy_cols(ctx, n, ncol, X->data + j0, X->ld, cols, bt->X, bt->ld, pos));
  if (bt->w > ncol) {
    SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, sps_block_all(bt->w) & ~group, 0.0, bt->B));
    SPS_CHECK(bk->fill(ctx, n, bt->w, bt->ld, sps_block_all(bt->w) & ~group, 0.0, bt->X));
  }
  SPS_CHECK(sps_batch_true_residual(s, bt, live, rn));
  for (int c = 0; c < ncol; c++) {
    sps_batch_col *col = &bt->col[c];
    sps_column_report *r = &s->colrep[col->j];
    r->reason = col->reason;
    r->iterations = col->iterations;
    if ((live >> c) & 1u) {
      r->residual_abs = rn[c];
      r->residual_rel = rn[c] / col->bnorm_user;
      /* Scaled back, x may round among the subnormals or overflow (solver.c). */
      col->tol = fmax(s->rtol * col->bnorm_user, s->atol);
      col->bnorm = col->bnorm_user;
      if (col->scale_exp != 0 && r->reason > 0 &&
          sps_batch_test(s, col, r->residual_abs) == SPS_REASON_NONE)
        r->reason = SPS_DIVERGED_RANGE;
    }
  }
  return SPS_SUCCESS;
}

/* Column j alone through sps_solver_solve (its results in its report); x0 from X unless the
 * solver starts from zero, or from x0 (n doubles) when given. */
static sps_status solve_alone(sps_solver *s, const sps_multivector *B, sps_multivector *X,
                              int64_t j, const double *x0, int64_t ldx0)
{
  sps_context *ctx = s->ctx;
  const sps_block_backend *bk = ctx->be->block;
  const int64_t n = s->n;
  const int zero = 0;
  if (!bk) SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "the %s backend has no block operations", ctx->be->name);
  SPS_CHECK(bk->copy_cols(ctx, n, 1, B->data + j, B->ld, &zero, s->many_b, 1, &zero));
  SPS_CHECK(bk->copy_cols(ctx, n, 1, x0 ? x0 : X->data + j, x0 ? ldx0 : X->ld, &zero, s->many_x, 1,
                          &zero));
  struct sps_vector bv = {ctx, n, s->many_b, 1}, xv = {ctx, n, s->many_x, 1};
  SPS_CHECK(sps_solver_solve(s, &bv, &xv));
  SPS_CHECK(bk->copy_cols(ctx, n, 1, s->many_x, 1, &zero, X->data + j, X->ld, &zero));
  sps_column_report *r = &s->colrep[j];
  r->reason = s->reason;
  r->iterations = s->iterations;
  r->residual_abs = s->res_abs;
  r->residual_rel = s->res_rel;
  double *h = col_history(s, j);
  r->history = h;
  r->history_count = 0;
  if (h && s->history_on) {
    const int cnt = s->history_count < s->maxit + 1 ? s->history_count : s->maxit + 1;
    memcpy(h, s->history, (size_t)cnt * sizeof(double));
    r->history_count = cnt;
  }
  return SPS_SUCCESS;
}

/* The summary, and the single solve's getters set to the worst column: the first that did not
 * converge, else the first with the most iterations. */
static void summarize(sps_solver *s, int64_t k)
{
  sps_many_report *m = &s->many;
  const sps_column_report *worst = NULL, *longest = NULL;
  m->columns = k;
  m->converged = 0;
  m->max_iterations = 0;
  m->total_iterations = 0;
  m->max_residual_rel = 0.0;
  for (int64_t j = 0; j < k; j++) {
    const sps_column_report *r = &s->colrep[j];
    if (r->reason > 0) m->converged++;
    else if (!worst) worst = r;
    if (!longest || r->iterations > longest->iterations) longest = r;
    if (r->iterations > m->max_iterations) m->max_iterations = r->iterations;
    m->total_iterations += r->iterations;
    if (!(r->residual_rel <= m->max_residual_rel)) m->max_residual_rel = r->residual_rel;
  }
  if (!worst) worst = longest;
  s->reason = worst ? worst->reason : SPS_REASON_NONE;
  s->iterations = worst ? worst->iterations : 0;
  s->res_abs = worst ? worst->residual_abs : 0.0;
  s->res_rel = worst ? worst->residual_rel : 0.0;
  s->history_count = 0;
}

sps_status sps_solver_solve_many(sps_solver *s, const sps_multivector *B, sps_multivector *X)
{
  if (!s) return SPS_ERR_ARGUMENT;
  sps_context *ctx = s->ctx;
  SPS_CHECK_ARG(ctx, B, "B");
  SPS_CHECK_ARG(ctx, X, "X");
  if (!s->is_setup) SPS_FAIL(ctx, SPS_ERR_STATE, "sps_solver_solve_many: solver is not set up");
  if (s->columns <= 0)
    SPS_FAIL(ctx, SPS_ERR_STATE,
             "sps_solver_solve_many: no columns were set: call sps_solver_set_columns() with the "
             "number of right-hand sides before sps_solver_setup()");
  if (B->ctx != ctx || X->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_solve_many: multivector '%s' belongs to another context",
             B->ctx != ctx ? "B" : "X");
  if (B == X || (B->data && B->data == X->data))
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "sps_solver_solve_many: 'B' and 'X' are the same multivector: X is overwritten by "
             "the iterates while B is still read (solve into another multivector)");
  if (B->n != s->n || X->n != s->n)
    SPS_FAIL(ctx, SPS_ERR_SIZE,
             "sps_solver_solve_many: B has %lld rows and X %lld, the matrix has order %lld",
             (long long)B->n, (long long)X->n, (long long)s->n);
  if (B->k != X->k)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_solver_solve_many: B has %lld columns but X has %lld",
             (long long)B->k, (long long)X->k);
  if (B->k > s->columns)
    SPS_FAIL(ctx, SPS_ERR_SIZE,
             "sps_solver_solve_many: %lld columns, but the solver was set up for at most %d "
             "(sps_solver_set_columns)",
             (long long)B->k, s->columns);
  const double t0 = sps_wtime();
  const int64_t k = B->k;
  memset(&s->many, 0, sizeof s->many);
  s->colrep_count = 0;
  s->progress_t = t0;
  s->progress_it = 0;
  s->sec_per_it = 0.0;
  s->it_offset = 0;
  s->scale_exp = 0;
  for (int64_t j = 0; j < k; j++) report_clear(&s->colrep[j]);
  /* The block work space is dropped when an automatic solve moves to another preconditioner:
   * built again here (the one allocation of a solve_many). */
  if (!s->batch && !s->many_note[0]) SPS_CHECK(sps_batch_setup(s));
  if (!s->batch) {
    s->many.mode = SPS_MANY_ONE_BY_ONE;
    s->many.block_width = 1;
    snprintf(s->many.note, sizeof s->many.note, "%s", s->many_note);
  } else {
    const sps_batch *bt = s->batch;
    s->many.mode = bt->block_cg ? SPS_MANY_BLOCK_CG : SPS_MANY_BATCHED;
    s->many.block_width = (int)(k < bt->kmax ? k : bt->kmax);
    snprintf(s->many.note, sizeof s->many.note, "%s %s, up to %d columns together",
             bt->block_cg ? "block" : "batched", bt->block_cg ? "CG" : s->method->name,
             s->many.block_width);
  }
  for (int64_t j0 = 0; j0 < k;) {
    if (!s->batch && !s->many_note[0]) SPS_CHECK(sps_batch_setup(s));
    sps_batch *bt = s->batch;
    if (!bt) {
      /* one at a time, through the single solve */
      SPS_CHECK(solve_alone(s, B, X, j0, NULL, 0));
      j0++;
      continue;
    }
    const int ncol = (int)(k - j0 < bt->kmax ? k - j0 : bt->kmax);
    SPS_CHECK(run_group(s, bt, B, X, j0, ncol));
    if (s->auto_on) {
      /* With the automatic choice, a column that did not converge is solved again alone, with
       * the chain's fallbacks, from its initial guess (which may move the chain and drop the
       * block work space: it is built again for the next group). */
      const int64_t x0ld = bt->x0ld;
      for (int c = 0; c < ncol; c++) {
        const int64_t j = j0 + c;
        const sps_reason r = s->colrep[j].reason;
        if (r > 0 || r == SPS_INTERRUPTED) continue;
        SPS_CHECK(solve_alone(s, B, X, j, s->zero_guess ? NULL : s->many_x0 + c, x0ld));
        s->colrep[j].resolved = 1;
      }
    }
    j0 += ncol;
  }
  s->colrep_count = k;
  summarize(s, k);
  SPS_CHECK(ctx->be->synchronize(ctx));
  s->solve_seconds = s->many.solve_seconds = sps_wtime() - t0;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_many_report(const sps_solver *s, sps_many_report *report)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, report, "report");
  *report = s->many;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_column_report(const sps_solver *s, int64_t j, sps_column_report *report)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, report, "report");
  if (j < 0 || j >= s->colrep_count)
    SPS_FAIL(s->ctx, SPS_ERR_SIZE, "sps_solver_get_column_report: column %lld of %lld",
             (long long)j, (long long)s->colrep_count);
  *report = s->colrep[j];
  return SPS_SUCCESS;
}
