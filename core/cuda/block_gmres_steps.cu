/* block_gmres_steps.cu: the GMRES(m) steps of the CUDA block backend: CGS2 Arnoldi, Givens rotations and back substitution for every running column of a block, each column at its own j with its own H, g and state.
 *
 * One batched inner iteration is the solver's W <- A M^-1 VCUR on the block and five
 * launches, whatever the number of columns, none of which reads anything back:
 *   dots (pass 1)   h = V_j^T w and w.w per column                (j_c + 2 sums per column)
 *   correct         w <- w - V_j h                                (plain row sums, in l order)
 *   dots (pass 2)   h2 = V_j^T w per column, into the column's work
 *   correct_norm    w <- w - V_j h2 and w.w; the last block closes every column: H(:,j) +=
 *                   h2, h_{j+1,j} = ||w||, R(:,j) with the rotations (sps_gmres_close_column)
 *   normalize       v_{j+1} = w / h_{j+1,j} into basis block j+1 and VCUR, per column that
 *                   asks for it (vnext, cleared by the next pass-1 dots)
 * These are the operations of the single gmres_arnoldi on the CPU (gemv_t, gemv_n, gemv_t,
 * gemv_n and a dot: compensated dots, plain row sums over l = 0..j in order, the single
 * kernels' expressions), so each column has the single step's bits; the single CUDA steps
 * fuse the second dots into the first correction, which changes no bit either.
 * gmres_start is two launches (the norm of r and the cycle opened per column, then
 * v_0 = r/beta), gmres_update two (back substitution, one warp per column, then u = V_k y).
 *
 * Thread-to-data map (block_reduce.cuh): TX lanes across the columns, TY rows per thread
 * block, grid-stride over the rows. Column c's basis vector l is column c of block l at
 * V + l*vstride. dots keeps kGroup sums per column slot in registers and sweeps the rows once
 * per group of kGroup basis blocks (w is re-read per group); its partials, (j_max + 2) per
 * column and block, are added by the last block, one warp per (l, c). Columns whose status is
 * not RUNNING are skipped from the next launch on; where the columns' j differ (a column
 * restarted its cycle) each column runs to its own j and the launch to the largest.
 *
 * Where it wins: many columns at once on a matrix too large for one SpMV to fill the GPU, or
 * small enough that the launches dominate: the five launches serve w columns. Where it loses:
 * columns far apart in j (the sweep runs to the largest j), and large j with many columns,
 * whose partials ((j+2) w pairs per thread block) grow.
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

/* Basis blocks whose dots one sweep over the rows sums. */
constexpr int kGroup = 4;

__device__ inline bool in_mask(uint64_t mask, int c)
{
  return (mask >> c) & 1u;
}

__device__ inline void reset_ticket(double *ws)
{
  __syncthreads();
  if (threadIdx.x == 0) *sps_block::ws_ticket(ws) = 0;
}

/* beta <- sqrt(r.r) per column of mask and sps_gmres_open_cycle, in the last block. */
__global__ void start_norm_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                                  const double *__restrict__ R, sps_gmres_state *S, double *ws)
{
  __shared__ csum sh[2 * kThreads];
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = mp.tx + s * mp.TX;
    if (c < w && in_mask(mask, c)) sps_csum_add(&acc[0][s], R[i * ld + c] * R[i * ld + c]);
  }
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double rr = sps_block::gather_col(partials, w, 0, c);
    if (lane == 0 && in_mask(mask, c)) sps_gmres_open_cycle(&S[c], sqrt(rr));
  }
  reset_ticket(ws);
}

/* v_0 = r / beta into basis block 0 and VCUR, per column of mask whose cycle runs. */
__global__ void start_scale_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                                   const double *__restrict__ R, double *__restrict__ V,
                                   double *__restrict__ VCUR, const sps_gmres_state *S)
{
  __shared__ unsigned char run[kMaxCols];
  __shared__ double inv[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) {
        return in_mask(mask, c) && S[c].status == SPS_GMRES_RUNNING;
      }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x)
    if (run[c]) inv[c] = 1.0 / S[c].beta;
  __syncthreads();
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX) {
    if (!run[c]) continue;
    const int64_t e = i * ld + c;
    const double v = R[e] * inv[c];
    V[e] = v;
    VCUR[e] = v;
  }
}

/*
 * One Gram-Schmidt pass's dots per running column at its j: sums l = 0..j of V_l(:, c).w(:, c),
 * and with pass 1 also w.w (as l = j + 1). Pass 1 writes H(0:j, j) and wnorm, pass 2 the
 * column's work (h2). Pass 1 also clears vnext: the previous step's normalize has run.
 */
