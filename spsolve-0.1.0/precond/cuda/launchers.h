/* launchers.h: the extern "C" launchers of the preconditioners' CUDA kernels; each returns cudaGetLastError(). */
#ifndef SPS_PRECOND_CUDA_LAUNCHERS_H
#define SPS_PRECOND_CUDA_LAUNCHERS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../ref/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The control words of the synchronisation-free kernels (trisolve, ilu0_factor): a warp
 * takes its tasks from `ticket`, counts itself out in `done`, and the last one out resets
 * both (and, for ilu0_factor, advances `epoch`, the value a row's flag takes once the row is
 * final in this launch). Zeroed at setup; nothing to reset between launches, so a launch can
 * be captured in a graph and replayed.
 */
typedef struct sps_cuda_sync_ctrl {
  unsigned ticket;
  unsigned done;
  unsigned epoch;
  unsigned pad;
  unsigned long long replaced;   /* ilu0_factor: pivots replaced */
  unsigned long long breakdowns; /* ilu0_factor: non-positive pivots (spd mode) */
} sps_cuda_sync_ctrl;

/* One step of the one-block triangular solve: `rows` rows of one level, order[first ..
 * first + rows), whose entries sit lane-interleaved at ell[base + r * rows * G + thread] for
 * r < width; sync = 1 on the last step of a level (a barrier follows it). */
typedef struct sps_cuda_tri_step {
  int64_t base;
  int32_t first, rows, width, sync;
} sps_cuda_tri_step;

/*
 * The triangular solve of sps_ref_trisolve in one launch (precond/cuda/trisolve.cu). With
 * steps (sps_cuda_trisolve_block_fits), one block walks the nsteps steps, `group` lanes a row
 * (1, 2, 4, 8, 16 or 32), reading the entries from ell_col/ell_val (padding: column n, value
 * 0) and the inverse pivots from slot_dinv (dinv in level order). Without, the solve is synchronisation-free over the `ntasks` tasks
 * (task t is rows order[task_start[t] .. task_start[t+1]) of one level; a task of one row is
 * summed by a warp, a task of 2 to 32 rows by one thread a row) reading the CSR arrays, with x
 * filled first with a sentinel that marks entries not yet solved. ctrl: the ticket and count
 * of the tasks, zero at setup.
 */
cudaError_t sps_cuda_trisolve(cudaStream_t stream, int64_t n, int upper, int64_t nsteps,
                              const sps_cuda_tri_step *steps, const int32_t *ell_col,
                              const double *ell_val, const double *slot_dinv, int64_t ntasks,
                              const int32_t *task_start, const int32_t *order, int levels,
                              int group, const int64_t *rowptr, const int64_t *diag,
                              const int32_t *colind, const double *values, const double *dinv,
                              const double *b, const int32_t *in_perm, const double *in_scale,
                              double *x, double *out, const int32_t *out_perm,
                              const double *out_scale, sps_cuda_sync_ctrl *ctrl);

/* Whether the one-block solve's shared memory (x and the steps) fits this device. */
int sps_cuda_trisolve_block_fits(int64_t n, int64_t nsteps);

/* ell_val[p] <- values[src[p]], or 0 where src[p] < 0: the one-block solve's copy of the
 * factor values (and, with src = the level order, of the inverse pivots), refreshed whenever
 * the factorisation changes them. */
cudaError_t sps_cuda_trisolve_gather(cudaStream_t stream, int64_t total, const int64_t *src,
                                     const double *values, double *ell_val);

/*
 * sps_ref_ilu0_factor in one launch, a warp a row, rows taken in the level order of the
 * lower triangle (order, n entries). ctrl->replaced and ctrl->breakdowns count as the
 * reference's counters do (add to them; zero them first).
 */
cudaError_t sps_cuda_ilu0_factor(cudaStream_t stream, int64_t n, const int32_t *order,
                                 const int64_t *rowptr, const int64_t *diag,
                                 const int32_t *colind, double *values, const double *rowmax,
                                 double pivot_tol, int spd, double *dinv, unsigned *flags,
                                 sps_cuda_sync_ctrl *ctrl);

/* sps_ref_bjacobi_apply on the GPU (the same bits). */
cudaError_t sps_cuda_bjacobi_apply(cudaStream_t stream, int64_t n, int bs, const double *inv,
                                   const double *r, double *z);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_CUDA_LAUNCHERS_H */
