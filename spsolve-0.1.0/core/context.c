/* context.c: creation of a context on the CPU or a CUDA device, and the queries about it. */
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"
#ifdef SPS_HAVE_CUDA
#include "cuda_state.h"
#endif

const char *sps_version(void)
{
  return PACKAGE_VERSION;
}

int sps_have_cuda(void)
{
#ifdef SPS_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

sps_status sps_cuda_device_query(int *count, char *name, size_t len)
{
  if (!count) return SPS_ERR_ARGUMENT;
  *count = 0;
  if (name && len) name[0] = '\0';
#ifdef SPS_HAVE_CUDA
  if (!sps_cuda_device_query_impl(count, name, len)) *count = 0;
#endif
  return SPS_SUCCESS;
}

static void context_free(sps_context *ctx)
{
#ifdef SPS_HAVE_CUDA
  sps_cuda_state_destroy(ctx);
#endif
  sps_host_free(ctx);
}

sps_status sps_context_create(sps_context **out, sps_device_kind kind, int index)
{
  if (!out) return sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create: 'ctx' is NULL");
  *out = NULL;
  if (kind != SPS_DEVICE_AUTO && kind != SPS_DEVICE_CPU && kind != SPS_DEVICE_CUDA)
    return sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create: unknown device kind %d",
                         (int)kind);
  if (index < 0)
    return sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create: device index %d < 0", index);
  sps_context *ctx;
  sps_status st = sps_host_calloc(NULL, (void **)&ctx, 1, sizeof *ctx, "context");
  if (st) return st;
  ctx->kind = SPS_DEVICE_CPU;
  ctx->be = &sps_backend_cpu;
  if (kind == SPS_DEVICE_CPU) {
    *out = ctx;
    return SPS_SUCCESS;
  }
#ifdef SPS_HAVE_CUDA
  int count = 0;
  char name[8];
  int usable = sps_cuda_device_query_impl(&count, name, sizeof name);
  if (kind == SPS_DEVICE_AUTO && (!usable || index >= count)) {
    *out = ctx; /* no usable GPU: the CPU */
    return SPS_SUCCESS;
  }
  st = sps_cuda_state_create(ctx, index);
  if (st) {
    sps_error_set(NULL, st, "%s", ctx->errmsg);
    context_free(ctx);
    return st;
  }
  ctx->kind = SPS_DEVICE_CUDA;
  ctx->device = index;
  ctx->be = &sps_backend_cuda;
  *out = ctx;
  return SPS_SUCCESS;
#else
  if (kind == SPS_DEVICE_AUTO) {
    *out = ctx;
    return SPS_SUCCESS;
  }
  context_free(ctx);
  return sps_error_set(NULL, SPS_ERR_UNSUPPORTED,
                       "CUDA device requested, but this build of spsolve has no CUDA support "
                       "(configured --without-cuda)");
#endif
}

sps_status sps_context_destroy(sps_context **ctx)
{
  if (!ctx || !*ctx) return SPS_SUCCESS;
  context_free(*ctx);
  *ctx = NULL;
  return SPS_SUCCESS;
}

sps_status sps_context_get_device(const sps_context *ctx, sps_device_kind *kind, int *index)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  if (kind) *kind = ctx->kind;
  if (index) *index = ctx->device;
  return SPS_SUCCESS;
}

sps_status sps_context_get_device_name(const sps_context *ctx, char *buf, size_t len)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG((sps_context *)ctx, buf && len > 0, "buf");
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    snprintf(buf, len, "%s", sps_cuda(ctx)->name);
    return SPS_SUCCESS;
  }
#endif
#ifdef _OPENMP
  snprintf(buf, len, "CPU (%d OpenMP threads)", omp_get_max_threads());
#else
  snprintf(buf, len, "CPU (1 thread, no OpenMP)");
#endif
  return SPS_SUCCESS;
}

sps_status sps_context_synchronize(sps_context *ctx)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  return ctx->be->synchronize(ctx);
}
