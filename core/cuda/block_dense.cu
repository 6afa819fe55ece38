/* block_dense.cu: the block CG kernels of the CUDA block backend: Gram matrices X^T Y of two blocks (compensated, deterministic) and the product of a block with a small matrix.
 *
 * gram  G = X^T Y for X of a and Y of b columns (a, b <= 64): thread t of block (x, y) serves
 *       entry e = 256 y + t, (p, q) = (e mod a, e div a), over the rows of chunk x; a warp's
 *       32 entries read consecutive columns of X's row (coalesced) and one column of Y's
 *       (a broadcast). Each entry's compensated sum of its chunk is one pair of the work
 *       space, and a second launch adds the pairs of each entry in chunk order, so the result
 *       does not depend on timing (the CPU sums each entry's rows in order: the same bits bar
 *       rare ties). Reads X and Y once per 256 entries: for the s x s Gram matrices of block
 *       CG with small s that is a few passes over the block.
 *  gemm Y(:, q) <- beta Y(:, q) + X C(:, q): lanes across the columns of Y (block_reduce.cuh's
 *       map), each thread one entry, the sum over p in order in plain arithmetic (the CPU's
 *       order); C read through the read-only cache. One pass over Y, a passes over X's row
 *       from L1.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "block_launchers.h"
#include "block_reduce.cuh"

namespace
{

using sps_block::csum;
using sps_block::kThreads;
using sps_block::Map;
using sps_block::map_for;

__global__ void gram_partial_kernel(int64_t n, int64_t ld, int a, const double *__restrict__ X,
                                    int b, const double *__restrict__ Y, int64_t rows_per_chunk,
                                    double *partials)
{
  const int e = blockIdx.y * kThreads + threadIdx.x;
  if (e >= a * b) return;
  const int p = e % a, q = e / a;
  const int64_t i0 = (int64_t)blockIdx.x * rows_per_chunk;
  const int64_t i1 = i0 + rows_per_chunk < n ? i0 + rows_per_chunk : n;
  csum s = sps_csum_zero();
  for (int64_t i = i0; i < i1; i++) sps_csum_add(&s, X[i * ld + p] * Y[i * ld + q]);
  const int64_t at = 2 * ((int64_t)e * gridDim.x + blockIdx.x);
  partials[at] = s.hi;
  partials[at + 1] = s.lo;
}

__global__ void gram_finish_kernel(int ab, unsigned chunks, const double *__restrict__ partials,
                                   double *G)
{
  const int e = blockIdx.x * kThreads + threadIdx.x;
  if (e >= ab) return;
  csum s = sps_csum_zero();
  for (unsigned k = 0; k < chunks; k++) {
    const int64_t at = 2 * ((int64_t)e * chunks + k);
    csum o;
    o.hi = partials[at];
    o.lo = partials[at + 1];
    sps_csum_merge(&s, o);
  }
  G[e] = sps_csum_value(s);
}

__global__ void gemm_kernel(int64_t n, int64_t ld, int a, const double *__restrict__ X, int b,
                            uint64_t mask, const double *__restrict__ C, double beta,
                            double *__restrict__ Y)
{
  const Map mp = map_for(b);
  SPS_BLOCK_ROWS(i, n, mp)
  for (int q = mp.tx; q < b; q += mp.TX) {
    if (!((mask >> q) & 1u)) continue;
    double s = 0.0;
    for (int p = 0; p < a; p++) s += X[i * ld + p] * __ldg(&C[p + (int64_t)q * a]);
    const int64_t e = i * ld + q;
    Y[e] = beta == 0.0 ? s : beta * Y[e] + s;
  }
}

} // namespace

extern "C" cudaError_t sps_cuda_block_gram(cudaStream_t s, unsigned max_blocks, int64_t n,
                                           int64_t ld, int a, const double *X, int b,
                                           const double *Y, double *ws, double *G)
{
  const int ab = a * b;
  if (ab <= 0) return cudaSuccess;
  const unsigned gy = (unsigned)((ab + kThreads - 1) / kThreads);
  int64_t chunks = (n + 63) / 64;
  const int64_t most = max_blocks / gy > 0 ? max_blocks / gy : 1;
  if (chunks > most) chunks = most;
  if (chunks < 1) chunks = 1;
  const int64_t rows = (n + chunks - 1) / chunks;
  double *partials = ws + 2;
  gram_partial_kernel<<<dim3((unsigned)chunks, gy), kThreads, 0, s>>>(n, ld, a, X, b, Y,
                                                                      rows > 0 ? rows : 1,
                                                                      partials);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  gram_finish_kernel<<<gy, kThreads, 0, s>>>(ab, (unsigned)chunks, partials, G);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_block_gemm(cudaStream_t s, unsigned max_blocks, int64_t n,
                                           int64_t ld, int a, const double *X, int b,
                                           uint64_t mask, const double *C, double beta, double *Y)
{
  if (n <= 0 || b <= 0 || !mask) return cudaSuccess;
  gemm_kernel<<<sps_block::grid_rows(n, b, max_blocks), kThreads, 0, s>>>(n, ld, a, X, b, mask, C,
                                                                         beta, Y);
  return cudaGetLastError();
}
