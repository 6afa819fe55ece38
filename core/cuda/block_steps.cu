/* block_steps.cu: the fused CG and BiCGSTAB steps of the CUDA block backend: the single-vector steps of cg_steps.cu and bicgstab_steps.cu applied to every running column of a row-major block at once, each column with its own state.
 *
 * A batched iteration of w columns is the solver's SpMM (and block preconditioner) and the
 * same launches as one single-vector iteration, whatever w: each kernel reads the w states
 * (struct sps_cg_state, struct sps_bicgstab_state) at its start, serves only the columns
 * whose status is RUNNING (a column that has stopped costs no memory traffic from the next
 * launch on), and its last block closes every column with the shared transitions of
 * core/krylov_state.h. So a batch of iterations is issued, or replayed from a CUDA graph,
 * without host reads, as for one vector.
 *
 * Thread-to-data map (block_reduce.cuh): TX lanes across the columns, TY rows per thread
 * block, grid-stride over the rows; per column and thread one compensated sum per quantity,
 * reduced over the block by a tree in shared memory, one pair per column and block in the
 * work space, and the last block to take the ticket adds each column's pairs in block order
 * (one warp per column) and closes that column in the warp's first lane. The terms are the
 * single kernels' rounded products and the updates their expressions, so each column has the
 * bits of the single-vector step on it (bar the rare ties of compensated sums).
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

/* The column of slot s of this thread, or -1. */
__device__ inline int slot_col(const Map &mp, int s, int w)
{
  const int c = mp.tx + s * mp.TX;
  return c < w ? c : -1;
}

__device__ inline void reset_ticket(double *ws)
{
  __syncthreads();
  if (threadIdx.x == 0) *sps_block::ws_ticket(ws) = 0;
}

/* pq <- p.q; alpha <- rz/pq, or INDEFINITE_MATRIX (pq <= 0), NAN (not finite). */
__global__ void cg_alpha_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ P,
                                const double *__restrict__ Q, sps_cg_state *S, double *ws)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_CG_RUNNING; }))
    return;
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c >= 0 && run[c]) sps_csum_add(&acc[0][s], P[i * ld + c] * Q[i * ld + c]);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double pq = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && run[c]) {
      sps_cg_state *Sc = &S[c];
      Sc->pq = pq;
      if (!isfinite(pq))
        Sc->status = SPS_CG_NAN;
      else if (pq <= 0.0)
        Sc->status = SPS_CG_INDEFINITE_MATRIX;
      else
        Sc->alpha = Sc->rz / pq;
    }
  }
  reset_ticket(ws);
}

/* x += alpha p; r -= alpha q; z <- dinv .* r (not deferred); rr, rz; sps_cg_close_update. */
__global__ void cg_update_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ P,
                                 const double *__restrict__ Q, const double *__restrict__ dinv,
                                 double *__restrict__ X, double *__restrict__ R,
                                 double *__restrict__ Z, sps_cg_state *S, double *ws)
{
  __shared__ csum sh[4 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  __shared__ unsigned char with_z[kMaxCols];
  __shared__ double alpha[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_CG_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) {
    alpha[c] = S[c].alpha;
    with_z[c] = dinv != nullptr && !S[c].deferred;
  }
  __syncthreads();
  const Map mp = map_for(w);
  csum acc[2][2] = {{sps_csum_zero(), sps_csum_zero()}, {sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    X[e] += alpha[c] * P[e];
    const double ri = R[e] - alpha[c] * Q[e];
    R[e] = ri;
    sps_csum_add(&acc[0][s], ri * ri);
    if (with_z[c]) {
      const double zi = dinv[i] * ri;
      Z[e] = zi;
      sps_csum_add(&acc[1][s], ri * zi);
    }
  }
  sps_block::block_col_sums<2>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<2>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double rr = sps_block::gather_col(partials, w, 0, c);
    const double rz = sps_block::gather_col(partials, w, 1, c);
    if (lane == 0 && run[c]) sps_cg_close_update(&S[c], rr, with_z[c] ? rz : rr);
  }
  reset_ticket(ws);
}

/* Deferred mode: rz <- r.z, then beta or a stop (sps_cg_close_rz). */
__global__ void cg_rz_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ R,
                             const double *__restrict__ Z, sps_cg_state *S, double *ws)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_CG_RUNNING; }))
    return;
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c >= 0 && run[c]) sps_csum_add(&acc[0][s], R[i * ld + c] * Z[i * ld + c]);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double rz = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && run[c]) sps_cg_close_rz(&S[c], rz);
  }
  reset_ticket(ws);
}

