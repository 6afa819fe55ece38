/* csr_scalar.c: CPU reference of the csr-scalar variant, y <- alpha*A*x + beta*y with one row per loop iteration.
 *
 * y_i = alpha * s_i + beta * y_i, s_i = fl(hi + lo) of the compensated sum (TwoSum,
 * core/compensated_sum.h) of the rounded products values[k] * x[colind[k]] added in order
 * k = rowptr[i], ..., rowptr[i+1]-1. Every other compensated variant (csr-vector, ell,
 * merge, blockwise, binned, CPU or GPU) gives the same bits bar rare ties; the tests hold them to it.
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
    sps_csum acc = sps_csum_zero();
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      sps_csum_add(&acc, values[k] * x[colind[k]]);
    const double s = sps_csum_value(acc);
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
