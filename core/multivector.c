/* multivector.c: n x k dense blocks of vectors in the context's memory space, row-major, with column-major host upload and download. */
#include "internal.h"

/* Rows of a host transposition buffer: 1 MiB of doubles, at least one row. */
#define SPS_MV_STAGE_BYTES ((size_t)1 << 20)

/* The leading dimension of a multivector made here: k rounded up to even (k = 1 stays 1), so
 * every row starts 16 bytes aligned for the kernels' double2 loads. */
static int64_t mv_default_ld(int64_t k)
{
  return k == 1 ? 1 : (k + 1) / 2 * 2;
}

/* n, k and ld describe n*ld doubles whose bytes fit in size_t and int64. */
static sps_status mv_check_size(sps_context *ctx, const char *fn, int64_t n, int64_t k, int64_t ld)
{
  if (n < 0) SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: n = %lld < 0", fn, (long long)n);
  if (k < 1) SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: k = %lld < 1", fn, (long long)k);
  if (ld < k)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: ld = %lld < k = %lld", fn, (long long)ld, (long long)k);
  if (n > 0 && ld > (int64_t)(INT64_MAX / 8) / n)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "%s: %lld x %lld doubles overflow", fn, (long long)n,
             (long long)ld);
  return SPS_SUCCESS;
}

sps_status sps_multivector_create(sps_context *ctx, sps_multivector **out, int64_t n, int64_t k)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "X");
  *out = NULL;
  SPS_CHECK(mv_check_size(ctx, "sps_multivector_create", n, k, k < 1 ? 1 : mv_default_ld(k)));
  sps_multivector *X;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&X, 1, sizeof *X, "multivector"));
  X->ctx = ctx;
  X->n = n;
  X->k = k;
  X->ld = mv_default_ld(k);
  sps_context_track(ctx, SPS_OBJECT_MULTIVECTOR, 1);
  const int64_t len = n * X->ld;
  sps_status st =
      ctx->be->malloc(ctx, (void **)&X->data, (size_t)len * sizeof(double), "multivector data");
  /* Zeros everywhere, the padding columns included (the kernels' vector loads read them). */
  if (!st) st = ctx->be->fill(ctx, len, 0.0, X->data);
  if (st) {
    sps_multivector_destroy(&X);
    return st;
  }
  *out = X;
  return SPS_SUCCESS;
}

sps_status sps_multivector_wrap(sps_context *ctx, sps_multivector **out, int64_t n, int64_t k,
                                double *data, int64_t ld)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "X");
  *out = NULL;
  SPS_CHECK(mv_check_size(ctx, "sps_multivector_wrap", n, k, ld));
  if (n > 0) {
    SPS_CHECK_ARG(ctx, data, "data");
    if (ctx->be->check_memory)
      SPS_CHECK(ctx->be->check_memory(ctx, data, "sps_multivector_wrap: data"));
  }
  sps_multivector *X;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&X, 1, sizeof *X, "multivector"));
  X->ctx = ctx;
  X->n = n;
  X->k = k;
  X->ld = ld;
  X->data = data;
  X->borrowed = 1;
  sps_context_track(ctx, SPS_OBJECT_MULTIVECTOR, 1);
  *out = X;
  return SPS_SUCCESS;
}

sps_status sps_multivector_destroy(sps_multivector **X)
{
  if (!X || !*X) return SPS_SUCCESS;
  sps_context_track((*X)->ctx, SPS_OBJECT_MULTIVECTOR, -1);
  if ((*X)->data && !(*X)->borrowed) (*X)->ctx->be->free((*X)->ctx, (*X)->data);
  sps_host_free(*X);
  *X = NULL;
  return SPS_SUCCESS;
}

sps_status sps_multivector_get_size(const sps_multivector *X, int64_t *n, int64_t *k)
{
  if (!X) return SPS_ERR_ARGUMENT;
  if (n) *n = X->n;
  if (k) *k = X->k;
  return SPS_SUCCESS;
}

sps_status sps_multivector_get_data(const sps_multivector *X, double **data, int64_t *ld)
{
  if (!X) return SPS_ERR_ARGUMENT;
  if (data) *data = X->data;
  if (ld) *ld = X->ld;
  return SPS_SUCCESS;
}

