/* aggregate.c: sps_amg_aggregate, the host entry point of strength of connection and MIS(2) aggregation: allocation and the rounds on the CPU reference or, on a CUDA context, the GPU kernels. */
#include <math.h>
#include <string.h>

#include "aggregate.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * The steps (precond/ref/kernels.h and precond/ref/aggregate.c give the math):
 *   1. the strength graph: d = diag(A); C (directed) by count, prefix sum, fill; T = C^T;
 *      S = C u T by count, prefix sum, fill;
 *   2. MIS(2): keys from the priorities, then rounds of sweep, sweep, decide until no row is
 *      undecided (at most n rounds: each decides at least one row);
 *   3. aggregates: the roots numbered by a prefix sum, then rounds of attach until no row with
 *      neighbours is left (two after a maximal MIS(2); a round that assigns nothing while rows
 *      are left would be a fault of the rounds above, reported as SPS_ERR_STATE).
 * On the CPU the host runs each step; on CUDA each step is a kernel (or a CUB scan or sort)
 * on the context's stream, and the host reads back one counter a round of MIS(2) and of
 * attach, and the sizes of C and S before allocating them.
 */

/* The arrays of one aggregation, in the context's memory (host for the CPU). */
typedef struct agg_work {
  double *d;
  int64_t *crp, *trp, *srp;
  int32_t *cci, *tci, *sci;
  uint64_t *key, *mkey1, *mkey2;
  int32_t *midx1, *midx2, *agg2;
} agg_work;

static size_t at_least_one(int64_t n)
{
  return n > 0 ? (size_t)n : 1;
}

/* count[0..n) -> offsets[0..n], in place (count has n + 1 entries). */
static void prefix_sum(int64_t n, int64_t *count)
{
  int64_t s = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t c = count[i];
    count[i] = s;
    s += c;
  }
  count[n] = s;
}

static void free_host_work(agg_work *w)
{
  sps_host_free(w->d);
  sps_host_free(w->crp);
  sps_host_free(w->trp);
  sps_host_free(w->srp);
  sps_host_free(w->cci);
  sps_host_free(w->tci);
  sps_host_free(w->sci);
  sps_host_free(w->key);
  sps_host_free(w->mkey1);
  sps_host_free(w->mkey2);
  sps_host_free(w->midx1);
  sps_host_free(w->midx2);
  sps_host_free(w->agg2);
  memset(w, 0, sizeof *w);
}

