/* precond.c: the preconditioner registry, the identity, and the public name lookups. */
#include <string.h>

#include "precond.h"

/* The registry: one entry per sps_precond_type, in enum order. */
static const sps_precond_ops *const registry[SPS_PRECOND_TYPE_COUNT] = {
    [SPS_PRECOND_NONE] = &sps_precond_ops_none,
    [SPS_PRECOND_JACOBI] = &sps_precond_ops_jacobi,
};

const char *sps_precond_type_name(sps_precond_type type)
{
  if ((int)type < 0 || type >= SPS_PRECOND_TYPE_COUNT) return NULL;
  return registry[type]->name;
}

sps_status sps_precond_type_from_name(const char *name, sps_precond_type *type)
{
  if (!name || !type) return SPS_ERR_ARGUMENT;
  for (int t = 0; t < SPS_PRECOND_TYPE_COUNT; t++)
    if (strcmp(name, registry[t]->name) == 0) {
      *type = (sps_precond_type)t;
      return SPS_SUCCESS;
    }
  return SPS_ERR_ARGUMENT;
}

sps_status sps_precond_create(sps_context *ctx, sps_precond **out, sps_precond_type type)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "pc");
  *out = NULL;
  if ((int)type < 0 || type >= SPS_PRECOND_TYPE_COUNT)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "unknown preconditioner type %d", (int)type);
  sps_precond *pc;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&pc, 1, sizeof *pc, "preconditioner"));
  pc->ctx = ctx;
  pc->ops = registry[type];
  *out = pc;
  return SPS_SUCCESS;
}

sps_status sps_precond_setup(sps_precond *pc, const sps_matrix *A)
{
  if (pc->ops->destroy) pc->ops->destroy(pc);
  pc->data = NULL;
  pc->n = A->nrows;
  return pc->ops->setup(pc, A);
}

sps_status sps_precond_apply(sps_precond *pc, const double *r, double *z)
{
  return pc->ops->apply(pc, r, z);
}

int sps_precond_is_identity(const sps_precond *pc)
{
  return pc->ops->type == SPS_PRECOND_NONE;
}

void sps_precond_destroy(sps_precond **pc)
{
  if (!pc || !*pc) return;
  if ((*pc)->ops->destroy) (*pc)->ops->destroy(*pc);
  sps_host_free(*pc);
  *pc = NULL;
}

/* The identity, M = I: z <- r. */
static sps_status none_setup(sps_precond *pc, const sps_matrix *A)
{
  (void)pc;
  (void)A;
  return SPS_SUCCESS;
}

static sps_status none_apply(sps_precond *pc, const double *r, double *z)
{
  return pc->ctx->be->copy(pc->ctx, pc->n, r, z);
}

const sps_precond_ops sps_precond_ops_none = {
    .type = SPS_PRECOND_NONE,
    .name = "none",
    .in_place = 1,
    .setup = none_setup,
    .apply = none_apply,
    .destroy = NULL,
};
