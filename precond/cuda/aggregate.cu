/* aggregate.cu: the CUDA kernels of strength of connection and MIS(2) aggregation for smoothed-aggregation AMG, one per step of the CPU reference (precond/ref/aggregate.c), with the same integers as results.
 *
 * The math is the reference's (precond/ref/kernels.h): strength |a_ij| >= theta sqrt(|a_ii a_jj|)
 * with a_ij != 0, the symmetric graph S = C u C^T, MIS(2) by synchronous rounds on the keys
 * (state << 62 | p(i), sps_agg_priority, the same function on both sides) and indices, then
 * the roots numbered by a prefix sum and the other rows joined by synchronous rounds. Every
 * step reads arrays that no thread of the same launch writes (the sweeps read kin/iin and
 * write kout/iout, attach reads ain and writes aout; decide reads only its own row's M and
 * key), so the results do not depend on the order in which threads run, and they are the
 * reference's element for element. The strength test is the same expression evaluated in
 * the same IEEE operations (a product, a correctly rounded sqrt, a product, a comparison; no
 * contraction: the build passes -fmad=false), so ties at the threshold fall the same way.
 *
 * Thread-to-data map: one thread a row in every row kernel (diagonal, strong count and fill,
 * union count and fill, init, sweep, decide, root flags, roots, attach), grid = ceil(n/256)
 * blocks of 256; column_count is a thread an entry of C. The counts the host loops on
 * (isolated, undecided, changed, left) are reduced in the block with __syncthreads_count and
 * added to a 64-bit device word by one atomic a block.
 * Memory access: the row kernels read their row's CSR entries in order (coalesced across a
 * warp only as far as neighbouring rows are about as long) and gather per-neighbour words
 * (the diagonal d_j, the keys and indices of S's neighbours, ain_j): random 8- and 4-byte reads,
 * as in an SpMV's x gathers. The transpose counts columns with atomics and sorts C's entries
 * by column with a stable radix sort (CUB), which keeps each column's rows ascending: the rows
 * of C^T come out sorted, as sps_ref_csr_transpose makes them. The prefix sums are CUB scans.
 * Where it wins and loses: each step is a few passes over S (a sweep is an SpMV-like gather
 * of 12 bytes a neighbour), so a round of MIS(2) costs about three SpMVs plus a launch and the
 * host's read of one counter; the number of rounds grows slowly with n (12 to 14 on the 1e6
 * row shared matrices). One thread a row serialises long rows: a row of k entries costs a
 * warp k steps, so a matrix with a few very long rows (circuits with a ground node) spends
 * its time in those warps; a warp a row would fix it and change no result.
 */
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include "launchers.h"

namespace
{

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n)
{
  return (unsigned)((n + kThreads - 1) / kThreads);
}

__device__ inline unsigned agg_state(uint64_t key)
{
  return (unsigned)(key >> SPS_AGG_STATE_SHIFT);
}

__device__ inline bool tuple_greater(uint64_t ka, int32_t ia, uint64_t kb, int32_t ib)
{
  return ka > kb || (ka == kb && ia > ib);
}

/* The reference's strength test (precond/ref/aggregate.c, is_strong). */
__device__ inline bool is_strong(double a, double di, double dj, double theta)
{
  return a != 0.0 && fabs(a) >= theta * sqrt(fabs(di * dj));
}

/* Add the block's count of true predicates to *word (one atomic a block). Every thread of the
 * block must call it. */
__device__ inline void block_count(int pred, unsigned long long *word)
{
  const int c = __syncthreads_count(pred);
  if (threadIdx.x == 0 && c > 0) atomicAdd(word, (unsigned long long)c);
}

/* d[i] <- a_ii (binary search of the sorted row), 0 when absent. */
__global__ void __launch_bounds__(kThreads)
    agg_diagonal(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                 const double *__restrict__ v, double *__restrict__ d)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  int64_t lo = rp[i], hi = rp[i + 1];
  double di = 0.0;
  while (lo < hi) {
    const int64_t m = lo + (hi - lo) / 2;
    const int32_t c = ci[m];
    if (c < i)
      lo = m + 1;
    else if (c > i)
      hi = m;
    else {
      di = v[m];
      break;
    }
  }
  d[i] = di;
}

