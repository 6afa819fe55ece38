/* stats.c: sps_matrix_get_stats, the statistics of a sparsity pattern from which the SpMV variant is chosen. */
#include <math.h>
#include <stdlib.h>

#include "spmv_internal.h"

/*
 * Three passes over host arrays, each OpenMP-parallel and allocating nothing:
 *   1. the row offsets: lengths, their sum and sum of squares, extremes and shares. The
 *      moments are taken about k = round(nnz/rows), so that regular matrices (all lengths
 *      near k) sum small integers exactly: var = S2/m - (S1/m)^2 with S1 = sum(len - k),
 *      S2 = sum((len - k)^2);
 *   2. the row offsets again, for the blockwise partition (sps_spmv_blockwise_count);
 *   3. the column indices: sum |col - row| and, per row, the distinct 32-column windows
 *      (rows are sorted by column, so a new window starts where col/32 changes).
 * The cost is about one CSR SpMV's reads of rowptr (twice) and colind, on the host.
 */
sps_status sps_matrix_get_stats(const sps_matrix *A, sps_matrix_stats *out)
{
  if (!A) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(A->ctx, out, "out");
  sps_spmv_stats_compute(A, 1, out);
  return SPS_SUCCESS;
}

void sps_spmv_stats_compute(const sps_matrix *A, int columns, sps_matrix_stats *out)
{
  const double t0 = sps_wtime();
  const int64_t m = A->nrows, n = A->ncols, nnz = A->nnz;
  const int64_t *rp = A->rowptr;
  const int32_t *ci = A->colind;
  sps_matrix_stats s = {0};
  s.rows = m;
  s.cols = n;
  s.nnz = nnz;
  if (m > 0 && n > 0) s.density = (double)nnz / ((double)m * (double)n);
  if (m > 0) {
    const int64_t k = (nnz + m / 2) / m;
    int64_t s1 = 0, mn = INT64_MAX, mx = 0, empty = 0, over32 = 0, over1024 = 0;
    double s2 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s1, s2, empty, over32, over1024) \
    reduction(min : mn) reduction(max : mx)
    for (int64_t i = 0; i < m; i++) {
      const int64_t len = rp[i + 1] - rp[i];
      const int64_t d = len - k;
      s1 += d;
      s2 += (double)d * (double)d;
      if (len < mn) mn = len;
      if (len > mx) mx = len;
      empty += len == 0;
      over32 += len > 32;
      over1024 += len > 1024;
    }
    const double mean_d = (double)s1 / (double)m;
    s.mean_len = (double)nnz / (double)m;
    s.min_len = mn;
    s.max_len = mx;
    s.var_len = s2 / (double)m - mean_d * mean_d;
    if (s.var_len < 0.0) s.var_len = 0.0;
    s.cv_len = s.mean_len > 0.0 ? sqrt(s.var_len) / s.mean_len : 0.0;
    s.empty_share = (double)empty / (double)m;
    s.over32_share = (double)over32 / (double)m;
    s.over1024_share = (double)over1024 / (double)m;
    sps_spmv_blockwise_count(A, &s.short_blocks, &s.long_blocks, &s.long_rows);

    if (columns) {
      double dist = 0.0;
      int64_t windows = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : dist, windows)
      for (int64_t i = 0; i < m; i++) {
        int64_t di = 0, w = 0, last = -1;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
          const int64_t c = ci[p];
          di += c > i ? c - i : i - c;
          if ((c >> 5) != last) {
            w++;
            last = c >> 5;
          }
        }
        dist += (double)di;
        windows += w;
      }
      if (nnz > 0) s.col_distance = dist / (double)nnz / (double)(m > n ? m : n);
      s.windows_per_row = (double)windows / (double)m;
    }
  }
  s.seconds = sps_wtime() - t0;
  *out = s;
}
