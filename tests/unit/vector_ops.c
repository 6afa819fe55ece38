/* vector_ops.c: every vector op of the backend ops table against plain loops on odd sizes.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each size is a case. */
#include "../../core/internal.h"
#include "../testlib.h"

/* Largest |a_i - b_i| / (1 + |b_i|). */
static double max_rel_diff(int64_t n, const double *a, const double *b)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]) / (1.0 + fabs(b[i]));
    if (!(d <= m)) m = d; /* NaN wins */
  }
  return m;
}

static double *host_random(sps_rng *rng, int64_t n)
{
  double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
  if (!v) sps_bail("out of host memory");
  for (int64_t i = 0; i < n; i++)
    v[i] = sps_rng_uniform(rng);
  return v;
}

static double *dev_from(sps_context *ctx, const double *h, int64_t n)
{
  double *d;
  if (ctx->be->malloc(ctx, (void **)&d, (size_t)n * sizeof(double), "test vector") ||
      ctx->be->upload(ctx, d, h, (size_t)n * sizeof(double)))
    sps_bail("device allocation: %s", sps_context_last_error(ctx));
  return d;
}

static void to_host(sps_context *ctx, double *h, const double *d, int64_t n)
{
  if (ctx->be->download(ctx, h, d, (size_t)n * sizeof(double)))
    sps_bail("download: %s", sps_context_last_error(ctx));
}

/* One size, a case: its host data are drawn in every shard, so that each size sees the numbers
 * of the whole run. */
