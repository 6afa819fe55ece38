/* spmm_plan.c: the SpMM variant registry and the sps_spmm_plan API (create, set, setup, apply, destroy). */
#include <stdio.h>
#include <string.h>

#include "spmm_internal.h"

/* The registry: one entry per kind, NULL where a variant is not built (and for AUTO). */
static const sps_spmm_variant *const registry[SPS_SPMM_KIND_COUNT] = {
    [SPS_SPMM_CSR] = &sps_spmm_variant_csr,
    [SPS_SPMM_SPUTNIK] = &sps_spmm_variant_sputnik,
    [SPS_SPMM_BALANCED] = &sps_spmm_variant_balanced,
#ifdef SPS_HAVE_CUDA
    [SPS_SPMM_CUSPARSE] = &sps_spmm_variant_cusparse,
#endif
    [SPS_SPMM_SPMV] = &sps_spmm_variant_spmv,
};

static const char *const kind_names[SPS_SPMM_KIND_COUNT] = {
#define SPS_X_NAME(name, cli, text) [name] = cli,
    SPS_SPMM_LIST(SPS_X_NAME)
#undef SPS_X_NAME
};

static const char *const kind_descriptions[SPS_SPMM_KIND_COUNT] = {
#define SPS_X_DESC(name, cli, text) [name] = text,
    SPS_SPMM_LIST(SPS_X_DESC)
#undef SPS_X_DESC
};

const sps_spmm_variant *sps_spmm_variant_get(sps_spmm_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMM_KIND_COUNT) return NULL;
  return registry[kind];
}

const char *sps_spmm_kind_name(sps_spmm_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMM_KIND_COUNT) return NULL;
  return kind_names[kind];
}

const char *sps_spmm_kind_description(sps_spmm_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMM_KIND_COUNT) return NULL;
  return kind_descriptions[kind];
}

sps_status sps_spmm_kind_from_name(const char *name, sps_spmm_kind *kind)
{
  if (!name || !kind) return SPS_ERR_ARGUMENT;
  for (int k = 0; k < SPS_SPMM_KIND_COUNT; k++)
    if (strcmp(name, kind_names[k]) == 0) {
      *kind = (sps_spmm_kind)k;
      return SPS_SUCCESS;
    }
  return SPS_ERR_ARGUMENT;
}

int sps_spmm_kind_available(sps_spmm_kind kind, sps_device_kind device)
{
  if (kind == SPS_SPMM_AUTO) return 1;
  const sps_spmm_variant *v = sps_spmm_variant_get(kind);
  if (!v) return 0;
  if (device == SPS_DEVICE_CUDA) return sps_have_cuda() && v->on_cuda;
  return v->on_cpu;
}

int sps_spmm_xy_vec(int64_t k, const double *X, int64_t ldx, const double *Y, int64_t ldy)
{
  return k >= 2 && ldx % 2 == 0 && ldy % 2 == 0 && (uintptr_t)X % 16 == 0 && (uintptr_t)Y % 16 == 0
             ? 2
             : 1;
}

sps_status sps_spmm_plan_create(sps_context *ctx, sps_spmm_plan **out, const sps_matrix *A,
                                int64_t k)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "plan");
  *out = NULL;
  SPS_CHECK_ARG(ctx, A, "A");
  if (A->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_spmm_plan_create: matrix 'A' belongs to another context");
  if (k < 1) SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_spmm_plan_create: k = %lld < 1", (long long)k);
  sps_spmm_plan *plan;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&plan, 1, sizeof *plan, "SpMM plan"));
  plan->ctx = ctx;
  plan->A = A;
  plan->k = k;
  plan->requested = SPS_SPMM_AUTO;
  plan->kind = SPS_SPMM_AUTO;
  sps_context_track(ctx, SPS_OBJECT_SPMM_PLAN, 1);
  *out = plan;
  return SPS_SUCCESS;
}

void sps_spmm_plan_set_owned(sps_spmm_plan *plan)
{
  if (!plan || plan->owned) return;
  plan->owned = 1;
  sps_context_track(plan->ctx, SPS_OBJECT_SPMM_PLAN, -1);
}

sps_status sps_spmm_plan_set_kind(sps_spmm_plan *plan, sps_spmm_kind kind)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  if ((int)kind < 0 || kind >= SPS_SPMM_KIND_COUNT)
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT, "sps_spmm_plan_set_kind: unknown SpMM kind %d",
             (int)kind);
  if (!sps_spmm_kind_available(kind, plan->ctx->kind))
    SPS_FAIL(plan->ctx, SPS_ERR_UNSUPPORTED, "SpMM variant '%s' is not available on the %s backend",
             kind_names[kind], plan->ctx->be->name);
  plan->requested = kind;
  if (!plan->is_setup) plan->kind = kind;
  return SPS_SUCCESS;
}

