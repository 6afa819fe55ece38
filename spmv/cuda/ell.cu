/* ell.cu: the ell SpMV kernel, one thread per row of a padded column-major ELLPACK matrix, and the kernel that builds that matrix from CSR on the device.
 *
 * Thread-to-data map: thread t of the grid owns row t and walks slots k = 0..width-1 of its
 * row, entry k*ld + t, stopping at the first padding slot (column -1), adding the rounded
 * products in slot order into a compensated sum (core/compensated_sum.h): y_t gets
 * alpha*fl(hi + lo) + beta*y_t, the bits of csr-scalar's sum of the same row.
 * Memory access: at step k the threads of a warp read 32 consecutive column indices and
 * values (fully coalesced, ld is a multiple of 32 so every column of slots starts aligned);
 * x is gathered through the read-only cache; y written once, coalesced.
 * Wins on matrices whose rows all have about the same length (stencils, structured FEM):
 * no row offsets are read and every load is coalesced. Loses as soon as one row is much
 * longer than the others: the padding is read (and stored) for every row, which is why the
 * variant refuses padding beyond 3x nnz at setup.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "reduce.cuh"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    ell_kernel(int64_t nrows, int64_t ld, int64_t width, const int32_t *__restrict__ colind,
               const double *__restrict__ values, double alpha, const double *__restrict__ x,
               double beta, double *__restrict__ y)
{
  const int64_t row = blockIdx.x * (int64_t)kThreads + threadIdx.x;
  if (row >= nrows) return;
  sps_csum s = sps_csum_zero();
  int64_t idx = row;
#pragma unroll 4
  for (int64_t k = 0; k < width; k++, idx += ld) {
    const int32_t c = __ldg(&colind[idx]);
    if (c < 0) break;
    sps_csum_add(&s, __ldg(&values[idx]) * __ldg(&x[c]));
  }
  y[row] = sps_axpby_out(alpha, sps_csum_value(s), beta, &y[row]);
}

/* Row t of the padded matrix (t < ld): its first min(width, length) entries in slots
 * k*ld + t, then column -1 and value 0 (rows from nrows to ld are all padding). One thread a
 * row; at each k a warp writes 32 consecutive slots, coalesced; the CSR reads are the rows'. */
__global__ void __launch_bounds__(kThreads)
    ell_build_kernel(int64_t nrows, int64_t ld, int64_t width, const int64_t *__restrict__ rp,
                     const int32_t *__restrict__ ci, const double *__restrict__ v,
                     int32_t *__restrict__ ecol, double *__restrict__ eval)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= ld) return;
  const int64_t start = i < nrows ? rp[i] : 0;
  const int64_t len = i < nrows ? rp[i + 1] - start : 0;
  const int64_t n = len < width ? len : width;
  for (int64_t k = 0; k < n; k++) {
    ecol[k * ld + i] = ci[start + k];
    eval[k * ld + i] = v[start + k];
  }
  for (int64_t k = n; k < width; k++) {
    ecol[k * ld + i] = -1;
    eval[k * ld + i] = 0.0;
  }
}

} // namespace

extern "C" cudaError_t sps_cuda_ell_build(cudaStream_t stream, int64_t nrows, int64_t ld,
                                          int64_t width, const int64_t *rowptr,
                                          const int32_t *colind, const double *values,
                                          int32_t *ell_colind, double *ell_values)
{
  if (ld <= 0 || width <= 0) return cudaSuccess;
  const unsigned blocks = (unsigned)((ld + kThreads - 1) / kThreads);
  ell_build_kernel<<<blocks, kThreads, 0, stream>>>(nrows, ld, width, rowptr, colind, values,
                                                     ell_colind, ell_values);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_ell(cudaStream_t stream, int64_t nrows, int64_t ld, int64_t width,
                                    const int32_t *colind, const double *values, double alpha,
                                    const double *x, double beta, double *y)
{
  if (nrows <= 0) return cudaSuccess;
  const unsigned blocks = (unsigned)((nrows + kThreads - 1) / kThreads);
  ell_kernel<<<blocks, kThreads, 0, stream>>>(nrows, ld, width, colind, values, alpha, x, beta, y);
  return cudaGetLastError();
}
