/* binned.cu: the binned SpMV kernel (ACSR-style, after Ashari et al., SC'14): one launch whose block ranges serve the long-row, warp-row and short-row bins, each with its own threads per row.
 *
 * Thread-to-data map (blocks of 256 threads; spmv/binned.c builds the tables):
 *  - blocks [0, nlong): part `part` of long row r (more than 1024 nonzeros), the part's
 *    SPS_BINNED_PART_NNZ (8192) entries strided over the 256 threads (at most 32 each); a
 *    warp shuffle tree, then a second one over the 8 warp sums (staged in shared memory),
 *    give the part's sum. A row of one part is written at once; otherwise the part's sum
 *    goes to partial[2b..2b+1], and the last part to arrive (an atomic counter per row,
 *    reset by that block for the next call) merges the parts in order and writes y_r, so the
 *    result does not depend on the order the blocks run in (blockwise's long parts).
 *  - the next ceil(nwarp/8) blocks: warp w of block b serves row warp_rows[8(b - nlong) + w]
 *    (33 to 1024 nonzeros); lane l sums entries l, l+32, ... (at most 32 each), the shuffle
 *    tree merges the lanes and lane 0 writes y (csr-vector with 32 lanes).
 *  - the last ntiles blocks: a tile of up to 1024 consecutive rows whose short rows (0 to 32
 *    nonzeros) hold at most 2048 nonzeros; longer rows in the range are skipped. Thread t
 *    reads the offsets of rows 4t..4t+3, a block-wide scan of their short lengths gives each
 *    short row its place in a packed list of the tile's short nonzeros, and an owner map
 *    (shared memory) says which row each place belongs to. Then thread t forms the products
 *    a_k*x[col_k] of places t, t+256, ... into shared memory, and after a barrier thread t
 *    sums rows t, t+256, ... there in entry order and writes y (CSR-stream that skips the
 *    long rows).
 * Every sum is compensated (core/compensated_sum.h): threads add rounded products into
 * (hi, lo) pairs, the trees and the parts merge pairs, and y_i <- alpha*fl(hi + lo) +
 * beta*y_i, the same bits as csr-scalar bar rare ties. spmv/ref/binned.c repeats the same
 * orders on the CPU, so the two agree to the bit, ties included.
 * Row offsets are read as int32 when the matrix has them (sps_matrix keeps an int32 copy on
 * the device when nnz fits), 4 bytes a row less than its int64 offsets.
 *
 * Memory access: a tile's short rows are read as runs of consecutive entries broken only
 * where a long row is skipped, so values and columns of short rows stream fully coalesced,
 * every byte once, with every lane busy whatever the row lengths (a row of 1 entry costs
 * one lane-load, not an idle group of lanes); warp rows and long parts read 32 and 256
 * consecutive entries per step; the row lists and tables are read once, coalesced; x goes
 * through the read-only cache; y is written once per row (tiles: consecutive rows by
 * consecutive threads). Blocks are ordered longest work first (long parts, warp rows,
 * tiles), so the tiles fill the machine while the long rows finish.
 *
 * Where it wins: matrices with a heavy tail of row lengths (power-law graphs, circuits with
 * supply nets, web and social graphs), where blockwise's partition cuts short-row blocks at
 * every long row and gives rows of 65..1024 entries whole 256-thread blocks with most
 * threads idle, and csr-vector leaves long rows to a few lanes. Here a long row costs its
 * short neighbours nothing (the tile skips it), rows of 33..1024 get a warp each, and no
 * thread walks more than 32 entries of a long row.
 * Design estimate on powerlaw:1000000:2.0 (13.0M nonzeros): 50% of them in 1005 long rows
 * (1483 part blocks), 26% in 29,423 warp rows (3678 blocks), 24% in 969,572 short rows (1512
 * tiles of about 2040 nonzeros); about 170 MB of traffic, so 60-70 us on an H100.
 * Measured on an H100 (2026-11-25, spmv-bench graph time, bench/results/2026-11-25-H100/):
 * 120 us there, against cuSPARSE 106, coo 116, blockwise 136; on powerlaw:1000000:2.5 36 us
 * against cuSPARSE 28; on powerlaw:1000000:1.8 428 against 393. So it beats blockwise on
 * the heavy-tailed matrices but not cuSPARSE: the estimate misses by half, not yet explained
 * (a profile of the three block kinds is the next step).
 * The warp totals sit first in the shared struct, 16-byte aligned. At the end of it (offset
 * 4 mod 16, after delta), ptxas read the eight totals with two LDS.128 starting 4 bytes early
 * (the SASS of the int32 kernel: LDS.128 [sm+0x6800], delta[1023] and totals 0..2), and
 * compute-sanitizer's racecheck reported that over-read against thread 255's write of
 * delta[1023] (runs 10 and 11, bench/results/2026-11-25-H100/compute-sanitizer-run10-11-H100.txt):
 * benign, the 4 bytes unused, but a tool-visible hazard. Aligned at the front, the loads
 * cover the totals only and racecheck is clean (run 11).
 * Where it loses: even matrices of short rows (csr-scalar and blockwise's stream blocks do
 * without the scan and the owner map, one or two barriers less per block), and even rows of
 * 33..64 entries (a warp per row leaves up to half its lanes idle on the last step; csr-vector
 * with 16 lanes fits better). 40 registers a thread and the tile's 26 KB of shared memory
 * (30 KB with int64 offsets) leave 6 resident blocks (1536 threads) per multiprocessor, as
 * blockwise has.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace
{

constexpr int kThreads = SPS_BINNED_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kRowsPerThread = SPS_BINNED_TILE_ROWS / kThreads;
static_assert(kRowsPerThread * kThreads == SPS_BINNED_TILE_ROWS, "tile rows: a multiple of 256");
static_assert(SPS_BINNED_TILE_NNZ <= 65535 && SPS_BINNED_TILE_ROWS <= 65535,
              "tile places and rows fit 16 bits");

/* Shared memory of a tile (the long parts use prod for their warp sums). */
template <typename Off> struct tile_smem {
  int warp_total[kWarps]; /* the warps' short nonzeros (first: see the racecheck note above) */
  int pad_[kWarps];       /* 64 bytes ahead of prod, the layout racecheck was run on */
  double prod[SPS_BINNED_TILE_NNZ];       /* the products of the tile's short rows */
  uint16_t owner[SPS_BINNED_TILE_NNZ];    /* tile row of each place */
  uint16_t off[SPS_BINNED_TILE_ROWS + 1]; /* first place of each tile row */
  Off delta[SPS_BINNED_TILE_ROWS];        /* entry index minus place; -1 for a skipped row */
};

