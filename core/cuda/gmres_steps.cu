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
 * For small n (at most 16384 rows, m <= 64) on sm_90 and later the four launches become one:
 * gmres_arnoldi_cluster_kernel runs the same step in one cluster of 16 blocks that keeps w in
 * registers and reduces through distributed shared memory, so a step costs a few L2 round
 * trips and five cluster barriers instead of four launches each ending in a global ticket.
 */
#include <cstdint>

#include <cooperative_groups.h>
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
                                        unsigned *ticket)
{
  __shared__ csum sh[kWarps];
  double *partials = block_partials(S);
  csum s = sps_csum_zero();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    sps_csum_add(&s, r[i] * r[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) put_partial(partials, 0, blockIdx.x, s);
  if (!arrive_last(ticket)) return;
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
 * H(0:j, j) <- V_j^T w and S->wnorm <- ||w||: j+2 sums, kGroup per sweep over the rows.
 * Thread t < kGroup of each block writes the block's total of sum c0+t.
 */
__global__ void gmres_dots_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                  const double *__restrict__ w, sps_gmres_state *S,
                                  unsigned *ticket)
{
  __shared__ csum sh[kGroup * kWarps];
  /* The previous step's normalize has run (stream order) and no block here reads vnext. */
  if (blockIdx.x == 0 && threadIdx.x == 0) S->vnext = 0;
  if (S->status != SPS_GMRES_RUNNING) return;
  const int j = S->j, nc = j + 1, nv = nc + 1, ldh = S->m + 1;
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
  if (!arrive_last(ticket)) return;
  /* One warp per sum: c < nc is h_c, c = nc is w.w. */
  double *h = S->H + (int64_t)j * ldh;
  for (int c = warp; c < nv; c += kWarps) {
    const double v = sps_csum_value(gather_warp(partials, c));
    if (lane == 0) {
      if (c < nc)
        h[c] = v;
      else
        S->wnorm = sqrt(v);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) *ticket = 0;
}

/*
 * w <- w - V_j h (h = H(0:j, j)) and h2 <- V_j^T w with the new w, in one pass over tiles of
 * blockDim rows. Dynamic shared memory: h (m+1 doubles), then kWarps slots of m+1 sums.
 */
__global__ void gmres_correct_dots_kernel(int64_t n, const double *__restrict__ V, int64_t ldv,
                                          double *__restrict__ w, sps_gmres_state *S,
                                          unsigned *ticket)
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
  if (!arrive_last(ticket)) return;
  double *h2 = second_pass(S);
  for (int c = warp; c < nc; c += kWarps) {
    const double v = sps_csum_value(gather_warp(partials, c));
    if (lane == 0) h2[c] = v;
  }
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
                                          unsigned *ticket)
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
  if (!arrive_last(ticket)) return;
  const double ww_all = sps_csum_value(gather_block(partials, 0, sh));
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
  /* The rotations 0..j into shared memory by the whole block, so that the one thread that
   * applies them in sequence does not wait on a global load at each step (rotation j is
   * then rebuilt, or left as it was when the column breaks down). */
  double *cs = col + ldh, *sn = cs + ldh;
  for (int c = threadIdx.x; c <= j; c += blockDim.x) {
    cs[c] = S->cs[c];
    sn[c] = S->sn[c];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sps_gmres_close_column(S, col, cs, sn);
    S->cs[j] = cs[j];
    S->sn[j] = sn[j];
    *ticket = 0;
  }
  __syncthreads();
  double *rcol = S->R + (int64_t)j * ldh;
  for (int c = threadIdx.x; c <= j + 1; c += blockDim.x)
    rcol[c] = col[c];
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

/*
 * The whole Arnoldi step in one thread-block cluster (Hopper and later), for small n: the same
 * CGS2 step as dots, correct_dots, correct_norm and normalize, with the grid reductions done
 * through distributed shared memory instead of global partials and tickets.
 *
 * Thread-to-data map: kClusterBlocks blocks of kClusterThreads threads; block b owns the
 * contiguous rows [b*nb, min(n, (b+1)*nb)), nb = ceil(n / kClusterBlocks), and thread t of it
 * the rows b*nb + t + r*kClusterThreads, r < kClusterRows (coalesced per r), held in registers
 * for the whole step. Each reduction (V_j^T w with w.w, V_j^T w, w.w) sums over the warp by
 * shuffles, over the warps into the block's part array, and, after a cluster barrier, over the
 * blocks, read through map_shared_rank (compensated sums by fixed trees throughout): every block then holds
 * the same bits of every total, so all of them agree on h, h2 and hnext without a global round
 * trip. Block 0 closes the column (sps_gmres_close_column, thread 0, on a shared copy of the
 * scalars and rotations) and the others read from its shared memory whether v_{j+1} is written.
 */
constexpr int kClusterBlocks = 16;
constexpr int kClusterThreads = 512;
constexpr int kClusterRows = 2;
constexpr int64_t kClusterMaxN = (int64_t)kClusterBlocks * kClusterThreads * kClusterRows;
constexpr int kClusterMaxM = 64;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

constexpr int kClusterWarps = kClusterThreads / 32;
/* Sums of a reduction: j+1 <= m column dots and w.w. */
constexpr int kClusterSums = kClusterMaxM + 1;

/* The rows of this thread: V(row[r], c) = V[row[r] + c*ldv] when ok[r]. nslots (the same in
 * the block) counts the slots r that hold a row in some thread of the block, active (the same
 * in the warp) says whether the warp holds any row: the sums skip the rest. */
struct cluster_rows {
  int64_t row[kClusterRows];
  bool ok[kClusterRows];
  int nslots;
  bool active;
};

__device__ inline csum shfl_xor_csum(csum v, int mask)
{
  csum o;
  o.hi = __shfl_xor_sync(0xffffffffu, v.hi, mask);
  o.lo = __shfl_xor_sync(0xffffffffu, v.lo, mask);
  return o;
}

/* The sum over each aligned group of W lanes by an xor butterfly, in every lane of the group. */
template <int W> __device__ inline csum xor_sum(csum v)
{
#pragma unroll
  for (int m = W / 2; m > 0; m >>= 1)
    sps_csum_merge(&v, shfl_xor_csum(v, m));
  return v;
}

/* The column of a group that lane l holds the warp total of after warp_sum_group. */
__device__ inline int group_col(int lane)
{
  return ((lane >> 4) & 1) * 4 + ((lane >> 3) & 1) * 2 + ((lane >> 2) & 1);
}

/*
 * Reduce-scatter of kGroup = 8 sums over the warp: at offset 16 each lane keeps 4 of its 8
 * columns and sends the other 4 to its partner, at 8 keeps 2, at 4 keeps 1, then offsets 2
 * and 1 finish that one. Lane l ends with the total over the 32 lanes of column
 * group_col(l): 9 merges a lane instead of 40 for eight separate trees, which matters
 * because a merge is a dozen FP64 operations and the cluster runs on 8 SMs only.
 */
__device__ inline csum warp_sum_group(const csum (&a)[kGroup])
{
  const int lane = threadIdx.x & 31;
  const bool u16 = lane & 16, u8 = lane & 8, u4 = lane & 4;
  csum b4[4], b2[2];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    csum mine = u16 ? a[k + 4] : a[k];
    sps_csum_merge(&mine, shfl_xor_csum(u16 ? a[k] : a[k + 4], 16));
    b4[k] = mine;
  }
#pragma unroll
  for (int k = 0; k < 2; k++) {
    csum mine = u8 ? b4[k + 2] : b4[k];
    sps_csum_merge(&mine, shfl_xor_csum(u8 ? b4[k] : b4[k + 2], 8));
    b2[k] = mine;
  }
  csum b1 = u4 ? b2[1] : b2[0];
  sps_csum_merge(&b1, shfl_xor_csum(u4 ? b2[0] : b2[1], 4));
  sps_csum_merge(&b1, shfl_xor_csum(b1, 2));
  sps_csum_merge(&b1, shfl_xor_csum(b1, 1));
  return b1;
}

