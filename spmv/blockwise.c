/* blockwise.c: the blockwise SpMV variant (seed 002): rows split once into short-row blocks and
 * long-row parts, all served by one launch. */
#include "ref/kernels.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * The partition, one pass over the row offsets:
 *   - a row of more than SPS_BLOCKWISE_LONG (64) nonzeros is long: it gets whole thread
 *     blocks, one per SPS_BLOCKWISE_PART_NNZ (8192) of its nonzeros, so no thread of a short
 *     block walks more than 64 entries;
 *   - consecutive short rows are grouped while the block holds at most `budget` nonzeros
 *     and SPS_BLOCKWISE_ROWS rows (a single short row always fits). The budget is
 *     SPS_BLOCKWISE_NNZ (2048, 8 per thread), lowered on a GPU for small matrices so that
 *     there are at least four blocks per multiprocessor (never below 256);
 *   - a short block whose rows average at most SPS_BLOCKWISE_STREAM_MEAN nonzeros is
 *     streamed (tpr 0): its products a_ik*x_k
 *     are staged in shared memory by coalesced loads and each thread then sums its rows
 *     there. Other short blocks run CSR-vector with the threads per row of seed 000's rule
 *     for their mean, raised so that their longest row takes at most 32 steps.
 */
#define SPS_BLOCKWISE_ROWS 2048
#define SPS_BLOCKWISE_STREAM_MEAN 16

typedef struct blockwise_data {
  int64_t nblocks;
  sps_block_desc *blocks; /* nblocks, in the context's memory */
  double *partial;        /* 2*nblocks: compensated sums (hi, lo) of long-row parts */
  unsigned *counter;      /* one per long row of several parts, zero between calls */
} blockwise_data;

/* Threads per row of a vector-mode short block: the mean's rule, at most 32 steps for the longest
 * row. */
static int16_t short_block_tpr(int64_t rows, int64_t nz, int64_t maxl)
{
  if (nz <= SPS_BLOCKWISE_STREAM_MEAN * rows) return 0;
  int tpr = sps_spmv_tpr_from_mean((double)nz / (double)rows, 1);
  while (tpr < 32 && (maxl + tpr - 1) / tpr > 32)
    tpr *= 2;
  return (int16_t)tpr;
}

/* Count (blocks == NULL) or fill the descriptors; returns the count and the number of counters,
 * and (when not NULL) the blocks given to long rows and the long rows. */
static int64_t blockwise_partition(const sps_matrix *A, int64_t budget, sps_block_desc *blocks,
                                   int64_t *nslots, int64_t *nlong_blocks, int64_t *nlong_rows)
{
  int64_t nb = 0, slots = 0, i = 0, lb = 0, lr = 0;
  const int64_t m = A->nrows;
  while (i < m) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > SPS_BLOCKWISE_LONG) {
      const int64_t parts = (len + SPS_BLOCKWISE_PART_NNZ - 1) / SPS_BLOCKWISE_PART_NNZ;
      for (int64_t p = 0; p < parts; p++, nb++)
        if (blocks)
          blocks[nb] = (sps_block_desc){.row = (int32_t)i,
                                        .count = (int32_t)p,
                                        .kind = SPS_BLOCK_LONG,
                                        .tpr = 0,
                                        .parts = (int32_t)parts,
                                        .slot = parts > 1 ? (int32_t)slots : -1,
                                        .pad = 0};
      if (parts > 1) slots++;
      lb += parts;
      lr++;
      i++;
      continue;
    }
    int64_t first = i, nz = 0, maxl = 0;
    while (i < m && i - first < SPS_BLOCKWISE_ROWS) {
      const int64_t l = A->rowptr[i + 1] - A->rowptr[i];
      if (l > SPS_BLOCKWISE_LONG || (i > first && nz + l > budget)) break;
      nz += l;
      if (l > maxl) maxl = l;
      i++;
    }
    if (blocks)
      blocks[nb] = (sps_block_desc){.row = (int32_t)first,
                                    .count = (int32_t)(i - first),
                                    .kind = SPS_BLOCK_SHORT,
                                    .tpr = short_block_tpr(i - first, nz, maxl),
                                    .parts = 0,
                                    .slot = -1,
                                    .pad = 0};
    nb++;
  }
  *nslots = slots;
  if (nlong_blocks) *nlong_blocks = lb;
  if (nlong_rows) *nlong_rows = lr;
  return nb;
}