template <typename Off>
__device__ __forceinline__ void
tile_rows(sps_binned_tile tile, const Off *__restrict__ rowptr, const int32_t *__restrict__ colind,
          const double *__restrict__ values, double alpha, const double *__restrict__ x,
          double beta, double *__restrict__ y, tile_smem<Off> &sm)
{
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int64_t first = tile.row;
  const int count = tile.count;
  /* Rows 4t..4t+3 of the tile: short length (-1: skipped or past the tile) and first entry. */
  int len[kRowsPerThread];
  Off start[kRowsPerThread];
  int mine = 0;
  const int q0 = kRowsPerThread * t;
  Off e = q0 < count ? __ldg(&rowptr[first + q0]) : Off(0);
#pragma unroll
  for (int j = 0; j < kRowsPerThread; j++) {
    const int q = q0 + j;
    start[j] = e;
    len[j] = -1;
    if (q < count) {
      e = __ldg(&rowptr[first + q + 1]);
      const Off l = e - start[j];
      if (l <= SPS_BINNED_SHORT) {
        len[j] = (int)l;
        mine += (int)l;
      }
    }
  }
  /* Exclusive scan of the threads' short nonzeros: warp shuffles, then the warp totals. */
  int incl = mine;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int o = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += o;
  }
  if (lane == 31) sm.warp_total[warp] = incl;
  __syncthreads();
  int base = incl - mine, nz = 0;
#pragma unroll
  for (int w = 0; w < kWarps; w++) {
    const int wt = sm.warp_total[w];
    if (w < warp) base += wt;
    nz += wt;
  }
  /* Places, entry offsets and owners of this thread's rows. */
  if (t == 0) sm.off[0] = 0;
#pragma unroll
  for (int j = 0; j < kRowsPerThread; j++) {
    const int q = q0 + j;
    if (q < count) {
      sm.delta[q] = len[j] >= 0 ? start[j] - (Off)base : Off(-1);
      for (int k = 0; k < len[j]; k++)
        sm.owner[base + k] = (uint16_t)q;
      if (len[j] > 0) base += len[j];
      sm.off[q + 1] = (uint16_t)base;
    }
  }
  __syncthreads();
  /* prod[p] <- a_k * x[col_k] for the entry k at place p: runs of consecutive k. */
#pragma unroll 4
  for (int p = t; p < nz; p += kThreads) {
    const int64_t k = (int64_t)sm.delta[sm.owner[p]] + p;
    sm.prod[p] = __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]);
  }
  __syncthreads();
  /* Each short row summed in entry order by one thread; y_i <- alpha*s + beta*y_i. */
  for (int q = t; q < count; q += kThreads) {
    if (sm.delta[q] < 0) continue;
    const int b = sm.off[q], end = sm.off[q + 1];
    sps_csum s = sps_csum_zero();
    for (int p = b; p < end; p++)
      sps_csum_add(&s, sm.prod[p]);
    const int64_t row = first + q;
    y[row] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[row]);
  }
}