static void check_size(sps_context *ctx, int64_t n, sps_rng *rng)
{
  const sps_backend *be = ctx->be;
  const double tol = 1e-13;
  const double a = 0.75, b = -1.25;
  double *x = host_random(rng, n), *y = host_random(rng, n), *w = host_random(rng, n);
  double *out = host_random(rng, n), *ref = host_random(rng, n);
  /* gemv_t / gemv_n below: a block of k columns with leading dimension n + 3 */
  const int k = 5;
  const int64_t ld = n + 3;
  double *V = host_random(rng, ld * k);
  if (!sps_case()) {
    free(x);
    free(y);
    free(w);
    free(out);
    free(ref);
    free(V);
    return;
  }
  double *dx = dev_from(ctx, x, n), *dy = dev_from(ctx, y, n), *dw = dev_from(ctx, w, n);

  be->fill(ctx, n, 3.5, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = 3.5;
  sps_ok(max_rel_diff(n, out, ref) == 0.0, "n=%lld fill", (long long)n);

  be->copy(ctx, n, dx, dy);
  to_host(ctx, out, dy, n);
  sps_ok(max_rel_diff(n, out, x) == 0.0, "n=%lld copy", (long long)n);

  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->scal(ctx, n, a, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = a * y[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld scal", (long long)n);

  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->axpy(ctx, n, a, dx, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = y[i] + a * x[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld axpy", (long long)n);

  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->axpby(ctx, n, a, dx, b, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = a * x[i] + b * y[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld axpby", (long long)n);

  /* axpby with b = 0 must overwrite y, even NaN and Inf in it. */
  for (int64_t i = 0; i < n; i++)
    out[i] = (i % 2) ? NAN : INFINITY;
  be->upload(ctx, dy, out, (size_t)n * sizeof(double));
  be->axpby(ctx, n, a, dx, 0.0, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = a * x[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld axpby with b = 0 ignores NaN/Inf in y",
         (long long)n);

  be->pointwise_mult(ctx, n, dw, dx, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = w[i] * x[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld pointwise_mult", (long long)n);

  /* In place: y <- w .* y. */
  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->pointwise_mult(ctx, n, dw, dy, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++)
    ref[i] = w[i] * y[i];
  sps_ok(max_rel_diff(n, out, ref) <= tol, "n=%lld pointwise_mult in place", (long long)n);

  /* gather: y[k] <- x[idx[k]] for indices in descending order, repeats included. */
  {
    int32_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx), *didx = NULL;
    if (!idx) sps_bail("out of host memory");
    for (int64_t k = 0; k < n; k++)
      idx[k] = (int32_t)((n - 1 - k) / 2 * 2);
    if (be->malloc(ctx, (void **)&didx, (size_t)(n ? n : 1) * sizeof *idx, "test indices") ||
        be->upload(ctx, didx, idx, (size_t)n * sizeof *idx))
      sps_bail("device indices: %s", sps_context_last_error(ctx));
    be->gather(ctx, n, didx, dx, dy);
    to_host(ctx, out, dy, n);
    for (int64_t k = 0; k < n; k++)
      ref[k] = x[idx[k]];
    sps_ok(max_rel_diff(n, out, ref) == 0.0, "n=%lld gather", (long long)n);
    be->free(ctx, didx);
    free(idx);
  }

  /* Reductions: error bound n*eps*sum|x_i y_i|. */
  double d = -1.0, dref = 0.0, dabs = 0.0;
  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->dot(ctx, n, dx, dy, &d);
  for (int64_t i = 0; i < n; i++) {
    dref += x[i] * y[i];
    dabs += fabs(x[i] * y[i]);
  }
  sps_ok(fabs(d - dref) <= (double)(n + 1) * 2.3e-16 * dabs, "n=%lld dot %.17g vs %.17g",
         (long long)n, d, dref);

  double nr = -1.0, nref = 0.0;
  be->nrm2(ctx, n, dx, &nr);
  for (int64_t i = 0; i < n; i++)
    nref += x[i] * x[i];
  nref = sqrt(nref);
  sps_ok(fabs(nr - nref) <= (double)(n + 1) * 2.3e-16 * nref, "n=%lld nrm2 %.17g vs %.17g",
         (long long)n, nr, nref);

  /* gemv_t / gemv_n on V (padding unread). */
  double *dV = dev_from(ctx, V, ld * k);
  double h[5], href[5], habs[5];
  be->gemv_t(ctx, n, k, dV, ld, dx, h);
  int ok = 1;
  for (int j = 0; j < k; j++) {
    href[j] = habs[j] = 0.0;
    for (int64_t i = 0; i < n; i++) {
      href[j] += V[i + j * ld] * x[i];
      habs[j] += fabs(V[i + j * ld] * x[i]);
    }
    if (!(fabs(h[j] - href[j]) <= (double)(n + 1) * 2.3e-16 * habs[j])) ok = 0;
  }
  sps_ok(ok, "n=%lld gemv_t (k=%d, ld=n+3)", (long long)n, k);

  const double hv[5] = {0.5, -1.0, 2.0, 0.25, -0.125};
  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->gemv_n(ctx, n, k, -1.5, dV, ld, hv, dy);
  to_host(ctx, out, dy, n);
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < k; j++)
      s += V[i + j * ld] * hv[j];
    ref[i] = y[i] - 1.5 * s;
  }
  sps_ok(max_rel_diff(n, out, ref) <= 1e-13, "n=%lld gemv_n (k=%d, ld=n+3)", (long long)n, k);

  /* k = 0 leaves y alone and writes nothing to h. */
  be->upload(ctx, dy, y, (size_t)n * sizeof(double));
  be->gemv_n(ctx, n, 0, 1.0, dV, ld, hv, dy);
  to_host(ctx, out, dy, n);
  sps_ok(max_rel_diff(n, out, y) == 0.0, "n=%lld gemv_n with k = 0", (long long)n);

  be->free(ctx, dV);
  free(V);
  be->free(ctx, dx);
  be->free(ctx, dy);
  be->free(ctx, dw);
  free(x);
  free(y);
  free(w);
  free(out);
  free(ref);
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  sps_rng rng = {20240611};
  sps_diag("backend %s", ctx->be->name);
  const int64_t sizes[] = {0, 1, 7, 10007};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    check_size(ctx, sizes[i], &rng);
  sps_context_destroy(&ctx);
  return sps_done();
}
