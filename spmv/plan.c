/* plan.c: the SpMV variant registry and the sps_spmv_plan API (create, set, setup, apply, destroy).
 */
#include <stdio.h>
#include <string.h>

#include "spmv_internal.h"
#include "threads_per_row.h"

/* The registry: one entry per kind, NULL where a variant is not built. */
static const sps_spmv_variant *const registry[SPS_SPMV_KIND_COUNT] = {
    [SPS_SPMV_CSR_SCALAR] = &sps_spmv_variant_csr_scalar,
    [SPS_SPMV_CSR_VECTOR] = &sps_spmv_variant_csr_vector,
    [SPS_SPMV_ELL] = &sps_spmv_variant_ell,
    [SPS_SPMV_COO] = &sps_spmv_variant_coo,
    [SPS_SPMV_HYB] = &sps_spmv_variant_hyb,
    [SPS_SPMV_MERGE] = &sps_spmv_variant_merge,
    [SPS_SPMV_BLOCKWISE] = &sps_spmv_variant_blockwise,
    [SPS_SPMV_BINNED] = &sps_spmv_variant_binned,
#ifdef SPS_HAVE_CUDA
    [SPS_SPMV_CUSPARSE] = &sps_spmv_variant_cusparse,
#endif
};

static const char *const kind_names[SPS_SPMV_KIND_COUNT] = {
#define SPS_X_NAME(name, cli, text) [name] = cli,
    SPS_SPMV_LIST(SPS_X_NAME)
#undef SPS_X_NAME
};

static const char *const kind_descriptions[SPS_SPMV_KIND_COUNT] = {
#define SPS_X_DESC(name, cli, text) [name] = text,
    SPS_SPMV_LIST(SPS_X_DESC)
#undef SPS_X_DESC
};

const sps_spmv_variant *sps_spmv_variant_get(sps_spmv_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMV_KIND_COUNT) return NULL;
  return registry[kind];
}

const char *sps_spmv_kind_name(sps_spmv_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMV_KIND_COUNT) return NULL;
  return kind_names[kind];
}

const char *sps_spmv_kind_description(sps_spmv_kind kind)
{
  if ((int)kind < 0 || kind >= SPS_SPMV_KIND_COUNT) return NULL;
  return kind_descriptions[kind];
}

sps_status sps_spmv_kind_from_name(const char *name, sps_spmv_kind *kind)
{
  if (!name || !kind) return SPS_ERR_ARGUMENT;
  for (int k = 0; k < SPS_SPMV_KIND_COUNT; k++)
    if (strcmp(name, kind_names[k]) == 0) {
      *kind = (sps_spmv_kind)k;
      return SPS_SUCCESS;
    }
  return SPS_ERR_ARGUMENT;
}

static const char *const source_names[SPS_SPMV_SOURCE_COUNT] = {
#define SPS_X_NAME(name, text, desc) [name] = text,
    SPS_SPMV_SOURCE_LIST(SPS_X_NAME)
#undef SPS_X_NAME
};

const char *sps_spmv_source_name(sps_spmv_source source)
{
  if ((int)source < 0 || source >= SPS_SPMV_SOURCE_COUNT) return NULL;
  return source_names[source];
}

int sps_spmv_kind_is_variant(sps_spmv_kind kind)
{
  return (int)kind >= 0 && kind < SPS_SPMV_KIND_COUNT && kind != SPS_SPMV_AUTO &&
         kind != SPS_SPMV_TUNE;
}

int sps_spmv_kind_available(sps_spmv_kind kind, sps_device_kind device)
{
  if (kind == SPS_SPMV_AUTO || kind == SPS_SPMV_TUNE) return 1;
  const sps_spmv_variant *v = sps_spmv_variant_get(kind);
  if (!v) return 0;
  if (device == SPS_DEVICE_CUDA) return sps_have_cuda() && v->on_cuda;
  return v->on_cpu;
}

