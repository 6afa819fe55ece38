/* spmm_balanced.cu: the spmm-balanced SpMM kernels (seed 004's nonzero split): work units of at most SPS_SPMM_UNIT_NNZ entries, one subwarp each, and a fix-up that merges the parts of long rows in order.
 *
 * Math: a group unit writes y_ij <- alpha*fl(hi + lo) + beta*y_ij for its whole rows, (hi, lo)
 * the compensated sum of a_il*x_lj in entry order (the reference's bits). A part unit leaves the
 * compensated sum of its stretch of a long row in partial slot s: (hi, lo) of column j at
 * partial[2*(s*k + j)]. The fix-up kernel merges a long row's parts in part order
 * (sps_csum_merge) and writes y_ij: deterministic, the CPU reference's bits (ref/spmm_balanced.c),
 * the entry-order reference's bar rare ties.
 * Thread-to-data map: units kernel: a block of 128 threads holds 128/S subwarps of S lanes
 * (S as sputnik's: the power of two covering ceil(k/V) columns, at most 32, V = 2 columns per
 * lane with double2 loads and stores when X and Y allow, else 1); subwarp u serves unit
 * blockIdx.x*(128/S) + u and lane l its V columns tile*S*V + l*V of every column tile
 * (blockIdx.y, strided). Fix-up kernel: one thread per (long row, column), 256 per block.
 * Memory access: the S lanes of a subwarp read the same values[e] and colind[e] (a broadcast),
 * then S*V consecutive doubles of X's row colind[e]; a unit's rows are consecutive, so a warp's
 * units stream a contiguous stretch of A; Y written once per row; partials written and read
 * once, coalesced over the columns.
 * Wins on uneven rows (power-law graphs, circuits with dense rows: every subwarp has at most 128
 * entries of work and a row of 10^5 entries is spread over 800 subwarps); loses on even short
 * rows against sputnik (each lane walks whole rows serially and the units' bookkeeping costs a
 * load, and A's entries come in 8-byte loads), and the fix-up is a second launch.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "spmm_launchers.h"

namespace {

constexpr int kThreads = 128;
constexpr int kFixThreads = 256;

__device__ __forceinline__ double axpby_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

/* The products of entries [b, e) for the lane's V columns from c0, added in order. */
template <int V>
__device__ __forceinline__ void unit_sum(int64_t b, int64_t e, const int32_t *__restrict__ colind,
                                         const double *__restrict__ values,
                                         const double *__restrict__ X, int64_t ldx, int64_t c0,
                                         sps_csum *acc)
{
#pragma unroll 4
  for (int64_t p = b; p < e; p++) {
    const double a = __ldg(&values[p]);
    const double *xp = X + (int64_t)__ldg(&colind[p]) * ldx + c0;
    if (V == 2) {
      const double2 x = __ldg(reinterpret_cast<const double2 *>(xp));
      sps_csum_add_ordered(&acc[0], a * x.x);
      sps_csum_add_ordered(&acc[1], a * x.y);
    } else {
      sps_csum_add_ordered(&acc[0], a * __ldg(xp));
    }
  }
}

template <int S, int V>
__global__ void __launch_bounds__(kThreads)
    spmm_units_kernel(const int64_t *__restrict__ rowptr, const int32_t *__restrict__ colind,
                      const double *__restrict__ values, int64_t nunits,
                      const sps_spmm_unit *__restrict__ units, double *__restrict__ partial,
                      int64_t k, double alpha, const double *__restrict__ X, int64_t ldx,
                      double beta, double *__restrict__ Y, int64_t ldy)
{
  const int64_t u = (int64_t)blockIdx.x * (kThreads / S) + threadIdx.x / S;
  const int l = threadIdx.x % S;
  if (u >= nunits) return;
  const sps_spmm_unit un = units[u];
  const int64_t ntiles = (k + S * V - 1) / (S * V);
  for (int64_t tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
    const int64_t c0 = tile * (S * V) + (int64_t)l * V;
    if (c0 >= k) continue;
    const int nc = V == 2 && c0 + 1 < k ? 2 : 1;
    if (un.count > 0) {
      for (int64_t i = un.row; i < (int64_t)un.row + un.count; i++) {
        sps_csum acc[2] = {sps_csum_zero(), sps_csum_zero()};
        unit_sum<V>(__ldg(&rowptr[i]), __ldg(&rowptr[i + 1]), colind, values, X, ldx, c0, acc);
        double *yp = Y + i * ldy + c0;
        for (int c = 0; c < nc; c++) yp[c] = axpby_out(alpha, sps_csum_value(acc[c]), beta, &yp[c]);
      }
    } else {
      const int64_t slot = -(int64_t)un.count - 1;
      const int64_t row_end = __ldg(&rowptr[un.row + 1]);
      const int64_t e = un.begin + SPS_SPMM_UNIT_NNZ < row_end ? un.begin + SPS_SPMM_UNIT_NNZ
                                                               : row_end;
      sps_csum acc[2] = {sps_csum_zero(), sps_csum_zero()};
      unit_sum<V>(un.begin, e, colind, values, X, ldx, c0, acc);
      for (int c = 0; c < nc; c++) {
        partial[2 * (slot * k + c0 + c)] = acc[c].hi;
        partial[2 * (slot * k + c0 + c) + 1] = acc[c].lo;
      }
    }
  }
}

