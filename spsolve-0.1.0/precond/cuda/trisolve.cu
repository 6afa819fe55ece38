/* trisolve.cu: the sparse triangular solve on the GPU, one launch per solve: one thread block with x in shared memory for small n, synchronisation-free over the whole GPU otherwise.
 *
 * The math (precond/ref/kernels.h, sps_ref_trisolve): x_i = (b_i - sum_j t_ij x_j) * dinv_i
 * over the row's triangle, with the optional gather and scale of b and scatter of x. Rows
 * are taken in the level order of the plan (precond/trisolve.c): a row depends only on rows
 * of lower levels.
 *
 * Small n (x and the plan's steps fit in the shared memory of one block): one block of
 * 1024 threads walks the levels with a barrier after each; a level is cut into steps of up
 * to 1024/G rows, G lanes a row (G = 1..32 from the mean row length). b is first gathered
 * into x's place in shared memory; each step's entries are stored lane-interleaved (ELL, so
 * a thread's loads do not depend on x or on each other) and the loads of the next two steps
 * are issued before a step runs. A level then costs about a microsecond (its arithmetic, the
 * shuffles, a barrier) instead of several round trips through L2, which is what makes the
 * long dependency chains of small matrices (hundreds of levels) affordable. (Waiting on
 * sentinel values in shared memory instead of the barrier measured slower on an H100.) x is written to global memory at
 * the end. Loses when a level has far more rows than one SM can process quickly, which small
 * n rules out.
 *
 * Large n (synchronisation-free): x is filled with a sentinel bit pattern (all ones, a NaN
 * no arithmetic here produces) before the launch; a persistent grid of warps takes the
 * plan's tasks in level order from an atomic ticket (precond/cuda/sync.cuh): a task of 2 to
 * 32 rows of one level gives each lane one row, a task of one row is summed by the whole
 * warp. A thread needing x_j polls it (a relaxed load through L2) until it is no longer the
 * sentinel: the value is its own ready flag, so no fence or separate flag is needed, and
 * the 8-byte store that publishes x_i is atomic. Every row a thread waits for belongs to a
 * task taken earlier by a running warp, so the kernel cannot deadlock. A level costs about
 * one L2 round trip: wins on wide levels (grids, circuits), loses on long chains.
 *
 * Rounding: b_i and the rounded products -t_ij x_j go into a compensated sum
 * (core/compensated_sum.h) whatever the lane split, so x agrees to the bit with the CPU
 * reference; a computed x_i equal to the sentinel pattern (only possible from a NaN input
 * with that payload) is written as the default NaN.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "../../core/cuda/reduce.cuh"
#include "launchers.h"
#include "sync.cuh"

namespace
{

constexpr int kWarpThreads = 128; /* the synchronisation-free kernel's blocks */
constexpr int kWarps = kWarpThreads / 32;
constexpr int kBlockThreads = 1024; /* the one-block kernel */
constexpr unsigned long long kSentinel = 0xffffffffffffffffull;

struct tri_args {
  int64_t n;
  int upper;
  int64_t nsteps;
  const sps_cuda_tri_step *steps;
  const int32_t *ell_col;
  const double *ell_val;
  const double *slot_dinv;
  int64_t ntasks;
  const int32_t *task_start, *order;
  int group;
  const int64_t *rowptr, *diag;
  const int32_t *colind;
  const double *values, *dinv, *b;
  const int32_t *in_perm;
  const double *in_scale;
  double *x, *out;
  const int32_t *out_perm;
  const double *out_scale;
  sps_cuda_sync_ctrl *ctrl;
};

__device__ __forceinline__ double rhs_of(const tri_args &a, int i)
{
  const double bi = a.b[a.in_perm ? a.in_perm[i] : i];
  return a.in_scale ? a.in_scale[i] * bi : bi;
}

__device__ __forceinline__ double finish_value(const tri_args &a, int i, sps_csum acc)
{
  double xi = sps_csum_value(acc);
  if (a.dinv) xi = xi * a.dinv[i];
  return xi;
}

__device__ __forceinline__ void scatter(const tri_args &a, int i, double xi)
{
  if (!a.out) return;
  const int dst = a.out_perm ? a.out_perm[i] : i;
  a.out[dst] = a.out_scale ? a.out_scale[i] * xi : xi;
}

