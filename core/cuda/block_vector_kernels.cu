/* block_vector_kernels.cu: the masked per-column vector kernels of the CUDA block backend (column copies, fill, scale, axpby, pointwise product, dots and norms), each column rounded as the single-vector kernel rounds it.
 *
 * Thread-to-data map (block_reduce.cuh): TX lanes across the columns of a row, TY rows per
 * thread block, grid-stride over the rows; a warp reads 32/TX consecutive rows of TX
 * consecutive columns, which are consecutive doubles of a row-major block. Columns outside
 * the mask are neither read nor written. Elementwise kernels make one pass and are bandwidth
 * bound; dot and sumsq keep one compensated sum per column and thread, reduce them over the
 * block by a tree in shared memory and write one pair per column and block, and the last
 * block to take the ticket adds the pairs in block order and writes the w results to device
 * memory. They serve the host-driven parts of the block solvers (starts, restarts, true
 * residuals), which read the results back.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "block_launchers.h"
#include "block_reduce.cuh"

namespace
{

using sps_block::csum;
using sps_block::kMaxCols;
using sps_block::kThreads;
using sps_block::kWarps;
using sps_block::Map;
using sps_block::map_for;

__device__ inline bool in_mask(uint64_t mask, int c)
{
  return (mask >> c) & 1u;
}

__global__ void copy_cols_kernel(int64_t n, int w, const double *__restrict__ src, int64_t lds,
                                 sps_block_cols scols, double *__restrict__ dst, int64_t ldd,
                                 sps_block_cols dcols)
{
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX)
    dst[i * ldd + dcols.c[c]] = src[i * lds + scols.c[c]];
}

__global__ void fill_kernel(int64_t n, int w, int64_t ld, uint64_t mask, double a,
                            double *__restrict__ Y)
{
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX)
    if (in_mask(mask, c)) Y[i * ld + c] = a;
}

__global__ void scale_kernel(int64_t n, int w, int64_t ld, uint64_t mask, sps_block_vals f,
                             double *__restrict__ Y)
{
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX)
    if (in_mask(mask, c)) Y[i * ld + c] *= f.v[c];
}

/* Y <- a X + b Y per column; Y not read where b = 0 (the single axpby kernel's rule). */
__global__ void axpby_kernel(int64_t n, int w, int64_t ld, uint64_t mask, sps_block_vals a,
                             const double *__restrict__ X, sps_block_vals b,
                             double *__restrict__ Y)
{
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX) {
    if (!in_mask(mask, c)) continue;
    const int64_t e = i * ld + c;
    Y[e] = b.v[c] == 0.0 ? a.v[c] * X[e] : a.v[c] * X[e] + b.v[c] * Y[e];
  }
}

__global__ void pointwise_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                                 const double *__restrict__ d, const double *__restrict__ X,
                                 double *__restrict__ Y)
{
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX)
    if (in_mask(mask, c)) Y[i * ld + c] = d[i] * X[i * ld + c];
}

/* out[c] <- X(:, c).Y(:, c) for the columns of mask. */
__global__ void dot_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                           const double *__restrict__ X, const double *__restrict__ Y, double *ws,
                           double *out)
{
  __shared__ csum sh[2 * kThreads];
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = mp.tx + s * mp.TX;
    if (c < w && in_mask(mask, c)) sps_csum_add(&acc[0][s], X[i * ld + c] * Y[i * ld + c]);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double v = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && in_mask(mask, c)) out[c] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) *sps_block::ws_ticket(ws) = 0;
}

/* The larger of two magnitudes, NaN when either is NaN (blas_kernels.cu's rule). */
__device__ inline double max_nan(double a, double b)
{
  if (a != a || b != b) return a + b;
  return a > b ? a : b;
}

/* out[c] <- sum (X(i, c) f[c])^2 (compensated), out[w + c] <- max |X(i, c)|: the passes of the
 * single nrm2 kernel per column. */
