/* gmres_cluster.cu: GMRES(m) Arnoldi steps run by one thread-block cluster (Hopper and later)
 * for small n: one CGS2 step after the solver's SpMV, or a run of whole inner iterations with
 * w = A v_j computed inside (the fused cycle), one launch for the run.
 *
 * The step is the one of gmres_steps.cu (dots, correct_dots, correct_norm, normalize), in
 * the same floating-point operations and so with the same bits as the CPU backend:
 *   h = V_j^T w and w.w; w <- w - V_j h; h2 = V_j^T w; w <- w - V_j h2; hnext = ||w||;
 *   H(0:j+1, j) = (h + h2, hnext); the rotations, g and the status
 *   (sps_gmres_close_column); v_{j+1} = w * (1/hnext) into V(:, j+1).
 * The grid reductions go through distributed shared memory instead of global partials,
 * tickets and kernel boundaries, so a step costs three cluster barriers and a few L2 round
 * trips. The fused cycle adds the SpMV: w_i = sum_k a_ik x_k, each row a compensated sum of
 * the rounded products (as every compensated SpMV variant rounds it: csr-scalar's bits), with
 * x = V(:, j) read from L2 on a run's first step and, on the later ones, x_k = w_k * (1/hnext)
 * from the previous step's w (the same bits as V(k, j)), which every block wrote before the
 * previous step's last barrier: so a fused inner iteration needs no barrier of its own and
 * no launch, where SpMV plus step cost two launches (about 5 us on an H200) and five barriers.
 *
 * Thread-to-data map: kClusterBlocks blocks of kClusterThreads threads; block b owns the
 * contiguous rows [b*nb, min(n, (b+1)*nb)), nb = ceil(n / kClusterBlocks), and thread t of it
 * the rows b*nb + t + r*kClusterThreads, r < kClusterRows (coalesced per r), held in registers
 * for the whole step (V(i, c) for its own rows is read and written by the same thread only).
 * Each reduction (V_j^T w with w.w, V_j^T w, w.w) sums over the warp by shuffles, over the
 * warps into the block's part array, and, after a cluster barrier, over the blocks, read
 * through map_shared_rank (compensated sums by fixed trees throughout): every block then holds
 * the same bits of every total. So every block closes the column itself, on its own shared
 * copies of the scalars, the rotations and g, and all of them reach the same status and the
 * same v_{j+1} without another barrier; block 0 alone writes H, R, g, the rotations, the
 * history and the scalars back to the state. In the fused SpMV a thread sums each of its rows
 * of at most kThreadRowMax entries alone, in chunks of kRowChunk loads in flight; longer rows
 * are cut into segments of kSegment entries that all warps of the block share, one warp a
 * segment (lane l takes entries l + 32u), and the row's thread merges its segments' sums
 * (compensated throughout, so the same bits as the row summed in order).
 *
 * Limits: n <= kClusterMaxN (16384), m <= kClusterMaxM (64); a cluster of 16 blocks is above
 * the portable size (8) and is checked at context creation (sps_cuda_gmres_cluster_built).
 */
#include <cstdint>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../krylov_state.h"
#include "reduce.cuh"

