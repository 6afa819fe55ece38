/* tune.c: TUNE, the SpMV variant chosen at setup by timing a short list of candidates on the matrix, the result kept in the disk cache. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spmv_internal.h"

/* Timed runs per candidate (the median is kept); 3 when one run takes over TUNE_LONG_RUN. */
#define TUNE_REPEAT 5
#define TUNE_LONG_RUN 0.05
/* Applies per timed run: enough for about this many seconds, at most TUNE_BATCH_MAX. On a GPU
 * the batch is one CUDA graph, so a run costs one launch however short the applies are. */
#define TUNE_TARGET_GPU 5e-4
#define TUNE_TARGET_CPU 1e-3
#define TUNE_BATCH_MAX 50

/* A candidate's plan: the owner's context and matrix, not counted by the context. */
static void tmp_init(sps_spmv_plan *p, const sps_spmv_plan *owner, sps_spmv_kind kind, int tpr)
{
  memset(p, 0, sizeof *p);
  p->ctx = owner->ctx;
  p->A = owner->A;
  p->requested = kind;
  p->kind = kind;
  p->threads_per_row = kind == SPS_SPMV_CSR_VECTOR ? tpr : 0;
  p->variant = sps_spmv_variant_get(kind);
  p->owned = 1;
}

static sps_status tmp_setup(sps_spmv_plan *p)
{
  if (!p->variant)
    SPS_FAIL(p->ctx, SPS_ERR_UNSUPPORTED, "SpMV variant '%s' is not built",
             sps_spmv_kind_name(p->kind));
  sps_status st = p->variant->setup(p);
  if (st) {
    if (p->variant->destroy) p->variant->destroy(p);
    p->data = NULL;
    return st;
  }
  p->is_setup = 1;
  return SPS_SUCCESS;
}

static void tmp_release(sps_spmv_plan *p)
{
  if (p->is_setup && p->variant->destroy) p->variant->destroy(p);
  p->data = NULL;
  p->is_setup = 0;
}

/* A candidate's setup failed in a way that leaves the others possible: the variant refused the
 * matrix or its format did not fit in device memory. Anything else stops the tuning. */
static int left_out(sps_status st)
{
  return st == SPS_ERR_UNSUPPORTED || st == SPS_ERR_DEVICE_MEMORY || st == SPS_ERR_SIZE ||
         st == SPS_ERR_CUSPARSE;
}

