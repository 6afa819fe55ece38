/* merge.c: the merge SpMV variant: merge-path CSR (Merrill and Garland, SC'16), with the shares' start rows found at setup. */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/* Merged-list items (row ends + nonzeros) per share, one share per GPU thread. */
#define SPS_MERGE_ITEMS 8

typedef struct merge_data {
  int64_t nshares;
  int32_t *start_row; /* nshares, in the context's memory */
  int32_t *carry_row; /* nshares, work space written by apply */
  double *carry_val;  /* 2*nshares: the compensated sum (hi, lo) each share carries */
} merge_data;

/*
 * The 2-D binary search on diagonal d of the merge grid: the number i of row ends taken
 * before the path crosses the diagonal, i.e. the smallest i in [max(0, d-nnz), min(d, nrows)]
 * with rowptr[i+1] > d - i - 1 (row i is not finished before nonzero d - i - 1 is consumed).
 */
static int64_t merge_path_search(const int64_t *rowptr, int64_t nrows, int64_t nnz, int64_t d)
{
  int64_t lo = d - nnz > 0 ? d - nnz : 0;
  int64_t hi = d < nrows ? d : nrows;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (rowptr[mid + 1] <= d - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static sps_status merge_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  merge_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "merge plan data"));
  plan->data = d;
  const int64_t total = A->nrows + A->nnz;
  d->nshares = (total + SPS_MERGE_ITEMS - 1) / SPS_MERGE_ITEMS;
  int32_t *start;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&start, (size_t)d->nshares, sizeof *start,
                           "merge share start rows"));
#pragma omp parallel for schedule(static) if (d->nshares > 4096)
  for (int64_t t = 0; t < d->nshares; t++)
    start[t] = (int32_t)merge_path_search(A->rowptr, A->nrows, A->nnz, t * SPS_MERGE_ITEMS);
  SPS_CHECK(sps_spmv_to_device(ctx, (void **)&start, (void **)&d->start_row,
                               (size_t)d->nshares * sizeof(int32_t), "merge share start rows"));
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&d->carry_row, (size_t)d->nshares * sizeof(int32_t),
                            "merge carry rows"));
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&d->carry_val, 2 * (size_t)d->nshares * sizeof(double),
                            "merge carry values"));
  return SPS_SUCCESS;
}

static sps_status merge_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                              double *y)
{
  merge_data *d = plan->data;
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_merge(sps_cuda(plan->ctx)->stream, A->nrows, A->nnz,
                                              A->d_rowptr, A->d_colind, A->d_values, d->nshares,
                                              SPS_MERGE_ITEMS, d->start_row, d->carry_row,
                                              d->carry_val, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_merge(A->nrows, A->nnz, A->rowptr, A->colind, A->values, d->nshares, SPS_MERGE_ITEMS,
                d->start_row, d->carry_row, d->carry_val, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void merge_destroy(sps_spmv_plan *plan)
{
  merge_data *d = plan->data;
  if (!d) return;
  plan->ctx->be->free(plan->ctx, d->start_row);
  plan->ctx->be->free(plan->ctx, d->carry_row);
  plan->ctx->be->free(plan->ctx, d->carry_val);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_merge = {
    .kind = SPS_SPMV_MERGE,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = merge_setup,
    .apply = merge_apply,
    .destroy = merge_destroy,
};
