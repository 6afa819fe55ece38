/* stats.c: CPU reference of the statistics kernel, the integer sums of a sparsity pattern (sps_stats_sums) from which spmv/stats.c makes sps_matrix_stats.
 *
 * One pass over the row offsets (length, (len - k) and its square, extremes, the counts) and,
 * with columns, one over each row's column indices: |col - row| and the distinct 32-column
 * windows, counted where col/32 changes (columns are sorted within a row). Every sum is an
 * integer, so the GPU kernel (spmv/cuda/stats.cu) must give the same words whatever its order.
 * OpenMP threads keep their own sums and add them at the end; small patterns run on one thread
 * (the fork would cost more than the pass).
 */
#include "kernels.h"

/* Below this many rows plus entries the pass runs on one thread. */
#define STATS_PARALLEL_MIN 65536

/* acc <- acc + part, field by field (sums, 128-bit sums and maxima). */
static void sums_merge(sps_stats_sums *acc, const sps_stats_sums *part)
{
  acc->s1 += part->s1;
  sps_u128_add(&acc->s2_lo, &acc->s2_hi, part->s2_lo);
  acc->s2_hi += part->s2_hi;
  if (part->min_inv > acc->min_inv) acc->min_inv = part->min_inv;
  if (part->max_len > acc->max_len) acc->max_len = part->max_len;
  acc->empty += part->empty;
  acc->over32 += part->over32;
  acc->over1024 += part->over1024;
  acc->long_rows += part->long_rows;
  acc->long_blocks += part->long_blocks;
  sps_u128_add(&acc->dist_lo, &acc->dist_hi, part->dist_lo);
  acc->dist_hi += part->dist_hi;
  acc->windows += part->windows;
}

void sps_ref_stats(int64_t nrows, const int64_t *rowptr, const int32_t *colind, int columns,
                   int64_t k, sps_stats_sums *out)
{
  sps_stats_sums total = {0};
  const int64_t nnz = nrows > 0 ? rowptr[nrows] : 0;
#pragma omp parallel if (nrows + nnz >= STATS_PARALLEL_MIN)
  {
    sps_stats_sums t = {0};
#pragma omp for schedule(dynamic, 4096) nowait
    for (int64_t i = 0; i < nrows; i++) {
      const int64_t len = rowptr[i + 1] - rowptr[i];
      const int64_t d = len - k;
      const uint64_t ad = (uint64_t)(d < 0 ? -d : d); /* <= 2^31 */
      t.s1 += (uint64_t)d;
      sps_u128_add(&t.s2_lo, &t.s2_hi, ad * ad);
      if (~(uint64_t)len > t.min_inv) t.min_inv = ~(uint64_t)len;
      if ((uint64_t)len > t.max_len) t.max_len = (uint64_t)len;
      t.empty += len == 0;
      t.over32 += len > 32;
      t.over1024 += len > 1024;
      if (len > SPS_BLOCKWISE_LONG) {
        t.long_rows++;
        t.long_blocks += (uint64_t)((len + SPS_BLOCKWISE_PART_NNZ - 1) / SPS_BLOCKWISE_PART_NNZ);
      }
      if (!columns) continue;
      /* A row's sum of |col - row| is below len * 2^31 < 2^62: one 128-bit addition a row. */
      uint64_t di = 0, w = 0;
      int64_t last = -1;
      for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
        const int64_t c = colind[p];
        di += (uint64_t)(c > i ? c - i : i - c);
        w += (c >> 5) != last;
        last = c >> 5;
      }
      sps_u128_add(&t.dist_lo, &t.dist_hi, di);
      t.windows += w;
    }
#pragma omp critical(sps_ref_stats)
    sums_merge(&total, &t);
  }
  *out = total;
}
