/* csr_assemble.c: builds canonical CSR (columns sorted within each row, duplicates summed) from COO
 * triplets or raw CSR. */
#include <string.h>

#include "csr_assemble.h"

/* Stable merge sort of (col, val) pairs of one row, using tmp of the same length. */
static void sort_pairs(int32_t *col, double *val, int64_t len, int32_t *tcol, double *tval)
{
  if (len <= 32) {
    /* Insertion sort: stable, and fast on the short rows that dominate. */
    for (int64_t i = 1; i < len; i++) {
      int32_t c = col[i];
      double v = val[i];
      int64_t j = i - 1;
      while (j >= 0 && col[j] > c) {
        col[j + 1] = col[j];
        val[j + 1] = val[j];
        j--;
      }
      col[j + 1] = c;
      val[j + 1] = v;
    }
    return;
  }
  int64_t half = len / 2;
  sort_pairs(col, val, half, tcol, tval);
  sort_pairs(col + half, val + half, len - half, tcol, tval);
  if (col[half - 1] <= col[half]) return;
  int64_t i = 0, j = half, k = 0;
  while (i < half && j < len) {
    if (col[j] < col[i]) {
      tcol[k] = col[j];
      tval[k++] = val[j++];
    } else {
      tcol[k] = col[i];
      tval[k++] = val[i++];
    }
  }
  while (i < half) {
    tcol[k] = col[i];
    tval[k++] = val[i++];
  }
  while (j < len) {
    tcol[k] = col[j];
    tval[k++] = val[j++];
  }
  memcpy(col, tcol, (size_t)len * sizeof *col);
  memcpy(val, tval, (size_t)len * sizeof *val);
}

sps_status sps_csr_canonicalize(sps_context *ctx, int64_t nrows, int64_t *rowptr, int32_t *colind,
                                double *values, int64_t *nnz_out)
{
  int64_t maxlen = 0;
  for (int64_t i = 0; i < nrows; i++) {
    int64_t len = rowptr[i + 1] - rowptr[i];
    if (len > maxlen) maxlen = len;
  }
  int32_t *tcol = NULL;
  double *tval = NULL;
  sps_status st = SPS_SUCCESS;
  if (maxlen > 32) {
    SPS_TRY(sps_host_alloc(ctx, (void **)&tcol, (size_t)maxlen, sizeof *tcol, "row sort buffer"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&tval, (size_t)maxlen, sizeof *tval, "row sort buffer"));
  }
  /* Sort each row, then compact: duplicates summed, write position w never passes read. */
  int64_t w = 0;
  for (int64_t i = 0; i < nrows; i++) {
    int64_t b = rowptr[i], e = rowptr[i + 1];
    int sorted = 1;
    for (int64_t k = b + 1; k < e; k++)
      if (colind[k - 1] >= colind[k]) {
        sorted = 0;
        break;
      }
    if (!sorted) sort_pairs(colind + b, values + b, e - b, tcol, tval);
    rowptr[i] = w;
    for (int64_t k = b; k < e; k++) {
      if (k > b && colind[k] == colind[w - 1]) {
        values[w - 1] += values[k];
      } else {
        colind[w] = colind[k];
        values[w++] = values[k];
      }
    }
  }
  rowptr[nrows] = w;
  *nnz_out = w;
cleanup:
  sps_host_free(tcol);
  sps_host_free(tval);
  return st;
}

sps_status sps_csr_from_coo(sps_context *ctx, int64_t nrows, int64_t nnz, const int32_t *rows,
                            const int32_t *cols, const double *vals, int64_t **rowptr_out,
                            int32_t **colind_out, double **values_out, int64_t *nnz_out)
{
  int64_t *rowptr = NULL;
  int32_t *colind = NULL;
  double *values = NULL;
  sps_status st = SPS_SUCCESS;
  *rowptr_out = NULL;
  *colind_out = NULL;
  *values_out = NULL;
  SPS_TRY(
      sps_host_calloc(ctx, (void **)&rowptr, (size_t)nrows + 1, sizeof *rowptr, "CSR row offsets"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&colind, (size_t)nnz, sizeof *colind, "CSR column indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&values, (size_t)nnz, sizeof *values, "CSR values"));
  /* Counting sort by row keeps the file order within a row (stable). */
  for (int64_t k = 0; k < nnz; k++)
    rowptr[rows[k] + 1]++;
  for (int64_t i = 0; i < nrows; i++)
    rowptr[i + 1] += rowptr[i];
  for (int64_t k = 0; k < nnz; k++) {
    int64_t p = rowptr[rows[k]]++;
    colind[p] = cols[k];
    values[p] = vals[k];
  }
  for (int64_t i = nrows; i > 0; i--)
    rowptr[i] = rowptr[i - 1];
  rowptr[0] = 0;
  SPS_TRY(sps_csr_canonicalize(ctx, nrows, rowptr, colind, values, nnz_out));
  *rowptr_out = rowptr;
  *colind_out = colind;
  *values_out = values;
  return SPS_SUCCESS;
cleanup:
  sps_host_free(rowptr);
  sps_host_free(colind);
  sps_host_free(values);
  return st;
}
