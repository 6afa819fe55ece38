/* spgemm.cu: the kernels of the GPU sparse product C = A B (row-wise hash SpGEMM, two phases), which builds the Galerkin operators of algebraic multigrid.
 *
 * The math (precond/ref/kernels.h, sps_ref_spgemm_count/fill): row i of C is the sum over
 * the entries a_ik of row i of A of a_ik * (row k of B). Each c_ij is the compensated sum
 * (core/compensated_sum.h) of the rounded products a_ik * b_kj, added in the order of p,
 * the position of a_ik in A's row, as the CPU reference adds them (row k of B holds column j
 * at most once, so p orders the terms of c_ij completely). The fill kernels keep that order:
 * a row's entries a_ik are taken one after the other, the lanes share the row of B, and a
 * barrier of the row's lanes separates consecutive entries. So c_ij has the reference's bits
 * whatever the conditioning of the sum; a compensated sum in another order would agree only
 * up to the error of twice the working precision, and the A A of a stiffness matrix (rows
 * whose products cancel to 1e-13 of their magnitudes: nos3, bcsstk13) is beyond that: adding
 * by atomics in arrival order made 494 of nos3's 42864 values differ, by up to thousands
 * of ulps. Every structural product makes an entry, zero or not; the columns of a row come
 * out in ascending order. The host side (precond/spgemm.c) runs:
 *   1. bin (count):  key_i = min(sum over a_ik of nnz(B_k), n), an upper bound of the row's
 *                    length; each row goes to the bin of its key;
 *   2. count:        per bin, the number of distinct columns of each row, into crp[i];
 *   3. scan:         exclusive prefix sum of crp (CUB), C's row offsets; nnz(C) = crp[m];
 *   4. bin (fill):   key_i = the row's exact length;
 *   5. fill:         per bin, the columns and the values, sorted, into C.
 * This is the hash SpGEMM of Nagasaka, Matsuoka, Azad and Buluc (ICPP 2017; Parallel
 * Computing 90, 2019): row binning by the number of products, hash tables in shared memory
 * sized for the bin, a global-memory fallback for the longest rows, and a count phase that
 * gives the exact size of C before it is allocated.
 *
 * Bins: b = 1 to 9 takes keys up to 16 << (b - 1) into a table of TABLE = 32 << (b - 1)
 * slots, a group of G = TABLE / 8 threads a row (4, 8, ..., 1024); thread blocks of 128
 * threads up to bin 6 (rows a block R = 128 / G: 32, 16, 8, 4 in bins 1 to 4), of G threads
 * beyond, and in the fill phase from bin 5 on (one row a block). The count phase splits a group
 * into subgroups of W lanes (W = 1, 1, 2, 4, 8, 8, 16, 32, 32 in bins 1 to 9); the fill phase uses
 * the whole group on one row of B. Bin 10, longer rows: a thread block of 512 a row, a dense
 * accumulator of n columns in global memory per block (flags stamped with the row's number, so
 * nothing is cleared between rows), columns collected in order by a block-wide scan over [min j,
 * max j] of the row. A table holds at most half its slots (the key bounds the row's length), so
 * linear probing stays short; the hash is j * 107 mod the table size (Nagasaka et al.).
 *
 * Thread-to-data map (bins 1 to 9): a group of G consecutive threads owns one row of C and
 * its table. Count phase: subgroup s of the G / W subgroups takes the entries a_ik of row i
 * numbered s, s + G/W, ..., and its W lanes walk row k of B with stride W; the columns go
 * into the table by atomicCAS (a set: the order does not matter), and the row's length is
 * the number of full slots. Small bins use W = 1 (a lane a row of B: AMG's prolongators have
 * one entry a row, so lanes on one row of B would idle), large ones W up to 32 (long rows of
 * B read coalesced). Fill phase: the table holds the column and its sum (hi, lo); the group
 * takes the entries a_ik of its row in chunks of G (one lane loads one a_ik and the bounds of
 * row k of B into shared memory, so those loads overlap), then walks the chunk's entries in
 * order: its G lanes take the entries of row k of B with stride G, each adds its product to
 * its column's sum (distinct columns: distinct slots, plain shared-memory updates), and the
 * group meets at a barrier (__syncwarp of its lanes, or __syncthreads when it is the block)
 * before the next a_ik. Two cases go faster with the same order: when every row of B in the
 * chunk has at most one entry (a prolongator: A P), the lanes load the chunk's products at
 * once and the group's lane 0 adds them one after the other; when a block-wide group's rows
 * of B have at most 32 entries, its first warp alone takes the steps (__syncwarp instead of
 * the block's barrier). Then groups of a warp or less rank each lane's 8 slots against the
 * whole table (the group reads the same key at once: a broadcast; the tables' key arrays are
 * padded by one word so the groups of a warp hit different banks) and write column and
 * fl(hi + lo) at crp[i] + rank; block-wide groups (bins 5 to 9) sort the table's keys by a
 * bitonic network in shared memory, O(TABLE log^2 TABLE) instead of O(TABLE^2), and each
 * column finds its slot again by its hash. The binning kernel sums a row's products by a
 * thread, or by the warp for rows of A longer than 32.
 *
 * Memory access: A's and B's entries are read once a product (through L1/L2: the rows of B
 * that neighbouring rows of A share are reused there; a group reads a row of B coalesced in
 * the fill), C is written once, scattered within a row. Shared memory: count 4 bytes a slot,
 * fill 20 (keys, hi, lo): 20 KB a block up to bin 4, 10, 20, 40, 80 and 160 KB in bins 5 to 9
 * (dynamic shared memory beyond 48 KB).
 * Where it wins and loses: it wins on the short, similar rows of AMG products (A P, P^T A P,
 * A A of meshes): one product costs a hash probe and a compensated add in shared memory, and
 * C is allocated once at its exact size. Measured on an H100 (bench/spgemm-bench, allocations
 * and host synchronisations included), 1.3 to 2.9 times faster than cuSPARSE's SpGEMM on A A,
 * A P and P^T (A P) of nos3, bcsstk13/14, ani5_crop, G3_circuit and laplacian7pt_100. It
 * loses where a row of A is long (hundreds of entries or more): the fill walks the row's
 * entries in order, one chunk of G after the other, and each chunk waits on two or three
 * dependent loads from memory, so such a row is a serial chain of latencies that no other
 * work hides; the count phase's subgroups walk it in G / W strands. rajat12, a circuit matrix
 * whose first rows hold 1195, 715 and 508 entries, is the case: A A 0.7 and A P 0.25 times
 * cuSPARSE's speed. Rows longer than 4096 columns go to global memory, take a block barrier
 * per entry of A's row and scan their column span.
 */