namespace
{

using sps_reduce::csum;
using sps_reduce::warp_sum;

constexpr int kClusterBlocks = 16;
constexpr int kClusterThreads = 512;
constexpr int kClusterRows = 2;
constexpr int64_t kClusterMaxN = (int64_t)kClusterBlocks * kClusterThreads * kClusterRows;
constexpr int kClusterMaxM = 64;
/* Fused SpMV: the longest row a thread sums alone; longer rows are cut into segments of
 * kSegment entries, at most kMaxSegments in a block, that the block's warps share. */
constexpr int kThreadRowMax = 32;
constexpr int kLongChunk = 2;
constexpr int kSegment = 32 * kLongChunk;
constexpr int kMaxSegments = 1024;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

namespace cg = cooperative_groups;

/* Columns whose sums a sweep keeps in registers at once. */
constexpr int kGroup = 8;
/* Loads in flight per chunk of a short row in the fused SpMV. */
constexpr int kRowChunk = 8;

constexpr int kClusterWarps = kClusterThreads / 32;
/* Sums of a reduction: j+1 <= m column dots and w.w. */
constexpr int kClusterSums = kClusterMaxM + 1;

/* The rows of this thread: V(row[r], c) = V[row[r] + c*ldv] when ok[r]. nslots (the same in
 * the block) counts the slots r that hold a row in some thread of the block, active (the same
 * in the warp) says whether the warp holds any row: the sums skip the rest. */
struct cluster_rows {
  int row[kClusterRows]; /* n <= kClusterMaxN: rows fit an int */
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

/* Each block's shared memory: the reduction slots and parts, the totals, and its own copies
 * of the state's scalars, the rotations and g (the same bits in every block). */
struct cluster_shared {
  csum wsh[kClusterSums * kClusterWarps];
  csum part1[kClusterSums], part2[kClusterSums], part3[1];
  double h[kClusterSums], h2[kClusterSums], hh[1];
  double col[kClusterSums + 1], cs[kClusterSums], sn[kClusterSums], g[kClusterSums + 1];
  sps_gmres_state Sl;
};

/* The fused kernel's list of long-row segments: item = the row's slot in the block
 * (threadIdx.x + r*kClusterThreads, 10 bits) | its segment << 10; seg_sum: the segment's sum. */
struct fused_shared {
  int32_t seg_item[kMaxSegments];
  csum seg_sum[kMaxSegments];
  int nseg;
};

/* This thread's rows (the map in the file's header) and nact, the block's warps holding rows. */
__device__ inline cluster_rows cluster_rows_of(int64_t n, unsigned rank, int *nact)
{
  const int64_t nb = (n + kClusterBlocks - 1) / kClusterBlocks;
  const int64_t rbeg = rank * nb, rend = rbeg + nb < n ? rbeg + nb : n;
  const int64_t nown = rend > rbeg ? rend - rbeg : 0;
  cluster_rows R;
  R.nslots = (int)((nown + kClusterThreads - 1) / kClusterThreads);
  *nact = (int)((nown + 31) / 32 < kClusterWarps ? (nown + 31) / 32 : kClusterWarps);
  R.active = (int)(threadIdx.x >> 5) < *nact;
#pragma unroll
  for (int r = 0; r < kClusterRows; r++) {
    R.row[r] = (int)rbeg + (int)threadIdx.x + r * kClusterThreads;
    R.ok[r] = R.row[r] < rend;
  }
  return R;
}

/* The block's copies of the state: the scalars (g pointing at the shared copy; the history
 * written by block 0 alone), the rotations 0..j-1 and g. Ends with a block barrier. */
__device__ inline void cluster_open(const sps_gmres_state *S, cluster_shared &sh, unsigned rank)
{
  if (threadIdx.x == 0) {
    sh.Sl = *S;
    sh.Sl.g = sh.g;
    if (rank != 0) sh.Sl.history = nullptr;
  }
  const int j = S->j, m = S->m;
  for (int c = threadIdx.x; c < j; c += blockDim.x) {
    sh.cs[c] = S->cs[c];
    sh.sn[c] = S->sn[c];
  }
  for (int c = threadIdx.x; c <= m; c += blockDim.x)
    sh.g[c] = S->g[c];
  __syncthreads();
}

/* Block 0 writes the scalars back; v_{j+1} is written, so vnext is left 0. */
__device__ inline void cluster_save(sps_gmres_state *S, const cluster_shared &sh, unsigned rank)
{
  if (rank != 0 || threadIdx.x != 0) return;
  S->wnorm = sh.Sl.wnorm;
  S->hnext = sh.Sl.hnext;
  S->resid = sh.Sl.resid;
  S->it = sh.Sl.it;
  S->j = sh.Sl.j;
  S->status = sh.Sl.status;
  S->vnext = 0;
}

/*
 * One CGS2 step on column j = sh.Sl.j with w (this thread's rows) in wr. The orthogonalised w
 * goes to w_out (when not NULL) before the last barrier, v_{j+1} to V(:, j+1) and, when not
 * NULL, vcur. Returns the new status (the same in every thread of the cluster) and leaves
 * 1/hnext in *inv. Three cluster barriers.
 */
__device__ inline int cluster_step(cg::cluster_group &cluster, cluster_shared &sh,
                                   const cluster_rows &R, int nact, double (&wr)[kClusterRows],
                                   double *V, int64_t ldv, double *w_out, double *vcur,
                                   sps_gmres_state *S, unsigned rank, double *inv)
{
  const int j = sh.Sl.j, nc = j + 1, ldh = sh.Sl.m + 1;
  /* Pass 1: h = V_j^T w, and w.w (h[nc]). */
  cluster_block_dots(V, ldv, R, wr, nc, true, nact, sh.wsh, sh.part1);
  cluster_gather(cluster, sh.part1, nc + 1, sh.h);
  /* Pass 2: w <- w - V_j h, h2 = V_j^T w. */
  cluster_correct(V, ldv, R, wr, nc, sh.h);
  cluster_block_dots(V, ldv, R, wr, nc, false, nact, sh.wsh, sh.part2);
  cluster_gather(cluster, sh.part2, nc, sh.h2);
  /* Pass 3: w <- w - V_j h2, hnext^2 = w.w. */
  cluster_correct(V, ldv, R, wr, nc, sh.h2);
  if (w_out) {
#pragma unroll
    for (int r = 0; r < kClusterRows; r++)
      if (R.ok[r]) w_out[R.row[r]] = wr[r];
  }
  cluster_block_dots(V, ldv, R, wr, 0, true, nact, sh.wsh, sh.part3);
  cluster_gather(cluster, sh.part3, 1, sh.hh);
  const double hnext = sqrt(sh.hh[0]);

  /* Close column j in every block: H(0:j+1, j) into col (block 0 also into H), then the
   * rotations on the block's copies (thread 0). */
  double *hcol = S->H + (int64_t)j * ldh;
  for (int c = threadIdx.x; c <= nc; c += blockDim.x) {
    const double v = c < nc ? sh.h[c] + sh.h2[c] : hnext;
    sh.col[c] = v;
    if (rank == 0) hcol[c] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sh.Sl.wnorm = sqrt(sh.h[nc]);
    sh.Sl.hnext = hnext;
    sh.Sl.vnext = 0;
    sps_gmres_close_column(&sh.Sl, sh.col, sh.cs, sh.sn);
  }
  __syncthreads();
  if (rank == 0 && sh.Sl.j == j + 1) {
    /* The column was closed (not NaN or breakdown): R(0:j+1, j), rotation j, g_j, g_{j+1}. */
    double *rcol = S->R + (int64_t)j * ldh;
    for (int c = threadIdx.x; c <= nc; c += blockDim.x)
      rcol[c] = sh.col[c];
    if (threadIdx.x == 0) {
      S->cs[j] = sh.cs[j];
      S->sn[j] = sh.sn[j];
      S->g[j] = sh.g[j];
      S->g[j + 1] = sh.g[j + 1];
    }
  }
  *inv = 1.0 / hnext;
  if (sh.Sl.vnext) {
    double *vn = V + (int64_t)(j + 1) * ldv;
#pragma unroll
    for (int r = 0; r < kClusterRows; r++)
      if (R.ok[r]) {
        const double v = wr[r] * *inv;
        vn[R.row[r]] = v;
        if (vcur) vcur[R.row[r]] = v;
      }
  }
  return sh.Sl.status;
}

/* x_k of the fused SpMV: V(k, j) from L2, or w_k * (1/hnext) of the previous step. */
__device__ inline double fused_x(const double *src, int32_t k, bool scaled, double inv)
{
  const double v = __ldcg(&src[k]);
  return scaled ? v * inv : v;
}

/* The sum of entries first, first + stride, ... (below end) of a row, added in that order,
 * x as fused_x reads it, kLoads of them in flight at a time: a short row by its thread
 * (stride 1), a lane's part of a long row's segment (stride 32). */
template <int kLoads>
__device__ inline csum strided_sum(const int32_t *__restrict__ colind,
                                   const double *__restrict__ values, int32_t first, int32_t end,
                                   int stride, const double *src, bool scaled, double inv)
{
  csum acc = sps_csum_zero();
  for (int32_t k0 = first; k0 < end; k0 += kLoads * stride) {
    int32_t c[kLoads];
    double v[kLoads], x[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; u++)
      if (k0 + u * stride < end) {
        c[u] = __ldg(&colind[k0 + u * stride]);
        v[u] = __ldg(&values[k0 + u * stride]);
      }
#pragma unroll
    for (int u = 0; u < kLoads; u++)
      if (k0 + u * stride < end) x[u] = fused_x(src, c[u], scaled, inv);
#pragma unroll
    for (int u = 0; u < kLoads; u++)
      if (k0 + u * stride < end) sps_csum_add(&acc, v[u] * x[u]);
  }
  return acc;
}

/*
 * The block's list of long-row segments (fused_shared), built once per launch: row slot r of
 * this thread gets first[r], the index of its first segment, or -1 for a short row. The order
 * of the list depends on the atomics, which only decides which warp sums which segment.
 * Ends with a block barrier.
 */
__device__ inline void fused_segments(fused_shared &fs, const cluster_rows &R,
                                      const int32_t (&rb)[kClusterRows],
                                      const int32_t (&re)[kClusterRows], int (&first)[kClusterRows])
{
  if (threadIdx.x == 0) fs.nseg = 0;
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kClusterRows; r++) {
    first[r] = -1;
    const int32_t len = re[r] - rb[r];
    if (R.ok[r] && len > kThreadRowMax) {
      const int ns = (len + kSegment - 1) / kSegment;
      first[r] = atomicAdd(&fs.nseg, ns);
      /* sps_cuda_gmres_fused_segments_fit checked at setup that the list fits */
      for (int q = 0; q < ns && first[r] + q < kMaxSegments; q++)
        fs.seg_item[first[r] + q] = ((int)threadIdx.x + r * kClusterThreads) | (q << 10);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && fs.nseg > kMaxSegments) fs.nseg = kMaxSegments;
  __syncthreads();
}

/*
 * wr[r] <- (A x)_row[r] for this thread's rows (rows from rbeg, entries [rb, re)), x as
 * fused_x reads it. The block's warps first share the long rows' segments, lane l of a warp
 * taking entries l + 32u (u < kLongChunk) of one and the xor tree merging them into
 * fs.seg_sum; each thread sums its short rows alone, then, after a block barrier, merges the
 * segments of its long rows. Every thread of the block calls it.
 */
__device__ inline void cluster_spmv(const int32_t *__restrict__ rowptr,
                                          const int32_t *__restrict__ colind,
                                          const double *__restrict__ values, const cluster_rows &R,
                                          int rbeg, const int32_t (&rb)[kClusterRows],
                                          const int32_t (&re)[kClusterRows],
                                          const int (&first)[kClusterRows], fused_shared &fs,
                                          const double *src, bool scaled, double inv,
                                          double (&wr)[kClusterRows])
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  /* nseg is the same in the whole block: without long rows, no segment pass and no barrier. */
  const int nseg = fs.nseg;
  for (int e = warp; e < nseg; e += kClusterWarps) {
    const int item = fs.seg_item[e];
    const int row = rbeg + (item & 1023);
    const int32_t b = __ldg(&rowptr[row]) + (item >> 10) * kSegment;
    const int32_t rowend = __ldg(&rowptr[row + 1]);
    const int32_t end = rowend < b + kSegment ? rowend : b + kSegment;
    /* end - b <= kSegment = 32 * kLongChunk: one round of kLongChunk loads a lane */
    csum t = strided_sum<kLongChunk>(colind, values, b + lane, end, 32, src, scaled, inv);
    t = xor_sum<32>(t);
    if (lane == 0) fs.seg_sum[e] = t;
  }
  csum acc[kClusterRows];
#pragma unroll
  for (int r = 0; r < kClusterRows; r++)
    acc[r] = r < R.nslots && R.ok[r] && first[r] < 0
                 ? strided_sum<kRowChunk>(colind, values, rb[r], re[r], 1, src, scaled, inv)
                 : sps_csum_zero();
  if (nseg > 0) __syncthreads();
#pragma unroll
  for (int r = 0; r < kClusterRows; r++) {
    if (first[r] >= 0) {
      const int ns = (re[r] - rb[r] + kSegment - 1) / kSegment;
      for (int q = 0; q < ns && first[r] + q < kMaxSegments; q++)
        sps_csum_merge(&acc[r], fs.seg_sum[first[r] + q]);
    }
    wr[r] = R.ok[r] ? sps_csum_value(acc[r]) : 0.0;
  }
}

#endif /* __CUDA_ARCH__ >= 900 */

/*
 * One Arnoldi step (j = S->j) after the solver's w <- A M^-1 vcur: cluster_step on w, which is
 * left orthogonalised in w; v_{j+1} into V(:, j+1) and vcur. Every thread reaches each
 * barrier (the status test comes first and is the same in every block).
 */
__global__ void __launch_bounds__(kClusterThreads, 1)
    gmres_arnoldi_cluster_kernel(int64_t n, double *__restrict__ V, int64_t ldv,
                                 double *__restrict__ w, double *__restrict__ vcur,
                                 sps_gmres_state *S)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ cluster_shared sh;
  if (S->status != SPS_GMRES_RUNNING) return;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  cluster_open(S, sh, rank);
  int nact;
  const cluster_rows R = cluster_rows_of(n, rank, &nact);
  double wr[kClusterRows];
#pragma unroll
  for (int r = 0; r < kClusterRows; r++)
    wr[r] = R.ok[r] ? w[R.row[r]] : 0.0;
  double inv;
  cluster_step(cluster, sh, R, nact, wr, V, ldv, w, vcur, S, rank, &inv);
  cluster_save(S, sh, rank);
  /* Each block's parts stay until every block has read them. */
  cluster.sync();
#endif
}

