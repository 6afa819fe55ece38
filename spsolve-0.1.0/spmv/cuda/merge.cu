/* merge.cu: the merge SpMV kernels, merge-path CSR (Merrill and Garland, SC'16) with a fix-up pass for rows split between shares.
 *
 * Thread-to-data map: the merged list of nrows row ends and nnz nonzeros is cut into shares
 * of `items` consecutive items; thread t walks share t from the path coordinate
 * (start_row[t], j0 = t*items - start_row[t]), found by a 2-D binary search on the diagonal
 * at setup. At (i, j) it finishes row i when rowptr[i+1] <= j and otherwise consumes nonzero
 * j, adding its rounded product into a compensated sum s (core/compensated_sum.h). A row
 * that began in the share (rowptr[i] >= j0) is written at once, y_i <- alpha*fl(s.hi + s.lo)
 * + beta*y_i; the pair of the row it stops in is the share's carry. The block (256 shares)
 * then scans its carries, segmented by row, in shared memory, and stores at each share the
 * sum of its row's carries from the first share of the block that stopped in that row
 * (carry_row[t], carry_val[2t..2t+1]). A second kernel, one thread per share, finishes each
 * row r that began in an earlier share: the thread of the share t that reaches r's end takes
 * the prefix at t-1 and, while r's run reaches back over block boundaries, the prefix at the
 * last share of each earlier block (four blocks' loads at a time), adds its own products of
 * r again (at most `items`) and writes y_r once, so every row is one compensated sum (the
 * same bits as csr-scalar bar rare ties) and no atomic is needed. The CPU reference
 * (spmv/ref/merge.c) merges the same carries one by one in share order.
 * Memory access: each thread reads its own run of about `items` values and column indices
 * (contiguous per thread, neighbouring threads one run apart: coalescing comes from the L1
 * cache, not from the warp), rowptr once per row, x gathered; y written once per row; the
 * fix-up reads 16 bytes of carry per block of shares a split row spans.
 * Wins on very uneven matrices (each thread does the same work whatever the rows: a row of
 * 10^6 entries is spread over 10^5 threads). Loses on regular matrices to csr-vector (the
 * per-thread runs are less coalesced, and the fix-up costs a second launch). A row spanning
 * very many shares still costs one fix-up thread a round of loads per 4 blocks of them.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 256;
/* Blocks of carries the fix-up reads per round when a row spans many blocks of shares. */
constexpr int kBatch = 4;

__global__ void __launch_bounds__(kThreads)
    merge_kernel(int64_t nrows, int64_t nnz, const int64_t *__restrict__ rowptr,
                 const int32_t *__restrict__ colind, const double *__restrict__ values,
                 int64_t nshares, int items, const int32_t *__restrict__ start_row,
                 int32_t *__restrict__ carry_row, double *__restrict__ carry_val, double alpha,
                 const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ int32_t srow[kThreads];
  __shared__ sps_csum sval[2][kThreads];
  const int64_t t = blockIdx.x * (int64_t)kThreads + threadIdx.x;
  const bool active = t < nshares;
  const int64_t total = nrows + nnz;
  int64_t d = active ? t * items : 0;
  const int64_t dend = !active ? 0 : d + items < total ? d + items : total;
  int64_t i = active ? __ldg(&start_row[t]) : nrows;
  int64_t j = d - i;
  int64_t row_end = i < nrows ? __ldg(&rowptr[i + 1]) : nnz;
  /* The first row began in an earlier share: the fix-up kernel writes it. */
  bool split = i < nrows && __ldg(&rowptr[i]) < j;
  sps_csum s = sps_csum_zero();
  for (; d < dend; d++) {
    if (i < nrows && row_end <= j) {
      if (!split) y[i] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[i]);
      split = false;
      s = sps_csum_zero();
      i++;
      row_end = i < nrows ? __ldg(&rowptr[i + 1]) : nnz;
    } else {
      sps_csum_add(&s, __ldg(&values[j]) * __ldg(&x[__ldg(&colind[j])]));
      j++;
    }
  }
  /* Segmented inclusive scan of the carries over the block's shares (Hillis-Steele, runs of
   * equal rows; rows never decrease along the shares): share t's pair becomes the sum of the
   * carries of its row from the first share of the block that stopped in it up to t. */
  const int32_t crow = active && i < nrows ? (int32_t)i : -1;
  srow[threadIdx.x] = crow;
  sval[0][threadIdx.x] = s;
  __syncthreads();
  int cur = 0;