#include <climits>
#include <cstdint>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include "../../core/compensated_sum.h"
#include "launchers.h"

namespace
{

constexpr int32_t kEmpty = INT32_MAX; /* an empty slot; larger than every column */
constexpr int kBinThreads = 256;      /* the binning kernels */
constexpr int kDenseThreads = 512;    /* the dense bin */
constexpr int kSlotsPerLane = 8;      /* TABLE / G in every shared-memory bin */

/* The bin of a key: 0 for 0, b for keys in (8 << (b - 1), 16 << (b - 1)], 10 beyond 4096. */
__device__ __host__ inline int bin_of(int64_t key)
{
  if (key <= 0) return 0;
  int b = 1;
  int64_t cap = 16;
  while (b < SPS_SPGEMM_DENSE_BIN && key > cap) {
    b++;
    cap *= 2;
  }
  return b;
}

/* Rows per block of the binning kernels: each thread one row; per-bin totals are gathered in
 * shared memory first, so the global counters take one atomic a block and bin. */
__global__ void __launch_bounds__(kBinThreads)
    bin_rows(int64_t m, int64_t n, int fill, const int64_t *__restrict__ arp,
             const int32_t *__restrict__ aci, const int64_t *__restrict__ brp, int64_t *crp,
             unsigned char *__restrict__ rowbin, unsigned long long *__restrict__ counters)
{
  __shared__ unsigned local[SPS_SPGEMM_BINS];
  __shared__ unsigned long long local_max;
  if (threadIdx.x < SPS_SPGEMM_BINS) local[threadIdx.x] = 0;
  if (threadIdx.x == 0) local_max = 0;
  __syncthreads();
  const int64_t i = (int64_t)blockIdx.x * kBinThreads + threadIdx.x;
  const int lane = threadIdx.x % 32;
  /* Count phase: the number of products of row i, an upper bound of its distinct columns; a
   * thread sums its row of A, the warp together a row of more than 32 entries (a thread alone
   * would walk a dense row's thousands of entries one latency after the other). */
  int64_t ub = 0;
  const int64_t len = i < m ? arp[i + 1] - arp[i] : 0;
  if (!fill && len <= 32)
    for (int64_t p = arp[i]; p < arp[i] + len; p++) {
      const int32_t k = aci[p];
      ub += brp[k + 1] - brp[k];
    }
  for (unsigned pending = __ballot_sync(0xffffffffu, !fill && len > 32); pending;
       pending &= pending - 1) {
    const int leader = __ffs(pending) - 1;
    const int64_t row = __shfl_sync(0xffffffffu, i, leader);
    int64_t part = 0;
    for (int64_t p = arp[row] + lane; p < arp[row + 1]; p += 32) {
      const int32_t k = aci[p];
      part += brp[k + 1] - brp[k];
    }
    for (int o = 16; o > 0; o >>= 1)
      part += __shfl_xor_sync(0xffffffffu, part, o);
    if (lane == leader) ub = part;
  }
  if (i < m) {
    const int64_t key = fill ? crp[i + 1] - crp[i] : (ub < n ? ub : n);
    const int b = bin_of(key);
    rowbin[i] = (unsigned char)b;
    if (!fill && b == 0) crp[i] = 0;
    atomicAdd(&local[b], 1u);
    if (b == SPS_SPGEMM_DENSE_BIN) atomicMax(&local_max, (unsigned long long)key);
  }
  __syncthreads();
  if (threadIdx.x < SPS_SPGEMM_BINS && local[threadIdx.x])
    atomicAdd(&counters[threadIdx.x], (unsigned long long)local[threadIdx.x]);
  if (threadIdx.x == 0 && local_max) atomicMax(&counters[SPS_SPGEMM_BINS], local_max);
}

__global__ void __launch_bounds__(kBinThreads)
    scatter_rows(int64_t m, const unsigned char *__restrict__ rowbin, sps_cuda_spgemm_offsets first,
                 unsigned long long *__restrict__ cursors, int32_t *__restrict__ rows)
{
  __shared__ unsigned local[SPS_SPGEMM_BINS];
  __shared__ unsigned long long base[SPS_SPGEMM_BINS];
  if (threadIdx.x < SPS_SPGEMM_BINS) local[threadIdx.x] = 0;
  __syncthreads();
  const int64_t i = (int64_t)blockIdx.x * kBinThreads + threadIdx.x;
  int b = 0;
  unsigned at = 0;
  if (i < m) {
    b = rowbin[i];
    if (b) at = atomicAdd(&local[b], 1u);
  }
  __syncthreads();
  if (threadIdx.x < SPS_SPGEMM_BINS && local[threadIdx.x])
    base[threadIdx.x] = atomicAdd(&cursors[threadIdx.x], (unsigned long long)local[threadIdx.x]);
  __syncthreads();
  if (i < m && b) rows[first.first[b] + base[b] + at] = (int32_t)i;
}

/* Slot of column j in a table of TABLE slots, inserting it when absent. Slots only go from
 * empty to a column, so a stale read of a full slot is never wrong, and a stale empty one is
 * settled by the atomicCAS. */
template <int TABLE> __device__ inline int table_slot(int32_t *tab, int32_t j)
{
  unsigned h = ((unsigned)j * 107u) & (TABLE - 1);
  for (;;) {
    int32_t cur = *(volatile int32_t *)&tab[h];
    if (cur == kEmpty) cur = atomicCAS(&tab[h], kEmpty, j);
    if (cur == kEmpty || cur == j) return (int)h;
    h = (h + 1) & (TABLE - 1);
  }
}

/* Count phase, bins 1 to 9: a group of G threads a row, its table in shared memory. */
template <int TABLE, int G, int W, int THREADS>
__global__ void __launch_bounds__(THREADS)
    count_rows(int64_t nrows, const int32_t *__restrict__ rows, const int64_t *__restrict__ arp,
               const int32_t *__restrict__ aci, const int64_t *__restrict__ brp,
               const int32_t *__restrict__ bci, int64_t *__restrict__ cnt)
{
  constexpr int R = THREADS / G;
  __shared__ int32_t keys[R * TABLE];
  __shared__ int counter[R];
  const int g = threadIdx.x / G, lane = threadIdx.x % G;
  const int64_t r = (int64_t)blockIdx.x * R + g;
  for (int t = threadIdx.x; t < R * TABLE; t += THREADS)
    keys[t] = kEmpty;
  if (threadIdx.x < R) counter[threadIdx.x] = 0;
  __syncthreads();
  if (r < nrows) {
    int32_t *tab = keys + g * TABLE;
    const int64_t i = rows[r];
    const int sub = lane / W, w = lane % W;
    for (int64_t p = arp[i] + sub; p < arp[i + 1]; p += G / W) {
      const int32_t k = aci[p];
      for (int64_t q = brp[k] + w; q < brp[k + 1]; q += W)
        table_slot<TABLE>(tab, bci[q]);
    }
  }
  __syncthreads();
  /* The columns of the row: the full slots of its table. */
  if (r < nrows) {
    const int32_t *tab = keys + g * TABLE;
    int full = 0;
    for (int t = lane; t < TABLE; t += G)
      full += tab[t] != kEmpty;
    atomicAdd(&counter[g], full);
  }
  __syncthreads();
  if (r < nrows && lane == 0) cnt[rows[r]] = counter[g];
}

/* The barrier of a group of G lanes: its part of a warp (G <= 32), else the block (one row a
 * block). */
template <int G> __device__ inline void group_sync()
{
  if (G >= 32) {
    if (G == 32)
      __syncwarp();
    else
      __syncthreads();
  } else {
    constexpr unsigned kLanes = (1u << (G % 32)) - 1u; /* G lanes (G < 32 here) */
    const unsigned lane0 = (threadIdx.x % 32) / G * G;
    __syncwarp(kLanes << lane0);
  }
}

/* The sum of column bci[q] <- itself + a * bv[q] for q = qbegin, qbegin + stride, ... < qend
 * (plain shared-memory updates: the columns of one row of B are distinct). */
template <int TABLE>
__device__ inline void add_row_of_b(int32_t *tab, double *thi, double *tlo, double a,
                                    int64_t qbegin, int64_t qend, int stride,
                                    const int32_t *__restrict__ bci, const double *__restrict__ bv)
{
  for (int64_t q = qbegin; q < qend; q += stride) {
    const int s = table_slot<TABLE>(tab, bci[q]);
    sps_csum acc;
    acc.hi = thi[s];
    acc.lo = tlo[s];
    sps_csum_add(&acc, a * bv[q]);
    thi[s] = acc.hi;
    tlo[s] = acc.lo;
  }
}

/* The lanes of this thread's group of G (G <= 32) within its warp. */
template <int G> __device__ inline unsigned group_mask()
{
  constexpr unsigned kLanes = G >= 32 ? 0xffffffffu : (1u << (G % 32)) - 1u;
  return G >= 32 ? kLanes : kLanes << ((threadIdx.x % 32) / G * G);
}

/* Steps e < steps of a chunk whose rows of B have at most one entry each (a prolongator's):
 * lane l of the L lanes (a group of L <= 32, mask its lanes) loads the product of step l,
 * l + L, ..., and lane 0 adds them in step order, so no step waits on memory. */
template <int TABLE, int L>
__device__ inline void add_single_entries(int lane, unsigned mask, int steps, const double *ga,
                                          const int64_t *gs, const int64_t *ge, int32_t *tab,
                                          double *thi, double *tlo, const int32_t *__restrict__ bci,
                                          const double *__restrict__ bv)
{
  for (int e0 = 0; e0 < steps; e0 += L) {
    const int e = e0 + lane;
    int32_t j = -1;
    double t = 0.0;
    if (e < steps && gs[e] < ge[e]) {
      j = bci[gs[e]];
      t = ga[e] * bv[gs[e]];
    }
    const int count = steps - e0 < L ? steps - e0 : L;
    for (int x = 0; x < count; x++) {
      const int32_t jx = __shfl_sync(mask, j, x, L);
      const double tx = __shfl_sync(mask, t, x, L);
      if (lane == 0 && jx >= 0) {
        const int s = table_slot<TABLE>(tab, jx);
        sps_csum acc;
        acc.hi = thi[s];
        acc.lo = tlo[s];
        sps_csum_add(&acc, tx);
        thi[s] = acc.hi;
        tlo[s] = acc.lo;
      }
    }
  }
}

/* Fill phase, bins 1 to 9: hi and lo, the chunk of A's row (below), then the keys (padded by
 * one word a table) in dynamic shared memory. The group takes the entries a_ik of its row one
 * after the other and its lanes share row k of B. Groups of a warp or less rank each lane's 8
 * slots against the table; a block-wide group (one row a block, 512 to 4096 columns) sorts
 * the table's keys instead (bitonic, in the chunk's space), which is O(TABLE log^2 TABLE)
 * rather than O(TABLE^2) a row. */
template <int TABLE, int G, int THREADS>
__global__ void __launch_bounds__(THREADS)
    fill_rows(int64_t nrows, const int32_t *__restrict__ rows, const int64_t *__restrict__ arp,
              const int32_t *__restrict__ aci, const double *__restrict__ av,
              const int64_t *__restrict__ brp, const int32_t *__restrict__ bci,
              const double *__restrict__ bv, const int64_t *__restrict__ crp,
              int32_t *__restrict__ cci, double *__restrict__ cv)
{
  static_assert(TABLE == kSlotsPerLane * G, "each lane ranks kSlotsPerLane slots");
  static_assert(G <= 32 || G == THREADS, "a group of more than a warp is the whole block");
  constexpr int R = THREADS / G;
  constexpr int STRIDE = TABLE + 1; /* keys of consecutive tables in different banks */
  extern __shared__ double smem[];
  /* chunk: 4 THREADS words of 8 bytes: a, start and end of B's rows (and the sort's keys) */
  double *hi = smem, *lo = smem + R * TABLE, *chunk_a = smem + 2 * R * TABLE;
  int64_t *chunk_q = (int64_t *)(chunk_a + THREADS);
  int32_t *keys = (int32_t *)(chunk_a + 4 * THREADS);
  __shared__ int chunk_max[2]; /* block-wide groups: the longest row of B in the chunk */
  const int g = threadIdx.x / G, lane = threadIdx.x % G;
  const int64_t r = (int64_t)blockIdx.x * R + g;
  for (int t = threadIdx.x; t < R * TABLE; t += THREADS) {
    hi[t] = 0.0;
    lo[t] = 0.0;
  }
  for (int t = threadIdx.x; t < R * STRIDE; t += THREADS)
    keys[t] = kEmpty;
  if (threadIdx.x < 2) chunk_max[threadIdx.x] = 0;
  __syncthreads();
  int32_t *tab = keys + g * STRIDE;
  double *thi = hi + g * TABLE, *tlo = lo + g * TABLE;
  const int64_t i = r < nrows ? rows[r] : 0;
  /* With G > 32 the block is one row and r < nrows: the barriers below are uniform. */
  if (r < nrows) {
    /* The group's G entries of A's row at a time: each lane loads one a_ik and the bounds of
     * row k of B (independent loads, issued together), so the steps below wait only on B. */
    double *ga = chunk_a + g * G;
    int64_t *gs = chunk_q + 2 * g * G, *ge = gs + G;
    const int64_t pend = arp[i + 1];
    int parity = 0;
    for (int64_t p0 = arp[i]; p0 < pend; p0 += G, parity ^= 1) {
      if (p0 + lane < pend) {
        const int32_t k = aci[p0 + lane];
        ga[lane] = av[p0 + lane];
        gs[lane] = brp[k];
        ge[lane] = brp[k + 1];
        if (G > 32) {
          const int64_t len = ge[lane] - gs[lane];
          atomicMax(&chunk_max[parity], len < INT_MAX ? (int)len : INT_MAX);
        }
      }
      group_sync<G>();
      const int steps = pend - p0 < G ? (int)(pend - p0) : G;
      /* The longest row of B among the chunk's entries. */
      int longest;
      if (G > 32) {
        longest = chunk_max[parity];
        /* The other parity's word was last read before the barrier above (by the previous
         * chunk) and is next written after this chunk's last barrier: clear it now. */
        if (threadIdx.x == 0) chunk_max[parity ^ 1] = 0;
      } else {
        const int64_t len = lane < steps ? ge[lane] - gs[lane] : 0;
        longest = len < INT_MAX ? (int)len : INT_MAX;
        for (int o = G / 2; o > 0; o >>= 1)
          longest = max(longest, __shfl_xor_sync(group_mask<G>(), longest, o, G));
      }
      const bool warp_steps = G > 32 && longest <= 32;
      if (longest <= 1) {
        /* Rows of B of at most one entry: the group (the block's first warp when the group is
         * the block) loads the chunk's products at once, its lane 0 adds them in order. */
        if (G <= 32)
          add_single_entries<TABLE, (G < 32 ? G : 32)>(lane, group_mask<(G < 32 ? G : 32)>(), steps,
                                                       ga, gs, ge, tab, thi, tlo, bci, bv);
        else if (threadIdx.x < 32)
          add_single_entries<TABLE, 32>((int)threadIdx.x, 0xffffffffu, steps, ga, gs, ge, tab, thi,
                                        tlo, bci, bv);
        group_sync<G>();
      } else if (warp_steps) {
        /* Rows of B of at most 32 entries: the first warp alone takes the steps, each ended by
         * __syncwarp, where the block's barrier would cost more than the step. */
        if (threadIdx.x < 32) {
          for (int e = 0; e < steps; e++) {
            add_row_of_b<TABLE>(tab, thi, tlo, ga[e], gs[e] + threadIdx.x, ge[e], 32, bci, bv);
            __syncwarp();
          }
        }
        __syncthreads();
      } else {
        for (int e = 0; e < steps; e++) {
          add_row_of_b<TABLE>(tab, thi, tlo, ga[e], gs[e] + lane, ge[e], G, bci, bv);
          /* The sums of entry p0 + e are in before entry p0 + e + 1 adds to them; after the
           * last step every lane has read the chunk, which the next one overwrites. */
          group_sync<G>();
        }
      }
    }
  }
  __syncthreads();
  if (G > 32) {
    /* One row a block: sort the table's keys (empty slots, INT32_MAX, last), then each of the
     * row's len columns finds its slot again by its hash and writes its sum. */
    int32_t *sorted = (int32_t *)chunk_a; /* TABLE words: 4 THREADS doubles hold them */
    for (int t = threadIdx.x; t < TABLE; t += THREADS)
      sorted[t] = tab[t];
    __syncthreads();
    for (int size = 2; size <= TABLE; size <<= 1)
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int t = threadIdx.x; t < TABLE / 2; t += THREADS) {
          const int first = 2 * t - (t & (stride - 1)), second = first + stride;
          const int32_t x = sorted[first], y = sorted[second];
          if ((x > y) == ((first & size) == 0)) {
            sorted[first] = y;
            sorted[second] = x;
          }
        }
        __syncthreads();
      }
    const int64_t base = crp[i], len = crp[i + 1] - crp[i];
    for (int64_t t = threadIdx.x; t < len; t += THREADS) {
      const int32_t j = sorted[t];
      const int s = table_slot<TABLE>(tab, j);
      sps_csum acc;
      acc.hi = thi[s];
      acc.lo = tlo[s];
      cci[base + t] = j;
      cv[base + t] = sps_csum_value(acc);
    }
  } else if (r < nrows) {
    int32_t mine[kSlotsPerLane];
    int rank[kSlotsPerLane];
#pragma unroll
    for (int u = 0; u < kSlotsPerLane; u++) {
      mine[u] = tab[lane + u * G];
      rank[u] = 0;
    }
    for (int t = 0; t < TABLE; t++) {
      const int32_t other = tab[t];
#pragma unroll
      for (int u = 0; u < kSlotsPerLane; u++)
        rank[u] += other < mine[u];
    }
    const int64_t base = crp[i];
#pragma unroll
    for (int u = 0; u < kSlotsPerLane; u++)
      if (mine[u] != kEmpty) {
        const int s = lane + u * G;
        sps_csum acc;
        acc.hi = thi[s];
        acc.lo = tlo[s];
        cci[base + rank[u]] = mine[u];
        cv[base + rank[u]] = sps_csum_value(acc);
      }
  }
}