static void plan_release(sps_spmm_plan *plan)
{
  if (plan->variant && plan->variant->destroy) plan->variant->destroy(plan);
  plan->data = NULL;
  plan->variant = NULL;
  plan->is_setup = 0;
}

sps_status sps_spmm_plan_setup(sps_spmm_plan *plan)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  plan_release(plan);
  sps_spmm_kind kind = plan->requested;
  if (kind == SPS_SPMM_AUTO)
    kind = sps_spmm_select(plan->A, plan->k, plan->ctx->kind, plan->why, sizeof plan->why);
  else
    snprintf(plan->why, sizeof plan->why, "named by the caller");
  const sps_spmm_variant *v = sps_spmm_variant_get(kind);
  if (!v || !sps_spmm_kind_available(kind, plan->ctx->kind))
    SPS_FAIL(plan->ctx, SPS_ERR_UNSUPPORTED, "SpMM variant '%s' is not available on the %s backend",
             kind_names[kind], plan->ctx->be->name);
  plan->kind = kind;
  plan->variant = v;
  sps_status st = v->setup(plan);
  if (st) {
    plan_release(plan);
    plan->kind = plan->requested;
    return st;
  }
  plan->is_setup = 1;
  return SPS_SUCCESS;
}

sps_status sps_spmm_apply_raw(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                              double beta, double *Y, int64_t ldy)
{
  return plan->variant->apply(plan, alpha, X, ldx, beta, Y, ldy);
}

sps_status sps_spmm_apply_cols(sps_spmm_plan *plan, int64_t k, double alpha, const double *X,
                               int64_t ldx, double beta, double *Y, int64_t ldy)
{
  if (k == plan->k) return plan->variant->apply(plan, alpha, X, ldx, beta, Y, ldy);
  if (k < 1 || k > plan->k || !(plan->kind == SPS_SPMM_CSR || plan->kind == SPS_SPMM_SPUTNIK ||
                                plan->kind == SPS_SPMM_BALANCED))
    SPS_FAIL(plan->ctx, SPS_ERR_UNSUPPORTED,
             "SpMM variant '%s' set up for k = %lld cannot apply to %lld columns",
             kind_names[plan->kind], (long long)plan->k, (long long)k);
  /* The variants read the column count from the plan at each apply. */
  const int64_t kplan = plan->k;
  plan->k = k;
  const sps_status st = plan->variant->apply(plan, alpha, X, ldx, beta, Y, ldy);
  plan->k = kplan;
  return st;
}

sps_status sps_spmm_apply(sps_spmm_plan *plan, double alpha, const sps_multivector *X, double beta,
                          sps_multivector *Y)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(plan->ctx, X, "X");
  SPS_CHECK_ARG(plan->ctx, Y, "Y");
  if (!plan->is_setup) SPS_FAIL(plan->ctx, SPS_ERR_STATE, "sps_spmm_apply: plan is not set up");
  if (X->ctx != plan->ctx || Y->ctx != plan->ctx)
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT,
             "sps_spmm_apply: multivector '%s' belongs to another context",
             X->ctx != plan->ctx ? "X" : "Y");
  const sps_matrix *A = plan->A;
  if (X->n != A->ncols || Y->n != A->nrows)
    SPS_FAIL(plan->ctx, SPS_ERR_SIZE,
             "sps_spmm_apply: A is %lld x %lld but X has %lld rows and Y %lld", (long long)A->nrows,
             (long long)A->ncols, (long long)X->n, (long long)Y->n);
  if (X->k != plan->k || Y->k != plan->k)
    SPS_FAIL(plan->ctx, SPS_ERR_SIZE,
             "sps_spmm_apply: the plan is for k = %lld columns but X has %lld and Y %lld",
             (long long)plan->k, (long long)X->k, (long long)Y->k);
  if (X == Y || (X->data && X->data == Y->data))
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT, "sps_spmm_apply: X and Y must not share storage");
  if (A->nrows == 0) return SPS_SUCCESS;
  return sps_spmm_apply_raw(plan, alpha, X->data, X->ld, beta, Y->data, Y->ld);
}

sps_status sps_spmm_plan_get_kind(const sps_spmm_plan *plan, sps_spmm_kind *kind, const char **why)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  if (kind) *kind = plan->kind;
  if (why) *why = plan->why;
  return SPS_SUCCESS;
}

sps_status sps_spmm_plan_destroy(sps_spmm_plan **plan)
{
  if (!plan || !*plan) return SPS_SUCCESS;
  if (!(*plan)->owned) sps_context_track((*plan)->ctx, SPS_OBJECT_SPMM_PLAN, -1);
  plan_release(*plan);
  sps_host_free(*plan);
  *plan = NULL;
  return SPS_SUCCESS;
}