template <typename Off>
__global__ void __launch_bounds__(kThreads)
    binned_kernel(const Off *__restrict__ rowptr, const int32_t *__restrict__ colind,
                  const double *__restrict__ values, int64_t nlong,
                  const sps_binned_long *__restrict__ longs, int64_t nwarp_blocks, int64_t nwarp,
                  const int32_t *__restrict__ warp_rows, const sps_binned_tile *__restrict__ tiles,
                  double *__restrict__ partial, unsigned *__restrict__ counter, double alpha,
                  const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ tile_smem<Off> sm;
  const int64_t b = blockIdx.x;
  if (b >= nlong + nwarp_blocks) {
    tile_rows(tiles[b - nlong - nwarp_blocks], rowptr, colind, values, alpha, x, beta, y, sm);
    return;
  }
  if (b >= nlong) {
    /* One warp per row; a warp past the list leaves whole (no block-wide barrier here). */
    const int64_t w = (b - nlong) * kWarps + (threadIdx.x >> 5);
    if (w >= nwarp) return;
    const int lane = threadIdx.x & 31;
    const int64_t r = __ldg(&warp_rows[w]);
    const int64_t end = __ldg(&rowptr[r + 1]);
    sps_csum s = sps_csum_zero();
#pragma unroll 4
    for (int64_t k = __ldg(&rowptr[r]) + lane; k < end; k += 32)
      sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
    s = sps_group_csum<32>(s);
    if (lane == 0) y[r] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[r]);
    return;
  }
  /* Part ld.part of long row ld.row. */
  const sps_binned_long ld = longs[b];
  sps_csum *warp_sum = reinterpret_cast<sps_csum *>(sm.prod);
  const int64_t r = ld.row;
  const int64_t row_end = __ldg(&rowptr[r + 1]);
  const int64_t k0 = __ldg(&rowptr[r]) + (int64_t)ld.part * SPS_BINNED_PART_NNZ;
  const int64_t k1 = k0 + SPS_BINNED_PART_NNZ < row_end ? k0 + SPS_BINNED_PART_NNZ : row_end;
  sps_csum s = sps_csum_zero();
#pragma unroll 4
  for (int64_t k = k0 + threadIdx.x; k < k1; k += kThreads)
    sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  s = sps_group_csum<32>(s);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x >= 32) return;
  s = threadIdx.x < kWarps ? warp_sum[threadIdx.x] : sps_csum_zero();
  s = sps_group_csum<32>(s);
  if (threadIdx.x != 0) return;
  if (ld.parts == 1) {
    y[r] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[r]);
    return;
  }
  partial[2 * b] = s.hi;
  partial[2 * b + 1] = s.lo;
  /* Make this part's sum visible before counting it; the last arrival sums all parts. */
  __threadfence();
  if (atomicAdd(&counter[ld.slot], 1u) != (unsigned)(ld.parts - 1)) return;
  __threadfence();
  sps_csum total = sps_csum_zero();
  const int64_t b0 = b - ld.part;
  for (int64_t q = b0; q < b0 + ld.parts; q++) {
    sps_csum c;
    c.hi = __ldcg(&partial[2 * q]);
    c.lo = __ldcg(&partial[2 * q + 1]);
    sps_csum_merge(&total, c);
  }
  y[r] = sps_axpby_out(alpha, sps_csum_value(total), beta, &y[r]);
  counter[ld.slot] = 0u;
}

} // namespace

extern "C" cudaError_t
sps_cuda_binned(cudaStream_t stream, const int64_t *rowptr, const int32_t *rowptr32,
                const int32_t *colind, const double *values, int64_t nlong,
                const sps_binned_long *longs, int64_t nwarp, const int32_t *warp_rows,
                int64_t ntiles, const sps_binned_tile *tiles, double *partial, unsigned *counter,
                double alpha, const double *x, double beta, double *y)
{
  const int64_t nwarp_blocks = (nwarp + kWarps - 1) / kWarps;
  const int64_t nblocks = nlong + nwarp_blocks + ntiles;
  if (nblocks <= 0) return cudaSuccess;
  if (rowptr32)
    binned_kernel<int32_t><<<(unsigned)nblocks, kThreads, 0, stream>>>(
        rowptr32, colind, values, nlong, longs, nwarp_blocks, nwarp, warp_rows, tiles, partial,
        counter, alpha, x, beta, y);
  else
    binned_kernel<int64_t><<<(unsigned)nblocks, kThreads, 0, stream>>>(
        rowptr, colind, values, nlong, longs, nwarp_blocks, nwarp, warp_rows, tiles, partial,
        counter, alpha, x, beta, y);
  return cudaGetLastError();
}
