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
 * ILUTP (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Algorithm 10.6 and
 * its pivoting variant, 10.4.4; the details in ilut_factor.c): row by row, with a dense
 * work row, eliminate with the rows above, drop entries below drop * mean_j |b_ij| (an L
 * entry l_ik is measured as l_ik u_kk, before the division by the pivot), keep the largest
 * round(fill * m_i / 2) entries of the L part and as many of the U part, m_i the
 * off-diagonal entries of row i of B (at least 1 each when fill > 0 and m_i > 0; fill 0
 * keeps the diagonal only), then, when pivot > 0 and |w_i| < pivot * max_{j>i} |w_j| over
 * the kept entries, swap column i with the column of that maximum. A pivot |u_ii| below
 * pivot_tol times the largest |b_ij| of the row (or zero, or NaN) is replaced by that value
 * with its sign (+ for 0; 1 for a zero row); counted. B: every diagonal position stored.
 * Returns SPS_ERR_ARGUMENT for a negative or NaN parameter, SPS_ERR_HOST_MEMORY; on failure
 * *f is zeroed and nothing is left allocated.
 */
sps_status sps_ilut_factor(sps_context *ctx, const sps_host_csr *B, double fill, double drop,
                           double pivot, double pivot_tol, sps_ilut_factors *f);

/* Release the factors and zero the struct. */
void sps_ilut_factors_free(sps_ilut_factors *f);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_ILUT_H */
