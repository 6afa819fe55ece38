/* gmres_steps.cu: the fused GMRES(m) steps of the CUDA backend (CGS2 Arnoldi, Givens rotations,
 * back substitution), with H, g and every scalar kept on the device.
 *
 * One inner iteration is the solver's w <- A M^-1 vcur followed by four launches that read
 * j from the state (struct sps_gmres_state), so the same launches, or one captured graph,
 * serve every j of every cycle, and nothing is read back until the status changes:
 *   dots            h = V_j^T w and w.w in one pass over V_j and w       (j+2 reductions)
 *   correct_dots    w <- w - V_j h and h2 = V_j^T w in one pass: row i of the new w is
 *                   final as soon as row i of V_j h is known, so each thread adds
 *                   V(i,c) w_i to the second-pass sums right after writing w_i
 *   correct_norm    w <- w - V_j h2 and w.w in one pass; its last block also closes the
 *                   column: H(:,j) += h2, h_{j+1,j} = ||w||, the rotations, g, the status
 *   normalize       v_{j+1} = w / h_{j+1,j} into V(:,j+1) and vcur in one pass (also on the
 *                   step that ends the cycle; never again on later replays)
 * against CGS2 from library calls (gemv_t, gemv_n, gemv_t, gemv_n, nrm2, scal, copy: seven
 * passes, four host round trips): the second gemv_t, the norm, the scaling and the copy are
 * fused away, so V_j is read three times from memory (the second read of correct_dots
 * re-reads the tile it just read, mostly from L1/L2), w four times, and no scalar crosses
 * to the host. gmres_start is two launches (the norm of r, then v_0 = r/beta), gmres_update
 * two (back substitution in one warp, then u = V_k y; flexible GMRES passes Z for V),
 * gmres_store_z one (flexible GMRES: z into column j of Z, j read from the state).
 *
 * Thread-to-data map: one thread per row, grid-stride over rows (coalesced: a warp reads 32
 * consecutive rows of a column). dots keeps kGroup column sums per thread in registers and
 * sweeps the rows once per group of kGroup columns (w is re-read per group, V once).
 * correct_dots walks tiles of blockDim rows; per column it sums V(i,c) w_i over the warp by
 * shuffles and lane 0 adds it to the warp's slot in shared memory, kWarps x (m+1) doubles.
 * Reductions are compensated sums (core/compensated_sum.h) of rounded products, as on the
 * CPU backend, and deterministic: each block writes its partials (m+1 pairs per block at
 * most, in S->work after the m+1 second-pass coefficients), the last block to take the ticket adds
 * them in a fixed order, does the scalar work, and resets the ticket. Every kernel returns
 * at once when the status is not RUNNING (start and update excepted).
 *
 * Where it wins: small n, where a CGS2 step from library calls is bound by its launches and
 * host synchronisations; large n with small j, at the bandwidth bound. Where it loses: large
 * j on matrices too large for L2, where correct_dots' second read of V_j leaves the cache.
 *
 * For small n (at most 16384 rows, m <= 64) on sm_90 and later the four launches become one,
 * and without a preconditioner whole runs of inner iterations become one: gmres_cluster.cu
 * runs the same step in one cluster of 16 blocks that keeps w in registers and reduces
 * through distributed shared memory.
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
using sps_reduce::gather_warp;
using sps_reduce::grid_for;
using sps_reduce::kThreads;
using sps_reduce::kWarps;
using sps_reduce::warp_sum;

/* Columns whose sums dots keeps in registers at once. */
constexpr int kGroup = 8;

/* Layout of S->work: h2 (m+1 doubles), then the block partials (m+1 pairs per block). */
__device__ inline double *second_pass(const sps_gmres_state *S)
{
  return S->work;
}
__device__ inline double *block_partials(const sps_gmres_state *S)
{
  return S->work + (S->m + 1);
}

