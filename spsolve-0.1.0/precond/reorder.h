/* reorder.h: static pivoting for the factorisations: a row permutation that puts large nonzeros on the diagonal (maximum transversal, weighted matching) and row/column equilibration. */
#ifndef SPS_PRECOND_REORDER_H
#define SPS_PRECOND_REORDER_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The transformed matrix B = Dr P A Pc Dc:
 *   B(i, j) = row_scale[i] * A(row_perm[i], col_perm[j]) * col_scale[j].
 * A system A x = b becomes B y = b' with b'_i = row_scale[i] * b[row_perm[i]] and
 * x[col_perm[j]] = col_scale[j] * y_j. Any of the four arrays may be NULL: the identity.
 * sps_reorder_compute never sets col_perm (a symmetric reordering applied afterwards, the
 * multicolor ordering of lu_factors.c, does).
 */
typedef struct sps_reorder {
  int64_t n;
  int32_t *row_perm;  /* n, or NULL: a permutation of 0..n-1 */
  int32_t *col_perm;  /* n, or NULL: a permutation of 0..n-1 */
  double *row_scale;  /* n, or NULL; indexed by the row of B */
  double *col_scale;  /* n, or NULL; indexed by the column of B */
  int64_t permuted;   /* rows i with row_perm[i] != i */
  int64_t unmatched;  /* rows the matching could not match (0 unless structurally singular) */
} sps_reorder;

/*
 * Compute the transformation of A. matching != 0 asks for the row permutation: a maximum
 * product matching (Duff and Koster 2001, MC64 job 5: maximise prod |b_ii|) found by
 * shortest augmenting paths, after a maximum transversal (Duff 1981, MC21) that tells
 * whether A is structurally singular. scaling != 0 asks for the scaling: with the matching,
 * the scaling from the matching's dual variables (|b_ii| = 1, |b_ij| <= 1); without it,
 * iterative row and column equilibration (Ruiz 2001) until every row and column has
 * infinity norm near 1.
 *
 * A structurally singular A (no transversal of size n) is not an error: r->unmatched says
 * how many rows could not be matched, the permutation completes the matching arbitrarily,
 * and the caller decides (the factorisations then refuse A with SPS_ERR_UNSUPPORTED,
 * naming the count). Entries that are exactly zero count as absent in the matching.
 */
sps_status sps_reorder_compute(sps_context *ctx, const sps_host_csr *A, int matching,
                               int scaling, sps_reorder *r);

/* B <- the transformed matrix (rows sorted by column, every diagonal position present,
 * explicit zeros where B has no entry there). */
sps_status sps_reorder_apply(sps_context *ctx, const sps_host_csr *A, const sps_reorder *r,
                             sps_host_csr *B);

/* Release the arrays and zero the struct. */
void sps_reorder_free(sps_reorder *r);

/*
 * Nonzero when the diagonal of A calls for the matching under the "auto" rule: some row
 * has no diagonal entry, a zero one, or one smaller than 1e-3 times the largest |a_ij| of
 * its row... (documented where implemented).
 */
int sps_reorder_diagonal_is_weak(const sps_host_csr *A);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_REORDER_H */