/* What a thread holds of one step of the one-block solve: the step, its row and inverse
 * pivot (lane 0 of a group) and its first kPre entries (column, value). */
constexpr int kPre = 2;
struct step_regs {
  int64_t base;
  int width, active, sync, i;
  double di;
  int c[kPre];
  double v[kPre];
};

/* Issue the loads of step s: the step from shared memory, then one round of independent
 * global loads (none depends on x). */
template <int G>
__device__ __forceinline__ void load_step(const tri_args &a, const sps_cuda_tri_step *steps,
                                          int64_t s, step_regs &B)
{
  const int tid = threadIdx.x, lane = tid % G, grp = tid / G;
  const sps_cuda_tri_step st = steps[s];
  B.base = st.base;
  B.width = st.width;
  B.active = st.rows * G;
  B.sync = st.sync;
  if (tid >= B.active) return;
#pragma unroll
  for (int r = 0; r < kPre; r++)
    if (r < B.width) {
      const int64_t p = B.base + (int64_t)r * B.active + tid;
      B.c[r] = a.ell_col[p];
      B.v[r] = a.ell_val[p];
    }
  if (lane == 0) {
    B.i = a.order[st.first + grp];
    B.di = a.dinv ? a.slot_dinv[st.first + grp] : 1.0;
  }
}

/* Sum the step's rows from x in shared memory (sx[i] holds b_i until x_i replaces it), write
 * their x_i, and end the level with a barrier. */
template <int G> __device__ __forceinline__ void run_step(const tri_args &a, const step_regs &B, double *sx)
{
  const int tid = threadIdx.x, lane = tid % G;
  const bool act = tid < B.active;
  sps_csum acc = sps_csum_zero();
  if (act) {
    if (lane == 0) sps_csum_add(&acc, sx[B.i]);
#pragma unroll
    for (int r = 0; r < kPre; r++)
      if (r < B.width) sps_csum_add(&acc, -(B.v[r] * sx[B.c[r]]));
    for (int r = kPre; r < B.width; r++) {
      const int64_t p = B.base + (int64_t)r * B.active + tid;
      sps_csum_add(&acc, -(a.ell_val[p] * sx[a.ell_col[p]]));
    }
  }
  if (G > 1) acc = sps_reduce::lanes_sum<G>(acc);
  if (act && lane == 0) {
    double xi = sps_csum_value(acc);
    if (a.dinv) xi = xi * B.di;
    sx[B.i] = xi;
  }
  if (B.sync) __syncthreads();
}

/*
 * One block walks the plan's steps: a step is up to 1024/G rows of one level, G lanes a row,
 * the entries stored lane-interleaved (ELL) so every thread's loads are independent of x
 * and of each other. The steps are staged in shared memory after x, b is gathered into x's
 * place first, and the loads of the next two steps are issued before a step runs; a barrier
 * ends each level. sx[n] is a zero that padding points at.
 */
template <int G> __global__ void __launch_bounds__(kBlockThreads) trisolve_block_kernel(tri_args a)
{
  extern __shared__ double sx[];
  sps_cuda_tri_step *steps = (sps_cuda_tri_step *)(sx + a.n + 1);
  for (int64_t i = threadIdx.x; i < a.n; i += kBlockThreads) sx[i] = rhs_of(a, (int)i);
  for (int64_t s = threadIdx.x; s < a.nsteps; s += kBlockThreads) steps[s] = a.steps[s];
  if (threadIdx.x == 0) sx[a.n] = 0.0;
  __syncthreads();
  const int64_t S = a.nsteps;
  step_regs A, B, C;
  load_step<G>(a, steps, 0, A);
  if (S > 1) load_step<G>(a, steps, 1, B);
  for (int64_t s = 0; s < S; s += 3) {
    if (s + 2 < S) load_step<G>(a, steps, s + 2, C);
    run_step<G>(a, A, sx);
    if (s + 1 >= S) break;
    if (s + 3 < S) load_step<G>(a, steps, s + 3, A);
    run_step<G>(a, B, sx);
    if (s + 2 >= S) break;
    if (s + 4 < S) load_step<G>(a, steps, s + 4, B);
    run_step<G>(a, C, sx);
  }
  for (int64_t i = threadIdx.x; i < a.n; i += kBlockThreads) {
    const double xi = sx[i];
    a.x[i] = xi;
    scatter(a, (int)i, xi);
  }
}

