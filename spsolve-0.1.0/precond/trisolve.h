/* trisolve.h: a sparse triangular solve plan: the level-set analysis at setup, the solve on the context's device. */
#ifndef SPS_PRECOND_TRISOLVE_H
#define SPS_PRECOND_TRISOLVE_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The triangle of a CSR matrix whose rows have a diagonal slot at diag[i] (the layout of
 * sps_lu_factors): lower means the entries [rowptr[i], diag[i]) of each row, upper the
 * entries (diag[i], rowptr[i+1]). sps_ref_trisolve (precond/ref/kernels.h) states the math.
 *
 * Analysis (create): the level of a row is one more than the largest level of the rows it
 * depends on (Anderson and Saad 1989); rows are ordered by level and cut into tasks of one
 * level each: a row of more than SPS_TRISOLVE_LONG entries alone (a warp sums it), other
 * rows by up to 32 (a thread each). The CUDA solve (precond/cuda/trisolve.cu) is one launch:
 * for small n one thread block walks the levels with x in shared memory; otherwise a
 * persistent grid takes the tasks in order from an atomic ticket and waits for each
 * dependency on the value itself (synchronisation-free; Liu et al. 2016, in CSR form). The
 * CPU solve runs the reference in row order.
 */
#define SPS_TRISOLVE_LONG 32

typedef struct sps_trisolve sps_trisolve;

/*
 * Analyse the triangle from host arrays (read during the call only) and allocate the
 * device state; `levels` is reported by sps_trisolve_levels.
 */
sps_status sps_trisolve_create(sps_context *ctx, sps_trisolve **t, int64_t n, int upper,
                               const int64_t *h_rowptr, const int64_t *h_diag,
                               const int32_t *h_colind);

/* The arrays the solve reads, in the context's memory, borrowed for the plan's life. dinv
 * NULL: unit diagonal. */
void sps_trisolve_bind(sps_trisolve *t, const int64_t *rowptr, const int64_t *diag,
                       const int32_t *colind, const double *values, const double *dinv);

/* After the bound values changed (a factorisation ran): refresh the plan's own copy of
 * them (the one-block CUDA solve keeps one); nothing elsewhere. */
sps_status sps_trisolve_refresh(sps_trisolve *t);

/*
 * x <- the solution (context memory, n doubles, not aliasing b), with the optional gather
 * and scale of b and the optional scatter of x into out (see sps_ref_trisolve). Allocates
 * nothing and does not synchronise.
 */
sps_status sps_trisolve_apply(sps_trisolve *t, const double *b, const int32_t *in_perm,
                              const double *in_scale, double *x, double *out,
                              const int32_t *out_perm, const double *out_scale);

/* The number of level sets. */
int sps_trisolve_levels(const sps_trisolve *t);

/* The rows in level order, n int32 in the context's memory (the ILU(0) factorisation on the
 * GPU follows the lower triangle's order). */
const int32_t *sps_trisolve_order(const sps_trisolve *t);

void sps_trisolve_destroy(sps_trisolve **t);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_TRISOLVE_H */