/* The whole aggregation on the host, by the reference steps. */
static sps_status aggregate_cpu(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                                int64_t *naggs, sps_host_csr *S, sps_amg_aggregate_info *info)
{
  sps_status st = SPS_SUCCESS;
  const int64_t n = A->n;
  const size_t n1 = (size_t)n + 1, nn = at_least_one(n);
  agg_work w = {0};
  const double t_start = sps_wtime();
  /* 1. The strength graph. */
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.d, nn, sizeof(double), "aggregation: diagonal"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.crp, n1, sizeof(int64_t), "aggregation: strong rows"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.trp, n1, sizeof(int64_t), "aggregation: strong rows"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.srp, n1, sizeof(int64_t), "aggregation: strength graph"));
  sps_ref_agg_diagonal(n, A->rowptr, A->colind, A->values, w.d);
  sps_ref_agg_strong_count(n, A->rowptr, A->colind, A->values, w.d, theta, w.crp);
  prefix_sum(n, w.crp);
  const int64_t nc = w.crp[n];
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.cci, at_least_one(nc), sizeof(int32_t),
                         "aggregation: strong columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.tci, at_least_one(nc), sizeof(int32_t),
                         "aggregation: strong columns"));
  sps_ref_agg_strong_fill(n, A->rowptr, A->colind, A->values, w.d, theta, w.crp, w.cci);
  sps_ref_csr_transpose(n, n, w.crp, w.cci, NULL, w.trp, w.tci, NULL);
  sps_ref_agg_union_count(n, w.crp, w.cci, w.trp, w.tci, w.srp);
  prefix_sum(n, w.srp);
  const int64_t ns = w.srp[n];
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.sci, at_least_one(ns), sizeof(int32_t),
                         "aggregation: strength graph"));
  sps_ref_agg_union_fill(n, w.crp, w.cci, w.trp, w.tci, w.srp, w.sci);
  sps_host_free(w.cci), w.cci = NULL;
  sps_host_free(w.tci), w.tci = NULL;
  const double t_mis = sps_wtime();
  if (info) info->strength_seconds = t_mis - t_start;
  /* 2. MIS(2). */
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.key, nn, sizeof(uint64_t), "aggregation: keys"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.mkey1, nn, sizeof(uint64_t), "aggregation: keys"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.mkey2, nn, sizeof(uint64_t), "aggregation: keys"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.midx1, nn, sizeof(int32_t), "aggregation: indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.midx2, nn, sizeof(int32_t), "aggregation: indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w.agg2, nn, sizeof(int32_t), "aggregation: aggregates"));
  sps_ref_agg_init(n, w.srp, w.key);
  int64_t isolated = 0;
  for (int64_t i = 0; i < n; i++)
    isolated += w.srp[i + 1] == w.srp[i];
  int mis_rounds = 0, attach_rounds = 0;
  for (int64_t undecided = n - isolated; undecided > 0;) {
    /* M <- T; M <- max over S(i) twice; decide. */
    sps_ref_agg_sweep(n, w.srp, w.sci, w.key, NULL, w.mkey1, w.midx1);
    sps_ref_agg_sweep(n, w.srp, w.sci, w.mkey1, w.midx1, w.mkey2, w.midx2);
    undecided = sps_ref_agg_decide(n, w.mkey2, w.midx2, w.key);
    mis_rounds++;
  }
  const double t_attach = sps_wtime();
  if (info) info->mis_seconds = t_attach - t_mis;
  /* 3. Aggregates: roots, then rounds of attach (ping-pong between agg and agg2). */
  *naggs = sps_ref_agg_roots(n, w.key, agg);
  int32_t *cur = agg, *next = w.agg2;
  for (int64_t left = n - isolated - *naggs; left > 0;) {
    int64_t changed;
    sps_ref_agg_attach(n, w.srp, w.sci, w.key, cur, next, &changed, &left);
    attach_rounds++;
    int32_t *t = cur;
    cur = next;
    next = t;
    if (left > 0 && changed == 0)
      SPS_TRY_FAIL(ctx, SPS_ERR_STATE, "aggregation: %lld rows are not within distance 2 of a root",
                   (long long)left);
  }
  if (cur != agg) memcpy(agg, cur, (size_t)n * sizeof(int32_t));
  if (info) info->attach_seconds = sps_wtime() - t_attach;
  if (info) {
    info->strong_entries = ns;
    info->isolated = isolated;
    info->mis_rounds = mis_rounds;
    info->attach_rounds = attach_rounds;
  }
  if (S) {
    S->n = n;
    S->rowptr = w.srp;
    S->colind = w.sci;
    S->values = NULL;
    w.srp = NULL;
    w.sci = NULL;
  }
cleanup:
  free_host_work(&w);
  return st;
}

