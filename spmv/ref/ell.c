/* ell.c: CPU reference of the ell variant, y <- alpha*A*x + beta*y on padded column-major ELLPACK.
 *
 * y_i = alpha * sum_{k < width, colind[k*ld+i] >= 0} values[k*ld+i] * x[colind[k*ld+i]] + beta*y_i.
 * Padding (column -1) sits at the end of a row, so the first one ends the row.
 */
#include "kernels.h"

void sps_ref_ell(int64_t nrows, int64_t ld, int64_t width, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y)
{
#pragma omp parallel for schedule(static) if (nrows > 4096)
  for (int64_t i = 0; i < nrows; i++) {
    double s = 0.0;
    for (int64_t k = 0; k < width; k++) {
      int32_t c = colind[k * ld + i];
      if (c < 0) break;
      s += values[k * ld + i] * x[c];
    }
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
