/* kernels.h: the CPU reference kernels of the preconditioners (precond/ref/), one prototype each, shared with the CUDA kernels' tests. */
#ifndef SPS_PRECOND_REF_KERNELS_H
#define SPS_PRECOND_REF_KERNELS_H

#include <stdint.h>

#include "../../core/compensated_sum.h"

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

/*
 * The sparse product C = A B (precond/ref/spgemm.c), A m x k and B k x n in CSR (int64
 * offsets, int32 columns, columns sorted in each row). Two passes:
 *  count: ccount[i] <- the number of distinct columns in row i of C;
 *  fill:  with crp the prefix sums of the counts (m + 1 offsets), row i's columns in
 *         ascending order into cci[crp[i]..] and c_ij = the compensated sum
 *         (core/compensated_sum.h) of the rounded products a_ik * b_kj into cv.
 * Every structural product makes an entry, zero or not. mark (n int64) and acc (n sums) are
 * work arrays of the caller. The products of c_ij are added in the order of their a_ik in
 * A's row; a GPU kernel gives the same bits by keeping that order (in another order the
 * compensated sums of cancelling products, as in the A A of stiffness matrices, differ).
 */
void sps_ref_spgemm_count(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                          const int64_t *brp, const int32_t *bci, int64_t *mark, int64_t *ccount);
void sps_ref_spgemm_fill(int64_t m, int64_t n, const int64_t *arp, const int32_t *aci,
                         const double *av, const int64_t *brp, const int32_t *bci,
                         const double *bv, const int64_t *crp, int64_t *mark, sps_csum *acc,
                         int32_t *cci, double *cv);

/*
 * The transpose T = A^T of an m x n CSR matrix (precond/ref/spgemm.c): trp (n + 1
 * offsets), tci and tv (rp[m] entries; v NULL: the pattern only, tv unused). The rows of T
 * come out sorted by column.
 */
void sps_ref_csr_transpose(int64_t m, int64_t n, const int64_t *rp, const int32_t *ci,
                           const double *v, int64_t *trp, int32_t *tci, double *tv);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_REF_KERNELS_H */
