/* scratch.c: scratch memory in the context's space, for what a setup allocates and frees before it returns: the backend's stream-ordered pool where it has one (CUDA), else its malloc and free. */
#include "internal.h"

sps_status sps_scratch_alloc(sps_context *ctx, void **p, size_t bytes, const char *what)
{
  if (ctx->be->scratch_malloc) return ctx->be->scratch_malloc(ctx, p, bytes, what);
  return ctx->be->malloc(ctx, p, bytes, what);
}

void sps_scratch_free(sps_context *ctx, void *p)
{
  if (!p) return;
  if (ctx->be->scratch_free)
    ctx->be->scratch_free(ctx, p);
  else
    ctx->be->free(ctx, p);
}

void sps_scratch_release(sps_context *ctx)
{
  if (ctx->be->scratch_release) ctx->be->scratch_release(ctx);
}
