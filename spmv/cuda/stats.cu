/* stats.cu: the statistics kernel, the integer sums of a sparsity pattern (sps_stats_sums) from the device CSR arrays in one launch, so that AUTO's choice costs less than two SpMVs.
 *
 * Thread-to-data map: the merged list of the nrows row ends and the nnz entries (Merrill and
 * Garland, SC'16; the merge variant's order) is cut into tiles of kTile = kThreads*kItems
 * items; the blocks take the tiles in a grid-stride loop. For a tile [d0, d1), warps 0 and 1
 * find the path coordinates (i0, j0) and (i1, j1) by a 32-way search of the row offsets (one
 * load per lane and a ballot per round, about five rounds for 10^7 rows). The block loads the
 * tile's row offsets rowptr[i0..i1] and column indices colind[j0..j1) into shared memory,
 * then thread t walks items [t*kItems, (t+1)*kItems) of the tile from the coordinate its own
 * binary search in shared memory gives: a row end adds the row's length to the row sums
 * (len - k, (len - k)^2 in 128 bits, extremes, the counts of empty, > 32, > 1024 and
 * blockwise-long rows, the long rows' parts); an entry adds |col - row| (128 bits) and counts
 * a window when it is its row's first or col/32 differs from the previous column. So every
 * thread does the same work whatever the row lengths: a row of 10^6 entries is spread over
 * many tiles, and empty rows cost one item each.
 * Each thread keeps its sums in registers across tiles; at the end the block adds them with
 * warp shuffles and one pass over shared memory, and thread 0 adds the block's
 * SPS_STATS_WORDS words into the context's device words with 64-bit atomics (a carry into the
 * high word of the 128-bit sums from the value atomicAdd returns). The last block to take a
 * ticket reads the words back with atomicExch (leaving them zero for the next launch) and
 * writes them into mapped pinned host memory, so the host issues no memset and no copy, only
 * the launch and a stream synchronisation. Every word is an integer sum or maximum, so the
 * result is the CPU reference's (spmv/ref/stats.c) to the bit in any order. A launch that dies
 * half-way leaves the words dirty; the context is then unusable anyway (a sticky error).
 * Memory access: row offsets (int32 when the matrix has that copy) and column indices are
 * read once, coalesced, into shared memory (plus about ten row offsets per tile for the
 * searches, mostly from L2); no values, no x, no y: about a third of a CSR SpMV's traffic.
 * The walk reads shared memory only. The fixed cost is the launch and the synchronisation
 * (spmv/stats.c measures small matrices on the host, where that would dominate).
 */
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
/* Items a thread walks per tile; odd, so that neighbouring threads' shared-memory runs fall
 * in different banks more often. */
constexpr int kItems = 7;
constexpr int kTile = kThreads * kItems;
/* Four resident blocks an SM (1024 threads) cap the kernel at 64 registers; the walk with
 * the columns would otherwise take 73, and three blocks leave fewer loads in flight. */
constexpr int kMinBlocks = 4;

/* The words of sps_stats_sums, in its order, then the last-block ticket. */
enum {
  kS1, kS2Lo, kS2Hi, kMinInv, kMaxLen, kEmpty, kOver32, kOver1024, kLongRows, kLongBlocks,
  kDistLo, kDistHi, kWindows, kTicket
};
static_assert(kTicket == SPS_STATS_WORDS, "sps_stats_sums has SPS_STATS_WORDS words");
static_assert(sizeof(sps_stats_sums) == SPS_STATS_WORDS * sizeof(uint64_t),
              "sps_stats_sums is an array of 64-bit words");
static_assert(offsetof(sps_stats_sums, s2_hi) == kS2Hi * sizeof(uint64_t) &&
                  offsetof(sps_stats_sums, min_inv) == kMinInv * sizeof(uint64_t) &&
                  offsetof(sps_stats_sums, long_blocks) == kLongBlocks * sizeof(uint64_t) &&
                  offsetof(sps_stats_sums, dist_lo) == kDistLo * sizeof(uint64_t) &&
                  offsetof(sps_stats_sums, windows) == kWindows * sizeof(uint64_t),
              "the word indices follow sps_stats_sums");

typedef unsigned long long u64;

/* (hi, lo) += x in 128 bits. */
__device__ __forceinline__ void add128(u64 &lo, u64 &hi, u64 x)
{
  lo += x;
  hi += lo < x;
}

/* Rows whose end lies before item d of the merged list: #{r < m : rowptr[r+1] + r < d}, by a
 * 32-way search (every lane of the warp calls it; all get the answer). */
template <typename Off>
__device__ int64_t path_rows(const Off *__restrict__ rowptr, int64_t m, int64_t nnz, int64_t d,
                             int lane)
{
  /* All r < lo satisfy the test, no r >= hi does. */
  int64_t lo = d - nnz > 0 ? d - nnz : 0;
  int64_t hi = d < m ? d : m;
  while (lo < hi) {
    const int64_t step = (hi - lo + 31) / 32;
    const int64_t r = lo + lane * step;
    const bool pred = r < hi && (int64_t)__ldg(&rowptr[r + 1]) + r < d;
    const int c = __popc(__ballot_sync(0xffffffffu, pred));
    if (c == 0) {
      hi = lo;
    } else {
      const int64_t nlo = lo + (c - 1) * step + 1;
      if (lo + c * step < hi) hi = lo + c * step;
      lo = nlo;
    }
  }
  return lo;
}

