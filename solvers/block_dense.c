/* block_dense.c: the small dense linear algebra of block CG on the host: Cholesky factorisation and solves, cyclic Jacobi eigendecomposition. */
#include <math.h>
#include <string.h>

#include "block_dense.h"

#define A_(i, j) A[(i) + (long)(j) * lda]

void sps_dense_symmetrize(int n, double *A, int lda)
{
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      const double v = 0.5 * (A_(i, j) + A_(j, i));
      A_(i, j) = v;
      A_(j, i) = v;
    }
}

/* Column by column (Cholesky-Banachiewicz): l_jj = sqrt(a_jj - sum_k l_jk^2), then
 * l_ij = (a_ij - sum_k l_ik l_jk) / l_jj for i > j. */
int sps_dense_cholesky(int n, double *A, int lda)
{
  for (int j = 0; j < n; j++) {
    double d = A_(j, j);
    for (int k = 0; k < j; k++) d -= A_(j, k) * A_(j, k);
    if (!(d > 0.0) || !isfinite(d)) return -1;
    const double ljj = sqrt(d);
    A_(j, j) = ljj;
    for (int i = j + 1; i < n; i++) {
      double v = A_(i, j);
      for (int k = 0; k < j; k++) v -= A_(i, k) * A_(j, k);
      A_(i, j) = v / ljj;
    }
    for (int i = 0; i < j; i++) A_(i, j) = 0.0;
  }
  return 0;
}

void sps_dense_cholesky_solve(int n, const double *L, int ldl, int nrhs, double *B, int ldb)
{
  for (int c = 0; c < nrhs; c++) {
    double *b = B + (long)c * ldb;
    /* L y = b */
    for (int i = 0; i < n; i++) {
      double v = b[i];
      for (int k = 0; k < i; k++) v -= L[i + (long)k * ldl] * b[k];
      b[i] = v / L[i + (long)i * ldl];
    }
    /* L^T x = y */
    for (int i = n - 1; i >= 0; i--) {
      double v = b[i];
      for (int k = i + 1; k < n; k++) v -= L[k + (long)i * ldl] * b[k];
      b[i] = v / L[i + (long)i * ldl];
    }
  }
}

/* Row by row: x L^T = b, i.e. L x^T = b^T, forward substitution on each row of B. */
void sps_dense_right_solve_lt(int m, int n, const double *L, int ldl, double *B, int ldb)
{
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++) {
      double v = B[r + (long)j * ldb];
      for (int k = 0; k < j; k++) v -= L[j + (long)k * ldl] * B[r + (long)k * ldb];
      B[r + (long)j * ldb] = v / L[j + (long)j * ldl];
    }
}

void sps_dense_sym_eig(int n, double *A, int lda, double *w, double *V, int ldv)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) V[i + (long)j * ldv] = i == j ? 1.0 : 0.0;
  double norm = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) norm += A_(i, j) * A_(i, j);
  norm = sqrt(norm);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = 0.0;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < j; i++) off += A_(i, j) * A_(i, j);
    if (!(sqrt(2.0 * off) > 1e-15 * norm)) break;
    for (int p = 0; p < n - 1; p++)
      for (int q = p + 1; q < n; q++) {
        const double apq = A_(p, q);
        if (apq == 0.0) continue;
        /* the rotation that zeroes a_pq (Golub and Van Loan, Algorithm 8.5.1) */
        const double tau = (A_(q, q) - A_(p, p)) / (2.0 * apq);
        const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
        const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
        for (int k = 0; k < n; k++) {
          const double akp = A_(k, p), akq = A_(k, q);
          A_(k, p) = c * akp - s * akq;
          A_(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          const double apk = A_(p, k), aqk = A_(q, k);
          A_(p, k) = c * apk - s * aqk;
          A_(q, k) = s * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) {
          double *vp = &V[k + (long)p * ldv], *vq = &V[k + (long)q * ldv];
          const double a = *vp, b = *vq;
          *vp = c * a - s * b;
          *vq = s * a + c * b;
        }
      }
  }
  for (int j = 0; j < n; j++) w[j] = A_(j, j);
  /* decreasing order (selection sort: n is small), eigenvectors along */
  for (int j = 0; j < n; j++) {
    int best = j;
    for (int k = j + 1; k < n; k++)
      if (w[k] > w[best]) best = k;
    if (best == j) continue;
    const double t = w[j];
    w[j] = w[best];
    w[best] = t;
    for (int k = 0; k < n; k++) {
      const double v = V[k + (long)j * ldv];
      V[k + (long)j * ldv] = V[k + (long)best * ldv];
      V[k + (long)best * ldv] = v;
    }
  }
}