/*
 * Up to `count` inner iterations without a preconditioner: w = A v_j (fused SpMV) and the
 * step, until the status leaves RUNNING. w: n doubles of scratch (the orthogonalised w of
 * each step, read by the next step's SpMV). V(:, j+1) is written by every step that asks for
 * it; vcur is not used.
 */
__global__ void __launch_bounds__(kClusterThreads, 1)
    gmres_cycle_cluster_kernel(int64_t n, const int32_t *__restrict__ rowptr,
                               const int32_t *__restrict__ colind,
                               const double *__restrict__ values, double *__restrict__ V,
                               int64_t ldv, double *__restrict__ w, sps_gmres_state *S, int count)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ cluster_shared sh;
  __shared__ fused_shared fs;
  if (S->status != SPS_GMRES_RUNNING || count < 1) return;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  cluster_open(S, sh, rank);
  int nact;
  const cluster_rows R = cluster_rows_of(n, rank, &nact);
  int32_t rb[kClusterRows], re[kClusterRows];
#pragma unroll
  for (int r = 0; r < kClusterRows; r++) {
    rb[r] = R.ok[r] ? __ldg(&rowptr[R.row[r]]) : 0;
    re[r] = R.ok[r] ? __ldg(&rowptr[R.row[r] + 1]) : 0;
  }
  int first[kClusterRows];
  fused_segments(fs, R, rb, re, first);
  const int rbeg = R.row[0] - (int)threadIdx.x;
  double wr[kClusterRows], inv = 1.0;
  for (int k = 0; k < count; k++) {
    const int j = sh.Sl.j;
    /* The first step reads v_j from V; the later ones w * (1/hnext) of the step before. */
    if (k == 0)
      cluster_spmv(rowptr, colind, values, R, rbeg, rb, re, first, fs, V + (int64_t)j * ldv,
                   false, 1.0, wr);
    else
      cluster_spmv(rowptr, colind, values, R, rbeg, rb, re, first, fs, w, true, inv, wr);
    if (cluster_step(cluster, sh, R, nact, wr, V, ldv, w, nullptr, S, rank, &inv) !=
        SPS_GMRES_RUNNING)
      break;
  }
  cluster_save(S, sh, rank);
  cluster.sync();