/* Count phase, dense bin: a block a row (grid-stride over the bin's rows); flags[j] holds the
 * number (plus one) of the last row of this block that reached column j. */
__global__ void __launch_bounds__(kDenseThreads)
    count_dense(int64_t nrows, const int32_t *__restrict__ rows, int64_t n,
                const int64_t *__restrict__ arp, const int32_t *__restrict__ aci,
                const int64_t *__restrict__ brp, const int32_t *__restrict__ bci,
                int64_t *__restrict__ cnt, unsigned *flags)
{
  __shared__ unsigned long long counter;
  unsigned *flag = flags + (size_t)blockIdx.x * (size_t)n;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  constexpr int kWarps = kDenseThreads / 32;
  for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
    const int64_t i = rows[r];
    const unsigned stamp = (unsigned)r + 1u;
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
    unsigned long long mine = 0;
    for (int64_t p = arp[i] + warp; p < arp[i + 1]; p += kWarps) {
      const int32_t k = aci[p];
      for (int64_t q = brp[k] + lane; q < brp[k + 1]; q += 32)
        mine += atomicExch(&flag[bci[q]], stamp) != stamp;
    }
    if (mine) atomicAdd(&counter, mine);
    __syncthreads();
    if (threadIdx.x == 0) cnt[i] = (int64_t)counter;
  }
}

