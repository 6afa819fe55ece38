/* lu_factors.h: the incomplete factors M = Dr^-1 P^T L U Q^T Dc^-1 shared by ilu0, ic0 and ilut, and their apply z = M^-1 r by two triangular solves. */
#ifndef SPS_PRECOND_LU_FACTORS_H
#define SPS_PRECOND_LU_FACTORS_H

#include "host_csr.h"
#include "precond.h"
#include "reorder.h"
#include "trisolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * L (unit lower) and U (upper) in one CSR matrix F in the context's memory: row i holds
 * L's strictly lower entries, then a diagonal slot at diag[i] (u_ii; the solves read
 * dinv = 1/u_ii instead), then U's strictly upper entries. With the reordering of B = Dr P A
 * Dc and ILUTP's column permutation Q (B Q = L U), for the operator A:
 *   M^-1 r = Dc Q U^-1 L^-1 Dr P r,
 * computed as t = L^-1 (row_scale .* r[row_perm]) and z[cp(q_k)] = col_scale[q_k] * (U^-1 t)_k,
 * cp the reordering's column permutation (the multicolor ordering).
 */
typedef struct sps_lu_factors {
  sps_context *ctx;
  int64_t n, nnz;
  int64_t *rowptr, *diag; /* context memory */
  int32_t *colind;
  double *values;
  double *dinv;
  int32_t *in_perm;    /* P (the matching's row_perm), or NULL */
  double *in_scale;    /* Dr, or NULL */
  int32_t *out_perm;   /* Q (ILUTP's col_perm), or NULL */
  double *out_scale;   /* Dc composed with Q: out_scale[k] = col_scale[q_k], or NULL */
  double *t, *y;       /* n each: L^-1 b, and U^-1 t when it is scattered (else NULL) */
  sps_trisolve *lower, *upper;
} sps_lu_factors;

/*
 * Build the factors' storage and both solve plans from the host pattern of F (rows sorted
 * with every diagonal position present; values uploaded as they are: the factorisation
 * may then run in place, or they are the final factors), the reordering r (NULL: none) and
 * Q (NULL: none). dinv is left for the factorisation (or for sps_lu_factors_set_dinv).
 */
sps_status sps_lu_factors_create(sps_context *ctx, sps_lu_factors *f, const sps_host_csr *F,
                                 const sps_reorder *r, const int32_t *col_perm);

/* Upload 1/u_ii (host, n values); the values are then final (refreshes the solve plans). */
sps_status sps_lu_factors_set_dinv(sps_lu_factors *f, const double *h_dinv);

/* The values changed in place (a factorisation ran): refresh the solve plans' copies. */
sps_status sps_lu_factors_refresh(sps_lu_factors *f);

/* z <- M^-1 r (context memory, z may equal r). */
sps_status sps_lu_factors_apply(sps_lu_factors *f, const double *r, double *z);

/*
 * The matrix to factor: B = sign*A with every diagonal position present, then, unless
 * `symmetric` (IC(0) keeps A symmetric), under the rule of the parameters "matching" and
 * "scaling" (matching -1: when sps_reorder_diagonal_is_weak, except for a `threshold`
 * factorisation with column pivoting, ILUTP, whose swaps fix a weak diagonal themselves: on
 * rajat12 GMRES(30) takes 6 iterations without the matching and 9 with it; scaling -1: with
 * the matching, and always for a `threshold` factorisation, ILUT, whose drop test and
 * pivoting compare entries across rows and columns) reordered and scaled to Dr P B Dc, and
 * under the rule of
 * "ordering" permuted symmetrically (multicolor, precond/coloring.h, or reverse
 * Cuthill-McKee, precond/rcm.h). r gets the whole transformation
 * (zeroed when there is none). Records matched, scaled, permuted_rows and colors in
 * pc->info; a structurally singular A is refused with SPS_ERR_UNSUPPORTED naming the rows
 * that cannot be matched.
 */
sps_status sps_lu_factors_prepare(sps_precond *pc, const sps_matrix *A, int symmetric,
                                  int threshold, sps_host_csr *B, sps_reorder *r);

/* Free everything and zero the struct (a zeroed struct is fine). */
void sps_lu_factors_destroy(sps_lu_factors *f);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_LU_FACTORS_H */