__global__ void __launch_bounds__(kThreads)
    agg_strong_count(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                     const double *__restrict__ v, const double *__restrict__ d, double theta,
                     int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  const double di = d[i];
  int64_t c = 0;
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    const int32_t j = ci[k];
    if (j != i && is_strong(v[k], di, d[j], theta)) c++;
  }
  count[i] = c;
}

__global__ void __launch_bounds__(kThreads)
    agg_strong_fill(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                    const double *__restrict__ v, const double *__restrict__ d, double theta,
                    const int64_t *__restrict__ crp, int32_t *__restrict__ cci,
                    int32_t *__restrict__ crow)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const double di = d[i];
  int64_t at = crp[i];
  for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
    const int32_t j = ci[k];
    if (j != i && is_strong(v[k], di, d[j], theta)) {
      cci[at] = j;
      crow[at] = (int32_t)i;
      at++;
    }
  }
}

/* count[j] += 1 for every entry of C in column j (count zeroed, n + 1 words). */
__global__ void __launch_bounds__(kThreads)
    agg_column_count(int64_t nc, const int32_t *__restrict__ cci,
                     unsigned long long *__restrict__ count)
{
  const int64_t k = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (k < nc) atomicAdd(&count[cci[k]], 1ull);
}

__global__ void __launch_bounds__(kThreads)
    agg_union_count(int64_t n, const int64_t *__restrict__ crp, const int32_t *__restrict__ cci,
                    const int64_t *__restrict__ trp, const int32_t *__restrict__ tci,
                    int64_t *__restrict__ count)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) count[n] = 0;
  if (i >= n) return;
  int64_t a = crp[i], b = trp[i], c = 0;
  const int64_t ae = crp[i + 1], be = trp[i + 1];
  while (a < ae && b < be) {
    const int32_t x = cci[a], y = tci[b];
    a += x <= y;
    b += y <= x;
    c++;
  }
  count[i] = c + (ae - a) + (be - b);
}

__global__ void __launch_bounds__(kThreads)
    agg_union_fill(int64_t n, const int64_t *__restrict__ crp, const int32_t *__restrict__ cci,
                   const int64_t *__restrict__ trp, const int32_t *__restrict__ tci,
                   const int64_t *__restrict__ srp, int32_t *__restrict__ sci)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  int64_t a = crp[i], b = trp[i], at = srp[i];
  const int64_t ae = crp[i + 1], be = trp[i + 1];
  while (a < ae && b < be) {
    const int32_t x = cci[a], y = tci[b];
    sci[at++] = x <= y ? x : y;
    a += x <= y;
    b += y <= x;
  }
  while (a < ae)
    sci[at++] = cci[a++];
  while (b < be)
    sci[at++] = tci[b++];
}

__global__ void __launch_bounds__(kThreads)
    agg_init(int64_t n, const int64_t *__restrict__ srp, uint64_t *__restrict__ key,
             unsigned long long *__restrict__ isolated)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int iso = 0;
  if (i < n) {
    iso = srp[i + 1] == srp[i];
    const uint64_t state = iso ? SPS_AGG_OUT : SPS_AGG_UNDECIDED;
    key[i] = (state << SPS_AGG_STATE_SHIFT) | sps_agg_priority(i);
  }
  block_count(iso, isolated);
}

__global__ void __launch_bounds__(kThreads)
    agg_sweep(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
              const uint64_t *__restrict__ kin, const int32_t *__restrict__ iin,
              uint64_t *__restrict__ kout, int32_t *__restrict__ iout)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  uint64_t bk = kin[i];
  int32_t bi = iin ? iin[i] : (int32_t)i;
  for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
    const int32_t j = sci[k];
    const uint64_t jk = kin[j];
    const int32_t ji = iin ? iin[j] : j;
    if (tuple_greater(jk, ji, bk, bi)) bk = jk, bi = ji;
  }
  kout[i] = bk;
  iout[i] = bi;
}