/* Fill phase, dense bin: the sums in hi, lo (global), then the columns of the row in order by
 * a block scan over its column span; hi and lo are zeroed again as they are read. */
__global__ void __launch_bounds__(kDenseThreads)
    fill_dense(int64_t nrows, const int32_t *__restrict__ rows, int64_t n,
               const int64_t *__restrict__ arp, const int32_t *__restrict__ aci,
               const double *__restrict__ av, const int64_t *__restrict__ brp,
               const int32_t *__restrict__ bci, const double *__restrict__ bv,
               const int64_t *__restrict__ crp, int32_t *__restrict__ cci, double *__restrict__ cv,
               unsigned *flags, double *his, double *los)
{
  typedef cub::BlockScan<int, kDenseThreads> Scan;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ int jmin, jmax;
  __shared__ double chunk_a[kDenseThreads];
  __shared__ int64_t chunk_s[kDenseThreads], chunk_e[kDenseThreads];
  const size_t off = (size_t)blockIdx.x * (size_t)n;
  unsigned *flag = flags + off;
  double *hi = his + off, *lo = los + off;
  for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
    const int64_t i = rows[r];
    const unsigned stamp = (unsigned)r + 1u;
    if (threadIdx.x == 0) {
      jmin = INT_MAX;
      jmax = -1;
    }
    __syncthreads();
    int my_min = INT_MAX, my_max = -1;
    const int64_t pend = arp[i + 1];
    for (int64_t p0 = arp[i]; p0 < pend; p0 += kDenseThreads) {
      /* kDenseThreads entries of A's row and their rows' bounds in B, loaded together. */
      if (p0 + threadIdx.x < pend) {
        const int32_t k = aci[p0 + threadIdx.x];
        chunk_a[threadIdx.x] = av[p0 + threadIdx.x];
        chunk_s[threadIdx.x] = brp[k];
        chunk_e[threadIdx.x] = brp[k + 1];
      }
      __syncthreads();
      const int steps = pend - p0 < kDenseThreads ? (int)(pend - p0) : kDenseThreads;
      for (int e = 0; e < steps; e++) {
        const double a = chunk_a[e];
        const int64_t qend = chunk_e[e];
        for (int64_t q = chunk_s[e] + threadIdx.x; q < qend; q += kDenseThreads) {
          const int32_t j = bci[q];
          flag[j] = stamp;
          sps_csum acc;
          acc.hi = hi[j];
          acc.lo = lo[j];
          sps_csum_add(&acc, a * bv[q]);
          hi[j] = acc.hi;
          lo[j] = acc.lo;
          my_min = j < my_min ? j : my_min;
          my_max = j > my_max ? j : my_max;
        }
        /* entry p0 + e's sums are in before the next entry adds to them (and the chunk read) */
        __syncthreads();
      }
    }
    if (my_max >= 0) {
      atomicMin(&jmin, my_min);
      atomicMax(&jmax, my_max);
    }
    __syncthreads();
    int64_t at = crp[i];
    const int lo_j = jmin, hi_j = jmax;
    for (int64_t j0 = lo_j; j0 <= hi_j; j0 += kDenseThreads) {
      const int64_t j = j0 + threadIdx.x;
      const int here = j <= hi_j && flag[j] == stamp;
      int pos, total;
      Scan(scan_tmp).ExclusiveSum(here, pos, total);
      if (here) {
        sps_csum acc;
        acc.hi = hi[j];
        acc.lo = lo[j];
        cci[at + pos] = (int32_t)j;
        cv[at + pos] = sps_csum_value(acc);
        hi[j] = 0.0;
        lo[j] = 0.0;
      }
      at += total;
      __syncthreads(); /* scan_tmp is reused */
    }
    __syncthreads(); /* every thread has read jmin and jmax before the next row resets them */
  }
}