/* Entries of a row a thread reads ahead in the synchronisation-free kernel. */
constexpr int kBatch = 8;

/* One relaxed load of x_j through L2 (the sentinel while x_j is not solved yet). */
__device__ __forceinline__ unsigned long long poll(const double *x, int j)
{
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(x + j) : "memory");
  return v;
}

/* x_j once its writer has stored it: poll through L2 until it is not the sentinel. A tight
 * poll measured faster than one that pauses (__nanosleep) between tries on an H100. */
__device__ __forceinline__ double wait_value(const double *x, int j)
{
  unsigned long long v = poll(x, j);
  while (v == kSentinel) v = poll(x, j);
  return __longlong_as_double((long long)v);
}

__device__ __forceinline__ void publish(const tri_args &a, int i, double xi)
{
  unsigned long long v = (unsigned long long)__double_as_longlong(xi);
  if (v == kSentinel) v = 0x7ff8000000000000ull;
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(a.x + i), "l"(v) : "memory");
  scatter(a, i, xi);
}

__global__ void __launch_bounds__(kWarpThreads) trisolve_free_kernel(tri_args a, unsigned warps)
{
  const int lane = threadIdx.x & 31;
  for (unsigned task = sps_sync::take_task(a.ctrl); task < a.ntasks;
       task = sps_sync::take_task(a.ctrl)) {
    const int s = a.task_start[task], e = a.task_start[task + 1];
    if (e - s == 1) {
      /* One row, the whole warp. */
      const int i = a.order[s];
      const int64_t kb = a.upper ? a.diag[i] + 1 : a.rowptr[i];
      const int64_t ke = a.upper ? a.rowptr[i + 1] : a.diag[i];
      sps_csum acc = sps_csum_zero();
      if (lane == 0) sps_csum_add(&acc, rhs_of(a, i));
      for (int64_t k = kb + lane; k < ke; k += 32) {
        const double v = a.values[k];
        sps_csum_add(&acc, -(v * wait_value(a.x, a.colind[k])));
      }
      acc = sps_reduce::warp_sum(acc);
      if (lane == 0) publish(a, i, finish_value(a, i, acc));
    } else if (lane < e - s) {
      /* A row a lane. */
      const int i = a.order[s + lane];
      const int64_t kb = a.upper ? a.diag[i] + 1 : a.rowptr[i];
      const int64_t ke = a.upper ? a.rowptr[i + 1] : a.diag[i];
      sps_csum acc = sps_csum_zero();
      sps_csum_add(&acc, rhs_of(a, i));
      /* kBatch entries at a time: their columns, values and first polls all in flight. */
      for (int64_t k0 = kb; k0 < ke; k0 += kBatch) {
        const int m = ke - k0 < kBatch ? (int)(ke - k0) : kBatch;
        int c[kBatch];
        double v[kBatch];
        unsigned long long xv[kBatch];
#pragma unroll
        for (int q = 0; q < kBatch; q++)
          if (q < m) {
            c[q] = a.colind[k0 + q];
            v[q] = a.values[k0 + q];
          }
#pragma unroll
        for (int q = 0; q < kBatch; q++)
          if (q < m) xv[q] = poll(a.x, c[q]);
#pragma unroll
        for (int q = 0; q < kBatch; q++)
          if (q < m) {
            const double xj = xv[q] == kSentinel ? wait_value(a.x, c[q])
                                                 : __longlong_as_double((long long)xv[q]);
            sps_csum_add(&acc, -(v[q] * xj));
          }
      }
      publish(a, i, finish_value(a, i, acc));
    }
    __syncwarp();
  }
  sps_sync::finish_task(a.ctrl, warps);
}

