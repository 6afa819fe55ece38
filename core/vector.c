/* vector.c: dense vectors in the context's memory space, with explicit host upload and download. */
#include "internal.h"

sps_status sps_vector_create(sps_context *ctx, sps_vector **out, int64_t n)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "v");
  *out = NULL;
  if (n < 0) SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_vector_create: length %lld < 0", (long long)n);
  sps_vector *v;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&v, 1, sizeof *v, "vector"));
  v->ctx = ctx;
  v->n = n;
  sps_status st =
      ctx->be->malloc(ctx, (void **)&v->data, (size_t)n * sizeof(double), "vector data");
  if (!st) st = ctx->be->fill(ctx, n, 0.0, v->data);
  sps_context_track(ctx, SPS_OBJECT_VECTOR, 1);
  if (st) {
    sps_vector_destroy(&v);
    return st;
  }
  *out = v;
  return SPS_SUCCESS;
}

sps_status sps_vector_destroy(sps_vector **v)
{
  if (!v || !*v) return SPS_SUCCESS;
  sps_context_track((*v)->ctx, SPS_OBJECT_VECTOR, -1);
  if ((*v)->data && !(*v)->borrowed) (*v)->ctx->be->free((*v)->ctx, (*v)->data);
  sps_host_free(*v);
  *v = NULL;
  return SPS_SUCCESS;
}

sps_status sps_vector_get_size(const sps_vector *v, int64_t *n)
{
  if (!v || !n) return SPS_ERR_ARGUMENT;
  *n = v->n;
  return SPS_SUCCESS;
}

sps_status sps_vector_get_data(const sps_vector *v, double **data)
{
  if (!v) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(v->ctx, data, "data");
  *data = v->data;
  return SPS_SUCCESS;
}

sps_status sps_vector_upload(sps_vector *v, const double *host, int64_t n)
{
  if (!v) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(v->ctx, host || n == 0, "host");
  if (n != v->n)
    SPS_FAIL(v->ctx, SPS_ERR_SIZE, "sps_vector_upload: %lld values for a vector of length %lld",
             (long long)n, (long long)v->n);
  return v->ctx->be->upload(v->ctx, v->data, host, (size_t)n * sizeof(double));
}

sps_status sps_vector_download(const sps_vector *v, double *host, int64_t n)
{
  if (!v) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(v->ctx, host || n == 0, "host");
  if (n != v->n)
    SPS_FAIL(v->ctx, SPS_ERR_SIZE, "sps_vector_download: %lld values for a vector of length %lld",
             (long long)n, (long long)v->n);
  return v->ctx->be->download(v->ctx, host, v->data, (size_t)n * sizeof(double));
}

sps_status sps_vector_fill(sps_vector *v, double value)
{
  if (!v) return SPS_ERR_ARGUMENT;
  return v->ctx->be->fill(v->ctx, v->n, value, v->data);
}

sps_status sps_vector_copy(const sps_vector *src, sps_vector *dst)
{
  if (!src || !dst) return SPS_ERR_ARGUMENT;
  if (src->ctx != dst->ctx)
    SPS_FAIL(dst->ctx, SPS_ERR_ARGUMENT, "sps_vector_copy: vectors belong to different contexts");
  if (src->n != dst->n)
    SPS_FAIL(dst->ctx, SPS_ERR_SIZE, "sps_vector_copy: lengths %lld and %lld differ",
             (long long)src->n, (long long)dst->n);
  return dst->ctx->be->copy(dst->ctx, src->n, src->data, dst->data);
}

sps_status sps_vector_norm2(const sps_vector *v, double *norm)
{
  if (!v) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(v->ctx, norm, "norm");
  return v->ctx->be->nrm2(v->ctx, v->n, v->data, norm);
}
