/* csr_scalar.cu: the csr-scalar SpMV kernel, one thread per row.
 *
 * Thread-to-data map: thread t of the grid owns row t and walks its nonzeros in order.
 * (Loading four entries ahead of their use was measured slower on an H200: 41.5 against
 * 38.0 us on G3_circuit, more registers and a serial tail for rows of 5 or 6 entries.)
 * Memory access: neighbouring threads read values and colind at neighbouring short runs (one
 * row apart), which the L1 cache turns into full use of every line when rows are short; row
 * offsets are read as int32 when the matrix has that copy (4 bytes a row less); x gathered
 * through the read-only cache; y written coalesced. (Loading values and columns with the
 * streaming, evict-first hint was measured 7% slower on G3_circuit and twice as slow on
 * poisson3d:160 on an H200: neighbouring threads re-read those lines from L1.)
 * Wins on short, even rows (up to about 10 nonzeros: meshes, circuits without long nets),
 * where it streams at the best fraction of the bandwidth of all variants; loses badly on
 * long or uneven rows (a warp waits for its longest row).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace
{

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
  const int64_t end = __ldg(&rowptr[row + 1]);
  double s = 0.0;
  for (int64_t k = __ldg(&rowptr[row]); k < end; k++)
    s += __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]);
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
    csr_scalar_kernel<int32_t>
        <<<blocks, kThreads, 0, stream>>>(nrows, rowptr32, colind, values, alpha, x, beta, y);
  else
    csr_scalar_kernel<int64_t>
        <<<blocks, kThreads, 0, stream>>>(nrows, rowptr, colind, values, alpha, x, beta, y);
  return cudaGetLastError();
}
