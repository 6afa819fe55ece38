/* block_reduce.cuh: the thread-to-data map of the CUDA block kernels (lanes across the columns of a row-major block, rows across the rest) and their per-column compensated reductions with a deterministic last-block sum. */
#ifndef SPS_CORE_CUDA_BLOCK_REDUCE_CUH
#define SPS_CORE_CUDA_BLOCK_REDUCE_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "../block_ops.h"
#include "reduce.cuh"

namespace sps_block
{

using sps_reduce::csum;
constexpr int kThreads = sps_reduce::kThreads;
constexpr int kWarps = sps_reduce::kWarps;
constexpr int kMaxCols = SPS_BLOCK_MAX_COLS;

/*
 * The map. A block of kThreads threads is TX lanes across the columns times TY = kThreads/TX
 * rows, TX the power of two covering min(w, 32): thread (tx, ty) serves the columns tx and
 * tx + TX (when below w) of rows blockIdx.x*TY + ty, stepping by gridDim.x*TY. A warp reads
 * 32/TX consecutive rows of TX consecutive columns: with ld = w (rounded to even) these are
 * consecutive doubles, so the loads of a row-major block coalesce whatever w.
 */
__host__ __device__ inline int lanes_for(int w)
{
  int t = 1;
  while (t < w && t < 32) t <<= 1;
  return t;
}

struct Map {
  int TX, TY, tx, ty;
};

__device__ inline Map map_for(int w)
{
  Map m;
  m.TX = lanes_for(w);
  m.TY = kThreads / m.TX;
  m.tx = (int)threadIdx.x % m.TX;
  m.ty = (int)threadIdx.x / m.TX;
  return m;
}

/* The grid over the rows: one row of threads per TX lanes, at most max_blocks blocks. */
inline unsigned grid_rows(int64_t n, int w, unsigned max_blocks)
{
  const int64_t ty = kThreads / lanes_for(w);
  int64_t b = (n + ty - 1) / ty;
  if (b > (int64_t)max_blocks) b = max_blocks;
  return (unsigned)(b > 0 ? b : 1);
}

#define SPS_BLOCK_ROWS(i, n, mp)                                                                   \
  for (int64_t i = (int64_t)blockIdx.x * (mp).TY + (mp).ty; i < (n);                               \
       i += (int64_t)gridDim.x * (mp).TY)

/* The work space: the ticket in its first two doubles, the partials after them. */
__device__ inline unsigned *ws_ticket(double *ws)
{
  return reinterpret_cast<unsigned *>(ws);
}
__device__ inline double *ws_partials(double *ws)
{
  return ws + 2;
}

/*
 * The block's sums of NQ quantities for the thread's two column slots: a tree over the rows
 * of threads in shared memory (sh: NQ*2*kThreads sums), so that each (quantity, column) is
 * merged in a fixed order. Afterwards the totals are in the threads of row ty = 0.
 */
template <int NQ> __device__ void block_col_sums(csum (&acc)[NQ][2], const Map &mp, csum *sh)
{
#pragma unroll
  for (int q = 0; q < NQ; q++)
#pragma unroll
    for (int s = 0; s < 2; s++)
      sh[(q * 2 + s) * kThreads + threadIdx.x] = acc[q][s];
  __syncthreads();
  for (int stride = mp.TY / 2; stride > 0; stride >>= 1) {
    if (mp.ty < stride)
#pragma unroll
      for (int q = 0; q < NQ; q++)
#pragma unroll
        for (int s = 0; s < 2; s++) {
          csum *a = &sh[(q * 2 + s) * kThreads + mp.ty * mp.TX + mp.tx];
          sps_csum_merge(a, a[stride * mp.TX]);
        }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < NQ; q++)
#pragma unroll
    for (int s = 0; s < 2; s++)
      acc[q][s] = sh[(q * 2 + s) * kThreads + mp.tx];
  __syncthreads();
}

/* Partial (quantity q, column c) of block b: the pair at 2*((q*w + c)*gridDim.x + b). */
__device__ inline void put_col_partial(double *partials, int w, int q, int c, csum v)
{
  sps_reduce::put_partial(partials, q * w + c, blockIdx.x, v);
}

/* After block_col_sums: the threads of row 0 write the block's partials of quantities
 * q0..q0+NQ-1 for their columns below w. */
template <int NQ>
__device__ void put_col_partials(const csum (&acc)[NQ][2], const Map &mp, int w, int q0,
                                 double *partials)
{
  if (mp.ty != 0) return;
#pragma unroll
  for (int s = 0; s < 2; s++) {
    const int c = mp.tx + s * mp.TX;
    if (c >= w) continue;
#pragma unroll
    for (int q = 0; q < NQ; q++)
      put_col_partial(partials, w, q0 + q, c, acc[q][s]);
  }
}

/* In the last block: the total of (quantity q, column c) over the blocks by one warp, in a
 * fixed order; valid in lane 0. */
__device__ inline double gather_col(const double *partials, int w, int q, int c)
{
  return sps_csum_value(sps_reduce::gather_warp(partials, q * w + c));
}

/* The columns c < w with flag(c) into run (shared, kMaxCols bytes); true in every thread
 * when any is set. */
template <class F> __device__ bool load_flags(int w, unsigned char *run, F flag)
{
  int mine = 0;
  for (int c = threadIdx.x; c < kMaxCols; c += blockDim.x) {
    run[c] = c < w && flag(c) ? 1 : 0;
    mine |= run[c];
  }
  return __syncthreads_or(mine) != 0;
}

} // namespace sps_block

#endif /* SPS_CORE_CUDA_BLOCK_REDUCE_CUH */