/* Nonzeros per short block: SPS_BLOCKWISE_NNZ, or fewer to give a GPU four blocks per SM. */
static int64_t blockwise_budget(const sps_context *ctx, const sps_matrix *A)
{
  int64_t budget = SPS_BLOCKWISE_NNZ;
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    int64_t want = A->nnz / (4 * (int64_t)sps_cuda(ctx)->sm_count);
    if (want < budget) budget = want < 256 ? 256 : want;
  }
#else
  (void)ctx;
  (void)A;
#endif
  return budget;
}

void sps_spmv_blockwise_count(const sps_matrix *A, int64_t *short_blocks, int64_t *long_blocks,
                              int64_t *long_rows)
{
  int64_t nslots, lb, lr;
  const int64_t nb = blockwise_partition(A, blockwise_budget(A->ctx, A), NULL, &nslots, &lb, &lr);
  *short_blocks = nb - lb;
  *long_blocks = lb;
  *long_rows = lr;
}

static sps_status blockwise_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  blockwise_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "blockwise plan data"));
  plan->data = d;
  int64_t nslots;
  const int64_t budget = blockwise_budget(ctx, A);
  d->nblocks = blockwise_partition(A, budget, NULL, &nslots, NULL, NULL);
  if (d->nblocks > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "SpMV variant 'blockwise': %lld blocks exceed the grid limit",
             (long long)d->nblocks);
  sps_block_desc *blocks;
  unsigned *zeros;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&blocks, (size_t)d->nblocks, sizeof *blocks,
                           "blockwise descriptors"));
  blockwise_partition(A, budget, blocks, &nslots, NULL, NULL);
  SPS_CHECK(sps_spmv_to_device(ctx, (void **)&blocks, (void **)&d->blocks,
                               (size_t)d->nblocks * sizeof(sps_block_desc),
                               "blockwise descriptors"));
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&d->partial, 2 * (size_t)d->nblocks * sizeof(double),
                            "blockwise partial sums"));
  SPS_CHECK(
      sps_host_calloc(ctx, (void **)&zeros, (size_t)nslots, sizeof *zeros, "blockwise counters"));
  SPS_CHECK(sps_spmv_to_device(ctx, (void **)&zeros, (void **)&d->counter,
                               (size_t)nslots * sizeof(unsigned), "blockwise counters"));
  return SPS_SUCCESS;
}

static sps_status blockwise_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                                  double *y)
{
  blockwise_data *d = plan->data;
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_blockwise(sps_cuda(plan->ctx)->stream, A->d_rowptr, A->d_rowptr32,
                                       A->d_colind, A->d_values, d->nblocks, d->blocks, d->partial,
                                       d->counter, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_blockwise(A->rowptr, A->colind, A->values, d->nblocks, d->blocks, d->partial, alpha, x,
                    beta, y);
  return SPS_SUCCESS;
}

static void blockwise_destroy(sps_spmv_plan *plan)
{
  blockwise_data *d = plan->data;
  if (!d) return;
  plan->ctx->be->free(plan->ctx, d->blocks);
  plan->ctx->be->free(plan->ctx, d->partial);
  plan->ctx->be->free(plan->ctx, d->counter);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_blockwise = {
    .kind = SPS_SPMV_BLOCKWISE,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = blockwise_setup,
    .apply = blockwise_apply,
    .destroy = blockwise_destroy,
};
