/* reduce.cuh: the block and grid reductions shared by the fused Krylov step kernels (deterministic
 * last-block sums). */
#ifndef SPS_CORE_CUDA_REDUCE_CUH
#define SPS_CORE_CUDA_REDUCE_CUH

#include <cstdint>

#include <cuda_runtime.h>

namespace sps_reduce
{

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/* Sum over the warp by shuffles down a fixed tree; the total is valid in lane 0. */
__device__ inline double warp_sum(double v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* Sum v over the block (sh: kWarps doubles); the total is valid in thread 0. */
__device__ inline double block_sum(double v, double *sh)
{
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  v = threadIdx.x < kWarps ? sh[threadIdx.x] : 0.0;
  if (warp == 0) v = warp_sum(v);
  return v;
}

/*
 * After this block wrote its partials (any threads), make them visible and take a ticket;
 * true in every thread of the last block to arrive, which then finds all partials written.
 * Each writer fences its own stores, the barrier orders them before thread 0's atomic.
 */
__device__ inline bool arrive_last(unsigned *ticket)
{
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(ticket, 1u);
    last = (t == gridDim.x - 1);
  }
  __syncthreads();
  return last;
}

/* In the last block: the total of partial k (stored at partials[k*gridDim.x + b]) over the
 * blocks b in a fixed order, valid in thread 0. __ldcg reads L2, where the other blocks'
 * stores are. */
__device__ inline double gather_block(const double *partials, int k, double *sh)
{
  double v = 0.0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    v += __ldcg(&partials[(int64_t)k * gridDim.x + b]);
  return block_sum(v, sh);
}

/* Like gather_block, for one warp: the total is valid in lane 0. Each warp of the last block
 * can gather a different partial, so many are summed without block barriers. */
__device__ inline double gather_warp(const double *partials, int k)
{
  const int lane = threadIdx.x & 31;
  double v = 0.0;
  for (unsigned b = lane; b < gridDim.x; b += 32)
    v += __ldcg(&partials[(int64_t)k * gridDim.x + b]);
  return warp_sum(v);
}

/* Grid of the partials kernels: one thread per entry up to max_blocks blocks. */
inline unsigned grid_for(int64_t n, unsigned max_blocks)
{
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > (int64_t)max_blocks) b = max_blocks;
  return (unsigned)(b > 0 ? b : 1);
}

} // namespace sps_reduce

#endif /* SPS_CORE_CUDA_REDUCE_CUH */