/* beta <- ||r|| and the opening of the cycle (sps_gmres_open_cycle), in the last block. */
__global__ void gmres_start_norm_kernel(int64_t n, const double *__restrict__ r, sps_gmres_state *S,
                                        unsigned *ticket, int split)
{
  __shared__ csum sh[kWarps];
  double *partials = block_partials(S);
  csum s = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    sps_csum_add(&s, r[i] * r[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (split || !arrive_last(ticket)) return;
  double rr = sps_csum_value(gather_block(partials, 0, sh));
  if (threadIdx.x == 0) {
    sps_gmres_open_cycle(S, sqrt(rr));
    *ticket = 0;
  }
}

/* v_0 = r / beta into V(:,0) and vcur. */
__global__ void gmres_start_scale_kernel(int64_t n, const double *__restrict__ r,
                                         double *__restrict__ V, double *__restrict__ vcur,
                                         const sps_gmres_state *S)
{
  if (S->status != SPS_GMRES_RUNNING) return;
  const double inv = 1.0 / S->beta;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const double v = r[i] * inv;
    V[i] = v;
    vcur[i] = v;
  }
}

/*
 * Where a step's closing reads the value of its sum c. On one GPU, the last block merges the
 * blocks' partials (warp-collective: every lane of the warp calls it, the value is valid in
 * lane 0); on a distributed context (reductions over NCCL, core/cuda/dist_close.cu), a close
 * kernel merges every rank's folded pair in rank order (valid in every lane).
 */
struct block_values {
  const double *partials;
  __device__ double operator()(int c) const { return sps_csum_value(gather_warp(partials, c)); }
};
struct rank_values {
  const double *all;
  int size, kk;
  __device__ double operator()(int c) const { return sps_reduce::ranks_value(all, size, kk, c); }
};

/* dots' close, one warp per sum: c < nc is h_c = H(c, j), c = nc is w.w. */
template <class Values> __device__ void dots_close(sps_gmres_state *S, Values value)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int j = S->j, nc = j + 1, nv = nc + 1, ldh = S->m + 1;
  double *h = S->H + (int64_t)j * ldh;
  for (int c = warp; c < nv; c += kWarps) {
    const double v = value(c);
    if (lane == 0) {
      if (c < nc)
        h[c] = v;
      else
        S->wnorm = sqrt(v);
    }
  }
}

/* correct_dots' close, one warp per sum: h2_c. */
template <class Values> __device__ void correct_dots_close(sps_gmres_state *S, Values value)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nc = S->j + 1;
  double *h2 = second_pass(S);
  for (int c = warp; c < nc; c += kWarps) {
    const double v = value(c);
    if (lane == 0) h2[c] = v;
  }
}

/*
 * correct_norm's close by the whole block once ww_all = w.w is known (column j, h2 in hs):
 * H(0:j, j) += h2, H(j+1, j) = hnext = ||w||, then sps_gmres_close_column in thread 0 on the
 * shared copy col that becomes R(0:j+1, j). col is followed by room for the rotations'
 * cosines and sines (m+1 each) in shared memory.
 */
__device__ void close_column_block(sps_gmres_state *S, int j, double ww_all, const double *hs,
                                   double *col)
{
  const int nc = j + 1, ldh = S->m + 1;
  double *hcol = S->H + (int64_t)j * ldh;
  for (int c = threadIdx.x; c < nc; c += blockDim.x) {
    const double v = hcol[c] + hs[c];
    hcol[c] = v;
    col[c] = v;
  }
  if (threadIdx.x == 0) {
    const double hnext = sqrt(ww_all);
    S->hnext = hnext;
    hcol[j + 1] = hnext;
    col[j + 1] = hnext;
  }
  /* The rotations 0..j-1 into shared memory by the whole block, so that the one thread that
   * applies them in sequence does not wait on a global load at each step. Rotation j is
   * built by the closing and written back only when the column closed (not at a NaN or a
   * breakdown), as in gmres_cluster.cu: no rotation is read before it was written. */
  double *cs = col + ldh, *sn = cs + ldh;
  for (int c = threadIdx.x; c < j; c += blockDim.x) {
    cs[c] = S->cs[c];
    sn[c] = S->sn[c];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sps_gmres_close_column(S, col, cs, sn);
    if (S->j == j + 1) {
      S->cs[j] = cs[j];
      S->sn[j] = sn[j];
    }
  }
  __syncthreads();
  double *rcol = S->R + (int64_t)j * ldh;
  for (int c = threadIdx.x; c <= j + 1; c += blockDim.x)
    rcol[c] = col[c];
}

/*
 * H(0:j, j) <- V_j^T w and S->wnorm <- ||w||: j+2 sums, kGroup per sweep over the rows.
 * Thread t < kGroup of each block writes the block's total of sum c0+t.
 */
