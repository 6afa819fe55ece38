/* bjacobi.cu: the block Jacobi apply on the GPU: each row of z is its block inverse's row times the block of r.
 *
 * The math (precond/ref/kernels.h, sps_ref_bjacobi_apply): z[b bs + i] = sum_{j < m_b}
 * inv_b[i][j] r[b bs + j], m_b the size of block b (bs, or less for the last one).
 * Thread-to-data map: thread t owns row t; the bs threads of a block (neighbours in a warp
 * when bs divides 32) read the same bs entries of r, which the L1 cache serves once, and each
 * reads its own contiguous row of the inverse. The products go into a compensated sum in j
 * order (core/compensated_sum.h), so z agrees to the bit with the CPU reference.
 * Memory: 8 bs bytes of the inverse a row, so the apply costs about bs times an SpMV's traffic
 * for a matrix with bs entries a row; it wins where the blocks hold the coupling (nodes of a
 * structural model, circuits with zero diagonals), and is pointless for bs beyond a few tens.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../../core/compensated_sum.h"
#include "launchers.h"

namespace
{

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    bjacobi_kernel(int64_t n, int bs, const double *__restrict__ inv, const double *__restrict__ r,
                   double *__restrict__ z)
{
  for (int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; row < n;
       row += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = row / bs, r0 = b * bs;
    const int i = (int)(row - r0);
    const int m = n - r0 < bs ? (int)(n - r0) : bs;
    const double *blk = inv + (b * bs + i) * (int64_t)bs;
    sps_csum acc = sps_csum_zero();
    for (int j = 0; j < m; j++) sps_csum_add(&acc, __ldg(&blk[j]) * __ldg(&r[r0 + j]));
    z[row] = sps_csum_value(acc);
  }
}

} // namespace

extern "C" cudaError_t sps_cuda_bjacobi_apply(cudaStream_t stream, int64_t n, int bs,
                                              const double *inv, const double *r, double *z)
{
  if (n <= 0) return cudaSuccess;
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 65535) blocks = 65535;
  bjacobi_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(n, bs, inv, r, z);
  return cudaGetLastError();
}
