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
  return aggregate_cpu(ctx, A, theta, agg, naggs, S, info);
}

sps_status sps_amg_aggregate(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                             int64_t *naggs)
{
  return sps_amg_aggregate_ex(ctx, A, theta, agg, naggs, NULL, NULL);
}
