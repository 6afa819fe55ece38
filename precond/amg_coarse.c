/* amg_coarse.c: the coarsest multigrid level's direct solve, an explicit dense inverse formed on the host and stored as a dense CSR matrix, so that the solve is one SpMV on either device. */
#include <math.h>
#include <string.h>

#include "amg.h"

/*
 * G = H^-1 for the n x n coarsest operator H (n <= AMG_DENSE_MAX): Gaussian elimination with
 * partial pivoting, P H = L U (Golub and Van Loan, Algorithm 3.4.1), in double, then
 * G = U^-1 (L^-1 P) by forward and back substitution over all columns at once, a row of G at
 * a time (LAPACK's dgetri computes the same product): about 2 n^3 operations along
 * contiguous rows, a few milliseconds for n = 300 (the long double column-by-column version
 * before it took 45 ms for 267 rows).
 *
 * A singular H (the Galerkin operator of a pure Neumann problem keeps the constant null
 * vector on every level) shows as a pivot of rounding size: a pivot below 1e-13 times the
 * largest |h_ij| is taken as zero, its column is not eliminated and the back substitution
 * sets that unknown to zero. G is then a generalised inverse (H G H = H): the coarse
 * correction leaves the null space alone, which the Krylov method handles (a consistent
 * right-hand side has no component there). The count of such pivots is reported.
 *
 * For symmetric H the exact inverse is symmetric; the computed one is symmetrised,
 * G <- (G + G^T) / 2, so that the cycle stays symmetric for CG to rounding.
 */
sps_status amg_dense_inverse(sps_context *ctx, const sps_host_csr *H, int symmetric,
                             sps_host_rcsr *G, int64_t *dropped)
{
  const int64_t n = H->n;
  sps_status st = SPS_SUCCESS;
  double *lu = NULL;
  int64_t *perm = NULL;
  unsigned char *zero_pivot = NULL;
  *dropped = 0;
  memset(G, 0, sizeof *G);
  const size_t nn = (size_t)(n > 0 ? n : 1);
  SPS_TRY(sps_host_calloc(ctx, (void **)&lu, nn * nn, sizeof(double), "AMG coarse LU"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&perm, nn, sizeof(int64_t), "AMG coarse pivots"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&zero_pivot, nn, 1, "AMG coarse pivots"));
  SPS_TRY(sps_host_rcsr_alloc(ctx, G, n, n, n * n, "AMG coarse inverse"));
  double big = 0.0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      lu[i * n + H->colind[k]] += H->values[k];
      if (fabs(lu[i * n + H->colind[k]]) > big) big = fabs(lu[i * n + H->colind[k]]);
    }
  const double tiny = 1e-13 * big;
  /* P H = L U, L unit lower (below the diagonal), U upper, in place; perm[k]: the row of H
   * that ended in row k. The updates run along rows (contiguous, vectorised). */
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (fabs(lu[i * n + k]) > fabs(lu[p * n + k])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; j++) {
        const double t = lu[k * n + j];
        lu[k * n + j] = lu[p * n + j];
        lu[p * n + j] = t;
      }
      const int64_t t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    const double piv = lu[k * n + k];
    if (!(fabs(piv) > tiny)) {
      /* a zero pivot: leave column k uneliminated (l_ik = 0), x_k = 0 below */
      zero_pivot[k] = 1;
      (*dropped)++;
      for (int64_t i = k + 1; i < n; i++)
        lu[i * n + k] = 0.0;
      continue;
    }
    const double *restrict uk = lu + k * n;
    for (int64_t i = k + 1; i < n; i++) {
      double *restrict ri = lu + i * n;
      const double l = ri[k] / piv;
      ri[k] = l;
      if (l != 0.0)
        for (int64_t j = k + 1; j < n; j++)
          ri[j] -= l * uk[j];
    }
  }
  /*
   * G = U^-1 L^-1 P row by row, all columns at once (rows of G are contiguous):
   *   Y = L^-1 P:  y_i = e_{perm_i}^T - sum_{k<i} l_ik y_k   (in G's storage)
   *   G = U^-1 Y:  g_i = (y_i - sum_{k>i} u_ik g_k) / u_ii,  g_i = 0 for a zero pivot.
   */
  for (int64_t i = 0; i <= n; i++)
    G->rowptr[i] = i * n;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      G->colind[i * n + j] = (int32_t)j;
  double *restrict g = G->values;
  for (int64_t i = 0; i < n; i++) {
    double *restrict yi = g + i * n;
    for (int64_t j = 0; j < n; j++)
      yi[j] = 0.0;
    yi[perm[i]] = 1.0;
    for (int64_t k = 0; k < i; k++) {
      const double l = lu[i * n + k];
      if (l == 0.0) continue;
      const double *restrict yk = g + k * n;
      for (int64_t j = 0; j < n; j++)
        yi[j] -= l * yk[j];
    }
  }
  for (int64_t i = n - 1; i >= 0; i--) {
    double *restrict gi = g + i * n;
    if (zero_pivot[i]) {
      for (int64_t j = 0; j < n; j++)
        gi[j] = 0.0;
      continue;
    }
    for (int64_t k = i + 1; k < n; k++) {
      const double u = lu[i * n + k];
      if (u == 0.0) continue;
      const double *restrict gk = g + k * n;
      for (int64_t j = 0; j < n; j++)
        gi[j] -= u * gk[j];
    }
    const double d = lu[i * n + i];
    for (int64_t j = 0; j < n; j++)
      gi[j] /= d;
  }
  if (symmetric)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++) {
        const double s = 0.5 * (g[i * n + j] + g[j * n + i]);
        g[i * n + j] = s;
        g[j * n + i] = s;
      }
cleanup:
  if (st) sps_host_rcsr_free(G);
  sps_host_free(lu);
  sps_host_free(perm);
  sps_host_free(zero_pivot);
  return st;
}
