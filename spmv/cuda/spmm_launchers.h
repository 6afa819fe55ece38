/* spmm_launchers.h: the extern "C" launchers of the CUDA SpMM kernels, one per variant; each returns cudaGetLastError() or the first failing call's status. */
#ifndef SPS_SPMV_CUDA_SPMM_LAUNCHERS_H
#define SPS_SPMV_CUDA_SPMM_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../ref/spmm_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every launcher computes Y <- alpha*A*X + beta*Y for k columns on row-major X (ncols x k,
 * leading dimension ldx) and Y (nrows x k, ldy) in device memory; Y is not read when beta = 0.
 * xv = 2 lets a lane load and store two columns at once (double2): only when k >= 2, ldx and
 * ldy are even and X and Y are 16-byte aligned (sps_spmm_xy_vec); else xv = 1.
 */

/* spmm-csr: a group of lanes per row, one lane per column, entries in order. */
cudaError_t sps_cuda_spmm_csr(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                              const int32_t *colind, const double *values, int64_t k,
                              double alpha, const double *X, int64_t ldx, double beta, double *Y,
                              int64_t ldy);

/*
 * sputnik: slots in perm's order (nrows entries); avec = 2 loads the strips of A two entries
 * per lane (values 16-byte and colind 8-byte aligned), else 1.
 */
cudaError_t sps_cuda_spmm_sputnik(cudaStream_t stream, int64_t nrows, int64_t nnz,
                                  const int64_t *rowptr, const int32_t *colind,
                                  const double *values, const int32_t *perm, int64_t k, int xv,
                                  int avec, double alpha, const double *X, int64_t ldx,
                                  double beta, double *Y, int64_t ldy);

/*
 * spmm-balanced: the units (one subwarp each), then, when nlong > 0, the fix-up that merges the
 * long rows' parts from partial (2*k doubles per slot) in order.
 */
cudaError_t sps_cuda_spmm_balanced(cudaStream_t stream, const int64_t *rowptr,
                                   const int32_t *colind, const double *values, int64_t nunits,
                                   const sps_spmm_unit *units, int64_t nlong,
                                   const sps_spmm_long_row *longs, double *partial, int64_t k,
                                   int xv, double alpha, const double *X, int64_t ldx, double beta,
                                   double *Y, int64_t ldy);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_CUDA_SPMM_LAUNCHERS_H */