void sps_spmv_row_stats_compute(const sps_matrix *A, sps_spmv_row_stats *stats)
{
  int64_t max_len = 0;
  for (int64_t i = 0; i < A->nrows; i++) {
    int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > max_len) max_len = len;
  }
  stats->max_len = max_len;
  stats->mean = A->nrows > 0 ? (double)A->nnz / (double)A->nrows : 0.0;
}

sps_status sps_spmv_to_device(sps_context *ctx, void **host, void **dev, size_t bytes,
                              const char *what)
{
  sps_status st = SPS_SUCCESS;
  if (ctx->kind != SPS_DEVICE_CUDA) {
    *dev = *host;
    *host = NULL;
    return SPS_SUCCESS;
  }
  *dev = NULL;
  st = ctx->be->malloc(ctx, dev, bytes, what);
  if (st == SPS_SUCCESS) st = ctx->be->upload(ctx, *dev, *host, bytes);
  if (st != SPS_SUCCESS && *dev) {
    ctx->be->free(ctx, *dev);
    *dev = NULL;
  }
  sps_host_free(*host);
  *host = NULL;
  return st;
}

int sps_spmv_tpr_from_mean(double mean, int lo)
{
  /* Double t while the mean lies above the geometric midpoint t*sqrt(2) of t and 2t. */
  int t = lo;
  while (t < 32 && mean > 1.4142135623730951 * t)
    t *= 2;
  return t;
}

sps_status sps_spmv_plan_create(sps_context *ctx, sps_spmv_plan **out, const sps_matrix *A,
                                sps_spmv_kind kind)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "plan");
  *out = NULL;
  SPS_CHECK_ARG(ctx, A, "A");
  if (A->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_spmv_plan_create: matrix belongs to another context");
  if ((int)kind < 0 || kind >= SPS_SPMV_KIND_COUNT)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_spmv_plan_create: unknown SpMV kind %d", (int)kind);
  if (!sps_spmv_kind_available(kind, ctx->kind))
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "SpMV variant '%s' is not available on the %s backend",
             kind_names[kind], ctx->be->name);
  sps_spmv_plan *plan;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&plan, 1, sizeof *plan, "SpMV plan"));
  plan->ctx = ctx;
  plan->A = A;
  plan->requested = kind;
  plan->kind = kind;
  plan->choice.requested = kind;
  sps_context_track(ctx, SPS_OBJECT_PLAN, 1);
  *out = plan;
  return SPS_SUCCESS;
}

void sps_spmv_plan_set_owned(sps_spmv_plan *plan)
{
  if (!plan || plan->owned) return;
  plan->owned = 1;
  sps_context_track(plan->ctx, SPS_OBJECT_PLAN, -1);
}

sps_status sps_spmv_plan_set_threads_per_row(sps_spmv_plan *plan, int tpr)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  if (!sps_spmv_tpr_valid(tpr))
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT, "threads per row must be " SPS_SPMV_TPR_LIST ", not %d",
             tpr);
  plan->threads_per_row = tpr;
  plan->tpr_requested = tpr;
  return SPS_SUCCESS;
}

static void plan_release(sps_spmv_plan *plan)
{
#ifdef SPS_HAVE_MPI
  if (plan->dist) sps_spmv_dist_destroy(plan);
#endif
  if (plan->is_setup && plan->variant && plan->variant->destroy) plan->variant->destroy(plan);
  plan->data = NULL;
  plan->is_setup = 0;
}

/* Reset the record of the choice to what was asked. */
static void choice_reset(sps_spmv_plan *plan)
{
  memset(&plan->choice, 0, sizeof plan->choice);
  plan->choice.requested = plan->requested;
}

/* Set up variant v (plan->threads_per_row already set); on failure nothing is kept. */
static sps_status plan_setup_variant(sps_spmv_plan *plan, const sps_spmv_variant *v)
{
  plan->kind = v->kind;
  plan->variant = v;
  sps_status st = v->setup(plan);
  if (st) {
    if (v->destroy) v->destroy(plan);
    plan->data = NULL;
    return st;
  }
  plan->choice.kind = v->kind;
  plan->choice.threads_per_row = v->kind == SPS_SPMV_CSR_VECTOR ? plan->threads_per_row : 0;
  plan->is_setup = 1;
  return SPS_SUCCESS;
}

