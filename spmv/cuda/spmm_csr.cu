/* spmm_csr.cu: the spmm-csr SpMM kernel, the plain GPU baseline: a group of G lanes per CSR row, one lane per column of Y.
 *
 * Math: y_ij <- alpha * fl(hi + lo) + beta * y_ij, (hi, lo) the compensated sum of the rounded
 * products a_il * x_lj in entry order (core/compensated_sum.h, Fast2Sum after ordering: the same
 * bits as TwoSum), which is what the csr-scalar SpMV computes for column j: the result is the
 * CPU reference's (ref/spmm_csr.c) bit for bit.
 * Thread-to-data map: G = the power of two covering min(k, 32) columns; a block of 256 threads is
 * 256/G groups, group g of block b owns row b*(256/G) + g, and lane l of the group the column
 * tile*G + l of every column tile (blockIdx.y, then strided by gridDim.y). Each lane walks the
 * whole row.
 * Memory access: the G lanes of a group read the same values[e] and colind[e] (one broadcast
 * transaction per entry), then X's row colind[e] at G consecutive columns (coalesced, row-major
 * X); consecutive groups read consecutive rows. Y's row written once, coalesced.
 * Wins as a simple reference point with even rows and k >= 8; loses on long or uneven rows (a
 * warp waits for its longest row; A is re-read by every column tile when k > 32) and for k < 4
 * (most lanes of a wide load idle: G = 1 or 2 lanes per row read A entry by entry).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "spmm_launchers.h"

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ double axpby_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

template <int G>
__global__ void __launch_bounds__(kThreads)
    spmm_csr_kernel(int64_t nrows, const int64_t *__restrict__ rowptr,
                    const int32_t *__restrict__ colind, const double *__restrict__ values,
                    int64_t k, double alpha, const double *__restrict__ X, int64_t ldx,
                    double beta, double *__restrict__ Y, int64_t ldy)
{
  const int64_t row = (blockIdx.x * (int64_t)kThreads + threadIdx.x) / G;
  const int lane = threadIdx.x & (G - 1);
  if (row >= nrows) return;
  const int64_t begin = __ldg(&rowptr[row]), end = __ldg(&rowptr[row + 1]);
  const int64_t ntiles = (k + G - 1) / G;
  for (int64_t tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
    const int64_t j = tile * G + lane;
    if (j >= k) continue;
    sps_csum acc = sps_csum_zero();
    /* Unrolled by 4 so that four entries' loads (colind, then X) are in flight together. */
#pragma unroll 4
    for (int64_t e = begin; e < end; e++) {
      const double a = __ldg(&values[e]);
      const double x = __ldg(&X[(int64_t)__ldg(&colind[e]) * ldx + j]);
      sps_csum_add_ordered(&acc, a * x);
    }
    double *y = &Y[row * ldy + j];
    *y = axpby_out(alpha, sps_csum_value(acc), beta, y);
  }
}

template <int G>
cudaError_t launch(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                   const int32_t *colind, const double *values, int64_t k, double alpha,
                   const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
  const int64_t rows_per_block = kThreads / G;
  const int64_t ntiles = (k + G - 1) / G;
  dim3 grid((unsigned)((nrows + rows_per_block - 1) / rows_per_block),
            (unsigned)(ntiles < 65535 ? ntiles : 65535));
  spmm_csr_kernel<G><<<grid, kThreads, 0, stream>>>(nrows, rowptr, colind, values, k, alpha, X,
                                                     ldx, beta, Y, ldy);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t sps_cuda_spmm_csr(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                                         const int32_t *colind, const double *values, int64_t k,
                                         double alpha, const double *X, int64_t ldx, double beta,
                                         double *Y, int64_t ldy)
{
  if (nrows <= 0 || k <= 0) return cudaSuccess;
  /* G: the power of two covering min(k, 32) columns. */
  int g = 1;
  while (g < 32 && g < k) g *= 2;
#define SPS_SPMM_CSR_LAUNCH(G)                                                                   \
  case G:                                                                                        \
    return launch<G>(stream, nrows, rowptr, colind, values, k, alpha, X, ldx, beta, Y, ldy)
  switch (g) {
    SPS_SPMM_CSR_LAUNCH(1);
    SPS_SPMM_CSR_LAUNCH(2);
    SPS_SPMM_CSR_LAUNCH(4);
    SPS_SPMM_CSR_LAUNCH(8);
    SPS_SPMM_CSR_LAUNCH(16);
    SPS_SPMM_CSR_LAUNCH(32);
  default: return cudaErrorInvalidValue;
  }
#undef SPS_SPMM_CSR_LAUNCH
}