__global__ void gmres_dots_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                  const double *__restrict__ w, sps_gmres_state *S,
                                  unsigned *ticket, int split)
{
  __shared__ csum sh[kGroup * kWarps];
  /* The previous step's normalize has run (stream order) and no block here reads vnext. */
  if (blockIdx.x == 0 && threadIdx.x == 0) S->vnext = 0;
  if (S->status != SPS_GMRES_RUNNING) return;
  const int j = S->j, nc = j + 1, nv = nc + 1;
  double *partials = block_partials(S);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c0 = 0; c0 < nv; c0 += kGroup) {
    csum acc[kGroup];
#pragma unroll
    for (int k = 0; k < kGroup; k++)
      acc[k] = sps_csum_zero();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
      const double wi = w[i];
#pragma unroll
      for (int k = 0; k < kGroup; k++) {
        const int c = c0 + k;
        if (c < nc)
          sps_csum_add(&acc[k], V[i + (int64_t)c * ldv] * wi);
        else if (c == nc)
          sps_csum_add(&acc[k], wi * wi);
      }
    }
    /* Block totals of the group: warp sums into sh, then thread k adds the warps' sums of k. */
#pragma unroll
    for (int k = 0; k < kGroup; k++) {
      const csum v = warp_sum(acc[k]);
      if (lane == 0) sh[k * kWarps + warp] = v;
    }
    __syncthreads();
    if (threadIdx.x < kGroup && c0 + (int)threadIdx.x < nv) {
      csum t = sps_csum_zero();
      for (int q = 0; q < kWarps; q++)
        sps_csum_merge(&t, sh[threadIdx.x * kWarps + q]);
      put_partial(partials, c0 + threadIdx.x, blockIdx.x, t);
    }
    __syncthreads();
  }
  if (split || !arrive_last(ticket)) return;
  dots_close(S, block_values{partials});
  __syncthreads();
  if (threadIdx.x == 0) *ticket = 0;
}

/*
 * w <- w - V_j h (h = H(0:j, j)) and h2 <- V_j^T w with the new w, in one pass over tiles of
 * blockDim rows. Dynamic shared memory: h (m+1 doubles), then kWarps slots of m+1 sums.
 */
__global__ void gmres_correct_dots_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                          double *__restrict__ w, sps_gmres_state *S,
                                          unsigned *ticket, int split)
{
  extern __shared__ double dyn[];
  if (S->status != SPS_GMRES_RUNNING) return;
  const int j = S->j, nc = j + 1, ldh = S->m + 1;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double *hs = dyn;
  csum *wacc = (csum *)(dyn + ldh);
  const double *h = S->H + (int64_t)j * ldh;
  for (int c = threadIdx.x; c < nc; c += blockDim.x)
    hs[c] = h[c];
  for (int q = threadIdx.x; q < kWarps * ldh; q += blockDim.x)
    wacc[q] = sps_csum_zero();
  __syncthreads();
  /* The tile loop is uniform over the block, so every lane reaches the shuffles. */
  for (int64_t base = blockIdx.x * (int64_t)blockDim.x; base < n;
       base += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = base + threadIdx.x;
    const bool in = i < n;
    double wi = 0.0;
    if (in) {
      double s = 0.0;
#pragma unroll 4
      for (int c = 0; c < nc; c++)
        s += V[i + (int64_t)c * ldv] * hs[c];
      wi = w[i] - s;
      w[i] = wi;
    }
    for (int c = 0; c < nc; c++) {
      csum v = sps_csum_zero();
      if (in) v.hi = V[i + (int64_t)c * ldv] * wi;
      v = warp_sum(v);
      if (lane == 0) sps_csum_merge(&wacc[warp * ldh + c], v);
    }
  }
  __syncthreads();
  double *partials = block_partials(S);
  for (int c = threadIdx.x; c < nc; c += blockDim.x) {
    csum t = sps_csum_zero();
    for (int q = 0; q < kWarps; q++)
      sps_csum_merge(&t, wacc[q * ldh + c]);
    put_partial(partials, c, blockIdx.x, t);
  }
  if (split || !arrive_last(ticket)) return;
  correct_dots_close(S, block_values{partials});
  __syncthreads();
  if (threadIdx.x == 0) *ticket = 0;
}

/*
 * w <- w - V_j h2 and w.w in one pass; the last block then sets H(0:j, j) += h2,
 * H(j+1, j) = hnext = ||w||, and closes the column (sps_gmres_close_column) in thread 0 on a
 * shared copy that becomes R(0:j+1, j). Dynamic shared memory: h2 (m+1), the column (m+1),
 * and copies of the rotations' cosines and sines (m+1 each).
 */
