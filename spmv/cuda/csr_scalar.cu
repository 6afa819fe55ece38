/* csr_scalar.cu: the csr-scalar SpMV kernel, one thread per row.
 *
 * Thread-to-data map: thread t of the grid owns row t and walks its nonzeros in order.
 * Memory access: neighbouring threads read values and colind at distant addresses (one
 * row apart), so loads are coalesced only when rows have about one nonzero; x is gathered.
 * Wins on very short rows (1 to 4 nonzeros) and on tiny matrices where launch cost rules;
 * loses badly on long or uneven rows (a warp waits for its longest row).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

namespace {

constexpr int kThreads = 256;

/* y_i <- alpha * sum_k values[k] * x[colind[k]] + beta * y_i, y_i not read when beta = 0. */
__global__ void csr_scalar_kernel(int64_t nrows, const int64_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colind,
                                  const double *__restrict__ values, double alpha,
                                  const double *__restrict__ x, double beta, double *__restrict__ y)
{
  int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (row >= nrows) return;
  double s = 0.0;
  for (int64_t k = rowptr[row]; k < rowptr[row + 1]; k++) s += values[k] * __ldg(&x[colind[k]]);
  y[row] = beta == 0.0 ? alpha * s : alpha * s + beta * y[row];
}

} // namespace

extern "C" cudaError_t sps_cuda_csr_scalar(cudaStream_t stream, int64_t nrows,
                                           const int64_t *rowptr, const int32_t *colind,
                                           const double *values, double alpha, const double *x,
                                           double beta, double *y)
{
  if (nrows <= 0) return cudaSuccess;
  unsigned blocks = (unsigned)((nrows + kThreads - 1) / kThreads);
  csr_scalar_kernel<<<blocks, kThreads, 0, stream>>>(nrows, rowptr, colind, values, alpha, x,
                                                     beta, y);
  return cudaGetLastError();
}
