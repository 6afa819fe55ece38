/* mcgs.cu: the CUDA kernels of multicolour Gauss-Seidel (Jones-Plassmann colouring rounds, the order of the rows by colour, the sweep of one colour), each the CPU reference step of precond/ref/mcgs.c with the same results.
 *
 * The math is the reference's (precond/ref/kernels.h). Colouring: one thread a row; a round
 * reads the colours of the rounds before (cin) and writes cout, and the rows it colours are
 * pairwise not neighbours, so the result does not depend on the threads' order and equals the
 * reference's. The free colour is found in windows of 64 colours with a bit mask, as there.
 * Order: CUB's stable radix sort of (colour, row) pairs gives the reference's counting sort
 * (rows ascending within a colour); each colour's first position is where the sorted colours
 * step up. Sweep: a group of G lanes a row of the colour (G from the mean row length, as
 * csr-vector chooses it), each lane adding its share of the row's products into a compensated
 * sum, merged across the group (spmv/cuda/reduce.cuh): the correctly rounded row sum, as the
 * reference's serial compensated sum gives it (core/compensated_sum.h), then lane 0 writes
 * x_i + dinv_i (b_i - s sum). Rows of one colour read only other colours' x, so the launch has
 * no race.
 *
 * Thread-to-data map: colouring and order one thread a row; sweep G lanes a row of the colour's
 * list (rows[t]), 256 threads a block. Memory access: the sweep reads the colour's rows'
 * entries (coalesced within a row's group) and gathers x like an SpMV; a colour's rows are
 * spread over the matrix, so the row offsets and b, x, dinv are read at random.
 * Where it wins and loses: each colour is a separate launch (about 2 us in a CUDA graph), so a
 * level with many colours (the dense coarse operators of 3-D problems: tens to a hundred) pays
 * in launches what Gauss-Seidel saves in iterations; on the fine levels of meshes (a handful of
 * colours) a sweep costs about one SpMV.
 */
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "../../spmv/cuda/reduce.cuh"
#include "launchers.h"

namespace
{

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n)
{
  return (unsigned)((n + kThreads - 1) / kThreads);
}

__device__ inline int mc_beats(int64_t i, int64_t j)
{
  const uint64_t pi = sps_agg_priority(i), pj = sps_agg_priority(j);
  return pi > pj || (pi == pj && i > j);
}

__device__ int32_t mc_free_color(int64_t i, const int64_t *rp, const int32_t *ci,
                                 const int64_t *trp, const int32_t *tci, const int32_t *cin)
{
  for (int32_t base = 0;; base += 64) {
    uint64_t used = 0;
    for (int pass = 0; pass < 2; pass++) {
      const int64_t *p = pass ? trp : rp;
      const int32_t *c = pass ? tci : ci;
      if (!p) continue;
      for (int64_t k = p[i]; k < p[i + 1]; k++) {
        const int32_t col = cin[c[k]];
        if (c[k] != i && col >= base && col < base + 64) used |= 1ull << (col - base);
      }
    }
    if (used != ~0ull) {
      int32_t b = 0;
      while (used & (1ull << b))
        b++;
      return base + b;
    }
  }
}

__global__ void __launch_bounds__(kThreads) color_init_kernel(int64_t n, int32_t *color)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n) color[i] = -1;
}

__global__ void __launch_bounds__(kThreads)
    color_round_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                       const int64_t *__restrict__ trp, const int32_t *__restrict__ tci,
                       const int32_t *__restrict__ cin, int32_t *__restrict__ cout,
                       unsigned long long *__restrict__ left)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int still = 0;
  if (i < n) {
    int32_t out = cin[i];
    if (out < 0) {
      int top = 1;
      for (int pass = 0; pass < 2 && top; pass++) {
        const int64_t *p = pass ? trp : rp;
        const int32_t *c = pass ? tci : ci;
        if (!p) continue;
        for (int64_t k = p[i]; top && k < p[i + 1]; k++) {
          const int32_t j = c[k];
          if (j != i && cin[j] < 0 && !mc_beats(i, j)) top = 0;
        }
      }
      if (top)
        out = mc_free_color(i, rp, ci, trp, tci, cin);
      else
        still = 1;
    }
    cout[i] = out;
  }
  const int c = __syncthreads_count(still);
  if (threadIdx.x == 0 && c > 0) atomicAdd(left, (unsigned long long)c);
}

__global__ void __launch_bounds__(kThreads)
    color_count_kernel(int64_t n, const int32_t *__restrict__ color,
                       unsigned long long *__restrict__ ncolors)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n) atomicMax(ncolors, (unsigned long long)(color[i] + 1));
}

__global__ void __launch_bounds__(kThreads) iota_kernel(int64_t n, int32_t *v)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n) v[i] = (int32_t)i;
}