/* Append to the reasoning of the choice. */
static void why_append(sps_spmv_plan *plan, const char *fmt, const char *a, const char *b,
                       const char *c)
{
  size_t l = strlen(plan->choice.why);
  if (l + 1 < sizeof plan->choice.why)
    snprintf(plan->choice.why + l, sizeof plan->choice.why - l, fmt, a, b, c);
}

/*
 * AUTO: the configuration of sps_spmv_select (the model for the GPU's compute capability, or
 * the rule), then, should its setup refuse the matrix or run out of memory
 * (SPS_ERR_UNSUPPORTED, SPS_ERR_SIZE, SPS_ERR_DEVICE_MEMORY), the others of its ranking and
 * finally csr-scalar, which needs nothing beyond the matrix; the choice's why tells each step.
 * Threads per row set by the caller are kept for csr-vector.
 */
static sps_status plan_setup_auto(sps_spmv_plan *plan)
{
  sps_spmv_choice c;
  const int cc = sps_spmv_context_cc(plan->ctx);
  sps_spmv_select(plan->A, plan->ctx->kind, cc, &c);
  plan->choice.source = plan->ctx->kind == SPS_DEVICE_CUDA && sps_spmv_have_model(cc)
                            ? SPS_SPMV_SOURCE_MODEL
                            : SPS_SPMV_SOURCE_RULE;
  snprintf(plan->choice.why, sizeof plan->choice.why, "%s", c.why);
  const int fixed_tpr = plan->tpr_requested;
  sps_spmv_config tries[SPS_SPMV_RANKED + 2];
  int ntries = 0;
  tries[ntries++] = (sps_spmv_config){c.kind, c.tpr};
  for (int k = 0; k < c.nranked; k++)
    if (c.ranked[k].kind != c.kind || c.ranked[k].tpr != c.tpr) tries[ntries++] = c.ranked[k];
  tries[ntries++] = (sps_spmv_config){SPS_SPMV_CSR_SCALAR, 0};
  sps_status st = SPS_ERR_UNSUPPORTED;
  for (int k = 0; k < ntries; k++) {
    const sps_spmv_variant *v = sps_spmv_variant_get(tries[k].kind);
    if (!v || !sps_spmv_kind_available(tries[k].kind, plan->ctx->kind)) continue;
    if (k > 0)
      why_append(plan, "; %s failed (%s), so %s", kind_names[tries[k - 1].kind],
                 sps_status_name(st), kind_names[tries[k].kind]);
    plan->threads_per_row =
        fixed_tpr ? fixed_tpr : tries[k].kind == SPS_SPMV_CSR_SCALAR ? 1 : tries[k].tpr;
    st = plan_setup_variant(plan, v);
    if (st != SPS_ERR_UNSUPPORTED && st != SPS_ERR_SIZE && st != SPS_ERR_DEVICE_MEMORY) break;
  }
  if (st != SPS_SUCCESS) {
    plan->threads_per_row = plan->tpr_requested;
    choice_reset(plan);
  }
  return st;
}

sps_status sps_spmv_plan_setup(sps_spmv_plan *plan)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  plan_release(plan);
  choice_reset(plan);
#ifdef SPS_HAVE_MPI
  if (plan->A->dist) return sps_spmv_dist_setup(plan);
#endif
  sps_spmv_kind kind = plan->requested;
  if (kind == SPS_SPMV_TUNE) {
    /* The user's threads per row restrict the candidates; the tuning's pick replaces them
     * (a later setup starts from the user's value again). */
    plan->threads_per_row = plan->tpr_requested;
    sps_status st = sps_spmv_tune(plan);
    if (st) {
      plan->threads_per_row = plan->tpr_requested;
      choice_reset(plan);
      return st;
    }
    plan->is_setup = 1;
    return SPS_SUCCESS;
  }
  if (kind == SPS_SPMV_AUTO) return plan_setup_auto(plan);
  const sps_spmv_variant *v = sps_spmv_variant_get(kind);
  if (!v || !sps_spmv_kind_available(kind, plan->ctx->kind))
    SPS_FAIL(plan->ctx, SPS_ERR_UNSUPPORTED, "SpMV variant '%s' is not available on the %s backend",
             kind_names[kind], plan->ctx->be->name);
  plan->choice.source = SPS_SPMV_SOURCE_USER;
  snprintf(plan->choice.why, sizeof plan->choice.why, "named by the caller");
  plan->threads_per_row = plan->tpr_requested;
  sps_status st = plan_setup_variant(plan, v);
  if (st) choice_reset(plan);
  return st;
}