template <typename Off, bool Columns>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    stats_kernel(int64_t m, int64_t nnz, const Off *__restrict__ rowptr,
                 const int32_t *__restrict__ colind, int64_t k, u64 *__restrict__ out,
                 u64 *__restrict__ host)
{
  __shared__ int64_t sh_rp[kTile + 1];
  __shared__ int32_t sh_ci[Columns ? kTile : 1];
  __shared__ int64_t sh_i[2];
  __shared__ u64 sh_red[kWarps][SPS_STATS_WORDS];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t total = m + nnz;
  u64 a[SPS_STATS_WORDS];
#pragma unroll
  for (int w = 0; w < SPS_STATS_WORDS; w++) a[w] = 0;

  for (int64_t d0 = (int64_t)blockIdx.x * kTile; d0 < total; d0 += (int64_t)gridDim.x * kTile) {
    const int64_t d1 = d0 + kTile < total ? d0 + kTile : total;
    if (warp < 2) {
      const int64_t i = path_rows(rowptr, m, nnz, warp ? d1 : d0, lane);
      if (lane == 0) sh_i[warp] = i;
    }
    __syncthreads();
    const int64_t i0 = sh_i[0], i1 = sh_i[1];
    const int64_t j0 = d0 - i0, j1 = d1 - i1;
    const int nrow = (int)(i1 - i0); /* rows that end in the tile */
    const int nent = (int)(j1 - j0); /* entries in the tile */
    for (int t = threadIdx.x; t <= nrow; t += kThreads)
      sh_rp[t] = (int64_t)__ldg(&rowptr[i0 + t]);
    if (Columns)
      for (int t = threadIdx.x; t < nent; t += kThreads) sh_ci[t] = __ldg(&colind[j0 + t]);
    __syncthreads();

    const int dt = threadIdx.x * kItems;
    const int dlen = (int)(d1 - d0);
    if (dt < dlen) {
      /* This thread's coordinate: the tile's rows ending before local item dt. */
      int lo = dt - nent > 0 ? dt - nent : 0, hi = dt < nrow ? dt : nrow;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (sh_rp[mid + 1] - j0 + mid < dt)
          lo = mid + 1;
        else
          hi = mid;
      }
      int ri = lo;
      int ej = dt - ri;
      const int dend = dt + kItems < dlen ? dt + kItems : dlen;
      for (int dd = dt; dd < dend; dd++) {
        if (ri < nrow && sh_rp[ri + 1] - j0 <= ej) {
          /* The end of row i0 + ri. */
          const int64_t len = sh_rp[ri + 1] - sh_rp[ri];
          const int64_t dv = len - k;
          const u64 ad = (u64)(dv < 0 ? -dv : dv);
          a[kS1] += (u64)dv;
          add128(a[kS2Lo], a[kS2Hi], ad * ad);
          if (~(u64)len > a[kMinInv]) a[kMinInv] = ~(u64)len;
          if ((u64)len > a[kMaxLen]) a[kMaxLen] = (u64)len;
          a[kEmpty] += len == 0;
          a[kOver32] += len > 32;
          a[kOver1024] += len > 1024;
          if (len > SPS_BLOCKWISE_LONG) {
            a[kLongRows]++;
            a[kLongBlocks] += (u64)((len + SPS_BLOCKWISE_PART_NNZ - 1) / SPS_BLOCKWISE_PART_NNZ);
          }
          ri++;
        } else {
          /* Entry j0 + ej of row i0 + ri. */
          if (Columns) {
            const int64_t p = j0 + ej, r = i0 + ri;
            const int32_t c = sh_ci[ej];
            add128(a[kDistLo], a[kDistHi], (u64)(c > r ? c - r : r - c));
            if (p == sh_rp[ri]) {
              a[kWindows]++;
            } else {
              const int32_t prev = ej > 0 ? sh_ci[ej - 1] : __ldg(&colind[p - 1]);
              a[kWindows] += (c >> 5) != (prev >> 5);
            }
          }
          ej++;
        }
      }
    }
    __syncthreads(); /* the shared tile is reloaded next round */
  }

  /* The block's sums: warp shuffles, then warp 0 over the warps' words. */
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    u64 o[SPS_STATS_WORDS];
#pragma unroll
    for (int w = 0; w < SPS_STATS_WORDS; w++) o[w] = __shfl_down_sync(0xffffffffu, a[w], off);
    a[kS1] += o[kS1];
    add128(a[kS2Lo], a[kS2Hi], o[kS2Lo]);
    a[kS2Hi] += o[kS2Hi];
    a[kMinInv] = o[kMinInv] > a[kMinInv] ? o[kMinInv] : a[kMinInv];
    a[kMaxLen] = o[kMaxLen] > a[kMaxLen] ? o[kMaxLen] : a[kMaxLen];
    a[kEmpty] += o[kEmpty];
    a[kOver32] += o[kOver32];
    a[kOver1024] += o[kOver1024];
    a[kLongRows] += o[kLongRows];
    a[kLongBlocks] += o[kLongBlocks];
    add128(a[kDistLo], a[kDistHi], o[kDistLo]);
    a[kDistHi] += o[kDistHi];
    a[kWindows] += o[kWindows];
  }
  if (lane == 0)
