/* mm_write.c: sps_vector_write_mm and sps_multivector_write_mm, dense vectors and multivectors as Matrix Market `array real general` files that read back bit-exactly. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

sps_status sps_vector_write_mm(const sps_vector *v, const char *path)
{
  if (!v) return SPS_ERR_ARGUMENT;
  sps_context *ctx = v->ctx;
  SPS_CHECK_ARG(ctx, path, "path");
  double *x = NULL;
  FILE *f = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_alloc(ctx, (void **)&x, (size_t)v->n, sizeof *x, "vector download buffer"));
  SPS_TRY(sps_vector_download(v, x, v->n));
  f = fopen(path, "w");
  if (!f) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
  /* 17 significant digits identify every double, so reading the text back is exact. */
  int bad = fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)v->n) < 0;
  for (int64_t i = 0; i < v->n && !bad; i++) bad = fprintf(f, "%.17g\n", x[i]) < 0;
  if (bad) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
  int rc = fclose(f);
  f = NULL;
  if (rc != 0) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
cleanup:
  if (f) fclose(f);
  sps_host_free(x);
  return st;
}

sps_status sps_multivector_write_mm(const sps_multivector *X, const char *path)
{
  if (!X) return SPS_ERR_ARGUMENT;
  sps_context *ctx = X->ctx;
  SPS_CHECK_ARG(ctx, path, "path");
  double *x = NULL;
  FILE *f = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_alloc(ctx, (void **)&x, (size_t)(X->n * X->k), sizeof *x,
                         "multivector download buffer"));
  SPS_TRY(sps_multivector_download(X, x, X->n, X->k));
  f = fopen(path, "w");
  if (!f) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
  /* column by column, as the array format lists them; 17 significant digits */
  int bad = fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld %lld\n", (long long)X->n,
                    (long long)X->k) < 0;
  for (int64_t i = 0; i < X->n * X->k && !bad; i++) bad = fprintf(f, "%.17g\n", x[i]) < 0;
  if (bad) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
  int rc = fclose(f);
  f = NULL;
  if (rc != 0) SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
cleanup:
  if (f) fclose(f);
  sps_host_free(x);
  return st;
}