/* The sizes given to upload or download are the multivector's. */
static sps_status mv_check_io(const sps_multivector *X, const char *fn, const double *host,
                              int64_t n, int64_t k)
{
  if (!host && X->n > 0) SPS_FAIL(X->ctx, SPS_ERR_ARGUMENT, "%s: invalid argument 'host'", fn);
  if (n != X->n || k != X->k)
    SPS_FAIL(X->ctx, SPS_ERR_SIZE, "%s: %lld x %lld host values for a %lld x %lld multivector", fn,
             (long long)n, (long long)k, (long long)X->n, (long long)X->k);
  return SPS_SUCCESS;
}

/*
 * Rows [r0, r1) between the column-major host array (leading dimension n) and a row-major block
 * (leading dimension ld, row r0 at its start): to_rows copies host -> block, else block -> host.
 * Columns k..ld-1 of the block are not touched. Rows go in tiles of 64 so that the strided
 * side stays within a few cache lines per column.
 */
static void mv_transpose(int64_t n, int64_t k, int64_t ld, int64_t r0, int64_t r1, double *block,
                         double *host, int to_rows)
{
  for (int64_t t0 = r0; t0 < r1; t0 += 64) {
    const int64_t t1 = t0 + 64 < r1 ? t0 + 64 : r1;
    for (int64_t j = 0; j < k; j++)
      for (int64_t i = t0; i < t1; i++) {
        double *b = &block[(i - r0) * ld + j];
        double *h = &host[j * n + i];
        if (to_rows)
          *b = *h;
        else
          *h = *b;
      }
  }
}

/*
 * Upload (to_rows = 1) or download. On the CPU the transposition runs between the caller's
 * array and the storage directly. On a device, slices of rows go through a host buffer of at
 * most SPS_MV_STAGE_BYTES; a wrapped block whose ld exceeds k is read back first on upload, so
 * that the caller's columns k..ld-1 are written back as they were.
 */
static sps_status mv_copy(const sps_multivector *X, double *host, int to_rows)
{
  sps_context *ctx = X->ctx;
  if (X->n == 0) return SPS_SUCCESS;
  if (ctx->kind == SPS_DEVICE_CPU) {
    mv_transpose(X->n, X->k, X->ld, 0, X->n, X->data, host, to_rows);
    return SPS_SUCCESS;
  }
  const size_t row_bytes = (size_t)X->ld * sizeof(double);
  int64_t rows = (int64_t)(SPS_MV_STAGE_BYTES / row_bytes);
  if (rows < 1) rows = 1;
  if (rows > X->n) rows = X->n;
  double *stage = NULL;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&stage, (size_t)rows, row_bytes,
                           "multivector transposition buffer"));
  const int keep_padding = to_rows && X->ld > X->k && X->borrowed;
  sps_status st = SPS_SUCCESS;
  for (int64_t r0 = 0; r0 < X->n && !st; r0 += rows) {
    const int64_t r1 = r0 + rows < X->n ? r0 + rows : X->n;
    double *dev = X->data + r0 * X->ld;
    const size_t bytes = (size_t)(r1 - r0) * row_bytes;
    if (to_rows) {
      if (keep_padding)
        st = ctx->be->download(ctx, stage, dev, bytes);
      else if (X->ld > X->k)
        for (int64_t i = 0; i < r1 - r0; i++)
          for (int64_t j = X->k; j < X->ld; j++)
            stage[i * X->ld + j] = 0.0;
      if (!st) {
        mv_transpose(X->n, X->k, X->ld, r0, r1, stage, host, 1);
        st = ctx->be->upload(ctx, dev, stage, bytes);
      }
    } else {
      st = ctx->be->download(ctx, stage, dev, bytes);
      if (!st) mv_transpose(X->n, X->k, X->ld, r0, r1, stage, host, 0);
    }
  }
  sps_host_free(stage);
  return st;
}

sps_status sps_multivector_upload(sps_multivector *X, const double *host, int64_t n, int64_t k)
{
  if (!X) return SPS_ERR_ARGUMENT;
  SPS_CHECK(mv_check_io(X, "sps_multivector_upload", host, n, k));
  return mv_copy(X, (double *)host, 1);
}

sps_status sps_multivector_download(const sps_multivector *X, double *host, int64_t n, int64_t k)
{
  if (!X) return SPS_ERR_ARGUMENT;
  SPS_CHECK(mv_check_io(X, "sps_multivector_download", host, n, k));
  return mv_copy(X, host, 0);
}
