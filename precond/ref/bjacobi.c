/* bjacobi.c: the CPU reference of the block Jacobi apply (a dense block inverse times each block of r). */
#include "kernels.h"
#include "../../core/compensated_sum.h"

/* z[b bs + i] = sum_{j < size_b} inv_b[i][j] r[b bs + j], compensated, j ascending. */
void sps_ref_bjacobi_apply(int64_t n, int bs, const double *inv, const double *r, double *z)
{
  const int64_t nb = (n + bs - 1) / bs;
#pragma omp parallel for schedule(static) if (n > 8192)
  for (int64_t b = 0; b < nb; b++) {
    const int64_t r0 = b * bs;
    const int m = n - r0 < bs ? (int)(n - r0) : bs;
    const double *blk = inv + b * (int64_t)bs * bs;
    for (int i = 0; i < m; i++) {
      sps_csum acc = sps_csum_zero();
      for (int j = 0; j < m; j++) sps_csum_add(&acc, blk[(int64_t)i * bs + j] * r[r0 + j]);
      z[r0 + i] = sps_csum_value(acc);
    }
  }
}