/*
 * part[c] <- this block's sum over its rows of V(i, c) w_i, c < nc, and, when with_ww,
 * part[nc] <- sum of w_i^2. Columns in groups of kGroup: the kGroup*kClusterRows loads of a
 * group are issued before its reductions, so a group costs one memory latency, not kGroup.
 * wsh: kClusterWarps slots per sum, of which the first nact (the warps holding rows) are
 * written and read. The block's sums are then added by one warp each. Ends with the block's
 * part complete only after a cluster or block barrier.
 */
__device__ inline void cluster_block_dots(const double *V, int64_t ldv, const cluster_rows &R,
                                          const double (&w)[kClusterRows], int nc, bool with_ww,
                                          int nact, csum *wsh, csum *part)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (R.active) {
    for (int c0 = 0; c0 < nc; c0 += kGroup) {
      double v[kGroup][kClusterRows];
#pragma unroll
      for (int k = 0; k < kGroup; k++) {
        const double *col = V + (int64_t)(c0 + k) * ldv;
#pragma unroll
        for (int r = 0; r < kClusterRows; r++)
          v[k][r] = (c0 + k < nc && R.ok[r]) ? col[R.row[r]] : 0.0;
      }
      /* Slot 0 holds a row in every active thread: the sum starts from its product as adding
       * it to zero would (hi = 0 + p, lo = 0; + 0.0 turns -0 into +0 as that addition does). */
      csum a[kGroup];
#pragma unroll
      for (int k = 0; k < kGroup; k++) {
        a[k].hi = v[k][0] * w[0] + 0.0;
        a[k].lo = 0.0;
#pragma unroll
        for (int r = 1; r < kClusterRows; r++)
          if (r < R.nslots) sps_csum_add(&a[k], v[k][r] * w[r]);
      }
      const csum t = warp_sum_group(a);
      const int c = c0 + group_col(lane);
      if ((lane & 3) == 0 && c < nc) wsh[c * kClusterWarps + warp] = t;
    }
    if (with_ww) {
      csum a = sps_csum_zero();
#pragma unroll
      for (int r = 0; r < kClusterRows; r++)
        if (r < R.nslots) sps_csum_add(&a, w[r] * w[r]);
      a = warp_sum(a);
      if (lane == 0) wsh[nc * kClusterWarps + warp] = a;
    }
  }
  const int ns = with_ww ? nc + 1 : nc;
  __syncthreads();
  for (int c = warp; c < ns; c += kClusterWarps) {
    csum t = lane < nact ? wsh[c * kClusterWarps + lane] : sps_csum_zero();
    t = xor_sum<kClusterWarps>(t);
    if (lane == 0) part[c] = t;
  }
}

