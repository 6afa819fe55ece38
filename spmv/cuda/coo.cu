/* coo.cu: the coo SpMV kernels, a beta-scaling pass over y and one warp-segmented pass over the triplets with atomic adds.
 *
 * Thread-to-data map: warp w owns the nonzeros [w*chunk, (w+1)*chunk) (chunk a multiple of
 * 32 chosen so that about 64 warps per SM are busy); it walks them in tiles of 32, lane l
 * taking nonzero tile + l. Lane products a*x_c are summed per row by a segmented inclusive
 * scan over the warp (rows are sorted, so a row's lanes are adjacent); the last lane of each
 * row segment adds alpha*sum to y_r with atomicAdd, except the segment running into the next
 * tile, which is carried in registers and merged there, so a row costs one atomic per warp
 * rather than one per nonzero.
 * Memory access: row indices, column indices and values are read fully coalesced (32
 * consecutive entries per tile); x is gathered through the read-only cache; y is updated by
 * double atomicAdd (sm_60+), after a first kernel y <- beta*y on the same stream (skipped
 * when beta = 1, as hyb does for its COO part).
 * Wins when rows are extremely uneven (every warp has the same work whatever the rows) and
 * as the excess part of hyb. Loses to the CSR variants on regular matrices: 4 more bytes per
 * nonzero (the row index), the extra pass over y, and atomics on short rows.
 * Order: the sums are plain and the atomics land in an order that varies from run to run,
 * so coo (with hyb and cusparse) is one of the variants whose results depend on the order of
 * the atomics (or on the library) and match the compensated variants (csr-scalar,
 * csr-vector, ell, merge, blockwise, binned) only to rounding; AUTO never chooses them.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

/* y <- beta*y; y <- 0 (not read) when beta = 0. */
__global__ void __launch_bounds__(kThreads) scale_kernel(int64_t n, double beta, double *y)
{
  const int64_t stride = (int64_t)gridDim.x * kThreads;
  for (int64_t i = blockIdx.x * (int64_t)kThreads + threadIdx.x; i < n; i += stride)
    y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

__global__ void __launch_bounds__(kThreads)
    coo_kernel(int64_t nnz, int64_t chunk, const int32_t *__restrict__ rowind,
               const int32_t *__restrict__ colind, const double *__restrict__ values, double alpha,
               const double *__restrict__ x, double *__restrict__ y)
{
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * (int64_t)kThreads + threadIdx.x) >> 5;
  const int64_t begin = warp * chunk;
  /* begin is the same for the whole warp, so whole warps leave here. */
  if (begin >= nnz) return;
  const int64_t end = begin + chunk < nnz ? begin + chunk : nnz;
  int carry_row = -1;
  double carry = 0.0;
  for (int64_t tile = begin; tile < end; tile += 32) {
    const int64_t k = tile + lane;
    int r = -1;
    double v = 0.0;
    if (k < end) {
      r = __ldg(&rowind[k]);
      v = __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]);
    }
    /* Segmented inclusive scan: v_l <- sum of v over lanes [segment start, l]. */
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const double ov = __shfl_up_sync(kFull, v, d);
      const int orow = __shfl_up_sync(kFull, r, d);
      if (lane >= d && orow == r) v += ov;
    }
    const int next = __shfl_down_sync(kFull, r, 1);
    const bool tail = lane == 31 || next != r;
    const int r0 = __shfl_sync(kFull, r, 0);
    /* The row carried from the previous tile joins this tile's first segment, or is flushed. */
    if (carry_row >= 0) {
      if (carry_row == r0) {
        if (tail && r == r0) v += carry;
      } else if (lane == 0) {
        atomicAdd(&y[carry_row], alpha * carry);
      }
    }
    carry_row = __shfl_sync(kFull, r, 31);
    carry = __shfl_sync(kFull, v, 31);
    if (tail && lane != 31 && r >= 0) atomicAdd(&y[r], alpha * v);
  }
  if (lane == 0 && carry_row >= 0) atomicAdd(&y[carry_row], alpha * carry);
}

} // namespace

extern "C" cudaError_t sps_cuda_coo(cudaStream_t stream, int sm_count, int64_t nrows, int64_t nnz,
                                    const int32_t *rowind, const int32_t *colind,
                                    const double *values, double alpha, const double *x,
                                    double beta, double *y)
{
  if (nrows <= 0) return cudaSuccess;
  const int64_t sms = sm_count > 0 ? sm_count : 1;
  if (beta != 1.0) {
    int64_t blocks = (nrows + kThreads - 1) / kThreads;
    if (blocks > 8 * sms) blocks = 8 * sms;
    scale_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  if (nnz <= 0) return cudaSuccess;
  /* About 64 warps per SM (2048 threads, full occupancy on sm_80/sm_90), each a chunk of 32k. */
  const int64_t warps_wanted = 64 * sms;
  int64_t chunk = (nnz + warps_wanted - 1) / warps_wanted;
  chunk = (chunk + 31) / 32 * 32;
  const int64_t warps = (nnz + chunk - 1) / chunk;
  const int64_t blocks = (warps + kThreads / 32 - 1) / (kThreads / 32);
  coo_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(nnz, chunk, rowind, colind, values, alpha,
                                                        x, y);
  return cudaGetLastError();
}
