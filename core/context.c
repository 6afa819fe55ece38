/* context.c: creation of a context on the CPU or a CUDA device, and the queries about it. */
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "comm.h"
#include "cpu_simd.h"
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
#ifdef SPS_HAVE_MPI
  sps_comm_destroy(ctx);
#endif
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

/*
 * Objects hold a pointer to their context, so destroying it under them would make their
 * later use, or their destroy, a use after free. Like sqlite3_close with statements left,
 * the destroy is refused (SPS_ERR_BUSY) and the context stays valid; the message counts
 * what is alive.
 */
sps_status sps_context_destroy(sps_context **ctx)
{
  if (!ctx || !*ctx) return SPS_SUCCESS;
  sps_context *c = *ctx;
  static const char *const names[SPS_OBJECT_KINDS][2] = {
      [SPS_OBJECT_MATRIX] = {"matrix", "matrices"},
      [SPS_OBJECT_VECTOR] = {"vector", "vectors"},
      [SPS_OBJECT_PLAN] = {"SpMV plan", "SpMV plans"},
      [SPS_OBJECT_SOLVER] = {"solver", "solvers"},
      [SPS_OBJECT_MULTIVECTOR] = {"multivector", "multivectors"},
      [SPS_OBJECT_SPMM_PLAN] = {"SpMM plan", "SpMM plans"},
  };
  int64_t total = 0;
  char list[256] = "";
  size_t len = 0;
  for (int k = 0; k < SPS_OBJECT_KINDS; k++) {
    if (c->live[k] == 0) continue;
    total += c->live[k];
    int w = snprintf(list + len, sizeof list - len, "%s%lld %s", len ? ", " : "",
                     (long long)c->live[k], names[k][c->live[k] == 1 ? 0 : 1]);
    if (w > 0 && (size_t)w < sizeof list - len) len += (size_t)w;
  }
  if (total != 0)
    SPS_FAIL(c, SPS_ERR_BUSY,
             "sps_context_destroy: the context has %lld live object%s (%s): destroy them first",
             (long long)total, total == 1 ? "" : "s", list);
  context_free(c);
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
  const char *isa = sps_cpu_isa_name(sps_cpu_isa_current());
#ifdef _OPENMP
  snprintf(buf, len, "CPU (%d OpenMP threads, %s)", omp_get_max_threads(), isa);
#else
  snprintf(buf, len, "CPU (1 thread, no OpenMP, %s)", isa);
#endif
  return SPS_SUCCESS;
}

void sps_context_device_key(const sps_context *ctx, char *buf, size_t len)
{
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    const struct sps_cuda_state *cs = sps_cuda(ctx);
    snprintf(buf, len, "%s sm_%d%d", cs->model, cs->cc_major, cs->cc_minor);
    return;
  }
#else
  (void)ctx;
#endif
  /* the instruction set too: TUNE's timings depend on it */
  const char *isa = sps_cpu_isa_name(sps_cpu_isa_current());
#ifdef _OPENMP
  snprintf(buf, len, "cpu %d threads %s", omp_get_max_threads(), isa);
#else
  snprintf(buf, len, "cpu 1 thread %s", isa);
#endif
}

sps_status sps_context_set_cache_dir(sps_context *ctx, const char *dir)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  if (!dir) {
    ctx->cache_dir_set = 0;
    ctx->cache_dir[0] = '\0';
    return SPS_SUCCESS;
  }
  if (strlen(dir) >= 900)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "sps_context_set_cache_dir: the path is %zu bytes long (at most 899)", strlen(dir));
  ctx->cache_dir_set = 1;
  snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir);
  return SPS_SUCCESS;
}

sps_status sps_context_synchronize(sps_context *ctx)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  return ctx->be->synchronize(ctx);
}

sps_status sps_context_set_read_progress(sps_context *ctx, sps_read_progress_fn fn, void *user)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  ctx->read_progress = fn;
  ctx->read_progress_user = fn ? user : NULL;
  return SPS_SUCCESS;
}