/* After every block wrote its part (ns sums): tot[c] <- the sum of part[c] over the ranks by a
 * fixed xor tree, the same bits in every block. Ends with a block barrier. */
__device__ inline void cluster_gather(cooperative_groups::cluster_group &cluster, csum *part,
                                      int ns, double *tot)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  cluster.sync();
  /* One warp a sum: lane b < kClusterBlocks reads rank b's part, then an xor tree. */
  for (int c = warp; c < ns; c += kClusterWarps) {
    csum t = lane < kClusterBlocks ? cluster.map_shared_rank(part, lane)[c] : sps_csum_zero();
    t = xor_sum<kClusterBlocks>(t);
    if (lane == 0) tot[c] = sps_csum_value(t);
  }
  __syncthreads();
}

/* w_i <- w_i - sum_{c < nc} V(i, c) coef_c for this thread's rows, kGroup columns per batch of
 * loads. */
__device__ inline void cluster_correct(const double *V, int64_t ldv, const cluster_rows &R,
                                       double (&w)[kClusterRows], int nc, const double *coef)
{
  double s[kClusterRows];
#pragma unroll
  for (int r = 0; r < kClusterRows; r++)
    s[r] = 0.0;
  for (int c0 = 0; c0 < nc; c0 += kGroup) {
    double v[kGroup][kClusterRows];
#pragma unroll
    for (int k = 0; k < kGroup; k++) {
      const double *col = V + (int64_t)(c0 + k) * ldv;
#pragma unroll
      for (int r = 0; r < kClusterRows; r++)
        v[k][r] = (c0 + k < nc && R.ok[r]) ? col[R.row[r]] : 0.0;
    }
#pragma unroll
    for (int k = 0; k < kGroup; k++) {
      const double h = c0 + k < nc ? coef[c0 + k] : 0.0;
#pragma unroll
      for (int r = 0; r < kClusterRows; r++)
        s[r] += v[k][r] * h;
    }
  }
#pragma unroll
  for (int r = 0; r < kClusterRows; r++)
    w[r] = R.ok[r] ? w[r] - s[r] : 0.0;
}

#endif /* __CUDA_ARCH__ >= 900 */

/*
 * One Arnoldi step (j = S->j, m <= kClusterMaxM, n <= kClusterMaxN) in one cluster of
 * kClusterBlocks x kClusterThreads: h = V_j^T w and w.w; w <- w - V_j h; h2 = V_j^T w;
 * w <- w - V_j h2 (left in w); hnext = ||w||; block 0 sets H(0:j+1, j) = (h + h2, hnext),
 * S->wnorm, S->hnext and closes the column into R(0:j+1, j); v_{j+1} = w / hnext into
 * V(:, j+1) and vcur when the closing asks for it. S->vnext is left 0: the vector is written.
 * Five cluster barriers; every thread reaches each of them (the status test comes first and
 * is the same in every block).
 */
