/* csr_matvec.h: the plain host CSR product y = A x, the reference that the CLI, the tests and the benchmarks form right-hand sides and residuals with. */
#ifndef SPS_CORE_CSR_MATVEC_H
#define SPS_CORE_CSR_MATVEC_H

#include <stdint.h>

/*
 * y_i <- sum_k values[k] * x[colind[k]] over k = rowptr[i] .. rowptr[i+1]-1, for the m rows:
 * plain double, summed in entry order, one product rounded before each addition. It depends
 * on no SpMV kernel and no backend, so a b = A x* or a residual b - A x formed with it does
 * not share the rounding of the code under test. y must not overlap x.
 */
static inline void sps_csr_matvec_host(int64_t m, const int64_t *rowptr, const int32_t *colind,
                                       const double *values, const double *x, double *y)
{
  /* The rows are independent: threads change nothing in the result. */
#pragma omp parallel for schedule(static) if (m > 8192)
  for (int64_t i = 0; i < m; i++) {
    double s = 0.0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      s += values[k] * x[colind[k]];
    y[i] = s;
  }
}

#endif /* SPS_CORE_CSR_MATVEC_H */
