/* merge.cu: the merge SpMV kernels, merge-path CSR (Merrill and Garland, SC'16) with a fix-up pass for rows split between shares.
 *
 * Thread-to-data map: the merged list of nrows row ends and nnz nonzeros is cut into shares
 * of `items` consecutive items; thread t walks share t from the path coordinate
 * (start_row[t], j0 = t*items - start_row[t]), found by a 2-D binary search on the diagonal
 * at setup. At (i, j) it finishes row i when rowptr[i+1] <= j and otherwise consumes nonzero
 * j, adding its rounded product into a compensated sum s (core/compensated_sum.h). A row
 * that began in the share (rowptr[i] >= j0) is written at once, y_i <- alpha*fl(s.hi + s.lo)
 * + beta*y_i; the pair of the row it stops in goes to (carry_row[t], carry_val[2t..2t+1]).
 * A second kernel, one thread per share, finishes each row r that began in an earlier share:
 * the thread of the share t that reaches r's end merges the carries of the shares q0..t-1
 * that stopped in r, in share order, adds its own products of r again (at most `items`) and
 * writes y_r once, so every row is one compensated sum (the same bits as csr-scalar bar rare
 * ties) and no atomic is needed. The CPU reference (spmv/ref/merge.c) does the same.
 * Memory access: each thread reads its own run of about `items` values and column indices
 * (contiguous per thread, neighbouring threads one run apart: coalescing comes from the L1
 * cache, not from the warp), rowptr once per row, x gathered; y written once per row; the
 * fix-up reads 16 bytes of carry per share a split row spans, one thread walking them all.
 * Wins on very uneven matrices (each thread does the same work whatever the rows: a row of
 * 10^6 entries is spread over 10^5 threads). Loses on regular matrices to csr-vector (the
 * per-thread runs are less coalesced, and the fix-up costs a second launch), and on rows
 * spanning very many shares: one fix-up thread merges their carries one after another.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    merge_kernel(int64_t nrows, int64_t nnz, const int64_t *__restrict__ rowptr,
                 const int32_t *__restrict__ colind, const double *__restrict__ values,
                 int64_t nshares, int items, const int32_t *__restrict__ start_row,
                 int32_t *__restrict__ carry_row, double *__restrict__ carry_val, double alpha,
                 const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t t = blockIdx.x * (int64_t)kThreads + threadIdx.x;
  if (t >= nshares) return;
  const int64_t total = nrows + nnz;
  int64_t d = t * items;
  const int64_t dend = d + items < total ? d + items : total;
  int64_t i = __ldg(&start_row[t]);
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
  carry_row[t] = i < nrows ? (int32_t)i : -1;
  carry_val[2 * t] = s.hi;
  carry_val[2 * t + 1] = s.lo;
}

/*
 * For each share t >= 1 that finishes the row r = start_row[t] begun before it: y_r <-
 * alpha*(carries of shares q0..t-1 merged in order, then t's products of r) + beta*y_r.
 */
__global__ void __launch_bounds__(kThreads)
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
  int64_t q0 = t - 1;
  while (q0 > 0 && carry_row[q0 - 1] == r)
    q0--;
  sps_csum s = sps_csum_zero();
  for (int64_t q = q0; q < t; q++) {
    sps_csum c;
    c.hi = carry_val[2 * q];
    c.lo = carry_val[2 * q + 1];
    sps_csum_merge(&s, c);
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