unsigned blocks_of(int64_t items, int64_t per_block)
{
  return (unsigned)((items + per_block - 1) / per_block);
}

template <int TABLE, int G, int W, int THREADS>
cudaError_t launch_count(cudaStream_t stream, int64_t nrows, const int32_t *rows,
                         const int64_t *arp, const int32_t *aci, const int64_t *brp,
                         const int32_t *bci, int64_t *cnt)
{
  count_rows<TABLE, G, W, THREADS>
      <<<blocks_of(nrows, THREADS / G), THREADS, 0, stream>>>(nrows, rows, arp, aci, brp, bci, cnt);
  return cudaGetLastError();
}

template <int TABLE, int G, int THREADS>
cudaError_t launch_fill(cudaStream_t stream, int64_t nrows, const int32_t *rows, const int64_t *arp,
                        const int32_t *aci, const double *av, const int64_t *brp,
                        const int32_t *bci, const double *bv, const int64_t *crp, int32_t *cci,
                        double *cv)
{
  constexpr int R = THREADS / G;
  const size_t bytes = (size_t)R * TABLE * 2 * sizeof(double) + (size_t)THREADS * 4 * 8 +
                       (size_t)R * (TABLE + 1) * 4;
  if (bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(
        fill_rows<TABLE, G, THREADS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess) return e;
  }
  fill_rows<TABLE, G, THREADS><<<blocks_of(nrows, R), THREADS, bytes, stream>>>(
      nrows, rows, arp, aci, av, brp, bci, bv, crp, cci, cv);
  return cudaGetLastError();
}

} // namespace

