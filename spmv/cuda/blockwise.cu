/* blockwise.cu: the blockwise SpMV kernel (seed 002, Gao et al. 2024): one launch, each thread block serving one block descriptor.
 *
 * Thread-to-data map: thread block b (256 threads) reads descriptor b.
 *  - Short block: rows [row, row+count) with tpr lanes per row (tpr chosen at setup from the
 *    block's mean row length); the block's 256/tpr groups take rows in turn, each lane
 *    summing entries l, l+tpr, ... of its row, a shuffle tree adding the lanes (CSR-vector
 *    inside the block).
 *  - Long row part: part p of long row r covers SPS_BLOCKWISE_PART_NNZ entries of the row;
 *    the 256 threads stride over them, then a warp shuffle and a shared-memory pass over the
 *    8 warp sums give the part's sum. A row of one part is written at once; otherwise the
 *    part's sum goes to partial[b], and the last part to arrive (an atomic counter per row,
 *    reset by that block for the next call) adds the parts in order and writes y_r, so the
 *    result does not depend on the order the blocks run in.
 * Memory access: short blocks read values and column indices in coalesced runs of tpr
 * (consecutive groups read consecutive rows); long parts read 256 consecutive entries per
 * step; x gathered through the read-only cache; y written once per row.
 * Wins on matrices mixing many short rows with a few very long ones (circuits with supply
 * nets, power networks, least squares with dense rows): no warp waits for a long row and no
 * long row is left to 32 lanes. Loses a little to csr-vector on perfectly regular matrices
 * (the descriptor read and the per-block row loop).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = SPS_BLOCKWISE_THREADS;
constexpr int kWarps = kThreads / 32;

template <int G>
__device__ __forceinline__ void short_rows(int64_t first, int64_t last,
                                           const int64_t *__restrict__ rowptr,
                                           const int32_t *__restrict__ colind,
                                           const double *__restrict__ values, double alpha,
                                           const double *__restrict__ x, double beta,
                                           double *__restrict__ y)
{
  const int lane = threadIdx.x & (G - 1);
  const int group = threadIdx.x / G;
  /* The loop bound is the same for the whole block, so every lane reaches the shuffles. */
  for (int64_t base = first; base < last; base += kThreads / G) {
    const int64_t row = base + group;
    double s = 0.0;
    if (row < last) {
      const int64_t end = __ldg(&rowptr[row + 1]);
      for (int64_t k = __ldg(&rowptr[row]) + lane; k < end; k += G)
        s = fma(__ldg(&values[k]), __ldg(&x[__ldg(&colind[k])]), s);
    }
    s = sps_group_sum<G>(s);
    if (row < last && lane == 0) y[row] = sps_axpby_out(alpha, s, beta, &y[row]);
  }
}

__global__ void __launch_bounds__(kThreads)
    blockwise_kernel(const int64_t *__restrict__ rowptr, const int32_t *__restrict__ colind,
                     const double *__restrict__ values, const sps_block_desc *__restrict__ blocks,
                     double *__restrict__ partial, unsigned *__restrict__ counter, double alpha,
                     const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ double warp_sum[kWarps];
  const int64_t b = blockIdx.x;
  const sps_block_desc bd = blocks[b];
  if (bd.kind == SPS_BLOCK_SHORT) {
    const int64_t first = bd.row, last = (int64_t)bd.row + bd.count;
    switch (bd.tpr) {
    case 1: short_rows<1>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    case 2: short_rows<2>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    case 4: short_rows<4>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    case 8: short_rows<8>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    case 16: short_rows<16>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    default: short_rows<32>(first, last, rowptr, colind, values, alpha, x, beta, y); break;
    }
    return;
  }
  /* Part bd.count of long row bd.row. */
  const int64_t r = bd.row;
  const int64_t row_end = __ldg(&rowptr[r + 1]);
  const int64_t k0 = __ldg(&rowptr[r]) + (int64_t)bd.count * SPS_BLOCKWISE_PART_NNZ;
  const int64_t k1 = k0 + SPS_BLOCKWISE_PART_NNZ < row_end ? k0 + SPS_BLOCKWISE_PART_NNZ : row_end;
  double s = 0.0;
  for (int64_t k = k0 + threadIdx.x; k < k1; k += kThreads)
    s = fma(__ldg(&values[k]), __ldg(&x[__ldg(&colind[k])]), s);
  s = sps_group_sum<32>(s);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x >= 32) return;
  s = threadIdx.x < kWarps ? warp_sum[threadIdx.x] : 0.0;
  s = sps_group_sum<32>(s);
  if (threadIdx.x != 0) return;
  if (bd.parts == 1) {
    y[r] = sps_axpby_out(alpha, s, beta, &y[r]);
    return;
  }
  partial[b] = s;
  /* Make this part's sum visible before counting it; the last arrival sums all parts. */
  __threadfence();
  if (atomicAdd(&counter[bd.slot], 1u) != (unsigned)(bd.parts - 1)) return;
  __threadfence();
  double total = 0.0;
  const int64_t b0 = b - bd.count;
  for (int64_t q = b0; q < b0 + bd.parts; q++) total += __ldcg(&partial[q]);
  y[r] = sps_axpby_out(alpha, total, beta, &y[r]);
  counter[bd.slot] = 0u;
}

} // namespace

extern "C" cudaError_t sps_cuda_blockwise(cudaStream_t stream, const int64_t *rowptr,
                                          const int32_t *colind, const double *values,
                                          int64_t nblocks, const sps_block_desc *blocks,
                                          double *partial, unsigned *counter, double alpha,
                                          const double *x, double beta, double *y)
{
  if (nblocks <= 0) return cudaSuccess;
  blockwise_kernel<<<(unsigned)nblocks, kThreads, 0, stream>>>(rowptr, colind, values, blocks,
                                                               partial, counter, alpha, x, beta,
                                                               y);
  return cudaGetLastError();
}
