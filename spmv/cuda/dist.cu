/* dist.cu: the distributed product's boundary rows on the GPU: each row's diagonal-block entries (x) and off-diagonal-block entries (the halo) in one compensated sum, as the CPU reference spmv/ref/dist.c.
 *
 * Thread-to-data map: thread t of the grid owns row row0 + t; it walks the row's diagonal-block
 * entries, then its off-diagonal-block entries, adding each rounded product into one
 * compensated sum, and writes y_i = alpha*fl(hi + lo) + beta*y_i (y not read when beta = 0).
 * Memory access: as csr-scalar (neighbouring threads read neighbouring short runs of colind
 * and values; x and the halo gathered through the read-only cache). These rows are the ranks'
 * boundary, a thin slice of the rows, computed after the halo arrives; the rows before them
 * run with the variant chosen for the diagonal block while the halo is exchanged. Loses on
 * long boundary rows (a warp waits for its longest row), which a partition rarely makes.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
    dist_rows_kernel(int64_t row0, int64_t nrows, const int64_t *__restrict__ rowptr,
                     const int32_t *__restrict__ colind, const double *__restrict__ values,
                     const int64_t *__restrict__ orowptr, const int32_t *__restrict__ ocolind,
                     const double *__restrict__ ovalues, double alpha,
                     const double *__restrict__ x, const double *__restrict__ xh, double beta,
                     double *__restrict__ y)
{
  const int64_t row = row0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (row >= nrows) return;
  sps_csum acc = sps_csum_zero();
  for (int64_t k = __ldg(&rowptr[row]), end = __ldg(&rowptr[row + 1]); k < end; k++)
    sps_csum_add_ordered(&acc, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  for (int64_t k = __ldg(&orowptr[row]), end = __ldg(&orowptr[row + 1]); k < end; k++)
    sps_csum_add_ordered(&acc, __ldg(&ovalues[k]) * __ldg(&xh[__ldg(&ocolind[k])]));
  y[row] = sps_axpby_out(alpha, sps_csum_value(acc), beta, &y[row]);
}

} // namespace

extern "C" cudaError_t sps_cuda_dist_rows(cudaStream_t stream, int64_t row0, int64_t nrows,
                                          const int64_t *rowptr, const int32_t *colind,
                                          const double *values, const int64_t *orowptr,
                                          const int32_t *ocolind, const double *ovalues,
                                          double alpha, const double *x, const double *xh,
                                          double beta, double *y)
{
  if (nrows <= row0) return cudaSuccess;
  const int64_t blocks = (nrows - row0 + kThreads - 1) / kThreads;
  dist_rows_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(row0, nrows, rowptr, colind, values,
                                                               orowptr, ocolind, ovalues, alpha, x,
                                                               xh, beta, y);
  return cudaGetLastError();
}