extern "C" int64_t sps_cuda_spgemm_bin_cap(int b)
{
  return b >= 1 && b < SPS_SPGEMM_DENSE_BIN ? (int64_t)16 << (b - 1) : -1;
}

extern "C" cudaError_t sps_cuda_spgemm_bin(cudaStream_t stream, int64_t m, int64_t n, int fill,
                                           const int64_t *arp, const int32_t *aci,
                                           const int64_t *brp, int64_t *crp, unsigned char *rowbin,
                                           unsigned long long *counters)
{
  if (m <= 0) return cudaSuccess;
  bin_rows<<<blocks_of(m, kBinThreads), kBinThreads, 0, stream>>>(m, n, fill, arp, aci, brp, crp,
                                                                  rowbin, counters);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_spgemm_scatter(cudaStream_t stream, int64_t m,
                                               const unsigned char *rowbin,
                                               sps_cuda_spgemm_offsets first,
                                               unsigned long long *cursors, int32_t *rows)
{
  if (m <= 0) return cudaSuccess;
  scatter_rows<<<blocks_of(m, kBinThreads), kBinThreads, 0, stream>>>(m, rowbin, first, cursors,
                                                                      rows);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_spgemm_count(cudaStream_t stream, int b, int64_t nrows,
                                             const int32_t *rows, int64_t n, const int64_t *arp,
                                             const int32_t *aci, const int64_t *brp,
                                             const int32_t *bci, int64_t *cnt, int blocks,
                                             unsigned *flags)
{
  if (nrows <= 0) return cudaSuccess;
  switch (b) {
  case 1:
    return launch_count<32, 4, 1, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 2:
    return launch_count<64, 8, 1, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 3:
    return launch_count<128, 16, 2, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 4:
    return launch_count<256, 32, 4, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 5:
    return launch_count<512, 64, 8, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 6:
    return launch_count<1024, 128, 8, 128>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 7:
    return launch_count<2048, 256, 16, 256>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 8:
    return launch_count<4096, 512, 32, 512>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case 9:
    return launch_count<8192, 1024, 32, 1024>(stream, nrows, rows, arp, aci, brp, bci, cnt);
  case SPS_SPGEMM_DENSE_BIN:
    if (blocks < 1 || !flags) return cudaErrorInvalidValue;
    count_dense<<<(unsigned)blocks, kDenseThreads, 0, stream>>>(nrows, rows, n, arp, aci, brp, bci,
                                                                cnt, flags);
    return cudaGetLastError();
  default:
    return cudaErrorInvalidValue;
  }
}

extern "C" cudaError_t sps_cuda_spgemm_scan(cudaStream_t stream, void *temp, size_t *bytes,
                                            int64_t *data, int64_t count)
{
  return cub::DeviceScan::ExclusiveSum(temp, *bytes, data, count, stream);
}

extern "C" cudaError_t
sps_cuda_spgemm_fill(cudaStream_t stream, int b, int64_t nrows, const int32_t *rows, int64_t n,
                     const int64_t *arp, const int32_t *aci, const double *av, const int64_t *brp,
                     const int32_t *bci, const double *bv, const int64_t *crp, int32_t *cci,
                     double *cv, int blocks, unsigned *flags, double *hi, double *lo)
{
  if (nrows <= 0) return cudaSuccess;
#define SPS_FILL_ARGS stream, nrows, rows, arp, aci, av, brp, bci, bv, crp, cci, cv
  switch (b) {
  case 1:
    return launch_fill<32, 4, 128>(SPS_FILL_ARGS);
  case 2:
    return launch_fill<64, 8, 128>(SPS_FILL_ARGS);
  case 3:
    return launch_fill<128, 16, 128>(SPS_FILL_ARGS);
  case 4:
    return launch_fill<256, 32, 128>(SPS_FILL_ARGS);
  case 5:
    return launch_fill<512, 64, 64>(SPS_FILL_ARGS);
  case 6:
    return launch_fill<1024, 128, 128>(SPS_FILL_ARGS);
  case 7:
    return launch_fill<2048, 256, 256>(SPS_FILL_ARGS);
  case 8:
    return launch_fill<4096, 512, 512>(SPS_FILL_ARGS);
  case 9:
    return launch_fill<8192, 1024, 1024>(SPS_FILL_ARGS);
  case SPS_SPGEMM_DENSE_BIN:
    if (blocks < 1 || !flags || !hi || !lo) return cudaErrorInvalidValue;
    fill_dense<<<(unsigned)blocks, kDenseThreads, 0, stream>>>(
        nrows, rows, n, arp, aci, av, brp, bci, bv, crp, cci, cv, flags, hi, lo);
    return cudaGetLastError();
  default:
    return cudaErrorInvalidValue;
  }
#undef SPS_FILL_ARGS
}
