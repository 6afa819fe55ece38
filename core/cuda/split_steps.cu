/* split_steps.cu: the CUDA backend's kernels whose reductions end on the host: each writes per-block compensated partial sums (and does its step's elementwise work), and the host merges the blocks and, on a distributed context, the ranks (MPI), then closes the step. Used by the split reductions of a distributed context of several ranks and by pipelined CG.
 *
 * The fused steps of cg_steps.cu and bicgstab_steps.cu finish their reductions in the last
 * block on the device; across ranks the sums must meet on the host, so here each kernel
 * stops at the block partials: partial k of block b is the pair at 2*(k*gridDim.x + b)
 * (reduce.cuh's put_partial). The elementwise work is the fused steps', with the same
 * operations in the same order (x + alpha*p, r - alpha*q, ...), and the block sums are
 * compensated, so the merged sums have the CPU backend's bits; the host closes each step
 * with the functions of core/krylov_state.h that the CPU backend and the fused kernels use.
 * Each step kernel returns at once when the state's status is not RUNNING (the host reads
 * the status with the partials and then ignores them).
 *
 * Thread-to-data map: grid-stride loops, consecutive threads on consecutive entries
 * (coalesced); block sums by warp shuffles and shared memory (reduce.cuh). Bandwidth bound,
 * as the fused steps are; what they cost beyond them is the host round trip per reduction.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../krylov_state.h"
#include "reduce.cuh"

namespace
{

using sps_reduce::block_sum;
using sps_reduce::csum;
using sps_reduce::grid_for;
using sps_reduce::kThreads;
using sps_reduce::kWarps;
using sps_reduce::put_partial;

#define GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)gridDim.x * blockDim.x)

/* Up to four dot products in one pass (x[l] . y[l], l < k): partial l of each block. */
struct dot_args {
  const double *x[4];
  const double *y[4];
  int k;
};

__global__ void dots_kernel(int64_t n, dot_args a, double *partials)
{
  __shared__ csum sh[kWarps];
  csum s[4] = {sps_csum_zero(), sps_csum_zero(), sps_csum_zero(), sps_csum_zero()};
  GRID_STRIDE(i, n)
  for (int l = 0; l < a.k; l++) sps_csum_add(&s[l], a.x[l][i] * a.y[l][i]);
  for (int l = 0; l < a.k; l++) {
    const csum t = block_sum(s[l], sh);
    if (threadIdx.x == 0) put_partial(partials, l, blockIdx.x, t);
  }
}

/* Partial 0: sum (x_i c)^2; partial 1: (max |x_i|, 1 if some x_i is NaN). */
__global__ void sumsq_kernel(int64_t n, const double *__restrict__ x, double c, double *partials)
{
  __shared__ csum sh[kWarps];
  __shared__ double shm[kWarps], shn[kWarps];
  csum s = sps_csum_zero();
  double amax = 0.0, nan = 0.0;
  GRID_STRIDE(i, n)
  {
    const double xi = x[i] * c;
    const double a = fabs(x[i]);
    sps_csum_add(&s, xi * xi);
    if (a > amax) amax = a;
    if (a != a) nan = 1.0;
  }
  s = block_sum(s, sh);
  for (int o = 16; o > 0; o >>= 1) {
    const double m = __shfl_down_sync(0xffffffffu, amax, o);
    const double q = __shfl_down_sync(0xffffffffu, nan, o);
    if (m > amax) amax = m;
    if (q > nan) nan = q;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    shm[warp] = amax;
    shn[warp] = nan;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kWarps; w++) {
      if (shm[w] > amax) amax = shm[w];
      if (shn[w] > nan) nan = shn[w];
    }
    put_partial(partials, 0, blockIdx.x, s);
    csum m;
    m.hi = amax;
    m.lo = nan;
    put_partial(partials, 1, blockIdx.x, m);
  }
}

/* cg_update without its close: x += alpha p; r -= alpha q; z <- dinv .* r (unless deferred);
 * partial 0: r.r, partial 1: r.z. */
__global__ void cg_update_kernel(int64_t n, const double *__restrict__ p,
                                 const double *__restrict__ q, const double *__restrict__ dinv,
                                 double *__restrict__ x, double *__restrict__ r,
                                 double *__restrict__ z, const sps_cg_state *S, double *partials)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  const double alpha = S->alpha;
  if (S->deferred) dinv = nullptr;
  csum rz = sps_csum_zero(), rr = sps_csum_zero();
  GRID_STRIDE(i, n)
  {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    sps_csum_add(&rr, ri * ri);
    if (dinv) {
      const double zi = dinv[i] * ri;
      z[i] = zi;
      sps_csum_add(&rz, ri * zi);
    }
  }
  rr = block_sum(rr, sh);
  rz = block_sum(rz, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, rr);
    put_partial(partials, 1, blockIdx.x, rz);
  }
}

/* BiCGSTAB step A's second half: s <- r - alpha v; partial 0: s.s. */
__global__ void bicgstab_s_kernel(int64_t n, const double *__restrict__ r,
                                  const double *__restrict__ v, double *__restrict__ s,
                                  const sps_bicgstab_state *S, double *partials)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  const double alpha = S->alpha;
  csum ss = sps_csum_zero();
  GRID_STRIDE(i, n)
  {
    const double si = r[i] - alpha * v[i];
    s[i] = si;
    sps_csum_add(&ss, si * si);
  }
  ss = block_sum(ss, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, ss);
}

