/* csr_vector.cu: the csr-vector SpMV kernel, a group of G = 1..32 lanes per CSR row (CUSP's CSR-vector).
 *
 * Thread-to-data map: block of 256 threads = 256/G groups; group g of block b owns row
 * b*(256/G) + g. Lane l of the group reads entries rowptr[i] + l, + l + G, ... of its row and
 * keeps a compensated partial sum (hi, lo: core/compensated_sum.h) of its rounded products
 * in registers; the G pairs are merged by a shuffle tree (reduce.cuh) and lane 0 writes
 * y_i <- alpha*fl(hi + lo) + beta*y_i, the same bits as csr-scalar's in-order compensated
 * sum bar rare ties.
 * Memory access: the G lanes of a group read consecutive values and column indices (one
 * coalesced segment per row and step); consecutive groups read consecutive rows, so a warp
 * streams 32/G rows of A at a time; x is gathered through the read-only cache; rowptr is
 * read twice per row (broadcast to the group), y written once.
 * Wins when rows are about G long and similar (stencils, FEM, circuits with a narrow row
 * distribution); loses when row lengths are uneven (a warp waits for its longest row and a
 * row of 10^5 entries is served by at most 32 lanes) and when the mean is far from G.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 256;

template <int G>
__global__ void __launch_bounds__(kThreads)
    csr_vector_kernel(int64_t nrows, const int64_t *__restrict__ rowptr,
                      const int32_t *__restrict__ colind, const double *__restrict__ values,
                      double alpha, const double *__restrict__ x, double beta,
                      double *__restrict__ y)
{
  const int64_t row = (blockIdx.x * (int64_t)kThreads + threadIdx.x) / G;
  const int lane = threadIdx.x & (G - 1);
  sps_csum s = sps_csum_zero();
  if (row < nrows) {
    const int64_t end = __ldg(&rowptr[row + 1]);
    for (int64_t k = __ldg(&rowptr[row]) + lane; k < end; k += G)
      sps_csum_add(&s, __ldg(&values[k]) * __ldg(&x[__ldg(&colind[k])]));
  }
  /* Every lane of the warp reaches the shuffles (no early return). */
  s = sps_group_csum<G>(s);
  if (row < nrows && lane == 0) y[row] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[row]);
}

template <int G>
cudaError_t launch(cudaStream_t stream, int64_t nrows, const int64_t *rowptr,
                   const int32_t *colind, const double *values, double alpha, const double *x,
                   double beta, double *y)
{
  const int64_t rows_per_block = kThreads / G;
  const unsigned blocks = (unsigned)((nrows + rows_per_block - 1) / rows_per_block);
  csr_vector_kernel<G><<<blocks, kThreads, 0, stream>>>(nrows, rowptr, colind, values, alpha, x,
                                                        beta, y);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t sps_cuda_csr_vector(cudaStream_t stream, int64_t nrows,
                                           const int64_t *rowptr, const int32_t *colind,
                                           const double *values, int tpr, double alpha,
                                           const double *x, double beta, double *y)
{
  if (nrows <= 0) return cudaSuccess;
  switch (tpr) {
  case 1: return launch<1>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  case 2: return launch<2>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  case 4: return launch<4>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  case 8: return launch<8>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  case 16: return launch<16>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  case 32: return launch<32>(stream, nrows, rowptr, colind, values, alpha, x, beta, y);
  default: return cudaErrorInvalidValue;
  }
}