/* p <- z + beta p (cg_direction_kernel's expression). */
__global__ void cg_direction_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ Z,
                                    double *__restrict__ P, const sps_cg_state *S)
{
  __shared__ unsigned char run[kMaxCols];
  __shared__ double beta[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_CG_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) beta[c] = S[c].beta;
  __syncthreads();
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    P[e] = Z[e] + beta[c] * P[e];
  }
}

/* BiCGSTAB step A, first half: sigma <- r0hat.v, alpha <- rho/sigma (BREAKDOWN, NAN). */
__global__ void bicgstab_alpha_kernel(int64_t n, int w, int64_t ld,
                                      const double *__restrict__ RHAT,
                                      const double *__restrict__ V, sps_bicgstab_state *S,
                                      double *ws)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  if (!sps_block::load_flags(w, run,
                             [&](int c) { return S[c].status == SPS_BICGSTAB_RUNNING; }))
    return;
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c >= 0 && run[c]) sps_csum_add(&acc[0][s], RHAT[i * ld + c] * V[i * ld + c]);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double sigma = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && run[c]) {
      sps_bicgstab_state *Sc = &S[c];
      Sc->sigma = sigma;
      if (!isfinite(sigma)) {
        Sc->status = SPS_BICGSTAB_NAN;
      } else if (sigma == 0.0) {
        Sc->status = SPS_BICGSTAB_BREAKDOWN;
      } else {
        const double alpha = Sc->rho / sigma;
        Sc->alpha = alpha;
        if (!isfinite(alpha)) Sc->status = SPS_BICGSTAB_NAN;
      }
    }
  }
  reset_ticket(ws);
}

/* BiCGSTAB step A, second half: s <- r - alpha v, ss <- s.s; NAN or the half flag. */
__global__ void bicgstab_s_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ V,
                                  const double *__restrict__ R, double *__restrict__ SV,
                                  sps_bicgstab_state *S, double *ws)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  __shared__ double alpha[kMaxCols];
  if (!sps_block::load_flags(w, run,
                             [&](int c) { return S[c].status == SPS_BICGSTAB_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) alpha[c] = S[c].alpha;
  __syncthreads();
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    const double si = R[e] - alpha[c] * V[e];
    SV[e] = si;
    sps_csum_add(&acc[0][s], si * si);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double ss = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && run[c]) {
      sps_bicgstab_state *Sc = &S[c];
      Sc->ss = ss;
      if (!isfinite(ss))
        Sc->status = SPS_BICGSTAB_NAN;
      else if (ss <= Sc->tol2)
        Sc->half = 1;
    }
  }
  reset_ticket(ws);
}

/* BiCGSTAB step B, first half: ts <- t.s, tt <- t.t, omega (0 when t = 0); NAN on an omega
 * that is not finite; columns with the half flag are left alone. */
__global__ void bicgstab_omega_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ T,
                                      const double *__restrict__ SV, sps_bicgstab_state *S,
                                      double *ws)
{
  __shared__ csum sh[4 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) {
        return S[c].status == SPS_BICGSTAB_RUNNING && !S[c].half;
      }))
    return;
  const Map mp = map_for(w);
  csum acc[2][2] = {{sps_csum_zero(), sps_csum_zero()}, {sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    sps_csum_add(&acc[0][s], T[e] * SV[e]);
    sps_csum_add(&acc[1][s], T[e] * T[e]);
  }
  sps_block::block_col_sums<2>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<2>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double ts = sps_block::gather_col(partials, w, 0, c);
    const double tt = sps_block::gather_col(partials, w, 1, c);
    if (lane == 0 && run[c]) {
      sps_bicgstab_state *Sc = &S[c];
      Sc->ts = ts;
      Sc->tt = tt;
      const double omega = tt != 0.0 ? ts / tt : 0.0;
      Sc->omega = omega;
      if (!isfinite(omega)) Sc->status = SPS_BICGSTAB_NAN;
    }
  }
  reset_ticket(ws);
}

/* BiCGSTAB step B, second half: x += alpha phat + omega shat, r <- s - omega t, rho, rr and
 * sps_bicgstab_close_step; with the half flag x += alpha phat, r <- s, closed with ss. */
