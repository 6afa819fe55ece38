/* block_dense.h: the small dense linear algebra of block CG on the host (Cholesky, symmetric eigendecomposition), column-major, at most SPS_BLOCK_MAX_COLS square. */
#ifndef SPS_SOLVERS_BLOCK_DENSE_H
#define SPS_SOLVERS_BLOCK_DENSE_H

#ifdef __cplusplus
extern "C" {
#endif

/* A <- (A + A^T) / 2 (n x n, leading dimension lda). */
void sps_dense_symmetrize(int n, double *A, int lda);

/* The lower Cholesky factor L of the symmetric A in place (the upper triangle is zeroed);
 * 0, or -1 when a pivot is not positive (A not positive definite in floating point). */
int sps_dense_cholesky(int n, double *A, int lda);

/* B <- (L L^T)^-1 B for B of nrhs columns (leading dimension ldb), L from sps_dense_cholesky. */
void sps_dense_cholesky_solve(int n, const double *L, int ldl, int nrhs, double *B, int ldb);

/* B <- B L^-T (B of m rows, n columns): the columns of B L^-T are orthonormal when those of B
 * have the Gram matrix L L^T. */
void sps_dense_right_solve_lt(int m, int n, const double *L, int ldl, double *B, int ldb);

/*
 * The eigenvalues of the symmetric A (n x n, destroyed) into w in decreasing order and the
 * orthonormal eigenvectors into the columns of V (leading dimension ldv), by cyclic Jacobi
 * rotations until the off-diagonal part is below 1e-15 of the norm or after 50 sweeps:
 * accurate to a few ulps of the largest eigenvalue, deterministic, and cheap for the block
 * sizes of block CG (n <= 64: at most about 10 sweeps of 2 n^3 operations).
 */
void sps_dense_sym_eig(int n, double *A, int lda, double *w, double *V, int ldv);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SOLVERS_BLOCK_DENSE_H */
