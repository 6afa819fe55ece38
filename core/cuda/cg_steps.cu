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
 * The state block (struct sps_cg_state) holds the scalars, the iteration count, the
 * stopping threshold and a status word. A kernel that finds the status set returns at once,
 * so the iterations of a batch issued after convergence cost a launch each and no memory
 * traffic, and the iteration count stays exact.
 *
 * Thread-to-data map: grid-stride loops, consecutive threads on consecutive entries
 * (coalesced). Reductions: each block reduces in registers and shared memory (warp
 * shuffles), writes one partial per block, and the last block to finish (atomic ticket after
 * a fence) adds the partials in a fixed order, so the result does not depend on timing,
 * then does the scalar work and resets the ticket.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../krylov_state.h"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ inline double warp_sum(double v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* Sum v over the block; the result is valid in thread 0. */
__device__ inline double block_sum(double v, double *sh)
{
  v = warp_sum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  v = threadIdx.x < kWarps ? sh[threadIdx.x] : 0.0;
  if (warp == 0) v = warp_sum(v);
  return v;
}

/*
 * Publish this block's partial sums (NV of them) and return true in every thread of the
 * last block to arrive; that block then finds all partials written.
 */
template <int NV>
__device__ inline bool publish_partials(const double (&part)[NV], double *partials,
                                        unsigned *ticket)
{
  __shared__ bool last;
  if (threadIdx.x == 0) {
    for (int k = 0; k < NV; k++) partials[k * gridDim.x + blockIdx.x] = part[k];
    __threadfence();
    unsigned t = atomicAdd(ticket, 1u);
    last = (t == gridDim.x - 1);
  }
  __syncthreads();
  return last;
}

/* In the last block: total of partial k over all blocks, in a fixed order; valid in thread 0. */
__device__ inline double gather_partials(const double *partials, int k, double *sh)
{
  double v = 0.0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    v += __ldcg(&partials[k * gridDim.x + b]);
  return block_sum(v, sh);
}

__device__ inline bool bad(double v)
{
  return !isfinite(v);
}

/* pq <- p.q; alpha <- rz/pq; pq <= 0 stops with INDEFINITE_MATRIX, NaN/Inf with NAN. */
__global__ void cg_alpha_kernel(int64_t n, const double *__restrict__ p,
                                const double *__restrict__ q, sps_cg_state *S, double *partials,
                                unsigned *ticket)
{
  __shared__ double sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  double s = 0.0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    s += p[i] * q[i];
  double part[1] = {block_sum(s, sh)};
  if (!publish_partials<1>(part, partials, ticket)) return;
  double pq = gather_partials(partials, 0, sh);
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
  __shared__ double sh[kWarps];
  if (S->status != SPS_CG_RUNNING) return;
  const double alpha = S->alpha;
  double rz = 0.0, rr = 0.0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr += ri * ri;
    if (dinv) {
      double zi = dinv[i] * ri;
      z[i] = zi;
      rz += ri * zi;
    }
  }
  double part[2] = {block_sum(rr, sh), dinv ? block_sum(rz, sh) : 0.0};
  if (!publish_partials<2>(part, partials, ticket)) return;
  double rr_all = gather_partials(partials, 0, sh);
  double rz_all = dinv ? gather_partials(partials, 1, sh) : 0.0;
  if (threadIdx.x == 0) {
    if (!dinv) rz_all = rr_all;
    int it = S->it + 1;
    S->it = it;
    S->rr = rr_all;
    if (S->history) S->history[it] = sqrt(rr_all);
    if (bad(rr_all) || bad(rz_all)) {
      S->status = SPS_CG_NAN;
    } else if (rr_all <= S->tol2) {
      S->status = SPS_CG_CONVERGED;
    } else if (rz_all < 0.0) {
      S->status = SPS_CG_INDEFINITE_PRECOND;
    } else {
      S->beta = rz_all / S->rz;
      S->rz = rz_all;
      if (it >= S->maxit) S->status = SPS_CG_MAX_ITERATIONS;
    }
    *ticket = 0;
  }
}

/* p <- z + beta p */
__global__ void cg_direction_kernel(int64_t n, const double *__restrict__ z,
                                    double *__restrict__ p, const sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return;
  const double beta = S->beta;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

/* The shared-partials kernels keep their grid within the partials buffer. */
unsigned grid_for(int64_t n, unsigned max_blocks)
{
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > (int64_t)max_blocks) b = max_blocks;
  return (unsigned)(b > 0 ? b : 1);
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
  cg_update_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, p, q, dinv, x, r, z, S,
                                                                partials, ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_cg_direction(cudaStream_t s, unsigned max_blocks, int64_t n,
                                             const double *z, double *p, const sps_cg_state *S)
{
  cg_direction_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, z, p, S);
  return cudaGetLastError();
}
