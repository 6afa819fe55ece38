/* dist_matrix.h: the distributed matrix (core/dist_matrix.c): each rank's diagonal block as the sps_matrix's own CSR, its off-diagonal block with columns compressed to the halo, the halo plan, and the original index of every row. */
#ifndef SPS_CORE_DIST_MATRIX_H
#define SPS_CORE_DIST_MATRIX_H

#include "halo.h"
#include "spsolve_mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a distributed sps_matrix holds besides its CSR (rows_local x rows_local, the diagonal
 * block: the couplings among the rank's own rows, with local column indices).
 *
 * Rows: local row i is row first_row + i of the distributed numbering and row old_ids[i] of the
 * original one (the file's, A0's, or the local-rows API's). The off-diagonal block has a row
 * for every local row and a column for every halo slot (core/halo.h). Rows [0, n_pre) have no
 * off-diagonal entries: their product needs no halo and runs while the halo is exchanged; the
 * rest is computed once it has arrived (spmv/dist.c). The matrix readers number each rank's
 * rows so that those without off-diagonal entries come first (n_pre as large as it can be).
 */
struct sps_dist {
  int64_t nglobal, nnz_global;
  int64_t first_row;
  int64_t *old_ids;      /* rows_local */
  sps_halo_plan halo;
  int64_t *offd_rowptr;  /* rows_local + 1 */
  int32_t *offd_colind;  /* halo slots */
  double *offd_values;
  int64_t *d_offd_rowptr; /* the three in the context's memory (the host arrays on the CPU) */
  int32_t *d_offd_colind;
  double *d_offd_values;
  int64_t n_pre;
  sps_dist_info info;
};

/* A rank's rows in the original numbering, the input of the assembly. */
typedef struct sps_dist_rows {
  int64_t n;               /* rows of this rank */
  const int64_t *old_ids;  /* their original indices, or NULL for first .. first + n - 1 */
  int64_t first;
  const int64_t *rowptr;   /* n + 1 */
  const int64_t *colind;   /* original column indices */
  const double *values;
  int sorted;              /* 1: each row's columns ascend without repeats (else sorted, summed) */
} sps_dist_rows;

/*
 * Make the distributed matrix of this rank's rows (collective): split each row into the
 * diagonal block (columns the rank owns, by owner) and the off-diagonal block (the others,
 * compressed to halo slots), build the halo plan, upload, and gather the partition facts.
 * reorder: put the rows without off-rank columns first (the matrix readers), else keep the
 * given order (the local-rows API, whose vectors follow the caller's order). The ranks agree
 * on the status.
 */
sps_status sps_dist_assemble(sps_context *ctx, sps_matrix **A, int64_t nglobal,
                             const sps_dist_rows *rows, const sps_dist_owner *owner, int reorder,
                             sps_partition partition, sps_symmetry symmetry);

/* Free what a distributed matrix holds besides its CSR (sps_matrix_destroy). */
void sps_dist_free(sps_context *ctx, struct sps_dist *d);

/* *sym <- 1 when the whole distributed matrix equals its transpose exactly (a missing partner
 * counts as zero), the same on every rank (collective: the transposed couplings go to their
 * owners). */
sps_status sps_dist_is_symmetric(const sps_matrix *A, int *sym);

/* The sign of the whole matrix's diagonal from each rank's (sps_solver_diagonal_sign's
 * convention: 1, -1, or 0), the same on every rank (collective). */
int sps_dist_diagonal_sign(const sps_matrix *A, int local_sign);

/* Scale the off-diagonal block by alpha (sps_matrix_scale on a distributed matrix). */
sps_status sps_dist_scale(sps_matrix *A, double alpha);

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_DIST_MATRIX_H */
