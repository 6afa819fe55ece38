/* csr_assembly.c: tests of sps_matrix_create_csr (sorting, duplicates, zeros, empty rows, bad input), sps_matrix_check_symmetry and sps_matrix_scale. */
#include "testlib.h"

static sps_context *ctx;

/* The CSR of A equals the given arrays exactly. */
static int csr_equals(const sps_matrix *A, int64_t m, const int64_t *rp, const int32_t *ci,
                      const double *va)
{
  const int64_t *r;
  const int32_t *c;
  const double *v;
  int64_t nnz;
  if (!A) return 0;
  sps_matrix_get_csr(A, &r, &c, &v);
  sps_matrix_get_size(A, NULL, NULL, &nnz);
  if (nnz != rp[m]) return 0;
  for (int64_t i = 0; i <= m; i++)
    if (r[i] != rp[i]) return 0;
  for (int64_t k = 0; k < rp[m]; k++)
    if (c[k] != ci[k] || memcmp(&v[k], &va[k], sizeof(double)) != 0) return 0;
  return 1;
}

/* A bad call: status, message phrase, and no matrix. */
static void expect_bad(const char *what, sps_status want, const char *phrase, int64_t m, int64_t n,
                       const int64_t *rp, const int32_t *ci, const double *va)
{
  sps_matrix *A = (sps_matrix *)&A;
  sps_status st = sps_matrix_create_csr(ctx, &A, m, n, rp, ci, va);
  const char *msg = sps_context_last_error(ctx);
  int ok = st == want && A == NULL && strstr(msg, phrase) != NULL;
  sps_ok(ok, "%s: %s ('%s')", what, sps_status_name(want), phrase);
  if (!ok) sps_diag("got %s: %s", sps_status_name(st), msg);
}