__global__ void __launch_bounds__(kThreads)
    agg_decide(int64_t n, const uint64_t *__restrict__ mkey, const int32_t *__restrict__ midx,
               uint64_t *__restrict__ key, unsigned long long *__restrict__ undecided)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int still = 0;
  if (i < n) {
    const uint64_t k = key[i];
    if (agg_state(k) == SPS_AGG_UNDECIDED) {
      const uint64_t p = k & SPS_AGG_PRIORITY_MASK;
      if (midx[i] == i)
        key[i] = ((uint64_t)SPS_AGG_IN << SPS_AGG_STATE_SHIFT) | p;
      else if (agg_state(mkey[i]) == SPS_AGG_IN)
        key[i] = ((uint64_t)SPS_AGG_OUT << SPS_AGG_STATE_SHIFT) | p;
      else
        still = 1;
    }
  }
  block_count(still, undecided);
}

__global__ void __launch_bounds__(kThreads)
    agg_root_flags(int64_t n, const uint64_t *__restrict__ key, int64_t *__restrict__ flags)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) flags[n] = 0;
  if (i < n) flags[i] = agg_state(key[i]) == SPS_AGG_IN;
}

__global__ void __launch_bounds__(kThreads)
    agg_roots(int64_t n, const uint64_t *__restrict__ key, const int64_t *__restrict__ rank,
              int32_t *__restrict__ agg)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i < n) agg[i] = agg_state(key[i]) == SPS_AGG_IN ? (int32_t)rank[i] : -1;
}

__global__ void __launch_bounds__(kThreads)
    agg_attach(int64_t n, const int64_t *__restrict__ srp, const int32_t *__restrict__ sci,
               const uint64_t *__restrict__ key, const int32_t *__restrict__ ain,
               int32_t *__restrict__ aout, unsigned long long *__restrict__ counts)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  int changed = 0, left = 0;
  if (i < n) {
    const int32_t a = ain[i];
    int32_t out = a;
    if (a < 0 && srp[i + 1] > srp[i]) {
      uint64_t bp = 0;
      int32_t bj = -1;
      for (int64_t k = srp[i]; k < srp[i + 1]; k++) {
        const int32_t j = sci[k];
        if (ain[j] < 0) continue;
        const uint64_t pj = key[j] & SPS_AGG_PRIORITY_MASK;
        if (bj < 0 || tuple_greater(pj, j, bp, bj)) bp = pj, bj = j;
      }
      if (bj >= 0) {
        out = ain[bj];
        changed = 1;
      } else {
        left = 1;
      }
    }
    aout[i] = out;
  }
  block_count(changed, &counts[0]);
  block_count(left, &counts[1]);
}

} // namespace

