/* spmm_sputnik.cu: the sputnik SpMM kernel (seed 003, Gale et al., "Sparse GPU Kernels for Deep Learning", SC 2020): 1-D tiles of output rows, subwarps, vector loads aligned by reverse offsets, rows swizzled by length.
 *
 * Math: y_ij <- alpha * fl(hi + lo) + beta * y_ij, (hi, lo) the compensated sum of the rounded
 * products a_il * x_lj in entry order (Fast2Sum after ordering, the same bits as TwoSum): the CPU
 * reference's bits (ref/spmm_csr.c, ref/spmm_sputnik.c), never fused (nvcc -fmad=false).
 * Thread-to-data map: a block of SPS_SPUTNIK_WARPS warps; a subwarp of S lanes (S = the power of
 * two covering ceil(k/V) columns, at most 32; V = 2 doubles per lane when X and Y allow double2,
 * else 1) serves one 1-D tile of the output: one row and S*V consecutive columns (blockIdx.y
 * picks the column tile, strided by gridDim.y past 65535). Slot s = the subwarp's place in the
 * grid serves row perm[s]: perm lists the rows by decreasing length (the row swizzle, built at
 * setup), so the subwarps of a warp get rows of about the same length (row bundling: little
 * divergence) and the heaviest rows are scheduled first (row binning).
 * Memory access, per step: the subwarp loads a strip of 2*S entries of its row, each lane two
 * consecutive values (one 16-byte double2 load) and column indices (one 8-byte int2 load), into
 * its part of shared memory. Vector loads need an even first entry: the strip starts at the
 * row's start rounded down to even (reverse-offset memory alignment, ROMA) and the entries of
 * the previous row so read are masked (column -1), as are those past the row's end; the last
 * pair of the array is loaded as a scalar so no load passes its end. Then every lane walks the
 * strip in entry order: each entry's value and column come from shared memory (a broadcast to
 * the subwarp) and its V columns of X's row come in one double2 load (row-major X: the S lanes
 * read S*V consecutive doubles). Steps run in lockstep over the warp (the warp's longest row
 * sets their number), so __syncwarp() orders the shared buffer; shorter rows mask their tail.
 * When A's arrays are not 16/8-byte aligned (a wrapped matrix) the strips are S entries of
 * scalar loads (avec = 1), and V = 1 when X or Y do not allow double2.
 * Wins on rows of similar length and k >= 4 (stencils, FEM; most of the subwarp's lanes busy,
 * A read once per column tile with wide loads); loses on very uneven rows (a row of 10^5
 * entries is one subwarp's serial work: spmm-balanced splits it) and for k = 1 or 2 (S = 1: a
 * thread per row, which the vector loads and the swizzle help less than lanes over entries).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "spmm_launchers.h"

namespace {

constexpr int kWarps = SPS_SPUTNIK_WARPS;
constexpr int kThreads = 32 * kWarps;
/* Shared entries per warp: 32/S subwarps of strips of at most 2*S entries. */
constexpr int kWarpEntries = 64;

__device__ __forceinline__ double axpby_out(double alpha, double s, double beta, double y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * y;
}

