/* reduce.cuh: warp-shuffle sums over lane groups, shared by the SpMV kernels of spmv/cuda/. */
#ifndef SPS_SPMV_CUDA_REDUCE_CUH
#define SPS_SPMV_CUDA_REDUCE_CUH

/*
 * Sum of s over each aligned group of G lanes (G = 1, 2, 4, 8, 16, 32), left in the group's
 * first lane: for d = G/2, ..., 1, lane l adds lane l+d. Every lane of the warp must call it
 * (the mask is full), so callers keep inactive lanes in the loop with s = 0.
 */
template <int G> __device__ __forceinline__ double sps_group_sum(double s)
{
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d, G);
  return s;
}

/* y_i <- alpha*s + beta*y_i, with y_i not read when beta = 0 (a NaN there must not spread). */
__device__ __forceinline__ double sps_axpby_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

#endif /* SPS_SPMV_CUDA_REDUCE_CUH */