__global__ void sumsq_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                             const double *__restrict__ X, sps_block_vals f, double *ws,
                             double *out)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ double shm[2 * kThreads];
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  double m[2] = {0.0, 0.0};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = mp.tx + s * mp.TX;
    if (c >= w || !in_mask(mask, c)) continue;
    const double x = X[i * ld + c], xi = x * f.v[c];
    sps_csum_add(&acc[0][s], xi * xi);
    m[s] = max_nan(m[s], fabs(x));
  }
  /* the maxima by the same tree as the sums */
  for (int s = 0; s < 2; s++) shm[s * kThreads + threadIdx.x] = m[s];
  __syncthreads();
  for (int stride = mp.TY / 2; stride > 0; stride >>= 1) {
    if (mp.ty < stride)
      for (int s = 0; s < 2; s++) {
        double *a = &shm[s * kThreads + mp.ty * mp.TX + mp.tx];
        *a = max_nan(*a, a[stride * mp.TX]);
      }
    __syncthreads();
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (mp.ty == 0)
    for (int s = 0; s < 2; s++) {
      const int c = mp.tx + s * mp.TX;
      if (c < w) {
        csum v;
        v.hi = shm[s * kThreads + mp.tx];
        v.lo = 0.0;
        sps_block::put_col_partial(partials, w, 1, c, v);
      }
    }
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double v = sps_block::gather_col(partials, w, 0, c);
    double mx = 0.0;
    for (unsigned b = lane; b < gridDim.x; b += 32)
      mx = max_nan(mx, __ldcg(&partials[2 * ((int64_t)(w + c) * gridDim.x + b)]));
    for (int o = 16; o > 0; o >>= 1) mx = max_nan(mx, __shfl_down_sync(0xffffffffu, mx, o));
    /* every column's pair is written (0 outside the mask), so the host's read of all 2w never
     * copies memory nothing wrote (compute-sanitizer's initcheck) */
    if (lane == 0) {
      out[c] = in_mask(mask, c) ? v : 0.0;
      out[w + c] = in_mask(mask, c) ? mx : 0.0;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) *sps_block::ws_ticket(ws) = 0;
}

} // namespace

extern "C" size_t sps_cuda_block_workspace(unsigned max_blocks, int w, int m)
{
  /* GMRES's dots: up to m + 1 basis blocks and w.w per column, rounded up to a group of
   * four; Gram matrices: kMaxCols^2 entries per row chunk (block_dense.cu); two otherwise. */
  size_t q = (size_t)(m > 0 ? m + 5 : 2) * (size_t)w;
  const size_t gram = (size_t)kMaxCols * kMaxCols;
  if (gram > q) q = gram;
  return 2 + 2 * q * (size_t)max_blocks;
}

extern "C" cudaError_t sps_cuda_block_copy_cols(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                int w, const double *src, int64_t lds,
                                                sps_block_cols scols, double *dst, int64_t ldd,
                                                sps_block_cols dcols)
{
  if (n <= 0 || w <= 0) return cudaSuccess;
  copy_cols_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, src, lds, scols,
                                                                              dst, ldd, dcols);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_fill(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                           int64_t ld, uint64_t mask, double a, double *Y)
{
  if (n <= 0 || !mask) return cudaSuccess;
  fill_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, a, Y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_scale(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                            int64_t ld, uint64_t mask, sps_block_vals f, double *Y)
{
  if (n <= 0 || !mask) return cudaSuccess;
  scale_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, f, Y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_axpby(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                            int64_t ld, uint64_t mask, sps_block_vals a,
                                            const double *X, sps_block_vals b, double *Y)
{
  if (n <= 0 || !mask) return cudaSuccess;
  axpby_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, a, X, b,
                                                                          Y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_pointwise(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                int w, int64_t ld, uint64_t mask, const double *d,
                                                const double *X, double *Y)
{
  if (n <= 0 || !mask) return cudaSuccess;
  pointwise_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, d,
                                                                              X, Y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_dot(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                          int64_t ld, uint64_t mask, const double *X,
                                          const double *Y, double *ws, double *out)
{
  dot_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, X, Y, ws,
                                                                        out);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_sumsq(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                            int64_t ld, uint64_t mask, const double *X,
                                            sps_block_vals f, double *ws, double *out)
{
  sumsq_kernel<<<sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s>>>(n, w, ld, mask, X, f,
                                                                          ws, out);
  return cudaGetLastError();
}
