/* vector_kernels.cu: elementwise vector kernels of the CUDA backend (fill, axpby, pointwise product, gather).
 *
 * Thread-to-data map: a grid-stride loop, one double per thread per step, consecutive
 * threads on consecutive entries (coalesced). Each kernel makes one pass over its inputs
 * and output; they are bandwidth bound. The gather reads x at the given indices (a halo's
 * entries, sorted, so neighbouring threads mostly read nearby entries) and writes y in order.
 */
#include <cstdint>

#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t n)
{
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  return (unsigned)(blocks > 0 ? blocks : 1);
}

/* y[i] <- a */
__global__ void fill_kernel(int64_t n, double a, double *__restrict__ y)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = a;
}

/* y[i] <- a*x[i] + b*y[i]; y is not read when b = 0, so NaN in y does not propagate. */
__global__ void axpby_kernel(int64_t n, double a, const double *__restrict__ x, double b,
                             double *__restrict__ y)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = b == 0.0 ? a * x[i] : a * x[i] + b * y[i];
}

/* y[i] <- w[i]*x[i] */
__global__ void pointwise_mult_kernel(int64_t n, const double *__restrict__ w,
                                      const double *__restrict__ x, double *__restrict__ y)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = w[i] * x[i];
}

/* y[k] <- x[idx[k]] */
__global__ void gather_kernel(int64_t n, const int32_t *__restrict__ idx,
                              const double *__restrict__ x, double *__restrict__ y)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
       k += (int64_t)gridDim.x * blockDim.x)
    y[k] = x[idx[k]];
}

} // namespace

extern "C" cudaError_t sps_cuda_fill_launch(cudaStream_t s, int64_t n, double a, double *y)
{
  if (n <= 0) return cudaSuccess;
  fill_kernel<<<grid_for(n), kThreads, 0, s>>>(n, a, y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_axpby_launch(cudaStream_t s, int64_t n, double a, const double *x,
                                             double b, double *y)
{
  if (n <= 0) return cudaSuccess;
  axpby_kernel<<<grid_for(n), kThreads, 0, s>>>(n, a, x, b, y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_pointwise_mult_launch(cudaStream_t s, int64_t n, const double *w,
                                                      const double *x, double *y)
{
  if (n <= 0) return cudaSuccess;
  pointwise_mult_kernel<<<grid_for(n), kThreads, 0, s>>>(n, w, x, y);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gather_launch(cudaStream_t s, int64_t n, const int32_t *idx,
                                              const double *x, double *y)
{
  if (n <= 0) return cudaSuccess;
  gather_kernel<<<grid_for(n), kThreads, 0, s>>>(n, idx, x, y);
  return cudaGetLastError();
}
