/* csr_scalar.c: CPU reference of the csr-scalar variant, y <- alpha*A*x + beta*y with one row per loop iteration.
 *
 * y_i = alpha * sum_{k = rowptr[i]}^{rowptr[i+1]-1} values[k] * x[colind[k]] + beta * y_i.
 * Rows are shared among OpenMP threads in dynamic chunks, so a few long rows do not
 * leave one thread with all the work.
 */
#include "kernels.h"

void sps_ref_csr_scalar(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, double alpha, const double *x, double beta,
                        double *y)
{
#pragma omp parallel for schedule(dynamic, 256) if (nrows > 4096)
  for (int64_t i = 0; i < nrows; i++) {
    double s = 0.0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) s += values[k] * x[colind[k]];
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
