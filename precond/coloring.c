/* coloring.c: greedy multicolor ordering, the symmetric permutation of a host CSR matrix, and the level count that decides whether to color. */
#include <stdlib.h>
#include <string.h>

#include "coloring.h"

/* The pattern of A^T: for each column j, the rows i with a_ij stored (CSR of the transpose). */
static sps_status transpose_pattern(sps_context *ctx, const sps_host_csr *A, int64_t **tp,
                                    int32_t **ti)
{
  const int64_t n = A->n, nnz = A->rowptr[n];
  sps_status st = SPS_SUCCESS;
  int64_t *ptr = NULL, *fill = NULL;
  int32_t *idx = NULL;
  SPS_TRY(sps_host_calloc(ctx, (void **)&ptr, (size_t)n + 1, sizeof(int64_t), "coloring transpose"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&idx, nnz > 0 ? (size_t)nnz : 1, sizeof(int32_t),
                         "coloring transpose"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&fill, n > 0 ? (size_t)n : 1, sizeof(int64_t),
                         "coloring transpose"));
  for (int64_t k = 0; k < nnz; k++) ptr[A->colind[k] + 1]++;
  for (int64_t j = 0; j < n; j++) ptr[j + 1] += ptr[j];
  memcpy(fill, ptr, (size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) idx[fill[A->colind[k]]++] = (int32_t)i;
  *tp = ptr;
  *ti = idx;
  ptr = NULL;
  idx = NULL;
cleanup:
  sps_host_free(ptr);
  sps_host_free(idx);
  sps_host_free(fill);
  return st;
}

sps_status sps_coloring_order(sps_context *ctx, const sps_host_csr *A, int32_t **perm,
                              int *ncolors)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  int64_t *tp = NULL, *count = NULL;
  int32_t *ti = NULL, *color = NULL, *mark = NULL, *out = NULL;
  *perm = NULL;
  *ncolors = 0;
  SPS_TRY(transpose_pattern(ctx, A, &tp, &ti));
  const size_t nn = n > 0 ? (size_t)n : 1;
  SPS_TRY(sps_host_alloc(ctx, (void **)&color, nn, sizeof(int32_t), "coloring colors"));
  /* mark[c] == v + 1: color c is taken by a neighbour of v (no clearing between vertices). */
  SPS_TRY(sps_host_calloc(ctx, (void **)&mark, nn + 1, sizeof(int32_t), "coloring marks"));
  int32_t nc = 0;
  for (int64_t v = 0; v < n; v++) {
    for (int64_t k = A->rowptr[v]; k < A->rowptr[v + 1]; k++) {
      const int32_t u = A->colind[k];
      if (u < v) mark[color[u]] = (int32_t)v + 1;
    }
    for (int64_t k = tp[v]; k < tp[v + 1]; k++) {
      const int32_t u = ti[k];
      if (u < v) mark[color[u]] = (int32_t)v + 1;
    }
    int32_t c = 0;
    while (mark[c] == (int32_t)v + 1) c++;
    color[v] = c;
    if (c + 1 > nc) nc = c + 1;
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&count, (size_t)nc + 1, sizeof(int64_t), "coloring counts"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&out, nn, sizeof(int32_t), "coloring permutation"));
  for (int64_t v = 0; v < n; v++) count[color[v] + 1]++;
  for (int32_t c = 0; c < nc; c++) count[c + 1] += count[c];
  for (int64_t v = 0; v < n; v++) out[count[color[v]]++] = (int32_t)v;
  *perm = out;
  *ncolors = nc;
  out = NULL;
cleanup:
  sps_host_free(tp);
  sps_host_free(ti);
  sps_host_free(color);
  sps_host_free(mark);
  sps_host_free(count);
  sps_host_free(out);
  return st;
}


sps_status sps_host_csr_permute_symmetric(sps_context *ctx, const sps_host_csr *A,
                                          const int32_t *perm, sps_host_csr *B)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  int32_t *inv = NULL;
  SPS_TRY(sps_host_alloc(ctx, (void **)&inv, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                         "symmetric permutation"));
  for (int64_t k = 0; k < n; k++) inv[perm[k]] = (int32_t)k;
  SPS_TRY(sps_host_csr_alloc(ctx, B, n, A->rowptr[n], "permuted matrix"));
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = perm[i], b = at;
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
      B->colind[at] = inv[A->colind[k]];
      B->values[at++] = A->values[k];
    }
    sps_host_csr_sort_row(B->colind + b, B->values + b, at - b);
    B->rowptr[i + 1] = at;
  }
cleanup:
  sps_host_free(inv);
  return st;
}

int64_t sps_host_csr_lower_levels(sps_context *ctx, const sps_host_csr *A)
{
  const int64_t n = A->n;
  int32_t *level = NULL;
  if (sps_host_alloc(ctx, (void **)&level, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                     "level count") != SPS_SUCCESS)
    return -1;
  int64_t nlev = n > 0 ? 1 : 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t lv = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && A->colind[k] < i; k++)
      if (level[A->colind[k]] + 1 > lv) lv = level[A->colind[k]] + 1;
    level[i] = lv;
    if (lv + 1 > nlev) nlev = lv + 1;
  }
  sps_host_free(level);
  return nlev;
}
