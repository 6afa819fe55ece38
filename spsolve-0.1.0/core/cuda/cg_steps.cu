/* cg_steps.cu: the fused CG steps of the CUDA backend, with every scalar kept on the device.
 *
 * One CG iteration (Saad, Alg. 9.1) is issued as four launches with no host round trip:
 *   SpMV            q <- A p                                   (the plan's variant)
 *   cg_alpha        pq <- p.q; alpha <- rz/pq                  (replaces dot + host division)
 *   cg_update       x <- x + alpha p; r <- r - alpha q; z <- D^-1 r (Jacobi, or z = r);
 *                   rz <- r.z, rr <- r.r; beta <- rz/rz_old; the stopping test
 *                   (replaces two axpy, the preconditioner, a dot and a norm: five passes
 *                   over memory become one, reading x, p, q, r (and D^-1) once)
 *   cg_direction    p <- z + beta p
 * With a preconditioner that is not diagonal (S->deferred), cg_update leaves z, rz and beta
 * out, the solver applies z <- M^-1 r, and cg_rz forms rz <- r.z and beta before
 * cg_direction.
 * The state block (struct sps_cg_state) holds the scalars, the iteration count, the
 * stopping threshold and a status word. A kernel that finds the status set returns at once,
 * so the iterations of a batch issued after convergence cost a launch each and no memory
 * traffic, and the iteration count stays exact.
 *
 * Thread-to-data map: grid-stride loops, consecutive threads on consecutive entries
 * (coalesced). Reductions: compensated sums (core/compensated_sum.h) of rounded products,
 * so they round like the CPU backend's; each block reduces in registers and shared memory
 * (warp shuffles), writes one partial (a pair) per block, and the last block to finish
 * (atomic ticket after a fence) adds the partials in a fixed order, so the result does not
 * depend on timing, then does the scalar work and resets the ticket.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../krylov_state.h"
#include "reduce.cuh"

namespace
{

using sps_reduce::arrive_last;
using sps_reduce::block_sum;
using sps_reduce::csum;
using sps_reduce::put_partial;
using sps_reduce::gather_block;
using sps_reduce::grid_for;
using sps_reduce::kThreads;
using sps_reduce::kWarps;

__device__ inline bool bad(double v)
{
  return !isfinite(v);
}

/* pq <- p.q; alpha <- rz/pq; pq <= 0 stops with INDEFINITE_MATRIX, NaN/Inf with NAN. */
__global__ void cg_alpha_kernel(int64_t n, const double *__restrict__ p,
                                const double *__restrict__ q, sps_cg_state *S, double *partials,
                                unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  csum s = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    sps_csum_add(&s, p[i] * q[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (!arrive_last(ticket)) return;
  const double pq = sps_csum_value(gather_block(partials, 0, sh));
  if (threadIdx.x == 0) {
    S->pq = pq;
    if (bad(pq)) {
      S->status = SPS_CG_NAN;
    } else if (pq <= 0.0) {
      S->status = SPS_CG_INDEFINITE_MATRIX;
    } else {
      S->alpha = S->rz / pq;
    }
    *ticket = 0;
  }
}

/*
 * x <- x + alpha p; r <- r - alpha q; z <- dinv .* r (z = r when dinv is NULL);
 * rz <- r.z, rr <- r.r. Then, in the last block: the iteration is counted, ||r|| recorded,
 * and the stopping test applied (rr <= tol2: CONVERGED, to be confirmed on the host by the
 * true residual; it = maxit: MAX_ITERATIONS; NaN: NAN; rz < 0: INDEFINITE_PRECOND);
 * otherwise beta <- rz/rz_old.
 */
__global__ void cg_update_kernel(int64_t n, const double *__restrict__ p,
                                 const double *__restrict__ q, const double *__restrict__ dinv,
                                 double *__restrict__ x, double *__restrict__ r,
                                 double *__restrict__ z, sps_cg_state *S, double *partials,
                                 unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  const double alpha = S->alpha;
  if (S->deferred) dinv = nullptr;
  csum rz = sps_csum_zero(), rr = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    sps_csum_add(&rr, ri * ri);
    if (dinv) {
      double zi = dinv[i] * ri;
      z[i] = zi;
      sps_csum_add(&rz, ri * zi);
    }
  }
  rr = block_sum(rr, sh);
  if (dinv) rz = block_sum(rz, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, rr);
    put_partial(partials, 1, blockIdx.x, rz);
  }
  if (!arrive_last(ticket)) return;
  const double rr_all = sps_csum_value(gather_block(partials, 0, sh));
  const double rz_all = dinv ? sps_csum_value(gather_block(partials, 1, sh)) : rr_all;
  if (threadIdx.x == 0) {
    sps_cg_close_update(S, rr_all, rz_all);
    *ticket = 0;
  }
}

/* Deferred mode (a general preconditioner applied between cg_update and this step):
 * rz <- r.z, then beta or a stop (NaN, rz < 0). */
__global__ void cg_rz_kernel(int64_t n, const double *__restrict__ r, const double *__restrict__ z,
                             sps_cg_state *S, double *partials, unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  csum s = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    sps_csum_add(&s, r[i] * z[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (!arrive_last(ticket)) return;
  const double rz = sps_csum_value(gather_block(partials, 0, sh));
  if (threadIdx.x == 0) {
    sps_cg_close_rz(S, rz);
    *ticket = 0;
  }
}

/* p <- z + beta p */
__global__ void cg_direction_kernel(int64_t n, const double *__restrict__ z, double *__restrict__ p,
                                    const sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return;
  const double beta = S->beta;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

} // namespace

extern "C" cudaError_t sps_cuda_cg_alpha(cudaStream_t s, unsigned max_blocks, int64_t n,
                                         const double *p, const double *q, sps_cg_state *S,
                                         double *partials, unsigned *ticket)
{
  cg_alpha_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, p, q, S, partials, ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_cg_update(cudaStream_t s, unsigned max_blocks, int64_t n,
                                          const double *p, const double *q, const double *dinv,
                                          double *x, double *r, double *z, sps_cg_state *S,
                                          double *partials, unsigned *ticket)
{
  cg_update_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, p, q, dinv, x, r, z, S, partials,
                                                                ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_cg_rz(cudaStream_t s, unsigned max_blocks, int64_t n,
                                      const double *r, const double *z, sps_cg_state *S,
                                      double *partials, unsigned *ticket)
{
  cg_rz_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, r, z, S, partials, ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_cg_direction(cudaStream_t s, unsigned max_blocks, int64_t n,
                                             const double *z, double *p, const sps_cg_state *S)
{
  cg_direction_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, z, p, S);
  return cudaGetLastError();
}