template <int S, int V>
__global__ void __launch_bounds__(kThreads)
    spmm_sputnik_kernel(int64_t nrows, int64_t nnz, const int64_t *__restrict__ rowptr,
                        const int32_t *__restrict__ colind, const double *__restrict__ values,
                        const int32_t *__restrict__ perm, int64_t k, int avec, double alpha,
                        const double *__restrict__ X, int64_t ldx, double beta,
                        double *__restrict__ Y, int64_t ldy)
{
  __shared__ double sval[kWarps][kWarpEntries];
  __shared__ int32_t scol[kWarps][kWarpEntries];
  const int warp = threadIdx.x / 32, wl = threadIdx.x % 32;
  const int sw = wl / S, l = wl % S;
  const int seg = sw * 2 * S;
  const int64_t slot = (int64_t)blockIdx.x * (kThreads / S) + warp * (32 / S) + sw;
  const bool active = slot < nrows;
  int64_t row = 0, begin = 0, end = 0, start = 0;
  if (active) {
    row = __ldg(&perm[slot]);
    begin = __ldg(&rowptr[row]);
    end = __ldg(&rowptr[row + 1]);
    /* ROMA: back the start up to an even entry so the strips' double2 loads are aligned. */
    start = avec == 2 ? (begin & ~(int64_t)1) : begin;
  }
  const int strip = S * avec;
  long long nsteps = active ? (long long)((end - start + strip - 1) / strip) : 0;
  /* Every lane of the warp runs the warp's largest number of steps (uniform __syncwarp). */
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    const long long other = __shfl_xor_sync(0xffffffffu, nsteps, o);
    nsteps = other > nsteps ? other : nsteps;
  }
  const int64_t ntiles = (k + S * V - 1) / (S * V);
  for (int64_t tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
    const int64_t c0 = tile * (S * V) + (int64_t)l * V;
    const bool has_col = active && c0 < k;
    sps_csum acc0 = sps_csum_zero(), acc1 = sps_csum_zero();
    for (long long step = 0; step < nsteps; step++) {
      const int64_t e = start + step * strip + (int64_t)avec * l;
      double v0 = 0.0, v1 = 0.0;
      int32_t j0 = -1, j1 = -1;
      if (e < end) {
        if (avec == 2 && e + 1 < nnz) {
          const double2 v = __ldg(reinterpret_cast<const double2 *>(values + e));
          const int2 c = __ldg(reinterpret_cast<const int2 *>(colind + e));
          v0 = v.x, v1 = v.y, j0 = c.x, j1 = c.y;
        } else {
          v0 = __ldg(&values[e]);
          j0 = __ldg(&colind[e]);
        }
      }
      /* Mask the previous row's entries (ROMA) and those past the row's end. */
      if (e < begin || e >= end) j0 = -1;
      if (e + 1 < begin || e + 1 >= end) j1 = -1;
      sval[warp][seg + avec * l] = v0;
      scol[warp][seg + avec * l] = j0;
      if (avec == 2) {
        sval[warp][seg + 2 * l + 1] = v1;
        scol[warp][seg + 2 * l + 1] = j1;
      }
      __syncwarp();
      if (has_col) {
        /* Unrolled by 4 so that the X loads of four entries are in flight together. */
#pragma unroll 4
        for (int t = 0; t < strip; t++) {
          const int32_t j = scol[warp][seg + t];
          if (j >= 0) {
            const double a = sval[warp][seg + t];
            const double *xp = X + (int64_t)j * ldx + c0;
            if (V == 2) {
              /* The second column of the last pair of an odd k is padding (ld even): read, not
               * used. */
              const double2 x = __ldg(reinterpret_cast<const double2 *>(xp));
              sps_csum_add_ordered(&acc0, a * x.x);
              sps_csum_add_ordered(&acc1, a * x.y);
            } else {
              sps_csum_add_ordered(&acc0, a * __ldg(xp));
            }
          }
        }
      }
      __syncwarp();
    }
    if (has_col) {
      double *yp = Y + row * ldy + c0;
      const double s0 = sps_csum_value(acc0);
      if (V == 2 && c0 + 1 < k) {
        const double s1 = sps_csum_value(acc1);
        double2 out;
        if (beta == 0.0) {
          out.x = alpha * s0;
          out.y = alpha * s1;
        } else {
          const double2 yin = *reinterpret_cast<const double2 *>(yp);
          out.x = axpby_out(alpha, s0, beta, yin.x);
          out.y = axpby_out(alpha, s1, beta, yin.y);
        }
        *reinterpret_cast<double2 *>(yp) = out;
      } else {
        *yp = axpby_out(alpha, s0, beta, beta == 0.0 ? 0.0 : *yp);
      }
    }
  }
}

template <int S, int V>
cudaError_t launch(cudaStream_t stream, int64_t nrows, int64_t nnz, const int64_t *rowptr,
                   const int32_t *colind, const double *values, const int32_t *perm, int64_t k,
                   int avec, double alpha, const double *X, int64_t ldx, double beta, double *Y,
                   int64_t ldy)
{
  const int64_t slots_per_block = kThreads / S;
  const int64_t ntiles = (k + S * V - 1) / (S * V);
  dim3 grid((unsigned)((nrows + slots_per_block - 1) / slots_per_block),
            (unsigned)(ntiles < 65535 ? ntiles : 65535));
  spmm_sputnik_kernel<S, V><<<grid, kThreads, 0, stream>>>(nrows, nnz, rowptr, colind, values,
                                                           perm, k, avec, alpha, X, ldx, beta, Y,
                                                           ldy);
  return cudaGetLastError();
}

template <int V>
cudaError_t launch_v(cudaStream_t stream, int lanes, int64_t nrows, int64_t nnz,
                     const int64_t *rowptr, const int32_t *colind, const double *values,
                     const int32_t *perm, int64_t k, int avec, double alpha, const double *X,
                     int64_t ldx, double beta, double *Y, int64_t ldy)
{
#define SPS_SPUTNIK_LAUNCH(S)                                                                    \
  case S:                                                                                        \
    return launch<S, V>(stream, nrows, nnz, rowptr, colind, values, perm, k, avec, alpha, X, ldx, \
                        beta, Y, ldy)
  switch (lanes) {
    SPS_SPUTNIK_LAUNCH(1);
    SPS_SPUTNIK_LAUNCH(2);
    SPS_SPUTNIK_LAUNCH(4);
    SPS_SPUTNIK_LAUNCH(8);
    SPS_SPUTNIK_LAUNCH(16);
    SPS_SPUTNIK_LAUNCH(32);
  default: return cudaErrorInvalidValue;
  }
#undef SPS_SPUTNIK_LAUNCH
}

} // namespace

extern "C" cudaError_t sps_cuda_spmm_sputnik(cudaStream_t stream, int64_t nrows, int64_t nnz,
                                             const int64_t *rowptr, const int32_t *colind,
                                             const double *values, const int32_t *perm, int64_t k,
                                             int xv, int avec, double alpha, const double *X,
                                             int64_t ldx, double beta, double *Y, int64_t ldy)
{
  if (nrows <= 0 || k <= 0) return cudaSuccess;
  if ((xv != 1 && xv != 2) || (avec != 1 && avec != 2)) return cudaErrorInvalidValue;
  const int lanes = sps_spmm_sputnik_lanes(k, xv);
  if (xv == 2)
    return launch_v<2>(stream, lanes, nrows, nnz, rowptr, colind, values, perm, k, avec, alpha, X,
                       ldx, beta, Y, ldy);
  return launch_v<1>(stream, lanes, nrows, nnz, rowptr, colind, values, perm, k, avec, alpha, X,
                     ldx, beta, Y, ldy);
}
