/* binned.c: the binned SpMV variant (ACSR-style, Ashari et al. SC'14): rows binned once by length, each bin served by its own threads per row, all bins in one launch. */
#include "ref/kernels.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * The bins, from one pass over the row offsets (ref/kernels.h has the tables):
 *   - long rows, more than SPS_BINNED_WARP_MAX (1024) nonzeros: whole thread blocks, one per
 *     SPS_BINNED_PART_NNZ (8192) of their nonzeros, so no thread walks more than 32 entries;
 *     the parts of a row are merged in order by the last one to finish;
 *   - warp rows, SPS_BINNED_SHORT + 1 (33) to 1024 nonzeros: one warp per row, a list of
 *     their indices in ascending order, eight rows to a block;
 *   - short rows, 0 to 32 nonzeros (empty rows included: y_i <- beta*y_i): tiles of
 *     consecutive rows that skip the longer rows inside them, up to SPS_BINNED_TILE_ROWS
 *     (1024) rows and `budget` nonzeros of short rows. Their nonzeros are loaded by all the
 *     threads of the block (no lane waits for a row's length) and each row summed by one
 *     thread. So a long row no longer cuts the short rows around it into small blocks, as
 *     blockwise's partition does.
 * The budget is SPS_BINNED_TILE_NNZ (2048), lowered on a GPU for small matrices so that the
 * tiles give at least four blocks per multiprocessor (never below 256).
 * Blocks run in the order long parts, warp rows, tiles, so the longest work starts first.
 * The sums of a row do not depend on the partition: short rows in entry order, warp rows in
 * csr-vector's 32-lane order, long rows in blockwise's part order.
 */

typedef struct binned_data {
  int64_t nlong, nwarp, ntiles;
  sps_binned_long *longs; /* nlong part descriptors, in the context's memory */
  int32_t *warp_rows;     /* nwarp rows, ascending */
  sps_binned_tile *tiles; /* ntiles short-row tiles */
  double *partial;        /* 2*nlong: compensated sums (hi, lo) of long-row parts */
  unsigned *counter;      /* one per long row of several parts, zero between calls */
} binned_data;

typedef struct binned_counts {
  int64_t nlong, nslots, nwarp, ntiles;
  int64_t short_nnz; /* nonzeros of the short rows */
} binned_counts;

/* The long parts and the warp rows: count (tables NULL) or fill. */
static void binned_rows(const sps_matrix *A, sps_binned_long *longs, int32_t *warp_rows,
                        binned_counts *c)
{
  c->nlong = c->nslots = c->nwarp = c->short_nnz = 0;
  for (int64_t i = 0; i < A->nrows; i++) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > SPS_BINNED_WARP_MAX) {
      const int64_t parts = (len + SPS_BINNED_PART_NNZ - 1) / SPS_BINNED_PART_NNZ;
      for (int64_t p = 0; p < parts; p++, c->nlong++)
        if (longs)
          longs[c->nlong] = (sps_binned_long){.row = (int32_t)i,
                                              .part = (int32_t)p,
                                              .parts = (int32_t)parts,
                                              .slot = parts > 1 ? (int32_t)c->nslots : -1};
      if (parts > 1) c->nslots++;
    } else if (len > SPS_BINNED_SHORT) {
      if (warp_rows) warp_rows[c->nwarp] = (int32_t)i;
      c->nwarp++;
    } else {
      c->short_nnz += len;
    }
  }
}

/*
 * The short tiles: count (tiles NULL) or fill; returns their number. A tile grows while it
 * has at most SPS_BINNED_TILE_ROWS rows and its short rows at most `budget` nonzeros (a
 * single short row always fits); a range with no short row makes no tile.
 */
static int64_t binned_tiles(const sps_matrix *A, int64_t budget, sps_binned_tile *tiles)
{
  int64_t nt = 0, i = 0;
  const int64_t m = A->nrows;
  while (i < m) {
    const int64_t first = i;
    int64_t nz = 0, shorts = 0;
    while (i < m && i - first < SPS_BINNED_TILE_ROWS) {
      const int64_t l = A->rowptr[i + 1] - A->rowptr[i];
      if (l <= SPS_BINNED_SHORT) {
        if (shorts > 0 && nz + l > budget) break;
        nz += l;
        shorts++;
      }
      i++;
    }
    if (shorts == 0) continue;
    if (tiles) tiles[nt] = (sps_binned_tile){.row = (int32_t)first, .count = (int32_t)(i - first)};
    nt++;
  }
  return nt;
}