__global__ void __launch_bounds__(kClusterThreads, 1)
    gmres_arnoldi_cluster_kernel(int64_t n, double *__restrict__ V, int64_t ldv,
                                 double *__restrict__ w, double *__restrict__ vcur,
                                 sps_gmres_state *S)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ csum wsh[kClusterSums * kClusterWarps];
  __shared__ csum part1[kClusterSums], part2[kClusterSums], part3[1];
  __shared__ double h[kClusterSums], h2[kClusterSums], hh[1];
  __shared__ double col[kClusterSums + 1], cs[kClusterSums], sn[kClusterSums];
  __shared__ sps_gmres_state Sl;
  if (S->status != SPS_GMRES_RUNNING) return;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int j = S->j, nc = j + 1, ldh = S->m + 1;
  if (rank == 0) {
    if (threadIdx.x == 0) Sl = *S;
    for (int c = threadIdx.x; c <= j; c += blockDim.x) {
      cs[c] = S->cs[c];
      sn[c] = S->sn[c];
    }
  }
  const int64_t nb = (n + kClusterBlocks - 1) / kClusterBlocks;
  const int64_t rbeg = rank * nb, rend = rbeg + nb < n ? rbeg + nb : n;
  cluster_rows R;
  double wr[kClusterRows];
  const int64_t nown = rend > rbeg ? rend - rbeg : 0;
  R.nslots = (int)((nown + kClusterThreads - 1) / kClusterThreads);
  const int nact = (int)((nown + 31) / 32 < kClusterWarps ? (nown + 31) / 32 : kClusterWarps);
  R.active = (threadIdx.x >> 5) < nact;
#pragma unroll
  for (int r = 0; r < kClusterRows; r++) {
    R.row[r] = rbeg + threadIdx.x + (int64_t)r * kClusterThreads;
    R.ok[r] = R.row[r] < rend;
    wr[r] = R.ok[r] ? w[R.row[r]] : 0.0;
  }

  /* Pass 1: h = V_j^T w, and w.w (h[nc]). */
  cluster_block_dots(V, ldv, R, wr, nc, true, nact, wsh, part1);
  cluster_gather(cluster, part1, nc + 1, h);
  /* Pass 2: w <- w - V_j h, h2 = V_j^T w. */
  cluster_correct(V, ldv, R, wr, nc, h);
  cluster_block_dots(V, ldv, R, wr, nc, false, nact, wsh, part2);
  cluster_gather(cluster, part2, nc, h2);
  /* Pass 3: w <- w - V_j h2 (back into w), hnext^2 = w.w. */
  cluster_correct(V, ldv, R, wr, nc, h2);
#pragma unroll
  for (int r = 0; r < kClusterRows; r++)
    if (R.ok[r]) w[R.row[r]] = wr[r];
  cluster_block_dots(V, ldv, R, wr, 0, true, nact, wsh, part3);
  cluster_gather(cluster, part3, 1, hh);
  const double hnext = sqrt(hh[0]);

  /* Block 0 closes column j: H(0:j+1, j), the scalars, then the rotations on shared copies. */
  if (rank == 0) {
    double *hcol = S->H + (int64_t)j * ldh;
    for (int c = threadIdx.x; c < nc; c += blockDim.x) {
      const double v = h[c] + h2[c];
      hcol[c] = v;
      col[c] = v;
    }
    if (threadIdx.x == 0) {
      hcol[j + 1] = hnext;
      col[j + 1] = hnext;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      Sl.wnorm = sqrt(h[nc]);
      Sl.hnext = hnext;
      Sl.vnext = 0;
      sps_gmres_close_column(&Sl, col, cs, sn);
      S->wnorm = Sl.wnorm;
      S->hnext = Sl.hnext;
      S->resid = Sl.resid;
      S->it = Sl.it;
      S->j = Sl.j;
      S->status = Sl.status;
      S->vnext = 0;
      S->cs[j] = cs[j];
      S->sn[j] = sn[j];
    }
  }
  cluster.sync();
  if (rank == 0) {
    double *rcol = S->R + (int64_t)j * ldh;
    for (int c = threadIdx.x; c <= j + 1; c += blockDim.x)
      rcol[c] = col[c];
  }
  /* v_{j+1} = w / hnext, as block 0's closing decided. */
  if (*cluster.map_shared_rank(&Sl.vnext, 0)) {
    const double inv = 1.0 / hnext;
    double *vn = V + (int64_t)(j + 1) * ldv;
#pragma unroll
    for (int r = 0; r < kClusterRows; r++)
      if (R.ok[r]) {
        const double v = wr[r] * inv;
        vn[R.row[r]] = v;
        vcur[R.row[r]] = v;
      }
  }
  /* Block 0's shared memory stays until every block has read it. */
  cluster.sync();