__global__ void gmres_correct_norm_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                          double *__restrict__ w, sps_gmres_state *S,
                                          unsigned *ticket, int split)
{
  extern __shared__ double dyn[];
  __shared__ csum sh[kWarps];
  if (S->status != SPS_GMRES_RUNNING) return;
  const int j = S->j, nc = j + 1, ldh = S->m + 1;
  double *hs = dyn, *col = dyn + ldh;
  const double *h2 = second_pass(S);
  for (int c = threadIdx.x; c < nc; c += blockDim.x)
    hs[c] = h2[c];
  __syncthreads();
  csum ww = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double s = 0.0;
#pragma unroll 4
    for (int c = 0; c < nc; c++)
      s += V[i + (int64_t)c * ldv] * hs[c];
    const double wi = w[i] - s;
    w[i] = wi;
    sps_csum_add(&ww, wi * wi);
  }
  ww = block_sum(ww, sh);
  double *partials = block_partials(S);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, ww);
  if (split || !arrive_last(ticket)) return;
  const double ww_all = sps_csum_value(gather_block(partials, 0, sh));
  close_column_block(S, j, ww_all, hs, col);
  if (threadIdx.x == 0) *ticket = 0;
}

/*
 * v_{j+1} = w / h_{j+1,j} into V(:, j+1) and vcur (j already counted: the new S->j), when the
 * column just closed asks for it (S->vnext, which the next dots kernel clears): also on the
 * step that ends the cycle, so the Arnoldi relation is complete, but once only.
 */
__global__ void gmres_normalize_kernel(int64_t n, double *__restrict__ V, int64_t ldv,
                                       const double *__restrict__ w, double *__restrict__ vcur,
                                       const sps_gmres_state *S)
{
  if (!S->vnext) return;
  const double inv = 1.0 / S->hnext;
  double *vn = V + (int64_t)S->j * ldv;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const double v = w[i] * inv;
    vn[i] = v;
    vcur[i] = v;
  }
}

/* Restarts up to which gmres_backsolve_kernel first copies R_k into shared memory (33 KB). */
constexpr int kBacksolveStageMaxM = 64;

/*
 * y <- R_k^-1 g_k (k = S->j) by column-oriented back substitution in one warp: for
 * i = k-1..0, y_i = t_i / r_ii, then lanes update t_l -= r_li y_i for l < i (t = g in shared
 * memory, m+1 doubles). The same order of operations as the CPU backend. With stage set
 * (m <= kBacksolveStageMaxM), the whole block first copies the upper triangle of R(0:k-1, 0:k-1) into shared memory
 * (leading dimension k, after t), so the k sequential steps wait on shared loads rather than
 * on one L2 round trip each (an H200 took 17 to 19 us for k = 30 reading R from memory).
 */
__global__ void gmres_backsolve_kernel(sps_gmres_state *S, int stage)
{
  extern __shared__ double sm[];
  if (S->status == SPS_GMRES_NAN) return;
  const int k = S->j, ldh = S->m + 1, lane = threadIdx.x;
  double *t = sm;
  const double *R = S->R;
  int ldr = ldh;
  for (int l = threadIdx.x; l < k; l += blockDim.x)
    t[l] = S->g[l];
  if (stage) {
    double *Rs = sm + ldh;
    /* the upper triangle only: the substitution reads nothing below the diagonal, which the
     * rotations never write (compute-sanitizer's initcheck flagged the copy of it) */
    for (int q = threadIdx.x; q < k * k; q += blockDim.x)
      if (q % k <= q / k) Rs[q] = R[q % k + (int64_t)(q / k) * ldh];
    R = Rs;
    ldr = k;
  }
  __syncthreads();
  if (threadIdx.x >= 32) return;
  double *y = S->y;
  for (int i = k - 1; i >= 0; i--) {
    const double yi = t[i] / R[i + (int64_t)i * ldr];
    if (lane == 0) y[i] = yi;
    for (int l = lane; l < i; l += 32)
      t[l] -= R[l + (int64_t)i * ldr] * yi;
    __syncwarp();
  }
}

