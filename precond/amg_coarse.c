/* amg_coarse.c: the coarsest multigrid level's direct solve, an explicit dense inverse formed on the host and stored as a dense CSR matrix, so that the solve is one SpMV on either device. */
#include <math.h>
#include <string.h>

#include "amg.h"

/*
 * G = H^-1 for the n x n coarsest operator H (n <= AMG_DENSE_MAX): Gaussian elimination with
 * partial pivoting, P H = L U (Golub and Van Loan, Algorithm 3.4.1), in long double, then
 * the columns of G from L U g_j = P e_j by forward and back substitution: about 8/3 n^3
 * operations, a fraction of a second for n = 800.
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
  long double *lu = NULL, *col = NULL;
  int64_t *perm = NULL;
  unsigned char *zero_pivot = NULL;
  *dropped = 0;
  memset(G, 0, sizeof *G);
  const size_t nn = (size_t)(n > 0 ? n : 1);
  SPS_TRY(sps_host_calloc(ctx, (void **)&lu, nn * nn, sizeof(long double), "AMG coarse LU"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&col, nn, sizeof(long double), "AMG coarse column"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&perm, nn, sizeof(int64_t), "AMG coarse pivots"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&zero_pivot, nn, 1, "AMG coarse pivots"));
  SPS_TRY(sps_host_rcsr_alloc(ctx, G, n, n, n * n, "AMG coarse inverse"));
  long double big = 0.0L;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      lu[i * n + H->colind[k]] += H->values[k];
      if (fabsl(lu[i * n + H->colind[k]]) > big) big = fabsl(lu[i * n + H->colind[k]]);
    }
  const long double tiny = 1e-13L * big;
  /* P H = L U, L unit lower (below the diagonal), U upper, in place; perm[k]: the row of H
   * that ended in row k. */
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (fabsl(lu[i * n + k]) > fabsl(lu[p * n + k])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; j++) {
        const long double t = lu[k * n + j];
        lu[k * n + j] = lu[p * n + j];
        lu[p * n + j] = t;
      }
      const int64_t t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    const long double piv = lu[k * n + k];
    if (!(fabsl(piv) > tiny)) {
      /* a zero pivot: leave column k uneliminated (l_ik = 0), x_k = 0 below */
      zero_pivot[k] = 1;
      (*dropped)++;
      for (int64_t i = k + 1; i < n; i++)
        lu[i * n + k] = 0.0L;
      continue;
    }
    for (int64_t i = k + 1; i < n; i++) {
      const long double l = lu[i * n + k] / piv;
      lu[i * n + k] = l;
      if (l != 0.0L)
        for (int64_t j = k + 1; j < n; j++)
          lu[i * n + j] -= l * lu[k * n + j];
    }
  }
  /* Column j of G: L y = P e_j, U g = y; stored row-major in G (dense rows). */
  for (int64_t i = 0; i <= n; i++)
    G->rowptr[i] = i * n;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      G->colind[i * n + j] = (int32_t)j;
  for (int64_t j = 0; j < n; j++) {
    for (int64_t i = 0; i < n; i++) {
      long double s = perm[i] == j ? 1.0L : 0.0L;
      for (int64_t k = 0; k < i; k++)
        s -= lu[i * n + k] * col[k];
      col[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
      if (zero_pivot[i]) {
        col[i] = 0.0L;
        continue;
      }
      long double s = col[i];
      for (int64_t k = i + 1; k < n; k++)
        s -= lu[i * n + k] * col[k];
      col[i] = s / lu[i * n + i];
    }
    for (int64_t i = 0; i < n; i++)
      G->values[i * n + j] = (double)col[i];
  }
  if (symmetric)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++) {
        const double s = 0.5 * (G->values[i * n + j] + G->values[j * n + i]);
        G->values[i * n + j] = s;
        G->values[j * n + i] = s;
      }
cleanup:
  if (st) sps_host_rcsr_free(G);
  sps_host_free(lu);
  sps_host_free(col);
  sps_host_free(perm);
  sps_host_free(zero_pivot);
  return st;
}
