/* blas_kernels.cu: the dot product and the two GEMV of the CUDA backend's generic ops, summed as the CPU backend sums them (compensated dots, rows of V h in column order).
 *
 * These serve the host-driven solver paths (the initial and true residual norms, the
 * Gram-Schmidt of GMRES when it runs on the host) and replace cuBLAS, whose summation order
 * is its own: with them every reduction of the library rounds like the CPU backend's
 * (core/compensated_sum.h).
 *   dot     s = sum_i x_i y_i: each product rounded, the sum compensated; block partials
 *           (pairs) added in a fixed order by the last block to take the ticket, which
 *           writes s to device memory (one pass over x and y).
 *   nrm2    sum_i (x_i c)^2 compensated, as dot sums x.x when c = 1, and max |x_i| (NaN when
 *           some x_i is NaN), exact in any order; the host takes the square root, or sums
 *           again with a power of two c when max |x_i| asks for it (core/nrm2_scale.h).
 *   gemv_n  y_i <- y_i + alpha * sum_{j<k} V(i,j) h_j, the inner sum in plain arithmetic in
 *           the order j = 0, 1, ..., k-1, as the CPU backend's loop (one pass over V and y).
 * Thread-to-data map: grid-stride loops, consecutive threads on consecutive rows
 * (coalesced; a warp reads 32 consecutive rows of a column of V).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "reduce.cuh"

namespace
{

using sps_reduce::arrive_last;
using sps_reduce::block_sum;
using sps_reduce::csum;
using sps_reduce::gather_block;
using sps_reduce::grid_for;
using sps_reduce::kThreads;
using sps_reduce::kWarps;
using sps_reduce::put_partial;

/* *out <- x.y; the last block resets the ticket. */
__global__ void dot_kernel(int64_t n, const double *__restrict__ x, const double *__restrict__ y,
                           double *partials, unsigned *ticket, double *out)
{
  __shared__ csum sh[kWarps];
  csum s = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    sps_csum_add(&s, x[i] * y[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (!arrive_last(ticket)) return;
  const csum total = gather_block(partials, 0, sh);
  if (threadIdx.x == 0) {
    *out = sps_csum_value(total);
    *ticket = 0;
  }
}

/* The larger of two magnitudes, NaN when either is NaN: exact, commutative and associative. */
__device__ inline double max_nan(double a, double b)
{
  if (a != a || b != b) return a + b;
  return a > b ? a : b;
}

/* out[0] <- sum (x_i c)^2, out[1] <- max |x_i|; the block maxima go to the second partial
 * (its hi part), the last block resets the ticket. */
__global__ void nrm2_kernel(int64_t n, const double *__restrict__ x, double c, double *partials,
                            unsigned *ticket, double *out)
{
  __shared__ csum sh[kWarps];
  __shared__ double shm[kWarps];
  csum s = sps_csum_zero();
  double m = 0.0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const double xi = x[i] * c;
    sps_csum_add(&s, xi * xi);
    m = max_nan(m, fabs(x[i]));
  }
  s = block_sum(s, sh);
  for (int o = 16; o > 0; o >>= 1)
    m = max_nan(m, __shfl_down_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) shm[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kWarps; w++)
      m = max_nan(m, shm[w]);
    put_partial(partials, 0, blockIdx.x, s);
    partials[2 * ((int64_t)gridDim.x + blockIdx.x)] = m;
  }
  if (!arrive_last(ticket)) return;
  const csum total = gather_block(partials, 0, sh);
  if (threadIdx.x == 0) {
    double mall = 0.0;
    for (unsigned b = 0; b < gridDim.x; b++)
      mall = max_nan(mall, __ldcg(&partials[2 * ((int64_t)gridDim.x + b)]));
    out[0] = sps_csum_value(total);
    out[1] = mall;
    *ticket = 0;
  }
}

/* y_i <- y_i + alpha * (V(i, 0:k) h); h (k doubles) is read through the read-only cache, where
 * every thread finds it. (Staged in dynamic shared memory of exactly k doubles, the compiled
 * loop made 16-byte shared loads past its end, which compute-sanitizer reported.) */
__global__ void gemv_n_kernel(int64_t n, int k, double alpha, const double *__restrict__ V,
                              int64_t ldv, const double *__restrict__ h, double *__restrict__ y)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int c = 0; c < k; c++)
      s += V[i + (int64_t)c * ldv] * __ldg(&h[c]);
    y[i] += alpha * s;
  }
}

} // namespace

extern "C" cudaError_t sps_cuda_dot(cudaStream_t s, unsigned max_blocks, int64_t n,
                                    const double *x, const double *y, double *partials,
                                    unsigned *ticket, double *out)
{
  dot_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, x, y, partials, ticket, out);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_nrm2(cudaStream_t s, unsigned max_blocks, int64_t n,
                                     const double *x, double c, double *partials,
                                     unsigned *ticket, double *out)
{
  nrm2_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, x, c, partials, ticket, out);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gemv_n(cudaStream_t s, unsigned max_blocks, int64_t n, int k,
                                       double alpha, const double *V, int64_t ldv,
                                       const double *h, double *y)
{
  if (n <= 0 || k <= 0) return cudaSuccess;
  gemv_n_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, k, alpha, V, ldv, h, y);
  return cudaGetLastError();
}
