/* dist_close.cu: the ends of a distributed context's reductions kept on the device (reductions over NCCL): the block partials of core/cuda/split_steps.cu folded into one compensated pair per sum, and, after NCCL's all-gather of every rank's pairs, their merge in rank order and the close of the CG or BiCGSTAB step (core/krylov_state.h), with no host round trip. GMRES's closes are in gmres_steps.cu, beside the kernels whose last block they stand in for.
 *
 * The host path of the same steps (core/backend_cuda.c: dist_read, sps_comm_sum, the
 * sps_cg_close_* functions on a host copy of the state) is the CPU reference: it merges the
 * same partials in block order and the ranks in rank order, and closes the step with the same
 * functions. A compensated sum's value is the correctly rounded sum of its terms (but near a
 * rounding boundary, core/compensated_sum.h), so the fold's tree over the blocks gives the
 * value of the host's chain; the ranks are merged in rank order on every rank, so every rank
 * closes the step on the same bits.
 *
 * Thread-to-data map. Fold: one block of 32 k threads, warp l sums partial l over the
 * producer's `grid` blocks (lane j reads blocks j, j + 32, ..., then a shuffle tree), lane 0
 * writes the pair to out[2 l], out[2 l + 1]. Close: one thread merges the `size` ranks' pairs
 * of each sum in rank order and closes the step. Both are latency bound (a few hundred pairs).
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../krylov_state.h"
#include "reduce.cuh"

namespace
{

using sps_reduce::csum;
using sps_reduce::ranks_value;
using sps_reduce::warp_sum;

/* out[2l, 2l+1] <- partial l of the producer's grid blocks (partials laid out as put_partial). */
__global__ void fold_kernel(const double *__restrict__ partials, unsigned grid, int k,
                            double *__restrict__ out)
{
  const int l = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (l >= k) return;
  csum v = sps_csum_zero();
  for (unsigned b = lane; b < grid; b += 32) {
    const int64_t at = 2 * ((int64_t)l * grid + b);
    csum o;
    o.hi = partials[at];
    o.lo = partials[at + 1];
    sps_csum_merge(&v, o);
  }
  v = warp_sum(v);
  if (lane == 0) {
    out[2 * l] = v.hi;
    out[2 * l + 1] = v.lo;
  }
}

/* cg_alpha's close: pq over the ranks, alpha = rz / pq (or a stop). */
__global__ void cg_alpha_close_kernel(const double *all, int size, sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return;
  sps_cg_close_alpha(S, ranks_value(all, size, 1, 0));
}

/* cg_update's close: rr and rz over the ranks (rz = rr without a diagonal preconditioner, or
 * when deferred), the count, the history, the tests and beta. */
__global__ void cg_update_close_kernel(const double *all, int size, int has_dinv, sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return;
  const double rr = ranks_value(all, size, 2, 0);
  sps_cg_close_update(S, rr, has_dinv && !S->deferred ? ranks_value(all, size, 2, 1) : rr);
}

/* cg_rz's close (deferred mode): rz over the ranks and beta. */
__global__ void cg_rz_close_kernel(const double *all, int size, sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return;
  sps_cg_close_rz(S, ranks_value(all, size, 1, 0));
}

/* BiCGSTAB's closes, as core/backend_cuda.c's host path makes them: step 0, sigma = (r0hat, v)
 * and alpha; 1, ss = (s, s) and the half flag; 2, ts and tt and omega (unless the half step);
 * 3, rr and rho_new (or, at the half step, ss and rho as they stand) and the step's end. A
 * step that finds the iteration stopped does nothing, as the kernels before it did nothing. */
__global__ void bicgstab_close_kernel(int step, const double *all, int size, sps_bicgstab_state *S)
{
  if (S->status != SPS_BICGSTAB_RUNNING) return;
  switch (step) {
  case 0: (void)sps_bicgstab_close_alpha(S, ranks_value(all, size, 1, 0)); break;
  case 1: sps_bicgstab_close_s(S, ranks_value(all, size, 1, 0)); break;
  case 2:
    if (!S->half)
      (void)sps_bicgstab_close_omega(S, ranks_value(all, size, 2, 0), ranks_value(all, size, 2, 1));
    break;
  default:
    if (S->half)
      sps_bicgstab_close_step(S, S->ss, S->rho);
    else
      sps_bicgstab_close_step(S, ranks_value(all, size, 2, 0), ranks_value(all, size, 2, 1));
    break;
  }
}

} // namespace

extern "C" cudaError_t sps_cuda_dist_bicgstab_close(cudaStream_t st, int step, const double *all,
                                                    int size, sps_bicgstab_state *S)
{
  if (step < 0 || step > 3) return cudaErrorInvalidValue;
  bicgstab_close_kernel<<<1, 1, 0, st>>>(step, all, size, S);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_fold(cudaStream_t st, const double *partials, unsigned grid,
                                          int k, double *out)
{
  if (k < 1 || k > 32) return cudaErrorInvalidValue;
  fold_kernel<<<1, 32 * k, 0, st>>>(partials, grid, k, out);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_dist_cg_close(cudaStream_t st, int step, const double *all,
                                              int size, int has_dinv, sps_cg_state *S)
{
  switch (step) {
  case 0: cg_alpha_close_kernel<<<1, 1, 0, st>>>(all, size, S); break;
  case 1: cg_update_close_kernel<<<1, 1, 0, st>>>(all, size, has_dinv, S); break;
  case 2: cg_rz_close_kernel<<<1, 1, 0, st>>>(all, size, S); break;
  default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
