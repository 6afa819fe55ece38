/* host_csr.c: allocation (square and rectangular), views and the diagonal-completed copy of host CSR matrices for the preconditioners. */
#include <string.h>

#include "host_csr.h"

sps_status sps_host_csr_alloc(sps_context *ctx, sps_host_csr *M, int64_t n, int64_t nnz,
                              const char *what)
{
  memset(M, 0, sizeof *M);
  sps_status st = SPS_SUCCESS;
  M->n = n;
  SPS_TRY(sps_host_calloc(ctx, (void **)&M->rowptr, (size_t)n + 1, sizeof(int64_t), what));
  SPS_TRY(sps_host_alloc(ctx, (void **)&M->colind, nnz > 0 ? (size_t)nnz : 1, sizeof(int32_t),
                         what));
  SPS_TRY(sps_host_alloc(ctx, (void **)&M->values, nnz > 0 ? (size_t)nnz : 1, sizeof(double),
                         what));
cleanup:
  if (st) sps_host_csr_free(M);
  return st;
}

void sps_host_csr_free(sps_host_csr *M)
{
  sps_host_free(M->rowptr);
  sps_host_free(M->colind);
  sps_host_free(M->values);
  memset(M, 0, sizeof *M);
}

sps_status sps_host_rcsr_alloc(sps_context *ctx, sps_host_rcsr *M, int64_t nrows, int64_t ncols,
                               int64_t nnz, const char *what)
{
  memset(M, 0, sizeof *M);
  sps_status st = SPS_SUCCESS;
  M->nrows = nrows;
  M->ncols = ncols;
  SPS_TRY(sps_host_calloc(ctx, (void **)&M->rowptr, (size_t)nrows + 1, sizeof(int64_t), what));
  SPS_TRY(sps_host_alloc(ctx, (void **)&M->colind, nnz > 0 ? (size_t)nnz : 1, sizeof(int32_t),
                         what));
  SPS_TRY(sps_host_alloc(ctx, (void **)&M->values, nnz > 0 ? (size_t)nnz : 1, sizeof(double),
                         what));
cleanup:
  if (st) sps_host_rcsr_free(M);
  return st;
}

void sps_host_rcsr_free(sps_host_rcsr *M)
{
  sps_host_free(M->rowptr);
  sps_host_free(M->colind);
  sps_host_free(M->values);
  memset(M, 0, sizeof *M);
}

sps_host_csr sps_host_csr_view(const sps_matrix *A)
{
  sps_host_csr v;
  v.n = A->nrows;
  v.rowptr = A->rowptr;
  v.colind = A->colind;
  v.values = A->values;
  return v;
}

sps_status sps_host_csr_with_diagonal(sps_context *ctx, const sps_matrix *A, double sign,
                                      sps_host_csr *M)
{
  const int64_t n = A->nrows;
  int64_t missing = 0;
  for (int64_t i = 0; i < n; i++) {
    int found = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) {
        found = 1;
        break;
      }
    missing += !found;
  }
  SPS_CHECK(sps_host_csr_alloc(ctx, M, n, A->nnz + missing, "preconditioner copy of A"));
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    int placed = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int32_t j = A->colind[k];
      if (!placed && j > i) {
        M->colind[at] = (int32_t)i;
        M->values[at++] = 0.0;
        placed = 1;
      }
      if (j == i) placed = 1;
      M->colind[at] = j;
      M->values[at++] = sign * A->values[k];
    }
    if (!placed) {
      M->colind[at] = (int32_t)i;
      M->values[at++] = 0.0;
    }
    M->rowptr[i + 1] = at;
  }
  return SPS_SUCCESS;
}

void sps_host_csr_diagonal_positions(const sps_host_csr *M, int64_t *diag)
{
  for (int64_t i = 0; i < M->n; i++) {
    diag[i] = -1;
    for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++)
      if (M->colind[k] == i) {
        diag[i] = k;
        break;
      }
  }
}

/* Sift entry r down the max-heap (by column) of the first len entries of (c, v). */
static void sift_down(int32_t *c, double *v, int64_t r, int64_t len)
{
  for (;;) {
    int64_t ch = 2 * r + 1;
    if (ch >= len) return;
    if (ch + 1 < len && c[ch + 1] > c[ch]) ch++;
    if (c[r] >= c[ch]) return;
    const int32_t tc = c[r];
    c[r] = c[ch];
    c[ch] = tc;
    const double tv = v[r];
    v[r] = v[ch];
    v[ch] = tv;
    r = ch;
  }
}

/* Sort the entries (c, v)[0, len) by column: insertion sort when short, else heapsort. */
void sps_host_csr_sort_row(int32_t *c, double *v, int64_t len)
{
  if (len <= 32) {
    for (int64_t a = 1; a < len; a++) {
      const int32_t cc = c[a];
      const double vv = v[a];
      int64_t b = a;
      for (; b > 0 && c[b - 1] > cc; b--) {
        c[b] = c[b - 1];
        v[b] = v[b - 1];
      }
      c[b] = cc;
      v[b] = vv;
    }
    return;
  }
  for (int64_t r = len / 2 - 1; r >= 0; r--)
    sift_down(c, v, r, len);
  for (int64_t last = len - 1; last > 0; last--) {
    /* the largest column of c[0, last] goes to last */
    const int32_t tc = c[0];
    c[0] = c[last];
    c[last] = tc;
    const double tv = v[0];
    v[0] = v[last];
    v[last] = tv;
    sift_down(c, v, 0, last);
  }
}
