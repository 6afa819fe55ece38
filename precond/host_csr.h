/* host_csr.h: square CSR matrices on the host, the form in which preconditioners analyse, reorder and factor A. */
#ifndef SPS_PRECOND_HOST_CSR_H
#define SPS_PRECOND_HOST_CSR_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An n x n CSR matrix in host memory: rowptr (n + 1 offsets), colind and values (rowptr[n]
 * entries), columns sorted within each row. Owned arrays come from sps_host_alloc and are
 * released by sps_host_csr_free; a view borrows them.
 */
typedef struct sps_host_csr {
  int64_t n;
  int64_t *rowptr;
  int32_t *colind;
  double *values;
} sps_host_csr;

/* Allocate an n x n matrix with room for nnz entries (rowptr zeroed). */
sps_status sps_host_csr_alloc(sps_context *ctx, sps_host_csr *M, int64_t n, int64_t nnz,
                              const char *what);

/* Free the arrays (a zeroed struct is fine) and zero the struct. */
void sps_host_csr_free(sps_host_csr *M);

/*
 * A rectangular nrows x ncols CSR matrix on the host (algebraic multigrid's prolongators,
 * restrictions and products), with the same ownership rules and sorted columns.
 */
typedef struct sps_host_rcsr {
  int64_t nrows, ncols;
  int64_t *rowptr;
  int32_t *colind;
  double *values;
} sps_host_rcsr;

/* Allocate an nrows x ncols matrix with room for nnz entries (rowptr zeroed). */
sps_status sps_host_rcsr_alloc(sps_context *ctx, sps_host_rcsr *M, int64_t nrows, int64_t ncols,
                               int64_t nnz, const char *what);

/* Free the arrays (a zeroed struct is fine) and zero the struct. */
void sps_host_rcsr_free(sps_host_rcsr *M);

/* A view of A's host arrays (nothing copied; do not free). */
sps_host_csr sps_host_csr_view(const sps_matrix *A);

/*
 * M <- sign * A, with an entry on every diagonal position: a row without a stored diagonal
 * gets an explicit zero there (so factorisations find every pivot in the pattern).
 */
sps_status sps_host_csr_with_diagonal(sps_context *ctx, const sps_matrix *A, double sign,
                                      sps_host_csr *M);

/* Sort the entries of one row by column, with their values (insertion sort when short, else
 * heapsort). */
void sps_host_csr_sort_row(int32_t *col, double *val, int64_t len);

/* Position of the diagonal entry of each row (diag[i], or -1 when the row has none). */
void sps_host_csr_diagonal_positions(const sps_host_csr *M, int64_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_HOST_CSR_H */