/* The shared memory a block may have on this device (opt-in). */
int64_t block_max_bytes()
{
  static int64_t cached = -1;
  if (cached >= 0) return cached;
  int dev = 0, bytes = 0;
  cudaGetDevice(&dev);
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    bytes = 48 * 1024;
  cached = bytes;
  return cached;
}

template <int G> cudaError_t launch_block(cudaStream_t stream, const tri_args &a)
{
  const size_t bytes = ((size_t)a.n + 1) * sizeof(double) + (size_t)a.nsteps * sizeof(sps_cuda_tri_step);
  static size_t allowed = 0;
  if (bytes > 48 * 1024 && bytes > allowed) {
    const cudaError_t e = cudaFuncSetAttribute(trisolve_block_kernel<G>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)bytes);
    if (e != cudaSuccess) return e;
    allowed = bytes;
  }
  trisolve_block_kernel<G><<<1, kBlockThreads, bytes, stream>>>(a);
  return cudaGetLastError();
}

/* ell_val[p] <- values[src[p]] (0 for padding, src -1). */
__global__ void gather_kernel(int64_t total, const int64_t *__restrict__ src,
                              const double *__restrict__ values, double *__restrict__ out)
{
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < total;
       p += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = src[p];
    out[p] = k >= 0 ? values[k] : 0.0;
  }
}

} // namespace

extern "C" int sps_cuda_trisolve_block_fits(int64_t n, int64_t nsteps)
{
  const int64_t bytes = (n + 1) * (int64_t)sizeof(double) + nsteps * (int64_t)sizeof(sps_cuda_tri_step);
  return bytes <= block_max_bytes();
}

extern "C" cudaError_t sps_cuda_trisolve_gather(cudaStream_t stream, int64_t total,
                                                const int64_t *src, const double *values,
                                                double *ell_val)
{
  if (total <= 0) return cudaSuccess;
  int64_t blocks = (total + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  gather_kernel<<<(unsigned)blocks, 256, 0, stream>>>(total, src, values, ell_val);
  return cudaGetLastError();
}

extern "C" cudaError_t sps_cuda_trisolve(cudaStream_t stream, int64_t n, int upper, int64_t nsteps,
                                         const sps_cuda_tri_step *steps, const int32_t *ell_col,
                                         const double *ell_val, const double *slot_dinv,
                                         int64_t ntasks,
                                         const int32_t *task_start, const int32_t *order,
                                         int levels, int group, const int64_t *rowptr,
                                         const int64_t *diag,
                                         const int32_t *colind, const double *values,
                                         const double *dinv, const double *b,
                                         const int32_t *in_perm, const double *in_scale, double *x,
                                         double *out, const int32_t *out_perm,
                                         const double *out_scale, sps_cuda_sync_ctrl *ctrl)
{
  if (n <= 0) return cudaSuccess;
  tri_args a = {n,      upper,  nsteps, steps,  ell_col,  ell_val,  slot_dinv, ntasks, task_start,
                order,  group,  rowptr, diag,   colind,   values,   dinv,     b,
                in_perm, in_scale, x,   out,    out_perm, out_scale, ctrl};
  if (steps) {
    switch (group) {
    case 1:
      return launch_block<1>(stream, a);
    case 2:
      return launch_block<2>(stream, a);
    case 4:
      return launch_block<4>(stream, a);
    case 8:
      return launch_block<8>(stream, a);
    case 16:
      return launch_block<16>(stream, a);
    default:
      return launch_block<32>(stream, a);
    }
  }
  const cudaError_t e = cudaMemsetAsync(x, 0xff, (size_t)n * sizeof(double), stream);
  if (e != cudaSuccess) return e;
  /* Wide levels want every warp slot busy; long chains of narrow levels want few warps,
   * so that waiting threads do not crowd L2 (blocks an SM from the mean rows a level). */
  int per_sm = levels > 0 ? (int)(n / levels / 8192) : 1;
  per_sm = per_sm < 1 ? 1 : per_sm > 16 ? 16 : per_sm;
  const int64_t blocks = sps_sync::persistent_blocks(ntasks, kWarps, per_sm);
  trisolve_free_kernel<<<(unsigned)blocks, kWarpThreads, 0, stream>>>(a, (unsigned)(blocks * kWarps));
  return cudaGetLastError();
}