/* One thread per (long row, column): merge the row's parts in order and write y. */
__global__ void __launch_bounds__(kFixThreads)
    spmm_fixup_kernel(int64_t nlong, const sps_spmm_long_row *__restrict__ longs,
                      const double *__restrict__ partial, int64_t k, double alpha, double beta,
                      double *__restrict__ Y, int64_t ldy)
{
  const int64_t t = (int64_t)blockIdx.x * kFixThreads + threadIdx.x;
  if (t >= nlong * k) return;
  const int64_t r = t / k, j = t % k;
  const sps_spmm_long_row lr = longs[r];
  sps_csum s;
  s.hi = partial[2 * ((int64_t)lr.slot * k + j)];
  s.lo = partial[2 * ((int64_t)lr.slot * k + j) + 1];
  for (int p = 1; p < lr.parts; p++) {
    sps_csum o;
    o.hi = partial[2 * (((int64_t)lr.slot + p) * k + j)];
    o.lo = partial[2 * (((int64_t)lr.slot + p) * k + j) + 1];
    sps_csum_merge(&s, o);
  }
  double *yp = &Y[(int64_t)lr.row * ldy + j];
  *yp = axpby_out(alpha, sps_csum_value(s), beta, yp);
}

template <int S, int V>
cudaError_t launch(cudaStream_t stream, const int64_t *rowptr, const int32_t *colind,
                   const double *values, int64_t nunits, const sps_spmm_unit *units,
                   double *partial, int64_t k, double alpha, const double *X, int64_t ldx,
                   double beta, double *Y, int64_t ldy)
{
  const int64_t per_block = kThreads / S;
  const int64_t ntiles = (k + S * V - 1) / (S * V);
  dim3 grid((unsigned)((nunits + per_block - 1) / per_block),
            (unsigned)(ntiles < 65535 ? ntiles : 65535));
  spmm_units_kernel<S, V><<<grid, kThreads, 0, stream>>>(rowptr, colind, values, nunits, units,
                                                         partial, k, alpha, X, ldx, beta, Y, ldy);
  return cudaGetLastError();
}

template <int V>
cudaError_t launch_v(cudaStream_t stream, int lanes, const int64_t *rowptr, const int32_t *colind,
                     const double *values, int64_t nunits, const sps_spmm_unit *units,
                     double *partial, int64_t k, double alpha, const double *X, int64_t ldx,
                     double beta, double *Y, int64_t ldy)
{
#define SPS_UNITS_LAUNCH(S)                                                                      \
  case S:                                                                                        \
    return launch<S, V>(stream, rowptr, colind, values, nunits, units, partial, k, alpha, X, ldx, \
                        beta, Y, ldy)
  switch (lanes) {
    SPS_UNITS_LAUNCH(1);
    SPS_UNITS_LAUNCH(2);
    SPS_UNITS_LAUNCH(4);
    SPS_UNITS_LAUNCH(8);
    SPS_UNITS_LAUNCH(16);
    SPS_UNITS_LAUNCH(32);
  default: return cudaErrorInvalidValue;
  }
#undef SPS_UNITS_LAUNCH
}

} // namespace

extern "C" cudaError_t sps_cuda_spmm_balanced(cudaStream_t stream, const int64_t *rowptr,
                                              const int32_t *colind, const double *values,
                                              int64_t nunits, const sps_spmm_unit *units,
                                              int64_t nlong, const sps_spmm_long_row *longs,
                                              double *partial, int64_t k, int xv, double alpha,
                                              const double *X, int64_t ldx, double beta,
                                              double *Y, int64_t ldy)
{
  if (nunits <= 0 || k <= 0) return cudaSuccess;
  if (xv != 1 && xv != 2) return cudaErrorInvalidValue;
  const int lanes = sps_spmm_sputnik_lanes(k, xv);
  cudaError_t e = xv == 2 ? launch_v<2>(stream, lanes, rowptr, colind, values, nunits, units,
                                        partial, k, alpha, X, ldx, beta, Y, ldy)
                          : launch_v<1>(stream, lanes, rowptr, colind, values, nunits, units,
                                        partial, k, alpha, X, ldx, beta, Y, ldy);
  if (e != cudaSuccess || nlong <= 0) return e;
  const int64_t n = nlong * k;
  spmm_fixup_kernel<<<(unsigned)((n + kFixThreads - 1) / kFixThreads), kFixThreads, 0, stream>>>(
      nlong, longs, partial, k, alpha, beta, Y, ldy);
  return cudaGetLastError();
}