extern "C" {

cudaError_t sps_cuda_agg_diagonal(cudaStream_t s, int64_t n, const int64_t *rp, const int32_t *ci,
                                  const double *v, double *d)
{
  if (n > 0) agg_diagonal<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, d);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_strong_count(cudaStream_t s, int64_t n, const int64_t *rp,
                                      const int32_t *ci, const double *v, const double *d,
                                      double theta, int64_t *count)
{
  agg_strong_count<<<grid_for(n + 1), kThreads, 0, s>>>(n, rp, ci, v, d, theta, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_strong_fill(cudaStream_t s, int64_t n, const int64_t *rp,
                                     const int32_t *ci, const double *v, const double *d,
                                     double theta, const int64_t *crp, int32_t *cci, int32_t *crow)
{
  if (n > 0)
    agg_strong_fill<<<grid_for(n), kThreads, 0, s>>>(n, rp, ci, v, d, theta, crp, cci, crow);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_scan(cudaStream_t s, void *temp, size_t *temp_bytes, const int64_t *count,
                              int64_t *offsets, int64_t n1)
{
  return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, count, offsets, n1, s);
}

cudaError_t sps_cuda_agg_column_count(cudaStream_t s, int64_t n, int64_t nc, const int32_t *cci,
                                      int64_t *count)
{
  cudaError_t e = cudaMemsetAsync(count, 0, ((size_t)n + 1) * sizeof(int64_t), s);
  if (e != cudaSuccess) return e;
  if (nc > 0)
    agg_column_count<<<grid_for(nc), kThreads, 0, s>>>(nc, cci, (unsigned long long *)count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_sort_by_column(cudaStream_t s, void *temp, size_t *temp_bytes, int64_t n,
                                        int64_t nc, const int32_t *cci, const int32_t *crow,
                                        int32_t *keys_out, int32_t *tci)
{
  int bits = 1;
  while (bits < 31 && ((int64_t)1 << bits) < n)
    bits++;
  return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, (const uint32_t *)cci,
                                         (uint32_t *)keys_out, crow, tci, nc, 0, bits, s);
}

cudaError_t sps_cuda_agg_union_count(cudaStream_t s, int64_t n, const int64_t *crp,
                                     const int32_t *cci, const int64_t *trp, const int32_t *tci,
                                     int64_t *count)
{
  agg_union_count<<<grid_for(n + 1), kThreads, 0, s>>>(n, crp, cci, trp, tci, count);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_union_fill(cudaStream_t s, int64_t n, const int64_t *crp,
                                    const int32_t *cci, const int64_t *trp, const int32_t *tci,
                                    const int64_t *srp, int32_t *sci)
{
  if (n > 0) agg_union_fill<<<grid_for(n), kThreads, 0, s>>>(n, crp, cci, trp, tci, srp, sci);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_init(cudaStream_t s, int64_t n, const int64_t *srp, uint64_t *key,
                              unsigned long long *isolated)
{
  cudaError_t e = cudaMemsetAsync(isolated, 0, sizeof *isolated, s);
  if (e != cudaSuccess) return e;
  if (n > 0) agg_init<<<grid_for(n), kThreads, 0, s>>>(n, srp, key, isolated);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_sweep(cudaStream_t s, int64_t n, const int64_t *srp, const int32_t *sci,
                               const uint64_t *kin, const int32_t *iin, uint64_t *kout,
                               int32_t *iout)
{
  if (n > 0) agg_sweep<<<grid_for(n), kThreads, 0, s>>>(n, srp, sci, kin, iin, kout, iout);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_decide(cudaStream_t s, int64_t n, const uint64_t *mkey,
                                const int32_t *midx, uint64_t *key, unsigned long long *undecided)
{
  cudaError_t e = cudaMemsetAsync(undecided, 0, sizeof *undecided, s);
  if (e != cudaSuccess) return e;
  if (n > 0) agg_decide<<<grid_for(n), kThreads, 0, s>>>(n, mkey, midx, key, undecided);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_root_flags(cudaStream_t s, int64_t n, const uint64_t *key, int64_t *flags)
{
  agg_root_flags<<<grid_for(n + 1), kThreads, 0, s>>>(n, key, flags);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_roots(cudaStream_t s, int64_t n, const uint64_t *key, const int64_t *rank,
                               int32_t *agg)
{
  if (n > 0) agg_roots<<<grid_for(n), kThreads, 0, s>>>(n, key, rank, agg);
  return cudaGetLastError();
}

cudaError_t sps_cuda_agg_attach(cudaStream_t s, int64_t n, const int64_t *srp, const int32_t *sci,
                                const uint64_t *key, const int32_t *ain, int32_t *aout,
                                unsigned long long *counts)
{
  cudaError_t e = cudaMemsetAsync(counts, 0, 2 * sizeof *counts, s);
  if (e != cudaSuccess) return e;
  if (n > 0) agg_attach<<<grid_for(n), kThreads, 0, s>>>(n, srp, sci, key, ain, aout, counts);
  return cudaGetLastError();
}

} // extern "C"