/* u <- V_k y (k = S->j), y staged in shared memory (m doubles). */
__global__ void gmres_combine_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                     const sps_gmres_state *S, double *__restrict__ u)
{
  extern __shared__ double ys[];
  if (S->status == SPS_GMRES_NAN) return;
  const int k = S->j;
  for (int c = threadIdx.x; c < k; c += blockDim.x)
    ys[c] = S->y[c];
  __syncthreads();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double s = 0.0;
#pragma unroll 4
    for (int c = 0; c < k; c++)
      s += V[i + (int64_t)c * ldv] * ys[c];
    u[i] = s;
  }
}

/*
 * Flexible GMRES: Z(:, j) <- z (j = S->j) while the cycle runs. One thread per row,
 * grid-stride, coalesced reads of z and writes of the column.
 */
__global__ void gmres_store_z_kernel(int64_t n, const double *__restrict__ z,
                                     double *__restrict__ Z, int64_t ldz, const sps_gmres_state *S)
{
  if (S->status != SPS_GMRES_RUNNING) return;
  double *zj = Z + (int64_t)S->j * ldz;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    zj[i] = z[i];
}

/*
 * The distributed form (reductions over NCCL): a step's kernel runs with split set, leaving
 * its block partials; the fold below makes this rank's kk pairs of them (step 0, the start:
 * 1 sum; 1, dots: j+2; 2, correct_dots: j+1; 3, correct_norm: 1; the rest of the kk pairs
 * zero, and all of them zero when the step did not run), NCCL gathers every rank's, and
 * gmres_dist_close_kernel closes the step with the same functions as the last block above.
 * Fold: one block, warp l sums partial l over the grid's blocks (lanes stride the blocks, then
 * a shuffle tree). Close: one block (the column's close is block-wide).
 */
__global__ void gmres_fold_kernel(const sps_gmres_state *S, int step, unsigned grid, int kk,
                                  double *__restrict__ out)
{
  const int lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  const double *partials = block_partials(S);
  int k = step == 0 ? 1 : step == 1 ? S->j + 2 : step == 2 ? S->j + 1 : 1;
  if (step != 0 && S->status != SPS_GMRES_RUNNING) k = 0;
  for (int l = threadIdx.x >> 5; l < kk; l += nwarps) {
    csum v = sps_csum_zero();
    if (l < k) {
      for (unsigned b = lane; b < grid; b += 32) {
        const int64_t at = 2 * ((int64_t)l * grid + b);
        csum o;
        o.hi = partials[at];
        o.lo = partials[at + 1];
        sps_csum_merge(&v, o);
      }
      v = warp_sum(v);
    }
    if (lane == 0) {
      out[2 * l] = v.hi;
      out[2 * l + 1] = v.lo;
    }
  }
}

__global__ void gmres_dist_close_kernel(int step, const double *all, int size, int kk,
                                        sps_gmres_state *S)
{
  extern __shared__ double dyn[];
  const rank_values value{all, size, kk};
  if (step == 0) {
    if (threadIdx.x == 0) sps_gmres_open_cycle(S, sqrt(value(0)));
    return;
  }
  if (S->status != SPS_GMRES_RUNNING) return;
  if (step == 1) {
    dots_close(S, value);
  } else if (step == 2) {
    correct_dots_close(S, value);
  } else {
    const int j = S->j, ldh = S->m + 1;
    double *hs = dyn, *col = dyn + ldh;
    const double *h2 = second_pass(S);
    for (int c = threadIdx.x; c <= j; c += blockDim.x)
      hs[c] = h2[c];
    __syncthreads();
    close_column_block(S, j, value(0), hs, col);
  }
}

/* gmres_correct_dots_kernel's launch: its dynamic shared memory is h and kWarps slots of m+1
 * pairs, 70 KB at m = 512, above the 48 KB a launch gets unless the kernel asks for more (a
 * host-side attribute, allowed while a stream is captured). */
