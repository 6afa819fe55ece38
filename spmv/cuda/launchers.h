/* launchers.h: the extern "C" launchers of the CUDA SpMV kernels, one per variant; each returns cudaGetLastError(). */
#ifndef SPS_SPMV_CUDA_LAUNCHERS_H
#define SPS_SPMV_CUDA_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* csr-scalar: one thread per row. y is not read when beta = 0. */
cudaError_t sps_cuda_csr_scalar(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                                const int32_t *colind, const double *values, double alpha,
                                const double *x, double beta, double *y);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_CUDA_LAUNCHERS_H */
