/* sync.cuh: the flag and ticket protocol of the synchronisation-free kernels (triangular solve, ILU(0) factorisation): tasks in dependency order from a ticket, per-row ready flags with acquire/release ordering, and the reset by the last warp out. */
#ifndef SPS_PRECOND_CUDA_SYNC_CUH
#define SPS_PRECOND_CUDA_SYNC_CUH

#include <cuda_runtime.h>

#include "launchers.h"

namespace sps_sync
{

constexpr unsigned kFull = 0xffffffffu;

/* A flag read with acquire semantics at GPU scope: the loads after it see what the writer
 * stored before its release. */
__device__ __forceinline__ unsigned load_acquire(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(unsigned *p, unsigned v)
{
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Wait until row j is final in this launch (its flag holds this launch's epoch). */
__device__ __forceinline__ void wait_ready(const unsigned *flags, int j, unsigned epoch)
{
  while (load_acquire(&flags[j]) != epoch) {
  }
}

/*
 * The warp's task and this launch's epoch, both broadcast from lane 0. Tasks are handed out
 * in ticket order, so a warp only ever waits for rows of tasks that running warps hold:
 * the kernel cannot deadlock whatever the scheduling of blocks.
 */
__device__ __forceinline__ void take_task(sps_cuda_sync_ctrl *ctrl, unsigned *task,
                                          unsigned *epoch)
{
  unsigned t = 0, e = 0;
  if ((threadIdx.x & 31) == 0) {
    t = atomicAdd(&ctrl->ticket, 1u);
    e = *(volatile unsigned *)&ctrl->epoch + 1u;
  }
  *task = __shfl_sync(kFull, t, 0);
  *epoch = __shfl_sync(kFull, e, 0);
}

/*
 * Count the warp out; the last of the launch's `warps` warps resets the ticket and the
 * count and publishes the epoch, which the next launch reads (every warp of this launch has
 * read it before counting out). After 2^32 launches the epoch wraps: a flag could then
 * match a stale value; a plan is not solved that often.
 */
__device__ __forceinline__ void finish_task(sps_cuda_sync_ctrl *ctrl, unsigned warps,
                                            unsigned epoch)
{
  __syncwarp();
  if ((threadIdx.x & 31) == 0) {
    __threadfence();
    if (atomicAdd(&ctrl->done, 1u) == warps - 1u) {
      *(volatile unsigned *)&ctrl->ticket = 0u;
      *(volatile unsigned *)&ctrl->done = 0u;
      *(volatile unsigned *)&ctrl->epoch = epoch;
      __threadfence();
    }
  }
}

} // namespace sps_sync

#endif /* SPS_PRECOND_CUDA_SYNC_CUH */
