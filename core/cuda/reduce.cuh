/* reduce.cuh: the block and grid reductions of compensated sums shared by the CUDA backend's
 * kernels (deterministic last-block sums). */
#ifndef SPS_CORE_CUDA_REDUCE_CUH
#define SPS_CORE_CUDA_REDUCE_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "../compensated_sum.h"

namespace sps_reduce
{

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/* Compensated sums (core/compensated_sum.h) are reduced as (hi, lo) pairs: every merge is a
 * TwoSum of the hi parts, so the tree's shape changes no more than the last bits of lo. */
using csum = sps_csum;

/* Sum over the warp by shuffles down a fixed tree; the total is valid in lane 0. */
__device__ inline csum warp_sum(csum v)
{
  for (int o = 16; o > 0; o >>= 1) {
    csum w;
    w.hi = __shfl_down_sync(0xffffffffu, v.hi, o);
    w.lo = __shfl_down_sync(0xffffffffu, v.lo, o);
    sps_csum_merge(&v, w);
  }
  return v;
}

/* Sum over the first W lanes (W a power of two) by shuffles down; valid in lane 0. */
template <int W> __device__ inline csum lanes_sum(csum v)
{
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) {
    csum w;
    w.hi = __shfl_down_sync(0xffffffffu, v.hi, o);
    w.lo = __shfl_down_sync(0xffffffffu, v.lo, o);
    sps_csum_merge(&v, w);
  }
  return v;
}

/* Sum v over the block (sh: kWarps sums); the total is valid in thread 0. */
__device__ inline csum block_sum(csum v, csum *sh)
{
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  v = threadIdx.x < kWarps ? sh[threadIdx.x] : sps_csum_zero();
  if (warp == 0) v = lanes_sum<kWarps>(v);
  return v;
}

/* Partial k of block b is the pair partials[2*(k*gridDim.x + b) + {0, 1}]: buffers hold two
 * doubles per partial. */
__device__ inline void put_partial(double *partials, int k, unsigned b, csum v)
{
  const int64_t at = 2 * ((int64_t)k * gridDim.x + b);
  partials[at] = v.hi;
  partials[at + 1] = v.lo;
}

__device__ inline csum get_partial(const double *partials, int k, unsigned b)
{
  const int64_t at = 2 * ((int64_t)k * gridDim.x + b);
  csum v;
  v.hi = __ldcg(&partials[at]);
  v.lo = __ldcg(&partials[at + 1]);
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

/* In the last block: the total of partial k over the blocks in a fixed order, valid in
 * thread 0. __ldcg reads L2, where the other blocks' stores are. */
__device__ inline csum gather_block(const double *partials, int k, csum *sh)
{
  csum v = sps_csum_zero();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    sps_csum_merge(&v, get_partial(partials, k, b));
  return block_sum(v, sh);
}

/* Like gather_block, for one warp: the total is valid in lane 0. Each warp of the last block
 * can gather a different partial, so many are summed without block barriers. */
__device__ inline csum gather_warp(const double *partials, int k)
{
  const int lane = threadIdx.x & 31;
  csum v = sps_csum_zero();
  for (unsigned b = lane; b < gridDim.x; b += 32)
    sps_csum_merge(&v, get_partial(partials, k, b));
  return warp_sum(v);
}

/* The value of sum l over the ranks of a distributed context: all holds every rank's kk pairs
 * (hi, lo), rank after rank, as NCCL's all-gather leaves them; merged in rank order, so every
 * rank gets the same bits (core/comm.c merges the host's exchanges the same way). */
__device__ inline double ranks_value(const double *all, int size, int kk, int l)
{
  csum acc = sps_csum_zero();
  for (int r = 0; r < size; r++) {
    csum o;
    o.hi = all[(int64_t)r * 2 * kk + 2 * l];
    o.lo = all[(int64_t)r * 2 * kk + 2 * l + 1];
    sps_csum_merge(&acc, o);
  }
  return sps_csum_value(acc);
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
