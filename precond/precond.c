/* precond.c: the preconditioner registry, the identity, the growth estimate and the public name lookups. */
#include <math.h>
#include <string.h>

#include "../core/comm.h"
#include "amg_step.h"
#include "precond.h"
#ifdef SPS_HAVE_MPI
#include "../core/dist_matrix.h"
#endif

/* The registry: one entry per sps_precond_type, in enum order. */
static const sps_precond_ops *const registry[SPS_PRECOND_TYPE_COUNT] = {
    [SPS_PRECOND_NONE] = &sps_precond_ops_none,
    [SPS_PRECOND_JACOBI] = &sps_precond_ops_jacobi,
    [SPS_PRECOND_ILU0] = &sps_precond_ops_ilu0,
    [SPS_PRECOND_IC0] = &sps_precond_ops_ic0,
    [SPS_PRECOND_ILUT] = &sps_precond_ops_ilut,
    [SPS_PRECOND_BJACOBI] = &sps_precond_ops_bjacobi,
    [SPS_PRECOND_CHEBY] = &sps_precond_ops_cheby,
    [SPS_PRECOND_AMG] = &sps_precond_ops_amg,
};

const sps_precond_ops *sps_precond_ops_get(sps_precond_type type)
{
  if ((int)type < 0 || type >= SPS_PRECOND_TYPE_COUNT) return NULL;
  return registry[type];
}

const char *sps_precond_type_name(sps_precond_type type)
{
  if (type == SPS_PRECOND_AUTO) return "auto";
  const sps_precond_ops *ops = sps_precond_ops_get(type);
  return ops ? ops->name : NULL;
}

sps_status sps_precond_type_from_name(const char *name, sps_precond_type *type)
{
  if (!name || !type) return SPS_ERR_ARGUMENT;
  if (strcmp(name, "auto") == 0) {
    *type = SPS_PRECOND_AUTO;
    return SPS_SUCCESS;
  }
  for (int t = 0; t < SPS_PRECOND_TYPE_COUNT; t++)
    if (strcmp(name, registry[t]->name) == 0) {
      *type = (sps_precond_type)t;
      return SPS_SUCCESS;
    }
  return SPS_ERR_ARGUMENT;
}

sps_status sps_precond_create(sps_context *ctx, sps_precond **out, sps_precond_type type,
                              const sps_precond_params *params)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "pc");
  *out = NULL;
  const sps_precond_ops *ops = sps_precond_ops_get(type);
  if (!ops)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "preconditioner type %d is not a preconditioner", (int)type);
  sps_precond *pc;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&pc, 1, sizeof *pc, "preconditioner"));
  pc->ctx = ctx;
  pc->ops = ops;
  pc->sign = 1.0;
  if (params)
    pc->params = *params;
  else
    sps_precond_params_default(&pc->params);
  *out = pc;
  return SPS_SUCCESS;
}

sps_status sps_precond_setup(sps_precond *pc, const sps_matrix *A, double sign,
                             sps_spmv_plan *plan)
{
  if (pc->ops->destroy) pc->ops->destroy(pc);
  pc->data = NULL;
  pc->n = A->nrows;
  pc->sign = sign < 0.0 ? -1.0 : 1.0;
  pc->plan = plan;
#ifdef SPS_HAVE_MPI
  pc->row_ids = A->dist ? A->dist->old_ids : NULL;
#endif
  memset(&pc->info, 0, sizeof pc->info);
  pc->info.type = pc->ops->type;
  pc->info.negated = pc->sign < 0.0;
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

/*
 * The fixed pseudo-random vector of the growth estimate, the same everywhere: entry i is
 * sps_amg_random_draw(seed, g), draw g of splitmix64 (state seed + g gamma), g = i, or the
 * row's original index on a distributed matrix, so that every partition has the same vector.
 * Without row indices it is made where v lives (on a GPU by the multigrid's kernel: no host
 * pass, no upload); with them on the host and uploaded.
 */
static sps_status growth_vector(sps_precond *pc, uint64_t seed, double *v)
{
  sps_context *ctx = pc->ctx;
  const int64_t n = pc->n;
  if (!pc->row_ids) return AMG_STEP(ctx, amg_random, n, seed, v);
  double *hv = NULL;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&hv, (size_t)(n > 0 ? n : 1), sizeof(double),
                           "growth estimate (host)"));
  for (int64_t i = 0; i < n; i++)
    hv[i] = sps_amg_random_draw(seed, pc->row_ids[i]);
  const sps_status st = ctx->be->upload(ctx, v, hv, (size_t)n * sizeof(double));
  sps_host_free(hv);
  return st;
}

sps_status sps_precond_estimate_growth(sps_precond *pc)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = pc->n;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  sps_status st = SPS_SUCCESS;
  double *v = NULL, *z = NULL;
  pc->info.growth = 0.0;
  /* every rank of a distributed matrix takes part in the norms, rows or none */
  if (n == 0 && !sps_comm_is_dist(ctx)) return SPS_SUCCESS;
  st = be->malloc(ctx, (void **)&v, bytes, "growth estimate v");
  if (!st) st = growth_vector(pc, 20261123u, v);
  if (!st) st = be->malloc(ctx, (void **)&z, bytes, "growth estimate z");
  if (!st) st = sps_precond_apply(pc, v, z);
  SPS_TRY(sps_comm_agree(ctx, st));
  double nv, nz;
  SPS_TRY(be->nrm2(ctx, n, v, &nv));
  SPS_TRY(be->nrm2(ctx, n, z, &nz));
  pc->info.growth = nv > 0.0 ? nz / nv : 0.0;
  if (!isfinite(nz)) pc->info.growth = INFINITY;
cleanup:
  if (v) be->free(ctx, v);
  if (z) be->free(ctx, z);
  return st;
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
    .symmetric = 1,
    .setup = none_setup,
    .apply = none_apply,
    .destroy = NULL,
};

const double *sps_precond_diagonal_inverse(const sps_precond *pc)
{
  if (!pc || !pc->ops->diagonal_inverse) return NULL;
  return pc->ops->diagonal_inverse(pc);
}
