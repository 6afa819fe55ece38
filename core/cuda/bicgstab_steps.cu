/* bicgstab_steps.cu: the fused BiCGSTAB steps of the CUDA backend, with every scalar kept on the
 * device.
 *
 * One right-preconditioned BiCGSTAB iteration (van der Vorst 1992) is, with the solver's
 * phat = M^-1 p, v = A phat, shat = M^-1 s, t = A shat in between, five launches and no host
 * round trip (state: struct sps_bicgstab_state):
 *   step A  sigma = r0hat.v, alpha = rho/sigma                         (one reduction)
 *           s = r - alpha v, ss = s.s and the early-exit test           (one pass, one reduction)
 *   step B  ts = t.s, tt = t.t, omega = ts/tt                           (two dots, one pass)
 *           x += alpha phat + omega shat, r = s - omega t,
 *           rho_new = r0hat.r, rr = r.r, beta and the stopping test    (one pass, two reductions)
 *   direction  p = r + beta (p - omega v)
 * against the same iteration from library calls (a dot, two axpy, a norm, two dots, two
 * axpy, a copy, two dots, two axpby: about thirteen passes and five host round trips): eight passes
 * are saved and no scalar crosses to the host. When ||s|| passes the test the state's half
 * flag makes step B end with x += alpha phat, r = s.
 *
 * Thread-to-data map: grid-stride loops, consecutive threads on consecutive entries
 * (coalesced). Reductions: compensated sums (core/compensated_sum.h) of rounded products, as
 * on the CPU backend; per-block sums (warp shuffles, shared memory) written as partials
 * to the context's buffer (two pairs per block), added in a fixed order by the last block to take
 * the ticket, which then does the scalar work and resets the ticket. Each kernel returns at
 * once when the status is not RUNNING, so a batch of iterations can be issued blindly.
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

#define GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)gridDim.x * blockDim.x)

/* sigma <- r0hat.v; alpha <- rho/sigma; sigma = 0 stops with BREAKDOWN, a sigma or alpha that
 * is NaN or Inf with NAN. */
__global__ void bicgstab_alpha_kernel(int64_t n, const double *__restrict__ r0hat,
                                      const double *__restrict__ v, sps_bicgstab_state *S,
                                      double *partials, unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  csum s = sps_csum_zero();
  GRID_STRIDE(i, n) sps_csum_add(&s, r0hat[i] * v[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (!arrive_last(ticket)) return;
  const double sigma = sps_csum_value(gather_block(partials, 0, sh));
  if (threadIdx.x == 0) {
    S->sigma = sigma;
    if (!isfinite(sigma)) {
      S->status = SPS_BICGSTAB_NAN;
    } else if (sigma == 0.0) {
      S->status = SPS_BICGSTAB_BREAKDOWN;
    } else {
      const double alpha = S->rho / sigma;
      S->alpha = alpha;
      if (!isfinite(alpha)) S->status = SPS_BICGSTAB_NAN;
    }
    *ticket = 0;
  }
}

/* s <- r - alpha v; ss <- s.s; ss <= tol2 sets the half flag, NaN/Inf stops with NAN. */
__global__ void bicgstab_s_kernel(int64_t n, const double *__restrict__ r,
                                  const double *__restrict__ v, double *__restrict__ s,
                                  sps_bicgstab_state *S, double *partials, unsigned *ticket)
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
  if (!arrive_last(ticket)) return;
  const double ss_all = sps_csum_value(gather_block(partials, 0, sh));
  if (threadIdx.x == 0) {
    S->ss = ss_all;
    if (!isfinite(ss_all))
      S->status = SPS_BICGSTAB_NAN;
    else if (ss_all <= S->tol2)
      S->half = 1;
    *ticket = 0;
  }
}

/* ts <- t.s, tt <- t.t, omega <- ts/tt (0 when t = 0); an omega that is NaN or Inf stops with
 * NAN before the update kernel touches x; nothing when the half flag is set. */
__global__ void bicgstab_omega_kernel(int64_t n, const double *__restrict__ t,
                                      const double *__restrict__ s, sps_bicgstab_state *S,
                                      double *partials, unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_BICGSTAB_RUNNING || S->half) return;
  csum ts = sps_csum_zero(), tt = sps_csum_zero();
  GRID_STRIDE(i, n)
  {
    sps_csum_add(&ts, t[i] * s[i]);
    sps_csum_add(&tt, t[i] * t[i]);
  }
  ts = block_sum(ts, sh);
  tt = block_sum(tt, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, ts);
    put_partial(partials, 1, blockIdx.x, tt);
  }
  if (!arrive_last(ticket)) return;
  const double ts_all = sps_csum_value(gather_block(partials, 0, sh));
  const double tt_all = sps_csum_value(gather_block(partials, 1, sh));
  if (threadIdx.x == 0) {
    S->ts = ts_all;
    S->tt = tt_all;
    const double omega = tt_all != 0.0 ? ts_all / tt_all : 0.0;
    S->omega = omega;
    if (!isfinite(omega)) S->status = SPS_BICGSTAB_NAN;
    *ticket = 0;
  }
}

