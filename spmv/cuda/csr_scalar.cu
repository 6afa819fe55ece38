/* csr_scalar.cu: the csr-scalar SpMV kernel, one thread per row.
 *
 * Thread-to-data map: thread t of the grid owns row t and walks its nonzeros in order, four
 * at a time: the four column indices, then the four values and x entries are loaded before
 * any is used, so each thread keeps several independent loads in flight.
 * Memory access: neighbouring threads read values and colind at neighbouring short runs (one
 * row apart), which the L1 cache turns into full use of every line when rows are short; row
 * offsets are read as int32 when the matrix has that copy (4 bytes a row less); x gathered
 * through the read-only cache; y written coalesced.
 * Wins on short, even rows (up to about 10 nonzeros: meshes, circuits without long nets),
 * where it streams at the best fraction of the bandwidth of all variants; loses badly on
 * long or uneven rows (a warp waits for its longest row).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 256;

/* y_i <- alpha * sum_k values[k] * x[colind[k]] + beta * y_i, y_i not read when beta = 0. */
template <typename Off>
__global__ void __launch_bounds__(kThreads)
    csr_scalar_kernel(int64_t nrows, const Off *__restrict__ rowptr,
                      const int32_t *__restrict__ colind, const double *__restrict__ values,
                      double alpha, const double *__restrict__ x, double beta,
                      double *__restrict__ y)
{
  int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (row >= nrows) return;
  int64_t k = __ldg(&rowptr[row]);
  const int64_t end = __ldg(&rowptr[row + 1]);
  double s = 0.0;
  for (; k + 4 <= end; k += 4) {
    int32_t c[4];
    double v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) c[u] = __ldg(&colind[k + u]);
#pragma unroll
    for (int u = 0; u < 4; u++) v[u] = __ldg(&values[k + u]) * __ldg(&x[c[u]]);
#pragma unroll
    for (int u = 0; u < 4; u++) s += v[u];
  }
  for (; k < end; k++) s += __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]);
  y[row] = sps_axpby_out(alpha, s, beta, &y[row]);
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
