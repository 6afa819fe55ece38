/* bjacobi.c: the CPU reference of the block Jacobi apply, z = blockdiag(inv_b) r.
 *
 * Row i lies in block b = i / bs at local row l = i - b bs; since the inverses are stored bs x bs
 * row-major, block after block, its row of inv_b starts at inv + (b bs + l) bs = inv + i bs
 * (the stored inverses form an (nblocks bs) x bs row-major array, row i for row i of z).
 * z_i = fl(hi + lo) of the compensated sum (core/compensated_sum.h) of the rounded products
 * inv_b[l][j] * r[b bs + j], added in order j = 0, ..., size_b - 1 (size_b = bs, or what is
 * left of n for the last block); the CUDA kernel adds the same terms in the same order.
 * Rows are independent, so OpenMP threads share them in static chunks with the same bits.
 */
#include "../../core/compensated_sum.h"
#include "kernels.h"

void sps_ref_bjacobi_apply(int64_t n, int bs, const double *inv, const double *r, double *z)
{
#pragma omp parallel for schedule(static) if (n * bs > 65536)
  for (int64_t i = 0; i < n; i++) {
    const int64_t first = i - i % bs; /* the block's first row */
    const int64_t size = n - first < bs ? n - first : bs;
    const double *row = inv + i * bs;
    sps_csum acc = sps_csum_zero();
    for (int64_t j = 0; j < size; j++)
      sps_csum_add(&acc, row[j] * r[first + j]);
    z[i] = sps_csum_value(acc);
  }
}