/*
 * x <- x + alpha phat + omega shat; r <- s - omega t; rho_new <- r0hat.r; rr <- r.r; then
 * sps_bicgstab_close_step in the last block. With the half flag: x <- x + alpha phat, r <- s,
 * and the step closes with rr = ss.
 */
__global__ void bicgstab_update_kernel(int64_t n, const double *__restrict__ t,
                                       const double *__restrict__ s,
                                       const double *__restrict__ phat,
                                       const double *__restrict__ shat,
                                       const double *__restrict__ r0hat, double *__restrict__ x,
                                       double *__restrict__ r, sps_bicgstab_state *S,
                                       double *partials, unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  const int half = S->half;
  const double alpha = S->alpha, omega = S->omega;
  csum rho = sps_csum_zero(), rr = sps_csum_zero();
  if (half) {
    GRID_STRIDE(i, n)
    {
      x[i] += alpha * phat[i];
      r[i] = s[i];
    }
  } else {
    GRID_STRIDE(i, n)
    {
      x[i] += alpha * phat[i] + omega * shat[i];
      const double ri = s[i] - omega * t[i];
      r[i] = ri;
      sps_csum_add(&rho, r0hat[i] * ri);
      sps_csum_add(&rr, ri * ri);
    }
  }
  rho = block_sum(rho, sh);
  rr = block_sum(rr, sh);
  if (threadIdx.x == 0) {
    put_partial(partials, 0, blockIdx.x, rho);
    put_partial(partials, 1, blockIdx.x, rr);
  }
  if (!arrive_last(ticket)) return;
  const double rho_all = sps_csum_value(gather_block(partials, 0, sh));
  const double rr_all = sps_csum_value(gather_block(partials, 1, sh));
  if (threadIdx.x == 0) {
    if (half)
      sps_bicgstab_close_step(S, S->ss, S->rho);
    else
      sps_bicgstab_close_step(S, rr_all, rho_all);
    *ticket = 0;
  }
}

/* p <- r + beta (p - omega v) */
__global__ void bicgstab_direction_kernel(int64_t n, const double *__restrict__ r,
                                          const double *__restrict__ v, double *__restrict__ p,
                                          const sps_bicgstab_state *S)
{
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  const double beta = S->beta, omega = S->omega;
  GRID_STRIDE(i, n) p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

#undef GRID_STRIDE

} // namespace

extern "C" cudaError_t sps_cuda_bicgstab_step_a(cudaStream_t st, unsigned max_blocks, int64_t n,
                                                const double *r0hat, const double *v,
                                                const double *r, double *s, sps_bicgstab_state *S,
                                                double *partials, unsigned *ticket)
{
  const unsigned grid = grid_for(n, max_blocks);
  bicgstab_alpha_kernel<<<grid, kThreads, 0, st>>>(n, r0hat, v, S, partials, ticket);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  bicgstab_s_kernel<<<grid, kThreads, 0, st>>>(n, r, v, s, S, partials, ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_bicgstab_step_b(cudaStream_t st, unsigned max_blocks, int64_t n,
                                                const double *t, const double *s,
                                                const double *phat, const double *shat,
                                                const double *r0hat, double *x, double *r,
                                                sps_bicgstab_state *S, double *partials,
                                                unsigned *ticket)
{
  const unsigned grid = grid_for(n, max_blocks);
  bicgstab_omega_kernel<<<grid, kThreads, 0, st>>>(n, t, s, S, partials, ticket);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  bicgstab_update_kernel<<<grid, kThreads, 0, st>>>(n, t, s, phat, shat, r0hat, x, r, S, partials,
                                                    ticket);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_bicgstab_direction(cudaStream_t st, unsigned max_blocks, int64_t n,
                                                   const double *r, const double *v, double *p,
                                                   const sps_bicgstab_state *S)
{
  bicgstab_direction_kernel<<<grid_for(n, max_blocks), kThreads, 0, st>>>(n, r, v, p, S);
  return cudaGetLastError();
}
