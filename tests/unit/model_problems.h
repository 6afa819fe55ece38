/* model_problems.h: the small test matrices of the numerics, guard and allocation-failure tests: the 2-D convection-diffusion operator on a g x g grid (the Laplacian when c = 0), built as CSR. */
#ifndef SPS_TEST_MODEL_PROBLEMS_H
#define SPS_TEST_MODEL_PROBLEMS_H

#include "testlib.h"

/*
 * The 5-point operator on a g x g grid, rows in lexicographic order: d on the diagonal,
 * -1 - c to the west and south neighbours, -1 + c to the east and north ones, times scale.
 * c = 0, d = 4: the Laplacian (symmetric positive definite); c != 0: nonsymmetric, with the
 * Laplacian's symmetric part when d = 4. *A is NULL when creation fails (its status returned).
 */
static inline sps_status sps_test_conv_diff(sps_context *ctx, sps_matrix **A, int g, double c,
                                            double d, double scale)
{
  const int64_t n = (int64_t)g * g;
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(5 * n) * sizeof *ci);
  double *v = malloc((size_t)(5 * n) * sizeof *v);
  if (!rp || !ci || !v) sps_bail("out of memory building a %d x %d grid", g, g);
  int64_t k = 0;
  rp[0] = 0;
  for (int i = 0; i < g; i++)
    for (int j = 0; j < g; j++) {
      const int32_t r = i * g + j;
      if (i > 0) ci[k] = r - g, v[k++] = (-1.0 - c) * scale;
      if (j > 0) ci[k] = r - 1, v[k++] = (-1.0 - c) * scale;
      ci[k] = r, v[k++] = d * scale;
      if (j < g - 1) ci[k] = r + 1, v[k++] = (-1.0 + c) * scale;
      if (i < g - 1) ci[k] = r + g, v[k++] = (-1.0 + c) * scale;
      rp[r + 1] = k;
    }
  const sps_status st = sps_matrix_create_csr(ctx, A, n, n, rp, ci, v);
  free(rp);
  free(ci);
  free(v);
  return st;
}

/* The same, failing the test program (99) when creation fails. */
static inline sps_matrix *sps_test_conv_diff_or_bail(sps_context *ctx, int g, double c, double d,
                                                     double scale)
{
  sps_matrix *A = NULL;
  if (sps_test_conv_diff(ctx, &A, g, c, d, scale) != SPS_SUCCESS)
    sps_bail("convection-diffusion matrix: %s", sps_context_last_error(ctx));
  return A;
}

/* ||v|| on the host without overflow or underflow: max |v_i| times the norm of v / max. */
static inline double sps_test_norm2_scaled(const double *v, int64_t n)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (v[i] != v[i]) return v[i];
    if (fabs(v[i]) > m) m = fabs(v[i]);
  }
  if (m == 0.0 || !isfinite(m)) return m;
  double s = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += (v[i] / m) * (v[i] / m);
  return m * sqrt(s);
}

/* The true relative residual ||b - A x|| / ||b||, on the host, from A's CSR arrays. */
static inline double sps_test_relres(const sps_matrix *A, const double *b, const double *x)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  if (!r) sps_bail("out of memory");
  sps_test_host_mv(A, x, r);
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i] - r[i];
  const double rel = sps_test_norm2_scaled(r, n) / sps_test_norm2_scaled(b, n);
  free(r);
  return rel;
}

#endif /* SPS_TEST_MODEL_PROBLEMS_H */
