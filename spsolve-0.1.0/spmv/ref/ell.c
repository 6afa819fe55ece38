/* ell.c: CPU reference of the ell variant, y <- alpha*A*x + beta*y on padded column-major ELLPACK.
 *
 * y_i = alpha * s_i + beta*y_i, s_i the compensated sum (core/compensated_sum.h) of the
 * rounded products values[k*ld+i] * x[colind[k*ld+i]] for k = 0, 1, ... in slot order,
 * which is the row's CSR order: the same bits as csr-scalar.
 * Padding (column -1) sits at the end of a row, so the first one ends the row.
 */
#include "kernels.h"

void sps_ref_ell(int64_t nrows, int64_t ld, int64_t width, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y)
{
#pragma omp parallel for schedule(static) if (nrows > 4096)
  for (int64_t i = 0; i < nrows; i++) {
    sps_csum acc = sps_csum_zero();
    for (int64_t k = 0; k < width; k++) {
      int32_t c = colind[k * ld + i];
      if (c < 0) break;
      sps_csum_add(&acc, values[k * ld + i] * x[c]);
    }
    const double s = sps_csum_value(acc);
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
