/* merge.cu: the merge SpMV kernels, merge-path CSR (Merrill and Garland, SC'16) with a fix-up pass for rows split between shares.
 *
 * Thread-to-data map: the merged list of nrows row ends and nnz nonzeros is cut into shares
 * of `items` consecutive items; thread t walks share t from the path coordinate
 * (start_row[t], t*items - start_row[t]), found by a 2-D binary search on the diagonal at
 * setup. At (i, j) it finishes row i when rowptr[i+1] <= j (writing y_i <- alpha*s + beta*y_i)
 * and otherwise consumes nonzero j. The sum of the row it stops in is written to
 * (carry_row[t], carry_val[t]); a second kernel, one thread per share, adds alpha*carry_val to
 * y[carry_row] with atomicAdd (after the first kernel, so after the row was written).
 * Memory access: each thread reads its own run of about `items` values and column indices
 * (contiguous per thread, neighbouring threads one run apart: coalescing comes from the L1
 * cache, not from the warp), rowptr once per row, x gathered; y written once per row plus one
 * atomic per share that ends inside a row.
 * Wins on very uneven matrices (each thread does the same work whatever the rows: a row of
 * 10^6 entries is spread over 10^5 threads). Loses on regular matrices to csr-vector (the
 * per-thread runs are less coalesced, and the fix-up costs a second launch).
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
  double s = 0.0;
  for (; d < dend; d++) {
    if (i < nrows && row_end <= j) {
      y[i] = sps_axpby_out(alpha, s, beta, &y[i]);
      s = 0.0;
      i++;
      row_end = i < nrows ? __ldg(&rowptr[i + 1]) : nnz;
    } else {
      s = fma(__ldg(&values[j]), __ldg(&x[__ldg(&colind[j])]), s);
      j++;
    }
  }
  carry_row[t] = i < nrows ? (int32_t)i : -1;
  carry_val[t] = s;
}

/* y[carry_row[t]] += alpha*carry_val[t], one thread per share. */
__global__ void __launch_bounds__(kThreads)
    merge_fixup_kernel(int64_t nshares, const int32_t *__restrict__ carry_row,
                       const double *__restrict__ carry_val, double alpha, double *__restrict__ y)
{
  const int64_t t = blockIdx.x * (int64_t)kThreads + threadIdx.x;
  if (t >= nshares) return;
  const int32_t r = carry_row[t];
  const double v = carry_val[t];
  if (r >= 0 && v != 0.0) atomicAdd(&y[r], alpha * v);
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
  merge_fixup_kernel<<<blocks, kThreads, 0, stream>>>(nshares, carry_row, carry_val, alpha, y);
  return cudaGetLastError();
}