cudaError_t launch_correct_dots(cudaStream_t s, unsigned grid, int64_t n, int m, double *V,
                                int64_t ldv, double *w, sps_gmres_state *S, unsigned *ticket,
                                int split)
{
  const size_t cd_bytes = (2 * kWarps + 1) * ((size_t)m + 1) * sizeof(double);
  cudaError_t e;
  if (cd_bytes > 48 * 1024 &&
      (e = cudaFuncSetAttribute(gmres_correct_dots_kernel,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cd_bytes)) !=
          cudaSuccess)
    return e;
  gmres_correct_dots_kernel<<<grid, kThreads, cd_bytes, s>>>(n, V, ldv, w, S, ticket, split);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t sps_cuda_gmres_dist_reduce(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                  int m, int step, const double *r, double *V,
                                                  int64_t ldv, double *w, sps_gmres_state *S,
                                                  int kk, double *out)
{
  const unsigned grid = grid_for(n, max_blocks);
  const size_t ldh = (size_t)m + 1;
  cudaError_t e;
  switch (step) {
  case 0: gmres_start_norm_kernel<<<grid, kThreads, 0, s>>>(n, r, S, nullptr, 1); break;
  case 1: gmres_dots_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, w, S, nullptr, 1); break;
  case 2:
    if ((e = launch_correct_dots(s, grid, n, m, V, ldv, w, S, nullptr, 1)) != cudaSuccess) return e;
    break;
  case 3:
    gmres_correct_norm_kernel<<<grid, kThreads, 4 * ldh * sizeof(double), s>>>(n, V, ldv, w, S,
                                                                                nullptr, 1);
    break;
  default: return cudaErrorInvalidValue;
  }
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  gmres_fold_kernel<<<1, 1024, 0, s>>>(S, step, grid, kk, out);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_dist_close(cudaStream_t s, int m, int step,
                                                 const double *all, int size, int kk,
                                                 sps_gmres_state *S)
{
  const size_t bytes = step == 3 ? 4 * ((size_t)m + 1) * sizeof(double) : 0;
  gmres_dist_close_kernel<<<1, kThreads, bytes, s>>>(step, all, size, kk, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_dist_vector(cudaStream_t s, unsigned max_blocks, int64_t n,
                                                  int step, const double *src, double *V,
                                                  int64_t ldv, double *vcur,
                                                  const sps_gmres_state *S)
{
  const unsigned grid = grid_for(n, max_blocks);
  if (step == 0)
    gmres_start_scale_kernel<<<grid, kThreads, 0, s>>>(n, src, V, vcur, S);
  else
    gmres_normalize_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, src, vcur, S);
  return cudaGetLastError();
}

/* Doubles of S->work for the launchers below with grids of at most max_blocks blocks. */
extern "C" size_t sps_cuda_gmres_workspace(unsigned max_blocks, int m)
{
  return (size_t)(m + 1) * (2 * (size_t)max_blocks + 1);
}

extern "C" cudaError_t sps_cuda_gmres_start(cudaStream_t s, unsigned max_blocks, int64_t n,
                                            const double *r, double *V, double *vcur,
                                            sps_gmres_state *S, unsigned *ticket)
{
  const unsigned grid = grid_for(n, max_blocks);
  gmres_start_norm_kernel<<<grid, kThreads, 0, s>>>(n, r, S, ticket, 0);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  gmres_start_scale_kernel<<<grid, kThreads, 0, s>>>(n, r, V, vcur, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_arnoldi(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                              double *V, int64_t ldv, double *w, double *vcur,
                                              sps_gmres_state *S, unsigned *ticket)
{
  const unsigned grid = grid_for(n, max_blocks);
  const size_t ldh = (size_t)m + 1;
  cudaError_t e;
  gmres_dots_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, w, S, ticket, 0);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if ((e = launch_correct_dots(s, grid, n, m, V, ldv, w, S, ticket, 0)) != cudaSuccess) return e;
  gmres_correct_norm_kernel<<<grid, kThreads, 4 * ldh * sizeof(double), s>>>(n, V, ldv, w, S,
                                                                             ticket, 0);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  gmres_normalize_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, w, vcur, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_update(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                             const double *V, int64_t ldv, sps_gmres_state *S,
                                             double *u)
{
  const size_t ldh = (size_t)m + 1;
  const int stage = m <= kBacksolveStageMaxM;
  const size_t bs_bytes = (ldh + (stage ? (size_t)m * m : 0)) * sizeof(double);
  gmres_backsolve_kernel<<<1, stage ? kThreads : 32, bs_bytes, s>>>(S, stage);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  gmres_combine_kernel<<<grid_for(n, max_blocks), kThreads, ldh * sizeof(double), s>>>(n, V, ldv, S,
                                                                                       u);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_store_z(cudaStream_t s, unsigned max_blocks, int64_t n,
                                              const double *z, double *Z, int64_t ldz,
                                              const sps_gmres_state *S)
{
  gmres_store_z_kernel<<<grid_for(n, max_blocks), kThreads, 0, s>>>(n, z, Z, ldz, S);
  return cudaGetLastError();
}
