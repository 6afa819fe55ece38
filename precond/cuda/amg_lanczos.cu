/* amg_lanczos.cu: the CUDA kernels of the multigrid Lanczos steps whose scalars stay in device memory (precond/amg_spectrum.c), each the CPU reference of precond/ref/amg_lanczos.c with the same results.
 *
 * The math is in precond/ref/kernels.h. The scalars (the sums dot_store and sumsq_store left,
 * beta) are read from device memory, so a level's Lanczos steps run without the host: the
 * estimate reads its alphas and betas back once, where the host-driven loop waited twice a
 * step. Every thread computes the step's scalar itself (a square root and a division, the
 * same IEEE operations as the host's); the first thread of the grid stores beta and the flag.
 * No contraction (the build passes -fmad=false): the bits of the reference.
 *
 * Thread-to-data map: one thread an element, grid-stride; min(ceil(n/256), 65535) blocks of
 * 256. Memory: start reads and writes v; residual reads dsq, vold, w and writes w; orth reads
 * v, w and writes w; next reads w, v and writes v, vold (each one pass, bandwidth bound; on
 * the coarse levels a launch costs more than its bytes, which is why they are not fused
 * further with the product).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

namespace
{

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n)
{
  const int64_t b = (n + kThreads - 1) / kThreads;
  return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

__device__ inline bool first_thread()
{
  return blockIdx.x == 0 && threadIdx.x == 0;
}

__global__ void __launch_bounds__(kThreads)
    lanczos_start_kernel(int64_t n, const double *__restrict__ sq, double *__restrict__ flag,
                         double *__restrict__ v)
{
  double f;
  const double a = 1.0 / sps_amg_lanczos_norm(sq, &f);
  if (first_thread()) *flag = f;
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads)
    v[i] = a * v[i];
}

__global__ void __launch_bounds__(kThreads)
    lanczos_residual_kernel(int64_t n, const double *__restrict__ dsq,
                            const double *__restrict__ beta, const double *__restrict__ vold,
                            double *__restrict__ w)
{
  const double a = -*beta;
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads) {
    const double t = dsq[i] * w[i];
    w[i] = a * vold[i] + 1.0 * t;
  }
}

__global__ void __launch_bounds__(kThreads)
    lanczos_orth_kernel(int64_t n, const double *__restrict__ alpha, const double *__restrict__ v,
                        double *__restrict__ w)
{
  const double a = -*alpha;
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads)
    w[i] = a * v[i] + 1.0 * w[i];
}

__global__ void __launch_bounds__(kThreads)
    lanczos_next_kernel(int64_t n, const double *__restrict__ sq, double *__restrict__ beta,
                        double *__restrict__ flag, const double *__restrict__ w,
                        double *__restrict__ v, double *__restrict__ vold)
{
  double f;
  const double b = sps_amg_lanczos_norm(sq, &f);
  if (first_thread()) {
    *beta = b;
    *flag = f;
  }
  const double a = 1.0 / b;
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads) {
    vold[i] = v[i];
    v[i] = a * w[i];
  }
}

} // namespace

cudaError_t sps_cuda_amg_lanczos_start(cudaStream_t s, int64_t n, const double *sq, double *flag,
                                       double *v)
{
  lanczos_start_kernel<<<grid_for(n), kThreads, 0, s>>>(n, sq, flag, v);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_lanczos_residual(cudaStream_t s, int64_t n, const double *dsq,
                                          const double *beta, const double *vold, double *w)
{
  if (n > 0) lanczos_residual_kernel<<<grid_for(n), kThreads, 0, s>>>(n, dsq, beta, vold, w);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_lanczos_orth(cudaStream_t s, int64_t n, const double *alpha,
                                      const double *v, double *w)
{
  if (n > 0) lanczos_orth_kernel<<<grid_for(n), kThreads, 0, s>>>(n, alpha, v, w);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_lanczos_next(cudaStream_t s, int64_t n, const double *sq, double *beta,
                                      double *flag, const double *w, double *v, double *vold)
{
  lanczos_next_kernel<<<grid_for(n), kThreads, 0, s>>>(n, sq, beta, flag, w, v, vold);
  return cudaGetLastError();
}