/* BiCGSTAB step B's update: x += alpha phat + omega shat, r <- s - omega t; partial 0: r.r,
 * partial 1: r0hat.r. With the half flag: x += alpha phat, r <- s, no sums. */
__global__ void bicgstab_update_kernel(int64_t n, const double *__restrict__ t,
                                       const double *__restrict__ s,
                                       const double *__restrict__ phat,
                                       const double *__restrict__ shat,
                                       const double *__restrict__ r0hat, double *__restrict__ x,
                                       double *__restrict__ r, const sps_bicgstab_state *S,
                                       double *partials)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  const double alpha = S->alpha, omega = S->omega;
  if (S->half) {
    GRID_STRIDE(i, n)
    {
      x[i] += alpha * phat[i];
      r[i] = s[i];
    }
    return;
  }
  csum rho = sps_csum_zero(), rr = sps_csum_zero();
  GRID_STRIDE(i, n)
  {
    x[i] += alpha * phat[i] + omega * shat[i];
    const double ri = s[i] - omega * t[i];
    r[i] = ri;
    sps_csum_add(&rho, r0hat[i] * ri);
    sps_csum_add(&rr, ri * ri);
  }
  rr = block_sum(rr, sh);
  rho = block_sum(rho, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, rr);
    put_partial(partials, 1, blockIdx.x, rho);
  }
}

/* Pipelined CG's update (core/internal.h, pipecg_update): the four recurrences and the three
 * updates per entry, then partial 0: (r, u), 1: (w, u), 2: (r, r). mv may alias w. */
__global__ void pipecg_update_kernel(int64_t n, double alpha, double beta,
                                     const double *__restrict__ nv, const double *mv, double *z,
                                     double *q, double *s, double *p, double *x, double *r,
                                     double *u, double *w, double *partials)
{
  __shared__ csum sh[kWarps];
  csum ru = sps_csum_zero(), wu = sps_csum_zero(), rr = sps_csum_zero();
  GRID_STRIDE(i, n)
  {
    const double zi = beta == 0.0 ? nv[i] : nv[i] + beta * z[i];
    const double qi = beta == 0.0 ? mv[i] : mv[i] + beta * q[i];
    const double si = beta == 0.0 ? w[i] : w[i] + beta * s[i];
    const double pi = beta == 0.0 ? u[i] : u[i] + beta * p[i];
    z[i] = zi;
    q[i] = qi;
    s[i] = si;
    p[i] = pi;
    x[i] += alpha * pi;
    const double ri = r[i] - alpha * si, ui = u[i] - alpha * qi, wi = w[i] - alpha * zi;
    r[i] = ri;
    u[i] = ui;
    w[i] = wi;
    sps_csum_add(&ru, ri * ui);
    sps_csum_add(&wu, wi * ui);
    sps_csum_add(&rr, ri * ri);
  }
  ru = block_sum(ru, sh);
  wu = block_sum(wu, sh);
  rr = block_sum(rr, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, ru);
    put_partial(partials, 1, blockIdx.x, wu);
    put_partial(partials, 2, blockIdx.x, rr);
  }
}

#undef GRID_STRIDE

} // namespace

extern "C" unsigned sps_cuda_dist_grid(int64_t n, unsigned max_blocks)
{
  return grid_for(n, max_blocks);
}

extern "C" cudaError_t sps_cuda_dist_dots(cudaStream_t st, unsigned max_blocks, int64_t n, int k,
                                          const double *const *x, const double *const *y,
                                          double *partials)
{
  dot_args a;
  a.k = k;
  for (int l = 0; l < 4; l++) {
    a.x[l] = l < k ? x[l] : nullptr;
    a.y[l] = l < k ? y[l] : nullptr;
  }
  dots_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, a, partials);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_sumsq(cudaStream_t st, unsigned max_blocks, int64_t n,
                                           const double *x, double c, double *partials)
{
  sumsq_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, x, c, partials);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_cg_update(cudaStream_t st, unsigned max_blocks, int64_t n,
                                               const double *p, const double *q,
                                               const double *dinv, double *x, double *r,
                                               double *z, const sps_cg_state *S,
                                               double *partials)
{
  cg_update_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, p, q, dinv, x, r, z, S,
                                                                 partials);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_bicgstab_s(cudaStream_t st, unsigned max_blocks, int64_t n,
                                                const double *r, const double *v, double *s,
                                                const sps_bicgstab_state *S, double *partials)
{
  bicgstab_s_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, r, v, s, S, partials);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_bicgstab_update(cudaStream_t st, unsigned max_blocks,
                                                     int64_t n, const double *t, const double *s,
                                                     const double *phat, const double *shat,
                                                     const double *r0hat, double *x, double *r,
                                                     const sps_bicgstab_state *S,
                                                     double *partials)
{
  bicgstab_update_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, t, s, phat, shat, r0hat,
                                                                       x, r, S, partials);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_pipecg_update(cudaStream_t st, unsigned max_blocks, int64_t n,
                                              double alpha, double beta, const double *nv,
                                              const double *mv, double *z, double *q, double *s,
                                              double *p, double *x, double *r, double *u,
                                              double *w, double *partials)
{
  pipecg_update_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, alpha, beta, nv, mv, z, q,
                                                                     s, p, x, r, u, w, partials);
  return cudaGetLastError();
}
