/* matrix_stats.c: tests of sps_matrix_get_stats on small hand-built matrices, with every expected value derived by hand. */
#include "testlib.h"

static sps_context *ctx;

static int near(double got, double want)
{
  return fabs(got - want) <= 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

static sps_matrix *make(int64_t m, int64_t n, const int64_t *rp, const int32_t *ci)
{
  sps_matrix *A = NULL;
  double v[16384];
  for (int64_t k = 0; k < rp[m]; k++) v[k] = 1.0;
  if (sps_matrix_create_csr(ctx, &A, m, n, rp, ci, v)) sps_bail("create: %s", sps_context_last_error(ctx));
  return A;
}

int main(void)
{
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  sps_matrix_stats s;

  /*
   * A 4 x 70 matrix with rows
   *   0: columns 0, 1, 33      length 3, sum |c - r| = 0 + 1 + 33 = 34, windows {0, 1}: 2
   *   1: (empty)               length 0
   *   2: column 2              length 1, sum |c - r| = 0, windows {0}: 1
   *   3: columns 0, 31, 32, 64 length 4, sum |c - r| = 3 + 28 + 29 + 61 = 121, windows {0, 1, 2}: 3
   * nnz = 8, density = 8/280 = 1/35, mean = 2, min 0, max 4; deviations 1, -2, -1, 2 give
   * var = (1 + 4 + 1 + 4)/4 = 2.5 and cv = sqrt(2.5)/2; a quarter of the rows empty, none over
   * 32; col_distance = (34 + 121)/8/70 = 155/560; windows_per_row = 6/4 = 1.5. Blockwise on the
   * CPU (budget 2048 nonzeros, rows of at most 64 short): one short block, no long rows.
   */
  {
    const int64_t rp[] = {0, 3, 3, 4, 8};
    const int32_t ci[] = {0, 1, 33, 2, 0, 31, 32, 64};
    sps_matrix *A = make(4, 70, rp, ci);
    sps_ok(sps_matrix_get_stats(A, &s) == SPS_SUCCESS, "4 x 70: success");
    sps_ok(s.rows == 4 && s.cols == 70 && s.nnz == 8, "4 x 70: shape");
    sps_ok(near(s.density, 1.0 / 35.0), "4 x 70: density %g", s.density);
    sps_ok(near(s.mean_len, 2.0) && s.min_len == 0 && s.max_len == 4, "4 x 70: mean, min, max");
    sps_ok(near(s.var_len, 2.5), "4 x 70: variance %g", s.var_len);
    sps_ok(near(s.cv_len, sqrt(2.5) / 2.0), "4 x 70: coefficient of variation %g", s.cv_len);
    sps_ok(near(s.empty_share, 0.25) && s.over32_share == 0.0 && s.over1024_share == 0.0,
           "4 x 70: shares");
    sps_ok(s.short_blocks == 1 && s.long_blocks == 0 && s.long_rows == 0, "4 x 70: blockwise");
    sps_ok(near(s.col_distance, 155.0 / 560.0), "4 x 70: col_distance %g", s.col_distance);
    sps_ok(near(s.windows_per_row, 1.5), "4 x 70: windows_per_row %g", s.windows_per_row);
    sps_ok(s.seconds >= 0.0 && s.seconds < 1.0, "4 x 70: seconds %g", s.seconds);
    sps_matrix_destroy(&A);
  }

  /*
   * A 3 x 10000 matrix with rows of 100 (columns 0..99), 9000 (columns 0..8999) and 2
   * (columns 0, 1) entries: nnz = 9102, mean = 3034, min 2, max 9000. Deviations -2934, 5966,
   * -3032; squares 8608356 + 35593156 + 9193024 = 53394536, var = 53394536/3. Over 32: 2 of
   * 3 rows; over 1024: 1 of 3. Blockwise: rows 0 and 1 are long (over 64), in
   * ceil(100/8192) = 1 and ceil(9000/8192) = 2 thread blocks; row 2 is one short block.
   * Windows: 100 columns from 0 touch windows 0..3 (4), 9000 touch 0..281 (282), row 2 one:
   * 287/3. sum |c - r|: row 0 sum_{c<100} c = 4950; row 1 |0 - 1| + sum_{c=1}^{8999} (c - 1)
   * = 1 + 8998*8999/2 = 1 + 40486501 = 40486502; row 2 |0 - 2| + |1 - 2| = 3; total 40491455, over
   * nnz*max(m, n) = 9102*10000.
   */
  {
    static int64_t rp[] = {0, 100, 9100, 9102};
    static int32_t ci[9102];
    for (int k = 0; k < 100; k++) ci[k] = k;
    for (int k = 0; k < 9000; k++) ci[100 + k] = k;
    ci[9100] = 0;
    ci[9101] = 1;
    sps_matrix *A = make(3, 10000, rp, ci);
    sps_ok(sps_matrix_get_stats(A, &s) == SPS_SUCCESS, "long rows: success");
    sps_ok(near(s.mean_len, 3034.0) && s.min_len == 2 && s.max_len == 9000,
           "long rows: mean, min, max");
    sps_ok(near(s.var_len, 53394536.0 / 3.0), "long rows: variance %.17g", s.var_len);
    sps_ok(near(s.cv_len, sqrt(53394536.0 / 3.0) / 3034.0), "long rows: cv %g", s.cv_len);
    sps_ok(near(s.over32_share, 2.0 / 3.0) && near(s.over1024_share, 1.0 / 3.0) &&
               s.empty_share == 0.0,
           "long rows: shares");
    sps_ok(s.short_blocks == 1 && s.long_blocks == 3 && s.long_rows == 2,
           "long rows: blockwise %lld short, %lld long blocks, %lld long rows",
           (long long)s.short_blocks, (long long)s.long_blocks, (long long)s.long_rows);
    sps_ok(near(s.windows_per_row, 287.0 / 3.0), "long rows: windows_per_row %g",
           s.windows_per_row);
    sps_ok(near(s.col_distance, 40491455.0 / 9102.0 / 10000.0), "long rows: col_distance %g",
           s.col_distance);
    sps_matrix_destroy(&A);
  }

  /* No entries: 3 x 3 empty rows (mean 0, cv 0, all rows empty, one short block of three
   * empty rows) and 0 x 0 (every field 0). */
  {
    const int64_t rp[] = {0, 0, 0, 0};
    const int32_t none[1] = {0};
    sps_matrix *A = make(3, 3, rp, none);
    sps_ok(sps_matrix_get_stats(A, &s) == SPS_SUCCESS && s.nnz == 0 && s.mean_len == 0.0 &&
               s.cv_len == 0.0 && s.var_len == 0.0 && s.empty_share == 1.0 && s.max_len == 0 &&
               s.short_blocks == 1 && s.col_distance == 0.0 && s.windows_per_row == 0.0,
           "3 x 3 without entries");
    sps_matrix_destroy(&A);
    A = make(0, 0, rp, none);
    sps_ok(sps_matrix_get_stats(A, &s) == SPS_SUCCESS && s.rows == 0 && s.density == 0.0 &&
               s.mean_len == 0.0 && s.short_blocks == 0 && s.empty_share == 0.0,
           "0 x 0");
    /* Bad arguments: SPS_ERR_ARGUMENT, and the message names the argument. */
    sps_ok(sps_matrix_get_stats(NULL, &s) == SPS_ERR_ARGUMENT, "NULL matrix: argument error");
    sps_ok(sps_matrix_get_stats(A, NULL) == SPS_ERR_ARGUMENT &&
               strstr(sps_context_last_error(ctx), "out") != NULL,
           "NULL out: argument error naming 'out'");
    sps_matrix_destroy(&A);
  }
  sps_context_destroy(&ctx);
  return sps_done();
}