/* Nonzeros per tile: SPS_BINNED_TILE_NNZ, or fewer to give a GPU four tiles per SM. */
static int64_t binned_budget(const sps_spmv_plan *plan, int64_t short_nnz)
{
  int64_t budget = SPS_BINNED_TILE_NNZ;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    int64_t want = short_nnz / (4 * (int64_t)sps_cuda(plan->ctx)->sm_count);
    if (want < budget) budget = want < 256 ? 256 : want;
  }
#else
  (void)plan;
  (void)short_nnz;
#endif
  return budget;
}

static sps_status binned_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  binned_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "binned plan data"));
  plan->data = d;
  if (A->nrows > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "SpMV variant 'binned': %lld rows exceed the 32-bit row lists",
             (long long)A->nrows);
  binned_counts c;
  binned_rows(A, NULL, NULL, &c);
  const int64_t budget = binned_budget(plan, c.short_nnz);
  const int64_t ntiles = binned_tiles(A, budget, NULL);
  const int64_t rows_per_block = SPS_BINNED_THREADS / 32;
  if (c.nlong + (c.nwarp + rows_per_block - 1) / rows_per_block + ntiles > INT32_MAX)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "SpMV variant 'binned': the bins need more blocks than a grid has");
  d->nlong = c.nlong;
  d->nwarp = c.nwarp;
  d->ntiles = ntiles;
  sps_binned_long *longs = NULL;
  int32_t *warp_rows = NULL;
  sps_binned_tile *tiles = NULL;
  unsigned *zeros = NULL;
  sps_status st =
      sps_host_alloc(ctx, (void **)&longs, (size_t)c.nlong, sizeof *longs, "binned long-row parts");
  if (!st)
    st = sps_host_alloc(ctx, (void **)&warp_rows, (size_t)c.nwarp, sizeof *warp_rows,
                        "binned warp rows");
  if (!st) st = sps_host_alloc(ctx, (void **)&tiles, (size_t)ntiles, sizeof *tiles, "binned tiles");
  if (!st)
    st = sps_host_calloc(ctx, (void **)&zeros, (size_t)c.nslots, sizeof *zeros, "binned counters");
  if (!st) {
    binned_rows(A, longs, warp_rows, &c);
    binned_tiles(A, budget, tiles);
    st = sps_spmv_to_device(ctx, (void **)&longs, (void **)&d->longs,
                            (size_t)c.nlong * sizeof *longs, "binned long-row parts");
  }
  if (!st)
    st = sps_spmv_to_device(ctx, (void **)&warp_rows, (void **)&d->warp_rows,
                            (size_t)c.nwarp * sizeof *warp_rows, "binned warp rows");
  if (!st)
    st = sps_spmv_to_device(ctx, (void **)&tiles, (void **)&d->tiles,
                            (size_t)ntiles * sizeof *tiles, "binned tiles");
  if (!st)
    st = sps_spmv_to_device(ctx, (void **)&zeros, (void **)&d->counter,
                            (size_t)c.nslots * sizeof *zeros, "binned counters");
  if (!st)
    st = ctx->be->malloc(ctx, (void **)&d->partial, 2 * (size_t)c.nlong * sizeof(double),
                         "binned partial sums");
  sps_host_free(longs);
  sps_host_free(warp_rows);
  sps_host_free(tiles);
  sps_host_free(zeros);
  return st;
}

static sps_status binned_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                               double *y)
{
  binned_data *d = plan->data;
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_binned(sps_cuda(plan->ctx)->stream, A->d_rowptr, A->d_rowptr32,
                                    A->d_colind, A->d_values, d->nlong, d->longs, d->nwarp,
                                    d->warp_rows, d->ntiles, d->tiles, d->partial, d->counter,
                                    alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_binned(A->rowptr, A->colind, A->values, d->nlong, d->longs, d->nwarp, d->warp_rows,
                 d->ntiles, d->tiles, d->partial, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void binned_destroy(sps_spmv_plan *plan)
{
  binned_data *d = plan->data;
  if (!d) return;
  plan->ctx->be->free(plan->ctx, d->longs);
  plan->ctx->be->free(plan->ctx, d->warp_rows);
  plan->ctx->be->free(plan->ctx, d->tiles);
  plan->ctx->be->free(plan->ctx, d->partial);
  plan->ctx->be->free(plan->ctx, d->counter);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_binned = {
    .kind = SPS_SPMV_BINNED,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = binned_setup,
    .apply = binned_apply,
    .destroy = binned_destroy,
};
