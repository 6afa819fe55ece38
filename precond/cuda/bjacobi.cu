/* bjacobi.cu: the block Jacobi apply kernels, z = blockdiag(inv_b) r, a thread per row of z.
 *
 * The math (precond/ref/kernels.h, sps_ref_bjacobi_apply): row i of z, in block b = i / bs,
 * is the compensated sum (core/compensated_sum.h) of inv[i bs + j] * r[b bs + j] for
 * j = 0, ..., size_b - 1 in this order, the stored inverses being an (nblocks bs) x bs
 * row-major array whose row i belongs to row i of z. Both paths below add the same rounded
 * products in the same order as the CPU reference, so z agrees with it to the bit.
 *
 * Thread-to-data map: thread t of the grid owns row t of z in both paths.
 *  - Direct (bs = 1 to 8, a kernel per bs): each thread loads its bs inverse entries (one
 *    contiguous run of bs doubles) and its block's bs entries of r, all unrolled and issued
 *    before the sum, as csr-scalar does. A warp covers 32 consecutive rows, 32/bs blocks: each
 *    load instruction hits 32 addresses bs doubles apart, and the warp's whole footprint
 *    (256 bs bytes) stays in L1 over its bs loads, so every sector comes from DRAM once; the
 *    r entries of one block are one address for its bs threads (a broadcast).
 *  - Staged (bs = 9 to 128): a thread block owns kThreads / bs whole blocks (R =
 *    (kThreads / bs) bs rows from row0), whose inverse rows are one contiguous run of R bs
 *    doubles. It copies its R entries of r to shared memory, then walks j in tiles of kTile
 *    columns: all threads copy the tile (R rows of kTile doubles; consecutive threads on
 *    consecutive columns, so each row's piece is one coalesced 128-byte read) into shared
 *    memory padded to kTile + 1 doubles a row (thread l then reads row l at a stride of 17
 *    doubles: no bank conflicts), and each thread adds its row's products to its running
 *    sum, which stays in registers from tile to tile, so the order is j = 0, 1, ... as on
 *    the CPU. Threads past the last whole block idle (bs = 33: 29 of 128).
 * Where it wins and loses: the apply reads n bs doubles of inverses and n of r and writes n,
 * each once, so it is bound by DRAM bandwidth. Measured on an H100 (HBM3) with n = 2e6 and a
 * standalone harness, in GB/s of those bytes (a device-to-device copy of the inverses runs at
 * about 3000): direct bs = 1..8, 2760-2850; staged bs = 12, 16, 17, 24, 32, 33, 48, 64: 2290,
 * 2800, 2220, 2330, 2800, 2370, 2790, 2810 (multiples of 16 fill every tile; other sizes leave
 * tiles and threads partly idle). The direct walk with bs read at run time fell to 1830 GB/s
 * at bs = 12, 900 at 16 and 500 at 64 (the warps' footprints, 256 bs bytes each, no longer fit
 * in L1 and each j reloads lines from L2), which is why larger blocks are staged; the staged
 * kernel at bs = 1 to 8 (1.2 to 3 times slower than direct: its barriers and idle tile
 * columns) is why small ones are not. z must not alias r (a block's rows read all of its r).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../../core/compensated_sum.h"
#include "launchers.h"

namespace
{

constexpr int kThreads = 128;
constexpr int kTile = 16; /* columns of a staged tile: 128 bytes of an inverse row */

/* Direct path, bs = BS known at compile time: loads unrolled and issued before the sum. */
template <int BS>
__global__ void __launch_bounds__(kThreads)
    bjacobi_direct_fixed(int64_t n, const double *__restrict__ inv, const double *__restrict__ r,
                         double *__restrict__ z)
{
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const int64_t first = i - i % BS;
  const int size = n - first < BS ? (int)(n - first) : BS;
  const double *row = inv + i * BS;
  double a[BS], x[BS];
#pragma unroll
  for (int j = 0; j < BS; j++)
    if (j < size) {
      a[j] = __ldg(&row[j]);
      x[j] = __ldg(&r[first + j]);
    }
  sps_csum acc = sps_csum_zero();
#pragma unroll
  for (int j = 0; j < BS; j++)
    if (j < size) sps_csum_add(&acc, a[j] * x[j]);
  z[i] = sps_csum_value(acc);
}

/* Staged path: a thread block owns kThreads / bs whole blocks; inverse tiles and r in shared
 * memory. */
__global__ void __launch_bounds__(kThreads)
    bjacobi_staged(int64_t n, int bs, const double *__restrict__ inv, const double *__restrict__ r,
                   double *__restrict__ z)
{
  __shared__ double tile[kThreads * (kTile + 1)];
  __shared__ double rs[kThreads];
  const int nrows = (kThreads / bs) * bs; /* R: the rows of this thread block */
  const int64_t row0 = (int64_t)blockIdx.x * nrows;
  const int rows = n - row0 < nrows ? (int)(n - row0) : nrows; /* of them inside z */
  const int l = threadIdx.x;
  /* r entries of the thread block's rows (the last block may be cut short by n). */
  if (l < rows) rs[l] = __ldg(&r[row0 + l]);
  const int lfirst = l - l % bs; /* the block's first row, local */
  const int size = rows - lfirst < bs ? rows - lfirst : bs;
  const double *base = inv + row0 * bs;
  sps_csum acc = sps_csum_zero();
  for (int j0 = 0; j0 < bs; j0 += kTile) {
    const int width = bs - j0 < kTile ? bs - j0 : kTile;
    __syncthreads(); /* the previous tile is consumed (and rs written, the first time) */
    for (int e = l; e < rows * kTile; e += kThreads) {
      const int rr = e / kTile, c = e % kTile;
      if (c < width) tile[rr * (kTile + 1) + c] = __ldg(&base[(int64_t)rr * bs + j0 + c]);
    }
    __syncthreads();
    if (l < rows) {
      const int cend = size - j0 < width ? size - j0 : width;
      for (int c = 0; c < cend; c++)
        sps_csum_add(&acc, tile[l * (kTile + 1) + c] * rs[lfirst + j0 + c]);
    }
  }
  if (l < rows) z[row0 + l] = sps_csum_value(acc);
}

unsigned blocks_of(int64_t rows, int64_t per_block)
{
  return (unsigned)((rows + per_block - 1) / per_block);
}

} // namespace

extern "C" cudaError_t sps_cuda_bjacobi_apply(cudaStream_t stream, int64_t n, int bs,
                                              const double *inv, const double *r, double *z)
{
  if (n <= 0) return cudaSuccess;
  if (bs < 1 || bs > kThreads) return cudaErrorInvalidValue;
  const unsigned grid = blocks_of(n, kThreads);
  switch (bs) {
  case 1:
    bjacobi_direct_fixed<1><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 2:
    bjacobi_direct_fixed<2><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 3:
    bjacobi_direct_fixed<3><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 4:
    bjacobi_direct_fixed<4><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 5:
    bjacobi_direct_fixed<5><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 6:
    bjacobi_direct_fixed<6><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 7:
    bjacobi_direct_fixed<7><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  case 8:
    bjacobi_direct_fixed<8><<<grid, kThreads, 0, stream>>>(n, inv, r, z);
    break;
  default:
    bjacobi_staged<<<blocks_of(n, (kThreads / bs) * bs), kThreads, 0, stream>>>(n, bs, inv, r, z);
  }
  return cudaGetLastError();
}