static double median(double *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      const double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * Seconds per apply of y <- A x with the set-up plan @p p: after a warm-up apply, one timed apply
 * gives the batch; then the median of a few runs of a batch of applies. On a GPU the batch is
 * captured in one CUDA graph and each replay timed with events; when the capture fails, the batch
 * is issued plainly. On the CPU, the wall clock.
 */
static sps_status time_plan(sps_spmv_plan *p, const double *x, double *y, double *sec, char *note,
                            size_t notelen)
{
  sps_context *ctx = p->ctx;
  const sps_backend *be = ctx->be;
  double v[TUNE_REPEAT];
  /* The first apply pays for first touches, thread start-up and the loading of the kernel's
   * module; the second one's time sets the batch. */
  SPS_CHECK(sps_spmv_apply_raw(p, 1.0, x, 0.0, y));
  SPS_CHECK(be->synchronize(ctx));
  double first;
  if (be->timer_start) {
    /* Device time: the wall clock would add a launch and a synchronisation (several
     * microseconds) to a product that may take two. */
    SPS_CHECK(be->timer_start(ctx));
    SPS_CHECK(sps_spmv_apply_raw(p, 1.0, x, 0.0, y));
    SPS_CHECK(be->timer_stop(ctx, &first));
  } else {
    const double t0 = sps_wtime();
    SPS_CHECK(sps_spmv_apply_raw(p, 1.0, x, 0.0, y));
    SPS_CHECK(be->synchronize(ctx));
    first = sps_wtime() - t0;
  }
  const double target = ctx->kind == SPS_DEVICE_CUDA ? TUNE_TARGET_GPU : TUNE_TARGET_CPU;
  int batch = first > 0.0 ? (int)ceil(target / first) : TUNE_BATCH_MAX;
  if (batch < 1) batch = 1;
  if (batch > TUNE_BATCH_MAX) batch = TUNE_BATCH_MAX;
  const int repeat = first * batch > TUNE_LONG_RUN ? 3 : TUNE_REPEAT;

  void *graph = NULL;
  const char *how = be->timer_start ? "plain" : "wall clock";
  if (be->graph_begin && be->timer_start) {
    char saved[SPS_ERRMSG_LEN];
    memcpy(saved, ctx->errmsg, sizeof saved);
    sps_status st = be->graph_begin(ctx);
    if (!st) {
      for (int k = 0; k < batch && !st; k++)
        st = sps_spmv_apply_raw(p, 1.0, x, 0.0, y);
      const sps_status end = be->graph_end(ctx, &graph);
      if (!st) st = end;
    }
    if (st) {
      if (graph) be->graph_destroy(ctx, graph);
      graph = NULL;
      snprintf(note, notelen, "plain (graph capture failed: %.150s)", ctx->errmsg);
      memcpy(ctx->errmsg, saved, sizeof saved);
      how = NULL;
    } else {
      how = "graph";
      sps_status w = be->graph_launch(ctx, graph); /* warm-up replay */
      if (!w) w = be->synchronize(ctx);
      if (w) {
        be->graph_destroy(ctx, graph);
        return w;
      }
    }
  }
  if (how) snprintf(note, notelen, "%s, %d x %d applies", how, repeat, batch);
  sps_status st = SPS_SUCCESS;
  for (int r = 0; r < repeat && !st; r++) {
    double s = 0.0;
    if (graph) {
      st = be->timer_start(ctx);
      if (!st) st = be->graph_launch(ctx, graph);
      if (!st) st = be->timer_stop(ctx, &s);
    } else if (be->timer_start) {
      st = be->timer_start(ctx);
      for (int k = 0; k < batch && !st; k++)
        st = sps_spmv_apply_raw(p, 1.0, x, 0.0, y);
      if (!st) st = be->timer_stop(ctx, &s);
    } else {
      st = be->synchronize(ctx);
      const double w0 = sps_wtime();
      for (int k = 0; k < batch && !st; k++)
        st = sps_spmv_apply_raw(p, 1.0, x, 0.0, y);
      if (!st) st = be->synchronize(ctx);
      s = sps_wtime() - w0;
    }
    v[r] = s / batch;
  }
  if (graph) be->graph_destroy(ctx, graph);
  if (!st) *sec = median(v, repeat);
  return st;
}

/* "csr-vector (4 threads per row)" or "merge". */
static const char *label(sps_spmv_kind kind, int tpr, char *buf, size_t len)
{
  if (kind == SPS_SPMV_CSR_VECTOR)
    snprintf(buf, len, "%s (%d threads per row)", sps_spmv_kind_name(kind), tpr);
  else
    snprintf(buf, len, "%s", sps_spmv_kind_name(kind));
  return buf;
}

/* The candidate list with the user's threads per row, when set, in place of csr-vector's. */
static int candidate_list(const sps_spmv_plan *plan, sps_spmv_choice *list)
{
  int n = sps_spmv_candidates(plan->A, plan->ctx->kind, sps_spmv_context_cc(plan->ctx), list,
                              SPS_SPMV_MAX_CANDIDATES);
  const int tpr = plan->threads_per_row;
  if (tpr == 0) return n;
  int m = 0, have_vector = 0;
  for (int k = 0; k < n; k++) {
    if (list[k].kind == SPS_SPMV_CSR_VECTOR) {
      if (have_vector) continue;
      have_vector = 1;
      list[k].tpr = tpr;
      snprintf(list[k].why, sizeof list[k].why, "the threads per row set on the plan");
    }
    list[m++] = list[k];
  }
  return m;
}

/* The candidate's seconds in the table, NaN when it is not there. */
static double table_seconds(const sps_spmv_choice_info *info, sps_spmv_kind kind, int tpr)
{
  for (int k = 0; k < info->candidate_count; k++) {
    const sps_spmv_candidate *c = &info->candidates[k];
    if (c->kind == kind && c->threads_per_row == tpr && c->status == SPS_SUCCESS) return c->seconds;
  }
  return NAN;
}

/* Use the cache entry of @p key when it is valid and its variant sets up: 1 when it is in use
 * (in best), 0 to tune; a status other than a refusal is returned in *st. */
static int use_cache(sps_spmv_plan *plan, const sps_spmv_cache_key *key, sps_spmv_plan *best,
                     sps_status *st)
{
  sps_context *ctx = plan->ctx;
  sps_spmv_choice_info *info = &plan->choice;
  sps_spmv_choice_info cached;
  char why[512];
  memset(&cached, 0, sizeof cached);
  *st = SPS_SUCCESS;
  if (!sps_spmv_cache_read(key, ctx->kind, &cached, why, sizeof why)) {
    if (why[0])
      snprintf(info->cache_note, sizeof info->cache_note, "ignored: %.200s; re-tuned", why);
    return 0;
  }
  if (plan->threads_per_row != 0 && cached.kind == SPS_SPMV_CSR_VECTOR &&
      cached.threads_per_row != plan->threads_per_row) {
    snprintf(info->cache_note, sizeof info->cache_note,
             "ignored: the entry has %d threads per row, the plan asks for %d; re-tuned",
             cached.threads_per_row, plan->threads_per_row);
    return 0;
  }
  char saved[SPS_ERRMSG_LEN];
  memcpy(saved, ctx->errmsg, sizeof saved);
  tmp_init(best, plan, cached.kind, cached.threads_per_row);
  *st = tmp_setup(best);
  if (*st) {
    if (!left_out(*st)) return 0;
    snprintf(info->cache_note, sizeof info->cache_note,
             "ignored: its variant %s could not be set up (%.120s); re-tuned",
             sps_spmv_kind_name(cached.kind), ctx->errmsg);
    memcpy(ctx->errmsg, saved, sizeof saved);
    *st = SPS_SUCCESS;
    return 0;
  }
  char b[64];
  info->source = SPS_SPMV_SOURCE_CACHE;
  info->candidate_count = cached.candidate_count;
  memcpy(info->candidates, cached.candidates, sizeof cached.candidates);
  snprintf(info->cache_note, sizeof info->cache_note, "hit");
  snprintf(info->why, sizeof info->why,
           "%s: the fastest of %d candidates when this matrix structure was tuned on this device "
           "(cache entry %.300s)",
           label(cached.kind, cached.threads_per_row, b, sizeof b), cached.candidate_count,
           key->path);
  return 1;
}

sps_status sps_spmv_tune(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  const sps_backend *be = ctx->be;
  sps_spmv_choice_info *info = &plan->choice;
  const double t0 = sps_wtime();
  sps_spmv_plan best, cur;
  int have_best = 0;
  double best_sec = NAN, *x = NULL, *y = NULL;
  sps_status st = SPS_SUCCESS;
  sps_spmv_cache_key key;
  sps_spmv_choice list[SPS_SPMV_MAX_CANDIDATES];
  char saved[SPS_ERRMSG_LEN];
  memcpy(saved, ctx->errmsg, sizeof saved);
  memset(&best, 0, sizeof best);

  info->source = SPS_SPMV_SOURCE_TUNE;
  sps_spmv_cache_key_make(ctx, A, &key);
  snprintf(info->cache_file, sizeof info->cache_file, "%.1023s", key.path);
  if (!key.dir[0]) snprintf(info->cache_note, sizeof info->cache_note, "off");
  if (key.dir[0] && use_cache(plan, &key, &best, &st)) {
    have_best = 1;
    best_sec =
        table_seconds(info, best.kind, best.kind == SPS_SPMV_CSR_VECTOR ? best.threads_per_row : 0);
    goto done;
  }
  if (st) goto cleanup;

  const int n = candidate_list(plan, list);
  SPS_TRY(be->malloc(ctx, (void **)&x, (size_t)(A->ncols > 0 ? A->ncols : 1) * sizeof *x,
                     "tuning vector x"));
  SPS_TRY(be->malloc(ctx, (void **)&y, (size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof *y,
                     "tuning vector y"));
  SPS_TRY(be->fill(ctx, A->ncols, 1.0, x));
  SPS_TRY(be->fill(ctx, A->nrows, 0.0, y));
  for (int k = 0; k < n; k++) {
    sps_spmv_candidate *c = &info->candidates[info->candidate_count++];
    c->kind = list[k].kind;
    c->threads_per_row = list[k].kind == SPS_SPMV_CSR_VECTOR ? list[k].tpr : 0;
    c->seconds = NAN;
    tmp_init(&cur, plan, list[k].kind, list[k].tpr);
    st = tmp_setup(&cur);
    if (st) {
      if (!left_out(st)) goto cleanup;
      c->status = st;
      snprintf(c->note, sizeof c->note, "left out: %.180s", ctx->errmsg);
      memcpy(ctx->errmsg, saved, sizeof saved);
      st = SPS_SUCCESS;
      continue;
    }
    if (cur.kind == SPS_SPMV_CSR_VECTOR) c->threads_per_row = cur.threads_per_row;
    st = time_plan(&cur, x, y, &c->seconds, c->note, sizeof c->note);
    if (st) {
      tmp_release(&cur);
      goto cleanup;
    }
    info->timed++;
    if (!have_best || c->seconds < best_sec) {
      if (have_best) tmp_release(&best);
      best = cur;
      best_sec = c->seconds;
      have_best = 1;
    } else {
      tmp_release(&cur);
    }
  }
  char b1[64], b2[64];
  if (!have_best) {
    tmp_init(&best, plan, SPS_SPMV_CSR_SCALAR, 0);
    SPS_TRY(tmp_setup(&best));
    have_best = 1;
    snprintf(info->why, sizeof info->why,
             "none of the %d candidates could be set up (see the table): csr-scalar, which needs "
             "no format of its own",
             n);
  } else {
    const sps_spmv_candidate *first = &info->candidates[0];
    const int tpr = best.kind == SPS_SPMV_CSR_VECTOR ? best.threads_per_row : 0;
    if (first->kind == best.kind && first->threads_per_row == tpr)
      snprintf(info->why, sizeof info->why,
               "%s, %.3g us per apply: the fastest of %d candidates timed on the matrix, and the "
               "AUTO rule's pick",
               label(best.kind, tpr, b1, sizeof b1), 1e6 * best_sec, info->timed);
    else if (first->status == SPS_SUCCESS)
      snprintf(info->why, sizeof info->why,
               "%s, %.3g us per apply: the fastest of %d candidates timed on the matrix; the AUTO "
               "rule's pick %s takes %.3g us (%.2fx)",
               label(best.kind, tpr, b1, sizeof b1), 1e6 * best_sec, info->timed,
               label(first->kind, first->threads_per_row, b2, sizeof b2), 1e6 * first->seconds,
               first->seconds / best_sec);
    else
      snprintf(info->why, sizeof info->why,
               "%s, %.3g us per apply: the fastest of %d candidates timed on the matrix",
               label(best.kind, tpr, b1, sizeof b1), 1e6 * best_sec, info->timed);
  }
  info->kind = best.kind;
  info->threads_per_row = best.kind == SPS_SPMV_CSR_VECTOR ? best.threads_per_row : 0;
  if (key.dir[0]) {
    char why[512];
    char before[sizeof info->cache_note];
    snprintf(before, sizeof before, "%s", info->cache_note);
    if (sps_spmv_cache_write(&key, info, why, sizeof why))
      snprintf(info->cache_note, sizeof info->cache_note, "stored%s%.200s", before[0] ? "; " : "",
               before);
    else
      snprintf(info->cache_note, sizeof info->cache_note, "not stored: %.200s", why);
  }

done:
  plan->variant = best.variant;
  plan->data = best.data;
  plan->kind = best.kind;
  plan->threads_per_row = best.threads_per_row;
  best.data = NULL;
  best.is_setup = 0;
  have_best = 0;
  info->kind = plan->kind;
  info->threads_per_row = plan->kind == SPS_SPMV_CSR_VECTOR ? plan->threads_per_row : 0;
  info->tune_seconds = sps_wtime() - t0;
  info->tune_spmv_equivalents = best_sec > 0.0 ? info->tune_seconds / best_sec : 0.0;
cleanup:
  if (have_best) tmp_release(&best);
  if (x) be->free(ctx, x);
  if (y) be->free(ctx, y);
  return st;
}