#endif
}

/* The launch configuration of one cluster of kClusterBlocks blocks of kClusterThreads on
 * stream s; cfg points at attr, so it is built in place and never copied. */
struct cluster_config {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg;
  explicit cluster_config(cudaStream_t s)
  {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = kClusterBlocks;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg = {};
    cfg.gridDim = dim3(kClusterBlocks, 1, 1);
    cfg.blockDim = dim3(kClusterThreads, 1, 1);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  cluster_config(const cluster_config &) = delete;
  cluster_config &operator=(const cluster_config &) = delete;
};

template <typename... P, typename... A>
cudaError_t cluster_launch(void (*f)(P...), cudaStream_t s, A... args)
{
  cluster_config c(s);
  cudaError_t e = cudaLaunchKernelEx(&c.cfg, f, args...);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

/* Whether one cluster of f runs on this device: built for compute_90 or later (an sm_80-only
 * build, or its PTX JIT-compiled for a newer device, has an empty body), the non-portable
 * size allowed, and the occupancy query finding room for it. */
template <typename... P> int cluster_fits_device(void (*f)(P...))
{
  cudaFuncAttributes fa;
  if (cudaFuncGetAttributes(&fa, f) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  if (fa.ptxVersion < 90) return 0;
  if (cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  cluster_config c(0);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, f, &c.cfg) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return clusters >= 1;
}

} // namespace

/* 1 when both cluster kernels run on this device (cluster_fits_device): 16 blocks is above the
 * portable cluster size (8), allowed on Hopper where a GPC has 16 SMs free. 16 SMs rather
 * than 8 halve the FP64 work of the compensated sums on each. */
extern "C" int sps_cuda_gmres_cluster_built(void)
{
  return cluster_fits_device(gmres_arnoldi_cluster_kernel) &&
         cluster_fits_device(gmres_cycle_cluster_kernel);
}

extern "C" int sps_cuda_gmres_cluster_fits(int64_t n, int m)
{
  return n >= 0 && n <= kClusterMaxN && m >= 1 && m <= kClusterMaxM;
}

extern "C" int sps_cuda_gmres_fused_segments_fit(int64_t n, const int64_t *rowptr)
{
  if (n < 0 || n > kClusterMaxN) return 0;
  const int64_t nb = (n + kClusterBlocks - 1) / kClusterBlocks;
  for (int64_t b0 = 0; b0 < n; b0 += nb) {
    int64_t segs = 0;
    for (int64_t i = b0; i < n && i < b0 + nb; i++) {
      const int64_t len = rowptr[i + 1] - rowptr[i];
      if (len > kThreadRowMax) segs += (len + kSegment - 1) / kSegment;
    }
    if (segs > kMaxSegments) return 0;
  }
  return 1;
}

extern "C" cudaError_t sps_cuda_gmres_arnoldi_cluster(cudaStream_t s, int64_t n, int m, double *V,
                                                      int64_t ldv, double *w, double *vcur,
                                                      sps_gmres_state *S)
{
  if (!sps_cuda_gmres_cluster_fits(n, m)) return cudaErrorInvalidValue;
  return cluster_launch(gmres_arnoldi_cluster_kernel, s, n, V, ldv, w, vcur, S);
}

extern "C" cudaError_t sps_cuda_gmres_cycle_cluster(cudaStream_t s, int64_t n, int m,
                                                    const int32_t *rowptr, const int32_t *colind,
                                                    const double *values, double *V, int64_t ldv,
                                                    double *w, sps_gmres_state *S, int count)
{
  if (!sps_cuda_gmres_cluster_fits(n, m) || !rowptr || count < 0) return cudaErrorInvalidValue;
  return cluster_launch(gmres_cycle_cluster_kernel, s, n, rowptr, colind, values, V, ldv, w, S,
                        count);
}
