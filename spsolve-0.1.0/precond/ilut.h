/* ilut.h: the dual-threshold incomplete LU factorisation with column pivoting (ILUTP), computed on the host. */
#ifndef SPS_PRECOND_ILUT_H
#define SPS_PRECOND_ILUT_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * B Q = L U approximately, Q a column permutation (col_perm[k] is the column of B that is
 * column k of B Q; NULL when no column was swapped). L is unit lower triangular, stored
 * without its diagonal (strictly lower, columns sorted); U is upper triangular, stored
 * without its diagonal (strictly upper, columns sorted, column indices are those of B Q),
 * and udiag_inv[i] = 1 / u_ii.
 */
typedef struct sps_ilut_factors {
  sps_host_csr L;     /* strictly lower part of L */
  sps_host_csr U;     /* strictly upper part of U */
  double *udiag_inv;  /* n */
  int32_t *col_perm;  /* n, or NULL */
  int64_t replaced;   /* pivots replaced by the pivot rule */
  int64_t swaps;      /* column interchanges */
} sps_ilut_factors;

/*
 * ILUTP (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Algorithms 10.6 and
 * its pivoting variant): row by row, with a dense work row, eliminate with the rows above,
 * drop entries below drop * ||row i of B||_2, keep the largest fill * nnz_L(row i of B)
 * entries of the L part and fill * nnz_U(row i of B) of the U part (at least 1 each when
 * the row has entries there), then, when pivot > 0 and |w_i| < pivot * max_{j>i} |w_j|,
 * swap column i with the column of that maximum. A pivot |u_ii| below pivot_tol times the
 * largest |b_ij| of the row is replaced by that value with its sign (+ for 0); counted.
 */
sps_status sps_ilut_factor(sps_context *ctx, const sps_host_csr *B, double fill, double drop,
                           double pivot, double pivot_tol, sps_ilut_factors *f);

/* Release the factors and zero the struct. */
void sps_ilut_factors_free(sps_ilut_factors *f);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_ILUT_H */
