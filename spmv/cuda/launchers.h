/* launchers.h: the extern "C" launchers of the CUDA SpMV kernels, one per variant, and of the statistics kernel; each returns cudaGetLastError() or the first failing call's status. */
#ifndef SPS_SPMV_CUDA_LAUNCHERS_H
#define SPS_SPMV_CUDA_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../ref/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The boundary rows [row0, nrows) of a distributed product (../ref/dist.c): one thread per row,
 * the diagonal block's entries with x and the off-diagonal block's with the halo xh in one
 * compensated sum. */
cudaError_t sps_cuda_dist_rows(cudaStream_t stream, int64_t row0, int64_t nrows,
                               const int64_t *rowptr, const int32_t *colind, const double *values,
                               const int64_t *orowptr, const int32_t *ocolind,
                               const double *ovalues, double alpha, const double *x,
                               const double *xh, double beta, double *y);

/* csr-scalar: one thread per row. y is not read when beta = 0. */
cudaError_t sps_cuda_csr_scalar(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                                const int32_t *rowptr32,
                                const int32_t *colind, const double *values, double alpha,
                                const double *x, double beta, double *y);

/* csr-vector: tpr (1, 2, 4, 8, 16, 32) lanes per row; cudaErrorInvalidValue for another tpr. */
cudaError_t sps_cuda_csr_vector(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                                const int32_t *colind, const double *values, int tpr, double alpha,
                                const double *x, double beta, double *y);

/* ell: one thread per row of column-major ELLPACK (ld a multiple of 32, padding column -1). */
/* The ELL arrays from CSR on the device (sps_spmv_ell_build's layout: rows up to ld, padding
 * column -1 and value 0), one thread a row. */
cudaError_t sps_cuda_ell_build(cudaStream_t stream, int64_t nrows, int64_t ld, int64_t width,
                               const int64_t *rowptr, const int32_t *colind, const double *values,
                               int32_t *ell_colind, double *ell_values);
cudaError_t sps_cuda_ell(cudaStream_t stream, int64_t nrows, int64_t ld, int64_t width,
                         const int32_t *colind, const double *values, double alpha,
                         const double *x, double beta, double *y);

/*
 * coo: y <- beta*y (skipped when beta = 1; y not read when beta = 0), then warps over
 * equal chunks of the row-sorted triplets add alpha*a*x_c to y_r with atomics: the result
 * depends on the order of the atomics (so does hyb's; cusparse's on the library). The other
 * launchers' row sums are compensated and order-independent bar rare ties (../ref/kernels.h).
 */
cudaError_t sps_cuda_coo(cudaStream_t stream, int sm_count, int64_t nrows, int64_t nnz,
                         const int32_t *rowind, const int32_t *colind, const double *values,
                         double alpha, const double *x, double beta, double *y);

/* hyb: the ELL kernel (applying beta) then the COO kernel (beta = 1) on the same stream. */
cudaError_t sps_cuda_hyb(cudaStream_t stream, int sm_count, int64_t nrows, int64_t ld,
                         int64_t width, const int32_t *ell_colind, const double *ell_values,
                         int64_t coo_nnz, const int32_t *coo_rowind, const int32_t *coo_colind,
                         const double *coo_values, double alpha, const double *x, double beta,
                         double *y);

/*
 * merge: one thread per merge-path share (start rows from setup), then the fix-up kernel that
 * finishes the rows split between shares; carry_val holds 2*nshares doubles (hi, lo pairs).
 */
cudaError_t sps_cuda_merge(cudaStream_t stream, int64_t nrows, int64_t nnz, const int64_t *rowptr,
                           const int32_t *colind, const double *values, int64_t nshares,
                           int items, const int32_t *start_row, int32_t *carry_row,
                           double *carry_val, double alpha, const double *x, double beta,
                           double *y);

/*
 * blockwise: one launch of nblocks thread blocks of SPS_BLOCKWISE_THREADS, block b serving
 * blocks[b]; partial has 2*nblocks doubles (hi, lo pairs), counter one zeroed unsigned per
 * long row of several parts (left zeroed on return).
 */
cudaError_t sps_cuda_blockwise(cudaStream_t stream, const int64_t *rowptr, const int32_t *rowptr32,
                               const int32_t *colind,
                               const double *values, int64_t nblocks, const sps_block_desc *blocks,
                               double *partial, unsigned *counter, double alpha, const double *x,
                               double beta, double *y);

/*
 * binned: one launch of nlong + ceil(nwarp/8) + ntiles thread blocks of SPS_BINNED_THREADS:
 * the long-row parts, then the warp rows (8 per block), then the short-row tiles
 * (../ref/kernels.h); partial has 2*nlong doubles (hi, lo pairs), counter one zeroed
 * unsigned per long row of several parts (left zeroed on return).
 */
cudaError_t sps_cuda_binned(cudaStream_t stream, const int64_t *rowptr, const int32_t *rowptr32,
                            const int32_t *colind, const double *values, int64_t nlong,
                            const sps_binned_long *longs, int64_t nwarp, const int32_t *warp_rows,
                            int64_t ntiles, const sps_binned_tile *tiles, double *partial,
                            unsigned *counter, double alpha, const double *x, double beta,
                            double *y);

/*
 * stats: the integer sums of the pattern (sps_stats_sums, ../ref/kernels.h) with
 * k = round(nnz/nrows), from the device offsets (rowptr32 when not NULL, else rowptr) and,
 * when columns, the column indices, by one kernel of at most sm_count times its resident
 * blocks (nothing for nrows = 0). d_words: SPS_STATS_WORDS + 1 device words, zero on entry;
 * the blocks add into them, and the last one writes the sums to h_sums (the device address of
 * pinned, mapped host memory) and zeroes them again. The caller synchronises the stream before
 * reading h_sums; no memset and no copy are issued.
 */
cudaError_t sps_cuda_stats(cudaStream_t stream, int sm_count, int64_t nrows, int64_t nnz,
                           const int64_t *rowptr, const int32_t *rowptr32, const int32_t *colind,
                           int columns, int64_t k, uint64_t *d_words, uint64_t *h_sums);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SPMV_CUDA_LAUNCHERS_H */
