/* kernels.h: the CPU reference SpMV kernels, one per variant, each computing y <- alpha*A*x + beta*y on its own format. */
#ifndef SPS_SPMV_REF_KERNELS_H
#define SPS_SPMV_REF_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CSR, one row at a time (OpenMP over rows). y is not read when beta = 0. */
void sps_ref_csr_scalar(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, double alpha, const double *x, double beta,
                        double *y);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_REF_KERNELS_H */