#endif
}

/*
 * y <- R_k^-1 g_k (k = S->j) by column-oriented back substitution in one warp: for
 * i = k-1..0, y_i = t_i / r_ii, then lanes update t_l -= r_li y_i for l < i (t = g in shared
 * memory, m+1 doubles). The same order of operations as the CPU backend.
 */
__global__ void gmres_backsolve_kernel(sps_gmres_state *S)
{
  extern __shared__ double t[];
  if (S->status == SPS_GMRES_NAN) return;
  const int k = S->j, ldh = S->m + 1, lane = threadIdx.x;
  const double *R = S->R;
  double *y = S->y;
  for (int l = lane; l < k; l += 32)
    t[l] = S->g[l];
  __syncwarp();
  for (int i = k - 1; i >= 0; i--) {
    const double yi = t[i] / R[i + (int64_t)i * ldh];
    if (lane == 0) y[i] = yi;
    for (int l = lane; l < i; l += 32)
      t[l] -= R[l + (int64_t)i * ldh] * yi;
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

} // namespace

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
  gmres_start_norm_kernel<<<grid, kThreads, 0, s>>>(n, r, S, ticket);
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
  gmres_dots_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, w, S, ticket);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  /* h and kWarps slots of m+1 pairs: 70 KB at m = 512, above the 48 KB a launch gets unless
   * the kernel asks for more (a host-side attribute, allowed while a stream is captured). */
  const size_t cd_bytes = (2 * kWarps + 1) * ldh * sizeof(double);
  if (cd_bytes > 48 * 1024 &&
      (e = cudaFuncSetAttribute(gmres_correct_dots_kernel,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cd_bytes)) !=
          cudaSuccess)
    return e;
  gmres_correct_dots_kernel<<<grid, kThreads, cd_bytes, s>>>(
      n, V, ldv, w, S, ticket);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  gmres_correct_norm_kernel<<<grid, kThreads, 4 * ldh * sizeof(double), s>>>(n, V, ldv, w, S,
                                                                             ticket);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  gmres_normalize_kernel<<<grid, kThreads, 0, s>>>(n, V, ldv, w, vcur, S);
  return cudaGetLastError();
}

/* 1 when the cluster kernel was built for compute_90 or later (an sm_80-only build, or its PTX
 * JIT-compiled for a newer device, has the empty body). */
extern "C" int sps_cuda_gmres_cluster_built(void)
{
  cudaFuncAttributes fa;
  if (cudaFuncGetAttributes(&fa, gmres_arnoldi_cluster_kernel) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  if (fa.ptxVersion < 90) return 0;
  /* 16 blocks is above the portable cluster size (8): allowed on Hopper where a GPC has 16
   * SMs free, which the occupancy query confirms on this device. 16 SMs rather than 8 halve
   * the FP64 work of the compensated sums on each. */
  if (cudaFuncSetAttribute(gmres_arnoldi_cluster_kernel,
                           cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kClusterBlocks;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kClusterBlocks, 1, 1);
  cfg.blockDim = dim3(kClusterThreads, 1, 1);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, gmres_arnoldi_cluster_kernel, &cfg) !=
      cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return clusters >= 1;
}

extern "C" int sps_cuda_gmres_cluster_fits(int64_t n, int m)
{
  return n >= 0 && n <= kClusterMaxN && m >= 1 && m <= kClusterMaxM;
}

extern "C" cudaError_t sps_cuda_gmres_arnoldi_cluster(cudaStream_t s, int64_t n, int m, double *V,
                                                      int64_t ldv, double *w, double *vcur,
                                                      sps_gmres_state *S)
{
  if (!sps_cuda_gmres_cluster_fits(n, m)) return cudaErrorInvalidValue;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kClusterBlocks;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kClusterBlocks, 1, 1);
  cfg.blockDim = dim3(kClusterThreads, 1, 1);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaError_t e = cudaLaunchKernelEx(&cfg, gmres_arnoldi_cluster_kernel, n, V, ldv, w, vcur, S);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_gmres_update(cudaStream_t s, unsigned max_blocks, int64_t n, int m,
                                             const double *V, int64_t ldv, sps_gmres_state *S,
                                             double *u)
{
  const size_t ldh = (size_t)m + 1;
  gmres_backsolve_kernel<<<1, 32, ldh * sizeof(double), s>>>(S);
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