/* start[c] <- the first position of colour c in the sorted colours; start[ncolors] <- n. */
__global__ void __launch_bounds__(kThreads)
    color_start_kernel(int64_t n, const int32_t *__restrict__ sorted, int ncolors,
                       int64_t *__restrict__ start)
{
  const int64_t k = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (k == 0) start[ncolors] = n;
  if (k >= n) return;
  const int32_t c = sorted[k];
  if (k == 0) {
    for (int32_t q = 0; q <= c; q++)
      start[q] = 0;
  } else {
    for (int32_t q = sorted[k - 1] + 1; q <= c; q++)
      start[q] = k;
  }
}

template <int G>
__global__ void __launch_bounds__(kThreads)
    sweep_kernel(int64_t count, const int32_t *__restrict__ rows, const int64_t *__restrict__ rp,
                 const int32_t *__restrict__ ci, const double *__restrict__ v, double sg,
                 const double *__restrict__ dinv, const double *__restrict__ b,
                 double *__restrict__ x)
{
  const int64_t t = (blockIdx.x * (int64_t)kThreads + threadIdx.x) / G;
  const int lane = threadIdx.x & (G - 1);
  sps_csum s = sps_csum_zero();
  int32_t i = 0;
  if (t < count) {
    i = rows[t];
    const int64_t end = rp[i + 1];
    for (int64_t k = rp[i] + lane; k < end; k += G)
      sps_csum_add(&s, v[k] * x[ci[k]]);
  }
  /* every lane of the warp reaches the shuffles */
  s = sps_group_csum<G>(s);
  if (t < count && lane == 0) {
    const double r = b[i] - sg * sps_csum_value(s);
    x[i] = x[i] + dinv[i] * r;
  }
}

template <int G>
cudaError_t sweep(cudaStream_t s, int64_t count, const int32_t *rows, const int64_t *rp,
                  const int32_t *ci, const double *v, double sg, const double *dinv,
                  const double *b, double *x)
{
  const int64_t per_block = kThreads / G;
  const unsigned blocks = (unsigned)((count + per_block - 1) / per_block);
  sweep_kernel<G><<<blocks, kThreads, 0, s>>>(count, rows, rp, ci, v, sg, dinv, b, x);
  return cudaGetLastError();
}

} // namespace

extern "C" {

cudaError_t sps_cuda_mc_color_init(cudaStream_t s, int64_t n, int32_t *color)
{
  if (n > 0) color_init_kernel<<<grid_for(n), kThreads, 0, s>>>(n, color);
  return cudaGetLastError();
}

cudaError_t sps_cuda_mc_color_round(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                    const int64_t *trp, const int32_t *tci, const int32_t *cin,
                                    int32_t *cout, unsigned long long *left)
{
  cudaError_t e = cudaMemsetAsync(left, 0, sizeof *left, s);
  if (e != cudaSuccess) return e;
  if (n > 0)
    color_round_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, trp, tci, cin, cout, left);
  return cudaGetLastError();
}

cudaError_t sps_cuda_mc_color_count(cudaStream_t s, int64_t n, const int32_t *color,
                                    unsigned long long *ncolors)
{
  cudaError_t e = cudaMemsetAsync(ncolors, 0, sizeof *ncolors, s);
  if (e != cudaSuccess) return e;
  if (n > 0) color_count_kernel<<<grid_for(n), kThreads, 0, s>>>(n, color, ncolors);
  return cudaGetLastError();
}

cudaError_t sps_cuda_mc_order(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n,
                              const int32_t *color, int ncolors, int64_t *start, int32_t *keys_out,
                              int32_t *iota, int32_t *order)
{
  int bits = 1;
  while (bits < 31 && (1 << bits) < ncolors)
    bits++;
  if (!temp)
    return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, (const uint32_t *)color,
                                           (uint32_t *)keys_out, iota, order, n, 0, bits, s);
  if (n > 0) iota_kernel<<<grid_for(n), kThreads, 0, s>>>(n, iota);
  cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, (const uint32_t *)color,
                                                  (uint32_t *)keys_out, iota, order, n, 0, bits, s);
  if (e != cudaSuccess) return e;
  color_start_kernel<<<grid_for(n > 0 ? n : 1), kThreads, 0, s>>>(n, keys_out, ncolors, start);
  return cudaGetLastError();
}

cudaError_t sps_cuda_mcgs_sweep(cudaStream_t s, int64_t count, const int32_t *rows,
                                const int64_t *rp, const int32_t *ci, const double *v, double sg,
                                const double *dinv, const double *b, double *x, int lanes)
{
  if (count <= 0) return cudaSuccess;
  switch (lanes) {
  case 1:
    return sweep<1>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  case 2:
    return sweep<2>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  case 4:
    return sweep<4>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  case 8:
    return sweep<8>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  case 16:
    return sweep<16>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  case 32:
    return sweep<32>(s, count, rows, rp, ci, v, sg, dinv, b, x);
  default:
    return cudaErrorInvalidValue;
  }
}

} // extern "C"
