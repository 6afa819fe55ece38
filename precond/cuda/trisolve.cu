/* trisolve.cu: the synchronisation-free sparse triangular solve, one launch per solve.
 *
 * The math (precond/ref/kernels.h, sps_ref_trisolve): x_i = (b_i - sum_j t_ij x_j) * dinv_i
 * over the row's triangle, with the optional gather and scale of b and scatter of x.
 *
 * Thread-to-data map: the plan (precond/trisolve.c) orders rows by level set and cuts each
 * level into tasks; warp w takes task t from an atomic ticket (so tasks start in level
 * order). A task of 2 to 32 rows of one level gives each lane one row, which it walks left
 * to right; a task of one row (a long row, or a level's last single row) is walked by the
 * whole warp, lanes striding over its entries, and reduced by shuffles. Before reading x_j a
 * thread waits for row j's flag to hold this launch's epoch (acquire); after writing x_i
 * (through L2) it publishes its own flag (release). Rows of one level never wait for each
 * other, and every row a thread waits for belongs to a task taken earlier by a running warp.
 *
 * Rounding: b_i and the rounded products -t_ij x_j go into a compensated sum
 * (core/compensated_sum.h) whatever the lane split, so x agrees to the bit with the CPU
 * reference.
 *
 * Memory access: within a short task the lanes read rows that are neighbours in level
 * order, not in memory; the x_j gathers go through L2 (__ldcg), since another SM wrote
 * them during this launch. Where it wins: many rows per level (grids, circuits); where it
 * loses: long chains of one row per level, where each step costs a flag round trip through
 * L2 (about a microsecond per level).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../../core/cuda/reduce.cuh"
#include "launchers.h"
#include "sync.cuh"

namespace
{

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

struct tri_args {
  int64_t ntasks;
  const int32_t *task_start, *order;
  const int64_t *rowptr, *diag;
  const int32_t *colind;
  const double *values, *dinv, *b;
  const int32_t *in_perm;
  const double *in_scale;
  double *x, *out;
  const int32_t *out_perm;
  const double *out_scale;
  unsigned *flags;
  sps_cuda_sync_ctrl *ctrl;
  int upper;
};

__device__ __forceinline__ double rhs_of(const tri_args &a, int i)
{
  const double bi = a.b[a.in_perm ? a.in_perm[i] : i];
  return a.in_scale ? a.in_scale[i] * bi : bi;
}

/* x_i from the finished sum; publish the row. */
__device__ __forceinline__ void finish_row(const tri_args &a, int i, sps_csum acc, unsigned epoch)
{
  double xi = sps_csum_value(acc);
  if (a.dinv) xi = xi * a.dinv[i];
  __stcg(&a.x[i], xi);
  if (a.out) {
    const int dst = a.out_perm ? a.out_perm[i] : i;
    a.out[dst] = a.out_scale ? a.out_scale[i] * xi : xi;
  }
  sps_sync::store_release(&a.flags[i], epoch);
}

__global__ void __launch_bounds__(kThreads) trisolve_kernel(tri_args a, unsigned warps)
{
  unsigned task, epoch;
  sps_sync::take_task(a.ctrl, &task, &epoch);
  const int lane = threadIdx.x & 31;
  if (task < a.ntasks) {
    const int s = a.task_start[task], e = a.task_start[task + 1];
    if (e - s == 1) {
      /* One row, the whole warp. */
      const int i = a.order[s];
      const int64_t kb = a.upper ? a.diag[i] + 1 : a.rowptr[i];
      const int64_t ke = a.upper ? a.rowptr[i + 1] : a.diag[i];
      sps_csum acc = sps_csum_zero();
      if (lane == 0) sps_csum_add(&acc, rhs_of(a, i));
      for (int64_t k = kb + lane; k < ke; k += 32) {
        const int j = a.colind[k];
        const double v = a.values[k];
        sps_sync::wait_ready(a.flags, j, epoch);
        sps_csum_add(&acc, -(v * __ldcg(&a.x[j])));
      }
      acc = sps_reduce::warp_sum(acc);
      if (lane == 0) finish_row(a, i, acc, epoch);
    } else if (lane < e - s) {
      /* A row a lane. */
      const int i = a.order[s + lane];
      const int64_t kb = a.upper ? a.diag[i] + 1 : a.rowptr[i];
      const int64_t ke = a.upper ? a.rowptr[i + 1] : a.diag[i];
      sps_csum acc = sps_csum_zero();
      sps_csum_add(&acc, rhs_of(a, i));
      for (int64_t k = kb; k < ke; k++) {
        const int j = a.colind[k];
        const double v = a.values[k];
        sps_sync::wait_ready(a.flags, j, epoch);
        sps_csum_add(&acc, -(v * __ldcg(&a.x[j])));
      }
      finish_row(a, i, acc, epoch);
    }
  }
  sps_sync::finish_task(a.ctrl, warps, epoch);
}

} // namespace

extern "C" cudaError_t sps_cuda_trisolve(cudaStream_t stream, int64_t n, int upper, int64_t ntasks,
                                         const int32_t *task_start, const int32_t *order,
                                         const int64_t *rowptr, const int64_t *diag,
                                         const int32_t *colind, const double *values,
                                         const double *dinv, const double *b,
                                         const int32_t *in_perm, const double *in_scale, double *x,
                                         double *out, const int32_t *out_perm,
                                         const double *out_scale, unsigned *flags,
                                         sps_cuda_sync_ctrl *ctrl)
{
  if (n <= 0 || ntasks <= 0) return cudaSuccess;
  tri_args a = {ntasks, task_start, order,    rowptr, diag,     colind, values, dinv, b,
                in_perm, in_scale,  x,        out,    out_perm, out_scale, flags, ctrl, upper};
  const int64_t blocks = (ntasks + kWarps - 1) / kWarps;
  trisolve_kernel<<<(unsigned)blocks, kThreads, 0, stream>>>(a, (unsigned)(blocks * kWarps));
  return cudaGetLastError();
}
