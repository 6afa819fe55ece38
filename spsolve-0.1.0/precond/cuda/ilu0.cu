/* ilu0.cu: the ILU(0) factorisation in place on the GPU, synchronisation-free, a warp a row.
 *
 * The math (precond/ref/kernels.h, sps_ref_ilu0_factor), IKJ order: for each k in the lower
 * part of row i, ascending, l_ik = a_ik / u_kk, then a_ij -= l_ik u_kj for the j > k of
 * row k that row i also has; then the pivot rule on u_ii and dinv_i = 1 / u_ii.
 *
 * Thread-to-data map: a persistent grid of warps takes the rows of the lower triangle's level
 * order one after another from an atomic ticket (precond/cuda/sync.cuh). For each k of its lower part, in order, the warp
 * waits for row k's flag, lane 0 forms l_ik, and the lanes stride over row k's upper part,
 * each finding its column in row i by binary search and updating that entry: within one k
 * the lanes update distinct entries, and the k are taken one after the other, so every
 * a_ij sees the same subtractions in the same order as on the CPU, and the factors agree to
 * the bit. Values and inverse pivots of other rows are read through L2 (__ldcg): they were
 * written by other SMs during the launch.
 *
 * Cost: one flag wait per entry of L, so the time follows the number of level sets of L
 * (about a microsecond each) more than nnz; setup only.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"
#include "sync.cuh"

namespace
{

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

__device__ __forceinline__ int64_t find_col(const int32_t *colind, int64_t b, int64_t e, int32_t j)
{
  while (b < e) {
    const int64_t m = b + (e - b) / 2;
    const int32_t c = colind[m];
    if (c < j)
      b = m + 1;
    else if (c > j)
      e = m;
    else
      return m;
  }
  return -1;
}

__global__ void __launch_bounds__(kThreads)
    ilu0_kernel(int64_t n, const int32_t *__restrict__ order, const int64_t *__restrict__ rowptr,
                const int64_t *__restrict__ diag, const int32_t *__restrict__ colind,
                double *values, const double *__restrict__ rowmax, double pivot_tol, int spd,
                double *dinv, unsigned *flags, sps_cuda_sync_ctrl *ctrl, unsigned warps)
{
  const unsigned epoch = sps_sync::launch_epoch(ctrl);
  const int lane = threadIdx.x & 31;
  for (unsigned task = sps_sync::take_task(ctrl); task < n; task = sps_sync::take_task(ctrl)) {
    const int i = order[task];
    const int64_t rb = rowptr[i], re = rowptr[i + 1], di = diag[i];
    for (int64_t p = rb; p < di; p++) {
      const int k = colind[p];
      sps_sync::wait_ready(flags, k, epoch);
      /* l_ik = a_ik * (1 / u_kk): every lane forms it, lane 0 stores it. */
      const double lik = __ldcg(&values[p]) * __ldcg(&dinv[k]);
      __syncwarp();
      if (lane == 0) __stcg(&values[p], lik);
      const int64_t qb = diag[k] + 1, qe = rowptr[k + 1];
      for (int64_t q = qb + lane; q < qe; q += 32) {
        const int64_t at = find_col(colind, p + 1, re, colind[q]);
        if (at >= 0) __stcg(&values[at], __ldcg(&values[at]) - lik * __ldcg(&values[q]));
      }
      __syncwarp();
    }
    if (lane == 0) {
      /* The pivot rule of the reference, written the same way. */
      double u = __ldcg(&values[di]);
      const double rm = rowmax[i];
      const double floor_ = rm > 0.0 ? pivot_tol * rm : 1.0;
      if (spd) {
        if (!(u > floor_)) {
          u = floor_;
          atomicAdd(&ctrl->replaced, 1ull);
          atomicAdd(&ctrl->breakdowns, 1ull);
        }
      } else if (!(fabs(u) >= floor_)) {
        u = u < 0.0 ? -floor_ : floor_;
        atomicAdd(&ctrl->replaced, 1ull);
      }
      __stcg(&values[di], u);
      __stcg(&dinv[i], 1.0 / u);
      sps_sync::store_release(&flags[i], epoch);
    }
    __syncwarp();
  }
  sps_sync::finish_task(ctrl, warps, epoch);
}

} // namespace

extern "C" cudaError_t sps_cuda_ilu0_factor(cudaStream_t stream, int64_t n, const int32_t *order,
                                            const int64_t *rowptr, const int64_t *diag,
                                            const int32_t *colind, double *values,
                                            const double *rowmax, double pivot_tol, int spd,
                                            double *dinv, unsigned *flags,
                                            sps_cuda_sync_ctrl *ctrl)
{
  if (n <= 0) return cudaSuccess;
  const int64_t blocks = sps_sync::persistent_blocks(n, kWarps, 4);
  ilu0_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(n, order, rowptr, diag, colind, values,
                                                         rowmax, pivot_tol, spd, dinv, flags, ctrl,
                                                         (unsigned)(blocks * kWarps));
  return cudaGetLastError();
}