#pragma unroll
  for (int o = 1; o < kThreads; o <<= 1) {
    sps_csum v = sval[cur][threadIdx.x];
    if (threadIdx.x >= o && srow[threadIdx.x - o] == crow) {
      sps_csum before = sval[cur][threadIdx.x - o];
      sps_csum_merge(&before, v);
      v = before;
    }
    sval[cur ^ 1][threadIdx.x] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (!active) return;
  carry_row[t] = crow;
  carry_val[2 * t] = sval[cur][threadIdx.x].hi;
  carry_val[2 * t + 1] = sval[cur][threadIdx.x].lo;
}

/*
 * For each share t >= 1 that finishes the row r = start_row[t] begun before it: y_r <-
 * alpha*(carries of shares q0..t-1 merged in order, then t's products of r) + beta*y_r.
 */
__global__ void __launch_bounds__(kThreads, 4)
    merge_fixup_kernel(int64_t nrows, int64_t nnz, const int64_t *__restrict__ rowptr,
                       const int32_t *__restrict__ colind, const double *__restrict__ values,
                       int64_t nshares, int items, const int32_t *__restrict__ start_row,
                       const int32_t *__restrict__ carry_row,
                       const double *__restrict__ carry_val, double alpha,
                       const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t t = blockIdx.x * (int64_t)kThreads + threadIdx.x;
  if (t < 1 || t >= nshares) return;
  const int64_t total = nrows + nnz;
  const int64_t r = __ldg(&start_row[t]);
  const int64_t j0 = t * items - r;
  const int64_t dend = t * items + items < total ? t * items + items : total;
  if (r >= nrows || __ldg(&rowptr[r]) >= j0) return;
  const int64_t row_end = __ldg(&rowptr[r + 1]);
  if (r + row_end >= dend) return;
  /* The carries of r: the prefix at share t-1 (t-1 stopped inside r); while r's run reaches
   * back over a block boundary, the prefix at the last share of each earlier block, kBatch
   * blocks' loads issued at once. Most split rows end in the first step. */
  sps_csum s;
  s.hi = __ldg(&carry_val[2 * (t - 1)]);
  s.lo = __ldg(&carry_val[2 * (t - 1) + 1]);
  int64_t blk = (t - 1) / kThreads;
  bool more = blk > 0 && __ldg(&carry_row[blk * kThreads]) == r;
  while (more) {
    int32_t first_row[kBatch], last_row[kBatch];
    sps_csum pre[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; k++) {
      const int64_t b = blk - 1 - k, last = (b + 1) * kThreads - 1;
      const bool ok = b >= 0;
      first_row[k] = ok ? __ldg(&carry_row[b * kThreads]) : -1;
      last_row[k] = ok ? __ldg(&carry_row[last]) : -1;
      pre[k].hi = ok ? __ldg(&carry_val[2 * last]) : 0.0;
      pre[k].lo = ok ? __ldg(&carry_val[2 * last + 1]) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < kBatch; k++) {
      if (!more) break;
      if (last_row[k] != r) {
        more = false;
      } else {
        sps_csum_merge(&s, pre[k]);
        /* The run began inside this block: done. */
        if (first_row[k] != r) more = false;
      }
    }
    blk -= kBatch;
  }
  for (int64_t k = j0; k < row_end; k++)
    sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  y[r] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[r]);
}

} // namespace

extern "C" cudaError_t sps_cuda_merge(cudaStream_t stream, int64_t nrows, int64_t nnz,
                                      const int64_t *rowptr, const int32_t *colind,
                                      const double *values, int64_t nshares, int items,
                                      const int32_t *start_row, int32_t *carry_row,
                                      double *carry_val, double alpha, const double *x,
                                      double beta, double *y)
{
  if (nrows <= 0 || nshares <= 0) return cudaSuccess;
  const unsigned blocks = (unsigned)((nshares + kThreads - 1) / kThreads);
  merge_kernel<<<blocks, kThreads, 0, stream>>>(nrows, nnz, rowptr, colind, values, nshares, items,
                                                start_row, carry_row, carry_val, alpha, x, beta,
                                                y);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  merge_fixup_kernel<<<blocks, kThreads, 0, stream>>>(nrows, nnz, rowptr, colind, values, nshares,
                                                      items, start_row, carry_row, carry_val,
                                                      alpha, x, beta, y);
  return cudaGetLastError();
}
