/* blockwise.cu: the blockwise SpMV kernel (seed 002, Gao et al. 2024): one launch, each thread
 * block serving one block descriptor.
 *
 * Thread-to-data map: thread block b (256 threads) reads descriptor b.
 *  - Streamed short block (tpr 0; rows of at most 64 and on average at most 16 nonzeros):
 *    the block's nonzeros [rowptr[first], rowptr[last]) are one contiguous run of at most
 *    2048; thread t computes the products a_k*x[col_k] for k = t, t+256, ... (coalesced
 *    loads of values and columns, x gathered) into shared memory; after a barrier thread t
 *    sums rows first+t, first+t+256, ... from shared memory, in row order, and writes y
 *    (CSR-stream).
 *  - Vector short block: rows [first, last) with tpr lanes per row (tpr from the block's mean
 *    and longest row); the block's 256/tpr groups take rows in turn, each lane summing
 *    entries l, l+tpr, ... of its row, a shuffle tree merging the lanes (CSR-vector).
 *  - Long row part: part p of long row r covers SPS_BLOCKWISE_PART_NNZ entries of the row;
 *    the 256 threads stride over them, then a warp shuffle tree and a second one over the
 *    8 warp sums (staged in shared memory) give the part's sum. A row of one part is written
 *    at once; otherwise the part's sum goes to partial[2b..2b+1], and the last part to
 *    arrive (an atomic counter per row, reset by that block for the next call) merges the
 *    parts in order and writes y_r, so the result does not depend on the order the blocks
 *    run in.
 * Every sum is compensated (core/compensated_sum.h): threads add rounded products into
 * (hi, lo) pairs, the trees and the parts merge pairs, and y_i <- alpha*fl(hi + lo) +
 * beta*y_i, the same bits as csr-scalar bar rare ties. spmv/ref/blockwise.c repeats the
 * same orders on the CPU.
 * Row offsets are read as int32 when the matrix has them (sps_matrix keeps an int32 copy on
 * the device when nnz fits), 4 bytes a row less than its int64 offsets.
 * Memory access: streamed blocks read values and columns fully coalesced, every byte once;
 * vector blocks in runs of tpr; long parts 256 consecutive entries per step; x through the
 * read-only cache; y written once per row.
 * Wins on short-row matrices (streaming) and on matrices mixing short rows with very long
 * ones (circuits with supply nets): no warp waits for a long row and no long row is left to
 * a few lanes. Loses where rows are long and even (csr-vector does without the descriptors).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace
{

constexpr int kThreads = SPS_BLOCKWISE_THREADS;
constexpr int kWarps = kThreads / 32;

template <typename Off>
__device__ __forceinline__ void
stream_rows(int64_t first, int64_t last, const Off *__restrict__ rowptr,
            const int32_t *__restrict__ colind, const double *__restrict__ values, double alpha,
            const double *__restrict__ x, double beta, double *__restrict__ y,
            double *__restrict__ prod)
{
  const int64_t k0 = __ldg(&rowptr[first]), k1 = __ldg(&rowptr[last]);
  const int nz = (int)(k1 - k0);
  /* prod[k] <- a_k * x[col_k]: coalesced over k. */
#pragma unroll 4
  for (int k = threadIdx.x; k < nz; k += kThreads)
    prod[k] = __ldg(&values[k0 + k]) * __ldg(&x[__ldg(&colind[k0 + k])]);
  __syncthreads();
  for (int64_t row = first + threadIdx.x; row < last; row += kThreads) {
    const int b = (int)(__ldg(&rowptr[row]) - k0), e = (int)(__ldg(&rowptr[row + 1]) - k0);
    sps_csum s = sps_csum_zero();
    for (int k = b; k < e; k++)
      sps_csum_add(&s, prod[k]);
    y[row] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[row]);
  }
}

template <int G, typename Off>
__device__ __forceinline__ void
vector_rows(int64_t first, int64_t last, const Off *__restrict__ rowptr,
            const int32_t *__restrict__ colind, const double *__restrict__ values, double alpha,
            const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int lane = threadIdx.x & (G - 1);
  const int group = threadIdx.x / G;
  /* The loop bound is the same for the whole block, so every lane reaches the shuffles. */
  for (int64_t base = first; base < last; base += kThreads / G) {
    const int64_t row = base + group;
    sps_csum s = sps_csum_zero();
    if (row < last) {
      const int64_t end = __ldg(&rowptr[row + 1]);
      for (int64_t k = __ldg(&rowptr[row]) + lane; k < end; k += G)
        sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
    }
    s = sps_group_csum<G>(s);
    if (row < last && lane == 0) y[row] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[row]);
  }
}