#ifdef SPS_HAVE_CUDA
/* In a function with one exit: a launcher's status to st, then cleanup. */
#define AGG_CUDA(call)                                                                             \
  do {                                                                                             \
    const cudaError_t agg_e_ = (call);                                                             \
    if (agg_e_ != cudaSuccess)                                                                     \
      SPS_TRY_FAIL(ctx,                                                                            \
                   agg_e_ == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,     \
                   "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(agg_e_));        \
  } while (0)

/* The device arrays of one aggregation besides agg_work's. */
typedef struct agg_dev {
  int64_t *rp, *cnt;
  int32_t *ci, *crow, *keys;
  double *v;
  void *temp;
  unsigned long long *words; /* 2 counters */
} agg_dev;

/*
 * The whole aggregation on the context's GPU, A in device memory (rp, ci, v; `own`: the
 * arrays are this call's, freed as soon as they are no longer needed, to make room for the
 * sort): the kernels, agg into d_agg (device memory, n entries), S downloaded when asked for.
 */
static sps_status aggregate_cuda(sps_context *ctx, int64_t n, int64_t *rp, int32_t *ci, double *v,
                                 int own, double theta, int32_t *d_agg, int64_t *naggs,
                                 sps_host_csr *S, sps_amg_aggregate_info *info)
{
  sps_status st = SPS_SUCCESS;
  const sps_backend *be = ctx->be;
  const cudaStream_t s = sps_cuda(ctx)->stream;
  const size_t n1 = (size_t)n + 1, nn = at_least_one(n);
  agg_work w = {0};
  agg_dev g = {0};
  int64_t *hsrp = NULL;
  int32_t *hsci = NULL;
  size_t temp_bytes = 0, need = 0;
  unsigned long long words[2];
  if (own) {
    g.rp = rp;
    g.ci = ci;
    g.v = v;
  }
#define AGG_DMALLOC(ptr, count, size, what)                                                        \
  SPS_TRY(be->malloc(ctx, (void **)&(ptr), (size_t)(count) * (size_t)(size), what))
  /* 1. The strength graph. */
  const double t_start = sps_wtime();
  AGG_DMALLOC(w.d, nn, sizeof(double), "aggregation: diagonal");
  AGG_DMALLOC(g.cnt, n1, sizeof(int64_t), "aggregation: row counts");
  AGG_DMALLOC(w.crp, n1, sizeof(int64_t), "aggregation: strong rows");
  AGG_DMALLOC(w.trp, n1, sizeof(int64_t), "aggregation: strong rows");
  AGG_DMALLOC(w.srp, n1, sizeof(int64_t), "aggregation: strength graph");
  AGG_DMALLOC(g.words, 2, sizeof(unsigned long long), "aggregation: counters");
  AGG_CUDA(sps_cuda_agg_scan(s, NULL, &temp_bytes, g.cnt, w.crp, (int64_t)n1));
  AGG_DMALLOC(g.temp, temp_bytes > 0 ? temp_bytes : 1, 1, "aggregation: scan scratch");
  AGG_CUDA(sps_cuda_agg_diagonal(s, n, rp, ci, v, w.d));
  AGG_CUDA(sps_cuda_agg_strong_count(s, n, rp, ci, v, w.d, theta, g.cnt));
  AGG_CUDA(sps_cuda_agg_scan(s, g.temp, &temp_bytes, g.cnt, w.crp, (int64_t)n1));
  int64_t nc = 0;
  SPS_TRY(be->download(ctx, &nc, w.crp + n, sizeof nc));
  AGG_DMALLOC(w.cci, at_least_one(nc), sizeof(int32_t), "aggregation: strong columns");
  AGG_DMALLOC(w.tci, at_least_one(nc), sizeof(int32_t), "aggregation: strong columns");
  AGG_DMALLOC(g.crow, at_least_one(nc), sizeof(int32_t), "aggregation: strong rows");
  AGG_DMALLOC(g.keys, at_least_one(nc), sizeof(int32_t), "aggregation: sorted columns");
  AGG_CUDA(sps_cuda_agg_strong_fill(s, n, rp, ci, v, w.d, theta, w.crp, w.cci, g.crow));
  /* A is no longer needed: release a copy of this call's before the sort's scratch. */
  if (g.ci) be->free(ctx, g.ci), g.ci = NULL;
  if (g.v) be->free(ctx, g.v), g.v = NULL;
  /* T = C^T: column counts, offsets, entries sorted by column (rows ascending within). */
  AGG_CUDA(sps_cuda_agg_column_count(s, n, nc, w.cci, g.cnt));
  AGG_CUDA(sps_cuda_agg_scan(s, g.temp, &temp_bytes, g.cnt, w.trp, (int64_t)n1));
  if (nc > 0) {
    AGG_CUDA(sps_cuda_agg_sort_by_column(s, NULL, &need, n, nc, w.cci, g.crow, g.keys, w.tci));
    if (need > temp_bytes) {
      be->free(ctx, g.temp), g.temp = NULL;
      temp_bytes = need;
      AGG_DMALLOC(g.temp, temp_bytes, 1, "aggregation: sort scratch");
    }
    AGG_CUDA(
        sps_cuda_agg_sort_by_column(s, g.temp, &temp_bytes, n, nc, w.cci, g.crow, g.keys, w.tci));
  }
  be->free(ctx, g.crow), g.crow = NULL;
  be->free(ctx, g.keys), g.keys = NULL;
  /* S = C u T. */
  AGG_CUDA(sps_cuda_agg_union_count(s, n, w.crp, w.cci, w.trp, w.tci, g.cnt));
  AGG_CUDA(sps_cuda_agg_scan(s, g.temp, &temp_bytes, g.cnt, w.srp, (int64_t)n1));
  int64_t ns = 0;
  SPS_TRY(be->download(ctx, &ns, w.srp + n, sizeof ns));
  AGG_DMALLOC(w.sci, at_least_one(ns), sizeof(int32_t), "aggregation: strength graph");
  AGG_CUDA(sps_cuda_agg_union_fill(s, n, w.crp, w.cci, w.trp, w.tci, w.srp, w.sci));
  be->free(ctx, w.cci), w.cci = NULL;
  be->free(ctx, w.tci), w.tci = NULL;
  /* 2. MIS(2): a round is sweep, sweep, decide and the read of the undecided count. */
  const double t_mis = sps_wtime();
  if (info) info->strength_seconds = t_mis - t_start;
  AGG_DMALLOC(w.key, nn, sizeof(uint64_t), "aggregation: keys");
  AGG_DMALLOC(w.mkey1, nn, sizeof(uint64_t), "aggregation: keys");
  AGG_DMALLOC(w.mkey2, nn, sizeof(uint64_t), "aggregation: keys");
  AGG_DMALLOC(w.midx1, nn, sizeof(int32_t), "aggregation: indices");
  AGG_DMALLOC(w.midx2, nn, sizeof(int32_t), "aggregation: indices");
  AGG_CUDA(sps_cuda_agg_init(s, n, w.srp, w.key, g.words));
  SPS_TRY(be->download(ctx, words, g.words, sizeof words[0]));
  const int64_t isolated = (int64_t)words[0];
  int mis_rounds = 0, attach_rounds = 0;
  for (int64_t undecided = n - isolated; undecided > 0;) {
    AGG_CUDA(sps_cuda_agg_sweep(s, n, w.srp, w.sci, w.key, NULL, w.mkey1, w.midx1));
    AGG_CUDA(sps_cuda_agg_sweep(s, n, w.srp, w.sci, w.mkey1, w.midx1, w.mkey2, w.midx2));
    AGG_CUDA(sps_cuda_agg_decide(s, n, w.mkey2, w.midx2, w.key, g.words));
    SPS_TRY(be->download(ctx, words, g.words, sizeof words[0]));
    undecided = (int64_t)words[0];
    mis_rounds++;
  }
  const double t_attach = sps_wtime();
  if (info) info->mis_seconds = t_attach - t_mis;
  /* 3. Aggregates: roots by a scan of their flags, then rounds of attach (agg ping-pongs
   * between midx1 and midx2, free now). */
  AGG_CUDA(sps_cuda_agg_root_flags(s, n, w.key, g.cnt));
  AGG_CUDA(sps_cuda_agg_scan(s, g.temp, &temp_bytes, g.cnt, w.crp, (int64_t)n1));
  SPS_TRY(be->download(ctx, naggs, w.crp + n, sizeof *naggs));
  int32_t *cur = w.midx1, *next = w.midx2;
  AGG_CUDA(sps_cuda_agg_roots(s, n, w.key, w.crp, cur));
  for (int64_t left = n - isolated - *naggs; left > 0;) {
    AGG_CUDA(sps_cuda_agg_attach(s, n, w.srp, w.sci, w.key, cur, next, g.words));
    SPS_TRY(be->download(ctx, words, g.words, sizeof words));
    left = (int64_t)words[1];
    attach_rounds++;
    int32_t *t = cur;
    cur = next;
    next = t;
    if (left > 0 && words[0] == 0)
      SPS_TRY_FAIL(ctx, SPS_ERR_STATE, "aggregation: %lld rows are not within distance 2 of a root",
                   (long long)left);
  }
  SPS_TRY(be->copy_bytes(ctx, d_agg, cur, (size_t)n * sizeof(int32_t)));
  if (info) info->attach_seconds = sps_wtime() - t_attach;
  if (info) {
    info->strong_entries = ns;
    info->isolated = isolated;
    info->mis_rounds = mis_rounds;
    info->attach_rounds = attach_rounds;
  }
  if (S) {
    SPS_TRY(sps_host_alloc(ctx, (void **)&hsrp, n1, sizeof(int64_t), "strength graph"));
    SPS_TRY(
        sps_host_alloc(ctx, (void **)&hsci, at_least_one(ns), sizeof(int32_t), "strength graph"));
    SPS_TRY(be->download(ctx, hsrp, w.srp, n1 * sizeof(int64_t)));
    SPS_TRY(be->download(ctx, hsci, w.sci, (size_t)ns * sizeof(int32_t)));
    S->n = n;
    S->rowptr = hsrp;
    S->colind = hsci;
    S->values = NULL;
    hsrp = NULL;
    hsci = NULL;
  }
#undef AGG_DMALLOC
cleanup : {
  void *dev[] = {w.d,   w.crp,   w.trp,   w.srp,   w.cci,   w.tci,  w.sci,
                 w.key, w.mkey1, w.mkey2, w.midx1, w.midx2, w.agg2, g.rp,
                 g.cnt, g.ci,    g.crow,  g.keys,  g.v,     g.temp, g.words};
  for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
    if (dev[k]) be->free(ctx, dev[k]);
}
  sps_host_free(hsrp);
  sps_host_free(hsci);
  return st;
}
#endif

sps_status sps_amg_aggregate_ex(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                                int64_t *naggs, sps_host_csr *S, sps_amg_aggregate_info *info)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, A, "A");
  SPS_CHECK_ARG(ctx, A->n >= 0 && A->rowptr, "A");
  SPS_CHECK_ARG(ctx, A->n == 0 || A->rowptr[A->n] == 0 || (A->colind && A->values), "A");
  SPS_CHECK_ARG(ctx, agg || A->n == 0, "agg");
  SPS_CHECK_ARG(ctx, naggs, "naggs");
  SPS_CHECK_ARG(ctx, theta >= 0.0 && isfinite(theta), "theta");
  if (A->n > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "aggregation: %lld rows exceed the int32 indices", (long long)A->n);
  if (S) memset(S, 0, sizeof *S);
  if (info) memset(info, 0, sizeof *info);
  const double t0 = sps_wtime();
  sps_status st;
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    /* upload A, aggregate, download agg */
    const sps_backend *be = ctx->be;
    const int64_t n = A->n, nnz = A->rowptr[n];
    int64_t *rp = NULL;
    int32_t *ci = NULL, *d_agg = NULL;
    double *v = NULL;
    st = be->malloc(ctx, (void **)&rp, ((size_t)n + 1) * sizeof *rp, "aggregation: A's row offsets");
    if (!st) st = be->malloc(ctx, (void **)&ci, at_least_one(nnz) * sizeof *ci, "aggregation: A's columns");
    if (!st) st = be->malloc(ctx, (void **)&v, at_least_one(nnz) * sizeof *v, "aggregation: A's values");
    if (!st) st = be->malloc(ctx, (void **)&d_agg, at_least_one(n) * sizeof *d_agg, "aggregation: aggregates");
    const double t_up = sps_wtime();
    if (!st) st = be->upload(ctx, rp, A->rowptr, ((size_t)n + 1) * sizeof *rp);
    if (!st && nnz > 0) st = be->upload(ctx, ci, A->colind, (size_t)nnz * sizeof *ci);
    if (!st && nnz > 0) st = be->upload(ctx, v, A->values, (size_t)nnz * sizeof *v);
    const double up = sps_wtime() - t_up;
    if (!st) {
      st = aggregate_cuda(ctx, n, rp, ci, v, 1, theta, d_agg, naggs, S, info);
      rp = NULL; /* freed by the call */
      ci = NULL;
      v = NULL;
    }
    if (!st && n > 0) st = be->download(ctx, agg, d_agg, (size_t)n * sizeof *agg);
    if (info) info->upload_seconds = up;
    if (rp) be->free(ctx, rp);
    if (ci) be->free(ctx, ci);
    if (v) be->free(ctx, v);
    if (d_agg) be->free(ctx, d_agg);
  } else
#endif
    st = aggregate_cpu(ctx, A, theta, agg, naggs, S, info);
  if (info) info->seconds = sps_wtime() - t0;
  return st;
}

sps_status sps_amg_aggregate_device(sps_context *ctx, int64_t n, const int64_t *rp,
                                    const int32_t *ci, const double *v, double theta, int32_t *agg,
                                    int64_t *naggs)
{
  if (n > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "aggregation: %lld rows exceed the int32 indices", (long long)n);
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA)
    return aggregate_cuda(ctx, n, (int64_t *)rp, (int32_t *)ci, (double *)v, 0, theta, agg, naggs,
                          NULL, NULL);
#endif
  const sps_host_csr A = {n, (int64_t *)rp, (int32_t *)ci, (double *)v};
  return aggregate_cpu(ctx, &A, theta, agg, naggs, NULL, NULL);
}

sps_status sps_amg_aggregate(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                             int64_t *naggs)
{
  return sps_amg_aggregate_ex(ctx, A, theta, agg, naggs, NULL, NULL);
}