int main(void)
{
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  sps_matrix *A = NULL;

  /* Row 0 unsorted with a duplicate, row 1 empty, row 2 with an explicit zero, 4 x 5. */
  {
    const int64_t rp[] = {0, 4, 4, 6, 7};
    const int32_t ci[] = {3, 0, 3, 1, 4, 2, 0};
    const double va[] = {1.0, 2.0, 0.5, -1.0, 0.0, 7.0, 3.0};
    const int64_t erp[] = {0, 3, 3, 5, 6};
    const int32_t eci[] = {0, 1, 3, 2, 4, 0};
    const double eva[] = {2.0, -1.0, 1.5, 7.0, 0.0, 3.0};
    sps_status st = sps_matrix_create_csr(ctx, &A, 4, 5, rp, ci, va);
    sps_ok(st == SPS_SUCCESS && csr_equals(A, 4, erp, eci, eva),
           "unsorted row sorted, duplicate summed, explicit zero kept, empty row");
    sps_symmetry sym = SPS_SYMMETRY_GENERAL;
    sps_matrix_get_symmetry(A, &sym);
    sps_ok(sym == SPS_SYMMETRY_UNKNOWN, "symmetry unknown until checked");
    int is_sym = 1;
    sps_matrix_check_symmetry(A, &is_sym);
    sps_ok(is_sym == 0, "rectangular matrix is not symmetric");
    sps_matrix_scale(A, -2.0);
    const double sva[] = {-4.0, 2.0, -3.0, -14.0, -0.0, -6.0};
    sps_ok(csr_equals(A, 4, erp, eci, sva), "scale by -2");
    sps_matrix_destroy(&A);
    sps_ok(A == NULL, "destroy sets the pointer to NULL");
  }

  /* A long unsorted row (more than 32 entries: the merge sort path). */
  {
    enum { L = 100 };
    int64_t rp[] = {0, L};
    int32_t ci[L];
    double va[L];
    for (int k = 0; k < L; k++) {
      ci[k] = (int32_t)((k * 37) % L);
      va[k] = (double)ci[k];
    }
    sps_status st = sps_matrix_create_csr(ctx, &A, 1, L, rp, ci, va);
    int ok = st == SPS_SUCCESS;
    const int32_t *c;
    const double *v;
    if (ok) sps_matrix_get_csr(A, NULL, &c, &v);
    for (int k = 0; ok && k < L; k++) ok = c[k] == k && v[k] == (double)k;
    sps_ok(ok, "a row of %d entries sorted", L);
    sps_matrix_destroy(&A);
  }

  /* nnz = 0, and 0 x 0. */
  {
    const int64_t rp[] = {0, 0, 0, 0};
    sps_status st = sps_matrix_create_csr(ctx, &A, 3, 2, rp, NULL, NULL);
    int64_t m = -1, n = -1, nnz = -1;
    if (!st) sps_matrix_get_size(A, &m, &n, &nnz);
    sps_ok(st == SPS_SUCCESS && m == 3 && n == 2 && nnz == 0, "nnz = 0 with NULL colind/values");
    sps_matrix_destroy(&A);
    st = sps_matrix_create_csr(ctx, &A, 0, 0, rp, NULL, NULL);
    sps_ok(st == SPS_SUCCESS && A, "0 x 0 matrix");
    sps_matrix_destroy(&A);
  }

  /* Symmetry check. */
  {
    const int64_t rp[] = {0, 2, 4, 5};
    const int32_t ci[] = {0, 1, 0, 2, 1};
    const double va[] = {4.0, -1.0, -1.0, 2.0, 2.0};
    int is_sym = 0;
    sps_symmetry sym = SPS_SYMMETRY_UNKNOWN;
    sps_matrix_create_csr(ctx, &A, 3, 3, rp, ci, va);
    sps_matrix_check_symmetry(A, &is_sym);
    sps_matrix_get_symmetry(A, &sym);
    sps_ok(is_sym == 1 && sym == SPS_SYMMETRY_SYMMETRIC, "symmetric 3 x 3 found symmetric");
    sps_matrix_destroy(&A);
    const double vb[] = {4.0, -1.0, -1.0, 2.0, 2.5};
    sps_matrix_create_csr(ctx, &A, 3, 3, rp, ci, vb);
    sps_matrix_check_symmetry(A, &is_sym);
    sps_matrix_get_symmetry(A, &sym);
    sps_ok(is_sym == 0 && sym == SPS_SYMMETRY_GENERAL, "a23 != a32 found general");
    sps_matrix_destroy(&A);
    const int64_t rq[] = {0, 1, 1, 1};
    const int32_t cq[] = {2};
    const double vq[] = {1.0};
    sps_matrix_create_csr(ctx, &A, 3, 3, rq, cq, vq);
    sps_matrix_check_symmetry(A, &is_sym);
    sps_ok(is_sym == 0, "a13 without a31 found general");
    sps_matrix_destroy(&A);
  }

  /* Bad input. */
  {
    const int64_t rp[] = {0, 2, 1};
    const int64_t rp1[] = {1, 2, 3};
    const int64_t rpok[] = {0, 1, 2};
    const int32_t ci[] = {0, 1, 0};
    const int32_t cbad[] = {0, 5};
    const int32_t cneg[] = {-1, 0};
    const double va[] = {1.0, 2.0, 3.0};
    expect_bad("decreasing rowptr", SPS_ERR_ARGUMENT, "rowptr decreases at row 1", 2, 2, rp, ci, va);
    expect_bad("rowptr[0] != 0", SPS_ERR_ARGUMENT, "rowptr[0] = 1", 2, 2, rp1, ci, va);
    expect_bad("column index too large", SPS_ERR_ARGUMENT, "column index 5 of row 1", 2, 2, rpok,
               cbad, va);
    expect_bad("negative column index", SPS_ERR_ARGUMENT, "column index -1 of row 0", 2, 2, rpok,
               cneg, va);
    expect_bad("rows above INT32_MAX", SPS_ERR_SIZE, "32-bit index limit", (int64_t)INT32_MAX + 1,
               2, rpok, ci, va);
    expect_bad("columns above INT32_MAX", SPS_ERR_SIZE, "32-bit index limit", 2,
               (int64_t)INT32_MAX + 1, rpok, ci, va);
    expect_bad("negative size", SPS_ERR_SIZE, "negative size", -1, 2, rpok, ci, va);
    expect_bad("NULL rowptr", SPS_ERR_ARGUMENT, "'rowptr'", 2, 2, NULL, ci, va);
    expect_bad("NULL colind", SPS_ERR_ARGUMENT, "'colind'", 2, 2, rpok, NULL, va);
  }
  sps_context_destroy(&ctx);
  return sps_done();
}
