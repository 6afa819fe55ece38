/* kernels.h: the CPU reference kernels of the preconditioners (precond/ref/), one prototype each, shared with the CUDA kernels' tests. */
#ifndef SPS_PRECOND_REF_KERNELS_H
#define SPS_PRECOND_REF_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One triangular solve (precond/ref/trisolve.c). The triangle is given by row offsets
 * rowptr and the position diag[i] of row i's diagonal slot: the lower triangle is
 * colind/values[rowptr[i], diag[i]), the upper one (diag[i], rowptr[i+1]).
 * For rows i in dependency order (ascending for lower, descending for upper):
 *   b_i = in_scale[i] * b[in_perm[i]]          (NULL arrays: identity)
 *   x_i = (b_i - sum_j t_ij x_j) * dinv[i]     (dinv NULL: unit diagonal)
 *   out[out_perm[i]] = out_scale[i] * x_i      (when out is not NULL)
 * The sum is compensated (core/compensated_sum.h), so the CUDA kernel, which adds the
 * terms in another order, gives the same bits.
 */
void sps_ref_trisolve(int64_t n, int upper, const int64_t *rowptr, const int64_t *diag,
                      const int32_t *colind, const double *values, const double *dinv,
                      const double *b, const int32_t *in_perm, const double *in_scale, double *x,
                      double *out, const int32_t *out_perm, const double *out_scale);

/*
 * ILU(0) in place on a CSR matrix whose every row has its diagonal at diag[i] (IKJ variant,
 * Saad Algorithm 10.4), rows in ascending order (precond/ref/ilu0.c):
 *   for k in the lower part of row i, ascending:  a_ik <- a_ik * dinv[k];
 *       a_ij <- a_ij - a_ik * a_kj for every j > k in row k that row i also has
 *   then the pivot u_ii = a_ii: when |u_ii| < pivot_tol * rowmax[i] (spd = 0), or
 *   u_ii <= pivot_tol * rowmax[i] (spd = 1: a breakdown of incomplete Cholesky, counted in
 *   *breakdowns), it is replaced by sign(u_ii) * pivot_tol * rowmax[i] (sign + for u_ii <= 0
 *   when spd; rowmax 0: by 1) and counted in *replaced; dinv[i] <- 1 / u_ii.
 * The CUDA kernel performs the same operations in the same order per entry.
 */
void sps_ref_ilu0_factor(int64_t n, const int64_t *rowptr, const int64_t *diag,
                         const int32_t *colind, double *values, const double *rowmax,
                         double pivot_tol, int spd, double *dinv, int64_t *replaced,
                         int64_t *breakdowns);

/*
 * Block Jacobi apply (precond/ref/bjacobi.c): rows in blocks of bs (the last block may be
 * shorter); inv holds each block's inverse as bs x bs row-major doubles, block after block.
 * z[b bs + i] = sum_{j < size_b} inv_b[i][j] r[b bs + j], a compensated sum in j order.
 */
void sps_ref_bjacobi_apply(int64_t n, int bs, const double *inv, const double *r, double *z);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_REF_KERNELS_H */