__global__ void dots_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ V,
                            int64_t vstride, const double *__restrict__ W, sps_gmres_state *S,
                            double *ws, int pass)
{
  __shared__ csum sh[kGroup * 2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  __shared__ int jc[kMaxCols];
  __shared__ int jmax_s;
  if (pass == 1 && blockIdx.x == 0)
    for (int c = threadIdx.x; c < w; c += blockDim.x) S[c].vnext = 0;
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_GMRES_RUNNING; }))
    return;
  if (threadIdx.x == 0) {
    int jm = 0;
    for (int c = 0; c < w; c++) {
      jc[c] = S[c].j;
      if (run[c] && jc[c] > jm) jm = jc[c];
    }
    jmax_s = jm;
  }
  __syncthreads();
  const int jmax = jmax_s, nl = jmax + 1 + (pass == 1);
  const Map mp = map_for(w);
  double *partials = sps_block::ws_partials(ws);
  for (int l0 = 0; l0 < nl; l0 += kGroup) {
    csum acc[kGroup][2];
#pragma unroll
    for (int g = 0; g < kGroup; g++) acc[g][0] = acc[g][1] = sps_csum_zero();
    SPS_BLOCK_ROWS(i, n, mp)
    for (int s = 0; s < 2; s++) {
      const int c = mp.tx + s * mp.TX;
      if (c >= w || !run[c]) continue;
      const int64_t e = i * ld + c;
      const double wi = W[e];
#pragma unroll
      for (int g = 0; g < kGroup; g++) {
        const int l = l0 + g;
        if (l <= jc[c])
          sps_csum_add(&acc[g][s], V[(int64_t)l * vstride + e] * wi);
        else if (pass == 1 && l == jc[c] + 1)
          sps_csum_add(&acc[g][s], wi * wi);
      }
    }
    sps_block::block_col_sums<kGroup>(acc, mp, sh);
    sps_block::put_col_partials<kGroup>(acc, mp, w, l0, partials);
  }
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int t = warp; t < nl * w; t += kWarps) {
    const int l = t / w, c = t % w;
    if (!run[c] || l > jc[c] + (pass == 1)) continue;
    const double v = sps_block::gather_col(partials, w, l, c);
    if (lane != 0) continue;
    sps_gmres_state *Sc = &S[c];
    if (pass == 2)
      Sc->work[l] = v;
    else if (l <= jc[c])
      Sc->H[(int64_t)jc[c] * (Sc->m + 1) + l] = v;
    else
      Sc->wnorm = sqrt(v);
  }
  reset_ticket(ws);
}

/*
 * w <- w - V_j h per running column: h = H(0:j, j) (pass 1) or the column's work h2 (pass 2),
 * the row sum in plain arithmetic over l = 0..j. Pass 2 also sums w.w and its last block
 * closes each column: H(0:j, j) += h2, h_{j+1,j} = ||w||, R(0:j+1, j) rotated
 * (sps_gmres_close_column on the column's own rotations).
 */
__global__ void correct_kernel(int64_t n, int w, int64_t ld, const double *__restrict__ V,
                               int64_t vstride, double *__restrict__ W, sps_gmres_state *S,
                               double *ws, int pass)
{
  __shared__ csum sh[2 * kThreads];
  __shared__ unsigned char run[kMaxCols];
  __shared__ int jc[kMaxCols];
  __shared__ const double *coef[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].status == SPS_GMRES_RUNNING; }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) {
    jc[c] = S[c].j;
    coef[c] = pass == 1 ? S[c].H + (int64_t)S[c].j * (S[c].m + 1) : S[c].work;
  }
  __syncthreads();
  const Map mp = map_for(w);
  csum acc[1][2] = {{sps_csum_zero(), sps_csum_zero()}};
  SPS_BLOCK_ROWS(i, n, mp)
  for (int s = 0; s < 2; s++) {
    const int c = mp.tx + s * mp.TX;
    if (c >= w || !run[c]) continue;
    const int64_t e = i * ld + c;
    const double *h = coef[c];
    double sum = 0.0;
    for (int l = 0; l <= jc[c]; l++) sum += V[(int64_t)l * vstride + e] * __ldg(&h[l]);
    const double wi = W[e] - sum;
    W[e] = wi;
    if (pass == 2) sps_csum_add(&acc[0][s], wi * wi);
  }
  if (pass != 2) return;
  sps_block::block_col_sums<1>(acc, mp, sh);
  double *partials = sps_block::ws_partials(ws);
  sps_block::put_col_partials<1>(acc, mp, w, 0, partials);
  if (!sps_reduce::arrive_last(sps_block::ws_ticket(ws))) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = warp; c < w; c += kWarps) {
    const double ww = sps_block::gather_col(partials, w, 0, c);
    if (lane != 0 || !run[c]) continue;
    sps_gmres_state *Sc = &S[c];
    const int j = jc[c], ldh = Sc->m + 1;
    double *h = Sc->H + (int64_t)j * ldh, *col = Sc->R + (int64_t)j * ldh;
    for (int l = 0; l <= j; l++) h[l] += Sc->work[l];
    const double hnext = sqrt(ww);
    Sc->hnext = hnext;
    h[j + 1] = hnext;
    for (int l = 0; l <= j + 1; l++) col[l] = h[l];
    sps_gmres_close_column(Sc, col, Sc->cs, Sc->sn);
  }
  reset_ticket(ws);
}