#pragma unroll
    for (int w = 0; w < SPS_STATS_WORDS; w++) sh_red[warp][w] = a[w];
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int v = 1; v < kWarps; v++) {
    a[kS1] += sh_red[v][kS1];
    add128(a[kS2Lo], a[kS2Hi], sh_red[v][kS2Lo]);
    a[kS2Hi] += sh_red[v][kS2Hi];
    a[kMinInv] = sh_red[v][kMinInv] > a[kMinInv] ? sh_red[v][kMinInv] : a[kMinInv];
    a[kMaxLen] = sh_red[v][kMaxLen] > a[kMaxLen] ? sh_red[v][kMaxLen] : a[kMaxLen];
    a[kEmpty] += sh_red[v][kEmpty];
    a[kOver32] += sh_red[v][kOver32];
    a[kOver1024] += sh_red[v][kOver1024];
    a[kLongRows] += sh_red[v][kLongRows];
    a[kLongBlocks] += sh_red[v][kLongBlocks];
    add128(a[kDistLo], a[kDistHi], sh_red[v][kDistLo]);
    a[kDistHi] += sh_red[v][kDistHi];
    a[kWindows] += sh_red[v][kWindows];
  }
  /* Into the result; zero words are skipped (most blocks have no long row). */
  const int sums[] = {kS1, kEmpty, kOver32, kOver1024, kLongRows, kLongBlocks, kWindows};
  for (int w : sums)
    if (a[w]) atomicAdd(&out[w], a[w]);
  if (a[kMinInv]) atomicMax(&out[kMinInv], a[kMinInv]);
  if (a[kMaxLen]) atomicMax(&out[kMaxLen], a[kMaxLen]);
  const int wide[] = {kS2Lo, kDistLo}; /* low words; the high word follows each */
  for (int w : wide) {
    u64 hi = a[w + 1];
    if (a[w]) {
      const u64 old = atomicAdd(&out[w], a[w]);
      hi += old + a[w] < old; /* the carry out of the low word */
    }
    if (hi) atomicAdd(&out[w + 1], hi);
  }
  /* The last block to arrive hands the words to the host and leaves them zero for the next
   * launch (so no memset and no copy are issued). */
  __threadfence();
  if (atomicAdd(&out[kTicket], 1ull) != gridDim.x - 1) return;
  __threadfence();
  for (int w = 0; w < SPS_STATS_WORDS; w++) host[w] = atomicExch(&out[w], 0ull);
  atomicExch(&out[kTicket], 0ull);
}

template <typename Off>
cudaError_t launch(cudaStream_t stream, int sm_count, int64_t m, int64_t nnz, const Off *rowptr,
                   const int32_t *colind, int columns, int64_t k, u64 *out, u64 *host)
{
  const int64_t tiles = (m + nnz + kTile - 1) / kTile;
  /* Resident blocks an SM, asked once per kernel (it only sizes the grid; a race between two
   * threads writes the same value). */
  static int resident[2];
  int per_sm = resident[columns != 0];
  if (per_sm == 0) {
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, columns ? stats_kernel<Off, true> : stats_kernel<Off, false>, kThreads, 0);
    if (e != cudaSuccess) return e;
    resident[columns != 0] = per_sm;
  }
  int64_t grid = (int64_t)(sm_count > 0 ? sm_count : 1) * (per_sm > 0 ? per_sm : 1);
  if (grid > tiles) grid = tiles;
  const unsigned blocks = (unsigned)grid;
  if (columns)
    stats_kernel<Off, true><<<blocks, kThreads, 0, stream>>>(m, nnz, rowptr, colind, k, out, host);
  else
    stats_kernel<Off, false><<<blocks, kThreads, 0, stream>>>(m, nnz, rowptr, colind, k, out,
                                                               host);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t sps_cuda_stats(cudaStream_t stream, int sm_count, int64_t nrows,
                                      int64_t nnz, const int64_t *rowptr,
                                      const int32_t *rowptr32, const int32_t *colind, int columns,
                                      int64_t k, uint64_t *d_words, uint64_t *h_sums)
{
  if (nrows <= 0) return cudaSuccess;
  u64 *out = reinterpret_cast<u64 *>(d_words), *host = reinterpret_cast<u64 *>(h_sums);
  return rowptr32 ? launch(stream, sm_count, nrows, nnz, rowptr32, colind, columns, k, out, host)
                  : launch(stream, sm_count, nrows, nnz, rowptr, colind, columns, k, out, host);
}
