/* reduce.cuh: warp-shuffle compensated sums over lane groups, shared by the SpMV kernels of spmv/cuda/. */
#ifndef SPS_SPMV_CUDA_REDUCE_CUH
#define SPS_SPMV_CUDA_REDUCE_CUH

#include "../../core/compensated_sum.h"

/*
 * Compensated sum of s over each aligned group of G lanes (G = 1, 2, 4, 8, 16, 32), left in
 * the group's first lane: for d = G/2, ..., 1, lane l merges lane l+d's pair (hi and lo
 * shuffled separately, then sps_csum_merge). Every lane of the warp must call it (the mask is
 * full), so callers keep inactive lanes in the loop with s = 0. The CPU references repeat
 * this tree (p_l <- p_l + p_{l+d}) to mirror the kernels.
 */
template <int G> __device__ __forceinline__ sps_csum sps_group_csum(sps_csum s)
{
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) {
    sps_csum o;
    o.hi = __shfl_down_sync(0xffffffffu, s.hi, d, G);
    o.lo = __shfl_down_sync(0xffffffffu, s.lo, d, G);
    sps_csum_merge(&s, o);
  }
  return s;
}

/* y_i <- alpha*s + beta*y_i, with y_i not read when beta = 0 (a NaN there must not spread). */
__device__ __forceinline__ double sps_axpby_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

#endif /* SPS_SPMV_CUDA_REDUCE_CUH */