/* v_{j+1} = w / h_{j+1,j} into basis block j+1 (S[c].j, already counted) and VCUR, for the
 * columns whose closing asked for it. */
__global__ void normalize_kernel(int64_t n, int w, int64_t ld, double *__restrict__ V,
                                 int64_t vstride, const double *__restrict__ W,
                                 double *__restrict__ VCUR, const sps_gmres_state *S)
{
  __shared__ unsigned char run[kMaxCols];
  __shared__ double inv[kMaxCols];
  __shared__ int jc[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) { return S[c].vnext != 0; })) return;
  for (int c = threadIdx.x; c < w; c += blockDim.x)
    if (run[c]) {
      inv[c] = 1.0 / S[c].hnext;
      jc[c] = S[c].j;
    }
  __syncthreads();
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX) {
    if (!run[c]) continue;
    const int64_t e = i * ld + c;
    const double v = W[e] * inv[c];
    V[(int64_t)jc[c] * vstride + e] = v;
    VCUR[e] = v;
  }
}

/* y <- R_k^-1 g_k (k = S[c].j) for column blockIdx.x of mask, in one warp, by the single
 * kernel's column-oriented back substitution (t = g in shared memory, m+1 doubles). */
__global__ void backsolve_kernel(uint64_t mask, sps_gmres_state *S)
{
  extern __shared__ double t[];
  const int c = blockIdx.x;
  if (!in_mask(mask, c) || S[c].status == SPS_GMRES_NAN) return;
  sps_gmres_state *Sc = &S[c];
  const int k = Sc->j, ldh = Sc->m + 1, lane = threadIdx.x;
  for (int l = lane; l < k; l += 32) t[l] = Sc->g[l];
  __syncwarp();
  const double *R = Sc->R;
  double *y = Sc->y;
  for (int i = k - 1; i >= 0; i--) {
    const double yi = t[i] / R[i + (int64_t)i * ldh];
    if (lane == 0) y[i] = yi;
    for (int l = lane; l < i; l += 32) t[l] -= R[l + (int64_t)i * ldh] * yi;
    __syncwarp();
  }
}

/* U(:, c) <- V_k y per column of mask (not at NAN), the row sum over l < k in order. */
__global__ void combine_kernel(int64_t n, int w, int64_t ld, uint64_t mask,
                               const double *__restrict__ V, int64_t vstride,
                               const sps_gmres_state *S, double *__restrict__ U)
{
  __shared__ unsigned char run[kMaxCols];
  __shared__ int kc[kMaxCols];
  __shared__ const double *yc[kMaxCols];
  if (!sps_block::load_flags(w, run, [&](int c) {
        return in_mask(mask, c) && S[c].status != SPS_GMRES_NAN;
      }))
    return;
  for (int c = threadIdx.x; c < w; c += blockDim.x) {
    kc[c] = S[c].j;
    yc[c] = S[c].y;
  }
  __syncthreads();
  const Map mp = map_for(w);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int c = mp.tx; c < w; c += mp.TX) {
    if (!run[c]) continue;
    const int64_t e = i * ld + c;
    double s = 0.0;
    for (int l = 0; l < kc[c]; l++) s += V[(int64_t)l * vstride + e] * __ldg(&yc[c][l]);
    U[e] = s;
  }
}

} // namespace

#define SPS_BLOCK_GRID sps_block::grid_rows(n, w, max_blocks), kThreads, 0, s

extern "C" cudaError_t sps_cuda_block_gmres_start(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                  int w, int64_t ld, uint64_t mask,
                                                  const double *R, double *V, double *VCUR,
                                                  sps_gmres_state *S, double *ws)
{
  if (!mask) return cudaSuccess;
  start_norm_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, mask, R, S, ws);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  start_scale_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, mask, R, V, VCUR, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_gmres_arnoldi(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                    int w, int64_t ld, int m, double *V,
                                                    int64_t vstride, double *W, double *VCUR,
                                                    sps_gmres_state *S, double *ws)
{
  (void)m;
  cudaError_t e;
  dots_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, vstride, W, S, ws, 1);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  correct_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, vstride, W, S, ws, 1);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  dots_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, vstride, W, S, ws, 2);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  correct_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, vstride, W, S, ws, 2);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  normalize_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, V, vstride, W, VCUR, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_gmres_update(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                   int w, int64_t ld, int m, uint64_t mask,
                                                   const double *V, int64_t vstride,
                                                   sps_gmres_state *S, double *U)
{
  if (!mask) return cudaSuccess;
  backsolve_kernel<<<w, 32, ((size_t)m + 1) * sizeof(double), s>>>(mask, S);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  combine_kernel<<<SPS_BLOCK_GRID>>>(n, w, ld, mask, V, vstride, S, U);
  return cudaGetLastError();
}