sps_status sps_spmv_apply_raw(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                              double *y)
{
#ifdef SPS_HAVE_MPI
  if (plan->dist) return sps_spmv_dist_apply(plan, alpha, x, beta, y);
#endif
  return plan->variant->apply(plan, alpha, x, beta, y);
}

int sps_spmv_plan_fuses_dot(const sps_spmv_plan *plan)
{
  return plan && plan->is_setup && !plan->dist && plan->variant && plan->variant->fuses_dot &&
         plan->variant->apply_dot && plan->variant->fuses_dot(plan);
}

sps_status sps_spmv_apply_dot(sps_spmv_plan *plan, double alpha, const double *x, double *y,
                              sps_csum *xy)
{
  if (!sps_spmv_plan_fuses_dot(plan))
    SPS_FAIL(plan->ctx, SPS_ERR_UNSUPPORTED, "sps_spmv_apply_dot: the %s plan forms no dot",
             sps_spmv_kind_name(plan->kind));
  return plan->variant->apply_dot(plan, alpha, x, y, xy);
}

sps_status sps_spmv_apply(sps_spmv_plan *plan, double alpha, const sps_vector *x, double beta,
                          sps_vector *y)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(plan->ctx, x, "x");
  SPS_CHECK_ARG(plan->ctx, y, "y");
  if (!plan->is_setup) SPS_FAIL(plan->ctx, SPS_ERR_STATE, "sps_spmv_apply: plan is not set up");
  if (x->ctx != plan->ctx || y->ctx != plan->ctx)
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT, "sps_spmv_apply: vectors belong to another context");
  if (x->n != plan->A->ncols || y->n != plan->A->nrows)
    SPS_FAIL(plan->ctx, SPS_ERR_SIZE,
             "sps_spmv_apply: A is %lld x %lld but x has %lld entries and y %lld",
             (long long)plan->A->nrows, (long long)plan->A->ncols, (long long)x->n,
             (long long)y->n);
  if (x->data == y->data)
    SPS_FAIL(plan->ctx, SPS_ERR_ARGUMENT, "sps_spmv_apply: x and y must not be the same vector");
  return sps_spmv_apply_raw(plan, alpha, x->data, beta, y->data);
}

int sps_spmv_plan_rounds_like_csr(const sps_spmv_plan *plan)
{
#ifdef SPS_HAVE_MPI
  if (plan && plan->dist) return plan->is_setup && sps_spmv_dist_rounds_like_csr(plan);
#endif
  return plan && plan->is_setup && plan->variant && plan->variant->rounds_like_csr;
}

sps_status sps_spmv_plan_get_kind(const sps_spmv_plan *plan, sps_spmv_kind *kind, int *tpr)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  if (kind) *kind = plan->kind;
  if (tpr) *tpr = plan->threads_per_row;
  return SPS_SUCCESS;
}

sps_status sps_spmv_plan_get_choice(const sps_spmv_plan *plan, sps_spmv_choice_info *info)
{
  if (!plan) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(plan->ctx, info, "info");
  *info = plan->choice;
  return SPS_SUCCESS;
}

sps_status sps_spmv_plan_destroy(sps_spmv_plan **plan)
{
  if (!plan || !*plan) return SPS_SUCCESS;
  if (!(*plan)->owned) sps_context_track((*plan)->ctx, SPS_OBJECT_PLAN, -1);
  plan_release(*plan);
  sps_host_free(*plan);
  *plan = NULL;
  return SPS_SUCCESS;
}
