/* coloring.h: the multicolor ordering of a sparse matrix, which turns the level sets of an incomplete factorisation's triangular solves into as few as there are colors. */
#ifndef SPS_PRECOND_COLORING_H
#define SPS_PRECOND_COLORING_H

#include "host_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A greedy distance-1 coloring of the graph of A + A^T (vertices in natural order, each
 * taking the smallest color none of its neighbours has; Saad, Iterative Methods for Sparse
 * Linear Systems, 2nd ed., 3.3.3), and the permutation that lists the vertices color by
 * color (natural order within a color): perm[k] is the row of A that becomes row k. Rows of
 * one color share no entry, so in P A P^T every strictly lower entry of a row points to an
 * earlier color: the lower and upper triangles have at most ncolors level sets each.
 * perm comes from sps_host_alloc (n entries).
 */
sps_status sps_coloring_order(sps_context *ctx, const sps_host_csr *A, int32_t **perm,
                              int *ncolors);

/* B <- P A P^T: B(i, j) = A(perm[i], perm[j]), rows sorted by column. */
sps_status sps_host_csr_permute_symmetric(sps_context *ctx, const sps_host_csr *A,
                                          const int32_t *perm, sps_host_csr *B);

/* The level sets of the lower triangle of A (the depth of the forward substitution). */
int64_t sps_host_csr_lower_levels(sps_context *ctx, const sps_host_csr *A);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_COLORING_H */
