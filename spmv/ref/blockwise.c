/* blockwise.c: CPU reference of the blockwise variant, walking the same block descriptors as the GPU kernel.
 *
 * A short block computes y_i <- alpha * sum_k a_ik x_k + beta*y_i for each of its rows: a
 * streamed block (tpr 0) sums each row in order, as the GPU thread owning the row does from
 * shared memory; a vector block follows the lane order of its tpr lanes (lane l sums
 * entries l, l+tpr, ...; the lane sums are
 * combined by the halving tree of the shuffles). Part p of a long row r sums the entries
 * rowptr[r] + p*SPS_BLOCKWISE_PART_NNZ, ... up to the next part or the row's end; a row of
 * one part is written at once, otherwise the parts' sums are stored in partial[] and, after
 * all blocks, added in part order: y_r <- alpha * sum_p partial_p + beta*y_r.
 * Blocks write distinct rows or distinct partial slots, so OpenMP runs them in parallel.
 */
#include "kernels.h"

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
        double p[32];
        for (int l = 0; l < tpr; l++) {
          double s = 0.0;
          for (int64_t k = rowptr[i] + l; k < rowptr[i + 1]; k += tpr)
            s += values[k] * x[colind[k]];
          p[l] = s;
        }
        for (int d = tpr / 2; d > 0; d /= 2)
          for (int l = 0; l < d; l++) p[l] += p[l + d];
        y[i] = beta == 0.0 ? alpha * p[0] : alpha * p[0] + beta * y[i];
      }
    } else {
      int64_t r = bd->row;
      int64_t k0 = rowptr[r] + (int64_t)bd->count * SPS_BLOCKWISE_PART_NNZ;
      int64_t k1 = k0 + SPS_BLOCKWISE_PART_NNZ < rowptr[r + 1] ? k0 + SPS_BLOCKWISE_PART_NNZ
                                                               : rowptr[r + 1];
      double s = 0.0;
      for (int64_t k = k0; k < k1; k++) s += values[k] * x[colind[k]];
      if (bd->parts == 1)
        y[r] = beta == 0.0 ? alpha * s : alpha * s + beta * y[r];
      else
        partial[b] = s;
    }
  }
  for (int64_t b = 0; b < nblocks; b++) {
    const sps_block_desc *bd = &blocks[b];
    if (bd->kind != SPS_BLOCK_LONG || bd->parts == 1 || bd->count != bd->parts - 1) continue;
    double s = 0.0;
    for (int64_t q = b - bd->count; q <= b; q++) s += partial[q];
    y[bd->row] = beta == 0.0 ? alpha * s : alpha * s + beta * y[bd->row];
  }
}
