/* amg_smooth.cu: the CUDA kernels of the multigrid Chebyshev smoother's fused vector updates, each the CPU reference of precond/ref/amg_smooth.c with the same results.
 *
 * The math is in precond/ref/kernels.h: cheby_first starts a smoothing (s = D^-1 r, the first
 * step e = s / theta, x += e), cheby_step is one more Chebyshev step after the product t = A e
 * (s -= D^-1 t, e = a s + b e, x += e). Each replaces three or four backend vector operations
 * (four or five launches with the product) by one pass, with the same IEEE operations in the
 * same order (no contraction: the build passes -fmad=false), so the bits equal the reference's
 * and the cycle's before the fusion.
 *
 * Thread-to-data map: one thread an element, grid-stride; min(ceil(n/256), 65535) blocks of
 * 256. Memory: cheby_first reads dinv and src and writes s, e, x (reads
 * x too unless zero); cheby_step reads dinv, t, s, e, x and writes s, e, x: 8 of n doubles,
 * against 12 for the separate operations. Where it wins: every level, most on the coarse ones,
 * where each launch costs more than its bytes.
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

__global__ void __launch_bounds__(kThreads)
    cheby_first_kernel(int64_t n, const double *__restrict__ dinv, const double *src, double a,
                       int zero, double *s, double *__restrict__ e, double *__restrict__ x)
{
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads) {
    const double si = dinv[i] * src[i];
    const double ei = a * si;
    s[i] = si;
    e[i] = ei;
    x[i] = zero ? ei : x[i] + 1.0 * ei;
  }
}

__global__ void __launch_bounds__(kThreads)
    cheby_step_kernel(int64_t n, const double *__restrict__ dinv, const double *__restrict__ t,
                      double a, double b, double *__restrict__ s, double *__restrict__ e,
                      double *__restrict__ x)
{
  for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * kThreads) {
    const double u = dinv[i] * t[i];
    const double si = s[i] + -1.0 * u;
    const double ei = b == 0.0 ? a * si : a * si + b * e[i];
    s[i] = si;
    e[i] = ei;
    x[i] = x[i] + 1.0 * ei;
  }
}

} // namespace

cudaError_t sps_cuda_amg_cheby_first(cudaStream_t s, int64_t n, const double *dinv,
                                     const double *src, double a, int zero, double *sv, double *e,
                                     double *x)
{
  if (n > 0) cheby_first_kernel<<<grid_for(n), kThreads, 0, s>>>(n, dinv, src, a, zero, sv, e, x);
  return cudaGetLastError();
}

cudaError_t sps_cuda_amg_cheby_step(cudaStream_t s, int64_t n, const double *dinv, const double *t,
                                    double a, double b, double *sv, double *e, double *x)
{
  if (n > 0) cheby_step_kernel<<<grid_for(n), kThreads, 0, s>>>(n, dinv, t, a, b, sv, e, x);
  return cudaGetLastError();
}
