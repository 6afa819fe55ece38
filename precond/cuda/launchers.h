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
 * takes its task from `ticket`, counts itself out in `done`, and the last one out resets both
 * and advances `epoch`, the value a row's flag takes once the row is final in this launch.
 * Zeroed at setup together with the flags; nothing to reset between launches, so a launch
 * can be captured in a graph and replayed.
 */
typedef struct sps_cuda_sync_ctrl {
  unsigned ticket;
  unsigned done;
  unsigned epoch;
  unsigned pad;
  unsigned long long replaced;   /* ilu0_factor: pivots replaced */
  unsigned long long breakdowns; /* ilu0_factor: non-positive pivots (spd mode) */
} sps_cuda_sync_ctrl;

/*
 * The triangular solve of sps_ref_trisolve, synchronisation-free in one launch. Rows are
 * taken in level order in `ntasks` tasks: task t is rows order[task_start[t] .. task_start[t+1])
 * of one level; a task of one row is done by a whole warp, a task of 2 to 32 rows by one
 * thread a row. flags: n words, zero at setup.
 */
cudaError_t sps_cuda_trisolve(cudaStream_t stream, int64_t n, int upper, int64_t ntasks,
                              const int32_t *task_start, const int32_t *order,
                              const int64_t *rowptr, const int64_t *diag, const int32_t *colind,
                              const double *values, const double *dinv, const double *b,
                              const int32_t *in_perm, const double *in_scale, double *x,
                              double *out, const int32_t *out_perm, const double *out_scale,
                              unsigned *flags, sps_cuda_sync_ctrl *ctrl);

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