template <typename Off>
__global__ void __launch_bounds__(kThreads)
    blockwise_kernel(const Off *__restrict__ rowptr, const int32_t *__restrict__ colind,
                     const double *__restrict__ values, const sps_block_desc *__restrict__ blocks,
                     double *__restrict__ partial, unsigned *__restrict__ counter, double alpha,
                     const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ double prod[SPS_BLOCKWISE_NNZ];
  const int64_t b = blockIdx.x;
  const sps_block_desc bd = blocks[b];
  if (bd.kind == SPS_BLOCK_SHORT) {
    const int64_t first = bd.row, last = (int64_t)bd.row + bd.count;
    switch (bd.tpr) {
    case 0:
      stream_rows(first, last, rowptr, colind, values, alpha, x, beta, y, prod);
      break;
    case 1:
      vector_rows<1>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    case 2:
      vector_rows<2>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    case 4:
      vector_rows<4>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    case 8:
      vector_rows<8>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    case 16:
      vector_rows<16>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    default:
      vector_rows<32>(first, last, rowptr, colind, values, alpha, x, beta, y);
      break;
    }
    return;
  }
  /* Part bd.count of long row bd.row. */
  sps_csum *warp_sum = reinterpret_cast<sps_csum *>(prod);
  const int64_t r = bd.row;
  const int64_t row_end = __ldg(&rowptr[r + 1]);
  const int64_t k0 = __ldg(&rowptr[r]) + (int64_t)bd.count * SPS_BLOCKWISE_PART_NNZ;
  const int64_t k1 = k0 + SPS_BLOCKWISE_PART_NNZ < row_end ? k0 + SPS_BLOCKWISE_PART_NNZ : row_end;
  sps_csum s = sps_csum_zero();
  for (int64_t k = k0 + threadIdx.x; k < k1; k += kThreads)
    sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  s = sps_group_csum<32>(s);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x >= 32) return;
  s = threadIdx.x < kWarps ? warp_sum[threadIdx.x] : sps_csum_zero();
  s = sps_group_csum<32>(s);
  if (threadIdx.x != 0) return;
  if (bd.parts == 1) {
    y[r] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[r]);
    return;
  }
  partial[2 * b] = s.hi;
  partial[2 * b + 1] = s.lo;
  /* Make this part's sum visible before counting it; the last arrival sums all parts. */
  __threadfence();
  if (atomicAdd(&counter[bd.slot], 1u) != (unsigned)(bd.parts - 1)) return;
  __threadfence();
  sps_csum total = sps_csum_zero();
  const int64_t b0 = b - bd.count;
  for (int64_t q = b0; q < b0 + bd.parts; q++) {
    sps_csum c;
    c.hi = __ldcg(&partial[2 * q]);
    c.lo = __ldcg(&partial[2 * q + 1]);
    sps_csum_merge(&total, c);
  }
  y[r] = sps_axpby_out(alpha, sps_csum_value(total), beta, &y[r]);
  counter[bd.slot] = 0u;
}

} // namespace

extern "C" cudaError_t sps_cuda_blockwise(cudaStream_t stream, const int64_t *rowptr,
                                          const int32_t *rowptr32, const int32_t *colind,
                                          const double *values, int64_t nblocks,
                                          const sps_block_desc *blocks, double *partial,
                                          unsigned *counter, double alpha, const double *x,
                                          double beta, double *y)
{
  if (nblocks <= 0) return cudaSuccess;
  if (rowptr32)
    blockwise_kernel<int32_t><<<(unsigned)nblocks, kThreads, 0, stream>>>(
        rowptr32, colind, values, blocks, partial, counter, alpha, x, beta, y);
  else
    blockwise_kernel<int64_t><<<(unsigned)nblocks, kThreads, 0, stream>>>(
        rowptr, colind, values, blocks, partial, counter, alpha, x, beta, y);
  return cudaGetLastError();
}