__global__ void bicgstab_update_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ T,
                                       const double *__restrict__ SV,
                                       const double *__restrict__ PHAT,
                                       const double *__restrict__ SHAT,
                                       const double *__restrict__ RHAT, double *__restrict__ X,
                                       double *__restrict__ R, sps_bicgstab_state *S, double *ws)
{
  __shared__ csum sh[4 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  __shared__ unsigned char half[kMaxCols];
  __shared__ double alpha[kMaxCols], omega[kMaxCols];
  if (!sps_block::load_flags(w, run,
                             [&](int c) { return S[c].status == SPS_BICGSTAB_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) {
    half[c] = S[c].half != 0;
    alpha[c] = S[c].alpha;
    omega[c] = S[c].omega;
  }
  __syncthreads();
  const Map mp = map_for(w);
  csum acc[2][2] = {{sps_csum_zero(), sps_csum_zero()}, {sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    if (half[c]) {
      X[e] += alpha[c] * PHAT[e];
      R[e] = SV[e];
    } else {
      X[e] += alpha[c] * PHAT[e] + omega[c] * SHAT[e];
      const double ri = SV[e] - omega[c] * T[e];
      R[e] = ri;
      sps_csum_add(&acc[0][s], RHAT[e] * ri);
      sps_csum_add(&acc[1][s], ri * ri);
    }
  }
  sps_block::block_col_sums<2>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<2>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double rho = sps_block::gather_col(partials, w, 0, c);
    const double rr = sps_block::gather_col(partials, w, 1, c);
    if (lane == 0 && run[c]) {
      sps_bicgstab_state *Sc = &S[c];
      if (half[c])
        sps_bicgstab_close_step(Sc, Sc->ss, Sc->rho);
      else
        sps_bicgstab_close_step(Sc, rr, rho);
    }
  }
  reset_ticket(ws);
}

/* p <- r + beta (p - omega v) */
__global__ void bicgstab_direction_kernel(int64_t n, int w, int64_t ld,
                                          const double *__restrict__ R,
                                          const double *__restrict__ V, double *__restrict__ P,
                                          const sps_bicgstab_state *S)
{
  __shared__ unsigned char run[kMaxCols];
  __shared__ double beta[kMaxCols], omega[kMaxCols];
  if (!sps_block::load_flags(w, run,
                             [&](int c) { return S[c].status == SPS_BICGSTAB_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) {
    beta[c] = S[c].beta;
    omega[c] = S[c].omega;
  }
  __syncthreads();
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = slot_col(mp, s, w);
    if (c < 0 || !run[c]) continue;
    const int64_t e = i * ld + c;
    P[e] = R[e] + beta[c] * (P[e] - omega[c] * V[e]);
  }
}

} // namespace

#define SPS_BLOCK_GRID sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s

extern "C" cudaError_t sps_cuda_block_cg_alpha(cudaStream_t s, unsigned max_blocks, int64_t n,
                                               int w, int64_t ld, const double *P, const double *Q,
                                               sps_cg_state *S, double *ws)
{
  cg_alpha_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, P, Q, S, ws);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_cg_update(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                int w, int64_t ld, const double *P,
                                                const double *Q, const double *dinv, double *X,
                                                double *R, double *Z, sps_cg_state *S, double *ws)
{
  cg_update_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, P, Q, dinv, X, R, Z, S, ws);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_cg_rz(cudaStream_t s, unsigned max_blocks, int64_t n, int w,
                                            int64_t ld, const double *R, const double *Z,
                                            sps_cg_state *S, double *ws)
{
  cg_rz_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, R, Z, S, ws);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_cg_direction(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                   int w, int64_t ld, const double *Z, double *P,
                                                   const sps_cg_state *S)
{
  cg_direction_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, Z, P, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_bicgstab_step_a(cudaStream_t s, unsigned max_blocks,
                                                      int64_t n, int w, int64_t ld,
                                                      const double *RHAT, const double *V,
                                                      const double *R, double *SV,
                                                      sps_bicgstab_state *S, double *ws)
{
  bicgstab_alpha_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, RHAT, V, S, ws);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  bicgstab_s_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, R, SV, S, ws);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_bicgstab_step_b(cudaStream_t s, unsigned max_blocks,
                                                      int64_t n, int w, int64_t ld,
                                                      const double *T, const double *SV,
                                                      const double *PHAT, const double *SHAT,
                                                      const double *RHAT, double *X, double *R,
                                                      sps_bicgstab_state *S, double *ws)
{
  bicgstab_omega_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, T, SV, S, ws);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  bicgstab_update_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, T, SV, PHAT, SHAT, RHAT, X, R, S, ws);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_bicgstab_direction(cudaStream_t s, unsigned max_blocks,
                                                         int64_t n, int w, int64_t ld,
                                                         const double *R, const double *V,
                                                         double *P, const sps_bicgstab_state *S)
{
  bicgstab_direction_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, R, V, P, S);
  return cudaGetLastError();
}
