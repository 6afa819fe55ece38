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

/* A flag read without ordering (polled through L2). */
__device__ __forceinline__ unsigned load_relaxed(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/*
 * Wait until row j is final in this launch (its flag holds this launch's epoch). The poll is
 * a relaxed load, with a growing pause once the first polls fail, so thousands of waiting
 * threads do not crowd L2 with requests; one acquire fence after success orders the loads
 * of x_j after the flag.
 */
__device__ __forceinline__ void wait_ready(const unsigned *flags, int j, unsigned epoch)
{
  if (load_relaxed(&flags[j]) != epoch) {
    unsigned pause = 32;
    while (load_relaxed(&flags[j]) != epoch) {
      __nanosleep(pause);
      if (pause < 512) pause *= 2;
    }
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

/* This launch's epoch, read by lane 0 and broadcast. */
__device__ __forceinline__ unsigned launch_epoch(const sps_cuda_sync_ctrl *ctrl)
{
  unsigned e = 0;
  if ((threadIdx.x & 31) == 0) e = *(const volatile unsigned *)&ctrl->epoch + 1u;
  return __shfl_sync(kFull, e, 0);
}

/*
 * The warp's next task, taken by lane 0 from the ticket and broadcast. Tasks are handed out
 * in ticket order, and a warp takes one only while it runs, so a warp only ever waits for
 * rows of tasks that running warps hold: the kernel cannot deadlock whatever the scheduling
 * of blocks. Warps loop over tasks (a persistent grid of a few blocks an SM), so only that
 * many threads ever wait at once.
 */
__device__ __forceinline__ unsigned take_task(sps_cuda_sync_ctrl *ctrl)
{
  unsigned t = 0;
  if ((threadIdx.x & 31) == 0) t = atomicAdd(&ctrl->ticket, 1u);
  return __shfl_sync(kFull, t, 0);
}

/* The persistent grid: enough blocks (of warps_per_block warps) for the tasks, at most
 * per_sm an SM. */
inline int64_t persistent_blocks(int64_t tasks, int warps_per_block, int per_sm)
{
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (sms <= 0) sms = 1;
  const int64_t want = (tasks + warps_per_block - 1) / warps_per_block;
  const int64_t cap = (int64_t)sms * per_sm;
  return want < cap ? want : cap;
}

/*
 * Count the warp out; the last of the launch's `warps` warps resets the ticket and the count
 * for the next launch (every warp of this launch has taken its last ticket by then).
 */
__device__ __forceinline__ bool finish_task(sps_cuda_sync_ctrl *ctrl, unsigned warps)
{
  __syncwarp();
  bool last = false;
  if ((threadIdx.x & 31) == 0) {
    __threadfence();
    if (atomicAdd(&ctrl->done, 1u) == warps - 1u) {
      *(volatile unsigned *)&ctrl->ticket = 0u;
      *(volatile unsigned *)&ctrl->done = 0u;
      last = true;
    }
  }
  return last;
}

/* finish_task, and the last warp out publishes this launch's epoch, which the next launch
 * reads (every warp of this launch has read it before counting out). After 2^32 launches
 * the epoch wraps: a flag could then match a stale value; a plan is not run that often. */
__device__ __forceinline__ void finish_task(sps_cuda_sync_ctrl *ctrl, unsigned warps,
                                            unsigned epoch)
{
  if (finish_task(ctrl, warps)) {
    *(volatile unsigned *)&ctrl->epoch = epoch;
    __threadfence();
  }
}

} // namespace sps_sync

#endif /* SPS_PRECOND_CUDA_SYNC_CUH */
