/* binned.c: CPU reference of the binned variant, walking the same bins and tables as the GPU kernel in the same orders.
 *
 * Every sum is compensated (core/compensated_sum.h): rounded products are added into
 * (hi, lo) pairs, pairs are merged, and a row gets y_i <- alpha*fl(hi + lo) + beta*y_i.
 *   - Short tile: each row of the range with at most SPS_BINNED_SHORT nonzeros is summed in
 *     entry order, as the GPU thread owning the row does from shared memory; longer rows
 *     are skipped (their bins write them).
 *   - Warp row: lane l of 32 sums entries l, l+32, ... of the row, and the 32 lane sums are
 *     merged by the halving tree of the shuffles (csr-vector's order for 32 lanes).
 *   - Long part p of row r covers k0 = rowptr[r] + p*SPS_BINNED_PART_NNZ, ... up to the next
 *     part or the row's end: thread t of SPS_BINNED_THREADS sums k0+t, k0+t+256, ..., each
 *     warp's 32 sums are merged by the shuffle tree, then the 8 warp sums (zero-padded to 32)
 *     by another. A row of one part is written at once; otherwise the parts' pairs go to
 *     partial[2q..2q+1] and, after all parts, are merged in part order.
 * Each bin's items write distinct rows or partial slots, so OpenMP runs them in parallel.
 */
#include "kernels.h"

/* The GPU's shuffle tree over n = 2^k pairs: for d = n/2, ..., 1, p_l <- merge(p_l, p_{l+d}). */
static sps_csum tree_merge(sps_csum *p, int n)
{
  for (int d = n / 2; d > 0; d /= 2)
    for (int l = 0; l < d; l++)
      sps_csum_merge(&p[l], p[l + d]);
  return p[0];
}

static double axpby(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

void sps_ref_binned(const int64_t *rowptr, const int32_t *colind, const double *values,
                    int64_t nlong, const sps_binned_long *longs, int64_t nwarp,
                    const int32_t *warp_rows, int64_t ntiles, const sps_binned_tile *tiles,
                    double *partial, double alpha, const double *x, double beta, double *y)
{
  /* Long rows: one item per part. */
#pragma omp parallel for schedule(dynamic, 4) if (nlong > 16)
  for (int64_t q = 0; q < nlong; q++) {
    const sps_binned_long *ld = &longs[q];
    const int64_t r = ld->row;
    const int64_t k0 = rowptr[r] + (int64_t)ld->part * SPS_BINNED_PART_NNZ;
    const int64_t k1 =
        k0 + SPS_BINNED_PART_NNZ < rowptr[r + 1] ? k0 + SPS_BINNED_PART_NNZ : rowptr[r + 1];
    sps_csum th[SPS_BINNED_THREADS], warp[32];
    for (int t = 0; t < SPS_BINNED_THREADS; t++) {
      th[t] = sps_csum_zero();
      for (int64_t k = k0 + t; k < k1; k += SPS_BINNED_THREADS)
        sps_csum_add(&th[t], values[k] * x[colind[k]]);
    }
    for (int w = 0; w < 32; w++)
      warp[w] = w < SPS_BINNED_THREADS / 32 ? tree_merge(&th[32 * w], 32) : sps_csum_zero();
    const sps_csum s = tree_merge(warp, 32);
    if (ld->parts == 1) {
      y[r] = axpby(alpha, sps_csum_value(s), beta, &y[r]);
    } else {
      partial[2 * q] = s.hi;
      partial[2 * q + 1] = s.lo;
    }
  }
  /* The rows of several parts: their parts merged in order, as the last GPU block does. */
  for (int64_t q = 0; q < nlong; q++) {
    const sps_binned_long *ld = &longs[q];
    if (ld->parts == 1 || ld->part != ld->parts - 1) continue;
    sps_csum s = sps_csum_zero();
    for (int64_t p = q - ld->part; p <= q; p++) {
      const sps_csum c = {partial[2 * p], partial[2 * p + 1]};
      sps_csum_merge(&s, c);
    }
    y[ld->row] = axpby(alpha, sps_csum_value(s), beta, &y[ld->row]);
  }
  /* Warp rows: 32 lanes and their tree. */
#pragma omp parallel for schedule(dynamic, 64) if (nwarp > 256)
  for (int64_t w = 0; w < nwarp; w++) {
    const int64_t r = warp_rows[w];
    sps_csum p[32];
    for (int l = 0; l < 32; l++) {
      p[l] = sps_csum_zero();
      for (int64_t k = rowptr[r] + l; k < rowptr[r + 1]; k += 32)
        sps_csum_add(&p[l], values[k] * x[colind[k]]);
    }
    y[r] = axpby(alpha, sps_csum_value(tree_merge(p, 32)), beta, &y[r]);
  }
  /* Short tiles: each short row in entry order. */
#pragma omp parallel for schedule(dynamic, 16) if (ntiles > 64)
  for (int64_t t = 0; t < ntiles; t++) {
    const int64_t first = tiles[t].row, last = first + tiles[t].count;
    for (int64_t i = first; i < last; i++) {
      if (rowptr[i + 1] - rowptr[i] > SPS_BINNED_SHORT) continue;
      sps_csum s = sps_csum_zero();
      for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        sps_csum_add(&s, values[k] * x[colind[k]]);
      y[i] = axpby(alpha, sps_csum_value(s), beta, &y[i]);
    }
  }
}
