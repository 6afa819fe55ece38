/* blockwise.c: CPU reference of the blockwise variant, walking the same block descriptors as the GPU kernel.
 *
 * Every sum is compensated (core/compensated_sum.h): rounded products are added into
 * (hi, lo) pairs, pairs are merged, and a row gets y_i <- alpha*fl(hi + lo) + beta*y_i.
 * A short block does this for each of its rows: a streamed block (tpr 0) sums each row in
 * order, as the GPU thread owning the row does from shared memory; a vector block follows
 * the lane order of its tpr lanes (lane l sums entries l, l+tpr, ...; the lane sums are
 * merged by the halving tree of the shuffles). Part p of a long row r covers the entries
 * k0 = rowptr[r] + p*SPS_BLOCKWISE_PART_NNZ, ... up to the next part or the row's end in the
 * GPU block's order: thread t of SPS_BLOCKWISE_THREADS sums k0+t, k0+t+256, ..., each warp's
 * 32 sums are merged by the shuffle tree, then the warp sums (zero-padded to 32) by another.
 * A row of one part is written at once, otherwise the parts' pairs are stored in
 * partial[2b..2b+1] and, after all blocks, merged in part order.
 * Blocks write distinct rows or distinct partial slots, so OpenMP runs them in parallel.
 */
#include "kernels.h"

/* The GPU's shuffle tree over n = 2^k pairs: for d = n/2, ..., 1, p_l <- merge(p_l, p_{l+d}). */
static sps_csum tree_merge(sps_csum *p, int n)
{
  for (int d = n / 2; d > 0; d /= 2)
    for (int l = 0; l < d; l++) sps_csum_merge(&p[l], p[l + d]);
  return p[0];
}

void sps_ref_blockwise(const int64_t *rowptr, const int32_t *colind, const double *values,
                       int64_t nblocks, const sps_block_desc *blocks, double *partial,
                       double alpha, const double *x, double beta, double *y)
{
#pragma omp parallel for schedule(dynamic, 16) if (nblocks > 64)
  for (int64_t b = 0; b < nblocks; b++) {
    const sps_block_desc *bd = &blocks[b];
    if (bd->kind == SPS_BLOCK_SHORT) {
      const int tpr = bd->tpr > 0 ? bd->tpr : 1;
      for (int64_t i = bd->row; i < (int64_t)bd->row + bd->count; i++) {
        sps_csum p[32];
        for (int l = 0; l < tpr; l++) {
          p[l] = sps_csum_zero();
          for (int64_t k = rowptr[i] + l; k < rowptr[i + 1]; k += tpr)
            sps_csum_add(&p[l], values[k] * x[colind[k]]);
        }
        const double s = sps_csum_value(tree_merge(p, tpr));
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
      }
    } else {
      int64_t r = bd->row;
      int64_t k0 = rowptr[r] + (int64_t)bd->count * SPS_BLOCKWISE_PART_NNZ;
      int64_t k1 = k0 + SPS_BLOCKWISE_PART_NNZ < rowptr[r + 1] ? k0 + SPS_BLOCKWISE_PART_NNZ
                                                               : rowptr[r + 1];
      sps_csum th[SPS_BLOCKWISE_THREADS], warp[32];
      for (int t = 0; t < SPS_BLOCKWISE_THREADS; t++) {
        th[t] = sps_csum_zero();
        for (int64_t k = k0 + t; k < k1; k += SPS_BLOCKWISE_THREADS)
          sps_csum_add(&th[t], values[k] * x[colind[k]]);
      }
      for (int w = 0; w < 32; w++)
        warp[w] = w < SPS_BLOCKWISE_THREADS / 32 ? tree_merge(&th[32 * w], 32) : sps_csum_zero();
      const sps_csum s = tree_merge(warp, 32);
      if (bd->parts == 1) {
        const double v = sps_csum_value(s);
        y[r] = beta == 0.0 ? alpha * v : alpha * v + beta * y[r];
      } else {
        partial[2 * b] = s.hi;
        partial[2 * b + 1] = s.lo;
      }
    }
  }
  for (int64_t b = 0; b < nblocks; b++) {
    const sps_block_desc *bd = &blocks[b];
    if (bd->kind != SPS_BLOCK_LONG || bd->parts == 1 || bd->count != bd->parts - 1) continue;
    sps_csum s = sps_csum_zero();
    for (int64_t q = b - bd->count; q <= b; q++) {
      const sps_csum c = {partial[2 * q], partial[2 * q + 1]};
      sps_csum_merge(&s, c);
    }
    const double v = sps_csum_value(s);
    y[bd->row] = beta == 0.0 ? alpha * v : alpha * v + beta * y[bd->row];
  }
}
