/* csr_scalar.cu: the csr-scalar SpMV kernel, one thread per row.
 *
 * Thread-to-data map: thread t of the grid owns row t. A row of at most 8 nonzeros (the common
 * case where this variant is chosen) is done in three unrolled steps: its column indices and
 * values are all loaded, then its x entries, then summed in order, so each thread has its
 * whole row's loads in flight at once instead of one entry's chain at a time. Longer rows are
 * walked entry by entry.
 * Each product values[k]*x[colind[k]] is rounded on its own and added, in row order, into a
 * compensated sum (core/compensated_sum.h), so y_i = alpha*fl(hi + lo) + beta*y_i agrees to
 * the bit with the CPU reference and with the other compensated variants (bar rare ties).
 * Memory access: neighbouring threads read values and colind at neighbouring short runs (one
 * row apart), which the L1 cache turns into full use of every line when rows are short; row
 * offsets are read as int32 when the matrix has that copy (4 bytes a row less); x gathered
 * through the read-only cache; y written coalesced. Blocks of 128 threads.
 * Measured on an H200 with plain sums (before the compensated ones) against the plain
 * entry-by-entry loop in 256-thread blocks: G3_circuit 34.7 against 36.2 us,
 * laplacian7pt_100 29.0 against 34.3 us (83% of the copy bandwidth on both). (Loading four
 * entries ahead in a general loop, and the streaming evict-first hint on values and columns,
 * were both slower.) With the compensated sums (the ordered addition, 48 registers):
 * G3_circuit 36.8 us, laplacian7pt_100 30.3 us (79% and 80%); starting the sum from the
 * first product instead of adding it to zero measured slower (37.1 and 31.2 us).
 * Wins on short, even rows (up to about 10 nonzeros: meshes, circuits without long nets);
 * loses badly on long or uneven rows (a warp waits for its longest row).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 128;
constexpr int kShort = 8;
/* Ten resident blocks an SM caps the kernel at 48 registers: the compensated sum would
 * otherwise take 54 and drop the warps in flight from 40 to 36, which cost G3_circuit 15%
 * (H200: 40.4 against 36.5 us with the cap). */
constexpr int kMinBlocks = 10;

/* y_i <- alpha * csum_k values[k] * x[colind[k]] + beta * y_i, y_i not read when beta = 0. */
template <typename Off>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    csr_scalar_kernel(int64_t nrows, const Off *__restrict__ rowptr,
                      const int32_t *__restrict__ colind, const double *__restrict__ values,
                      double alpha, const double *__restrict__ x, double beta,
                      double *__restrict__ y)
{
  /* Rows fit in int32 (sps_matrix refuses more); entries are addressed in the offsets' type,
   * so the int32 path does all its index arithmetic in 32 bits. */
  const int row = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= nrows) return;
  const Off begin = __ldg(&rowptr[row]);
  const Off end = __ldg(&rowptr[row + 1]);
  const int len = (int)(end - begin);
  sps_csum acc = sps_csum_zero();
  if (len <= kShort) {
    int32_t c[kShort];
    double v[kShort], xv[kShort];
#pragma unroll
    for (int u = 0; u < kShort; u++)
      if (u < len) {
        c[u] = __ldg(&colind[begin + u]);
        v[u] = __ldg(&values[begin + u]);
      }
#pragma unroll
    for (int u = 0; u < kShort; u++)
      if (u < len) xv[u] = __ldg(&x[c[u]]);
#pragma unroll
    for (int u = 0; u < kShort; u++)
      if (u < len) sps_csum_add_ordered(&acc, v[u] * xv[u]);
  } else {
    for (Off k = begin; k < end; k++)
      sps_csum_add_ordered(&acc, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  }
  y[row] = sps_axpby_out(alpha, sps_csum_value(acc), beta, &y[row]);
}

} // namespace

extern "C" cudaError_t sps_cuda_csr_scalar(cudaStream_t stream, int64_t nrows,
                                           const int64_t *rowptr, const int32_t *rowptr32,
                                           const int32_t *colind, const double *values,
                                           double alpha, const double *x, double beta, double *y)
{
  if (nrows <= 0) return cudaSuccess;
  unsigned blocks = (unsigned)((nrows + kThreads - 1) / kThreads);
  if (rowptr32)
    csr_scalar_kernel<int32_t><<<blocks, kThreads, 0, stream>>>(nrows, rowptr32, colind, values,
                                                                alpha, x, beta, y);
  else
    csr_scalar_kernel<int64_t><<<blocks, kThreads, 0, stream>>>(nrows, rowptr, colind, values,
                                                                alpha, x, beta, y);
  return cudaGetLastError();
}
