/* select.c: AUTO's choice of the SpMV configuration: a model trained for the GPU's compute capability when one is built in, else the rule, never a configuration that cannot run on the matrix. */
#include <stdio.h>
#include <string.h>

#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#endif

/*
 * The models built in, one per measured compute capability (10*major + minor), each generated
 * by bench/select/train.py from a select-sweep TSV of that GPU into spmv/model_smXY.c. A GPU is
 * served by the model of exactly its capability; any other (and the CPU) by the rule below.
 * To add one: generate the file, add it to spmv/local.mk and add its line here.
 */
typedef struct model_entry {
  int cc;
  const char *name;
  sps_spmv_model_fn fn;
} model_entry;

void sps_spmv_model_sm90(const sps_matrix_stats *s, sps_spmv_choice *out);

static const model_entry models[] = {
    {90, "sm90", sps_spmv_model_sm90}, /* H100, bench/results/2026-11-25-H100/select-sweep-2 */
    {0, NULL, NULL}                    /* end of the list */
};

int sps_spmv_context_cc(const sps_context *ctx)
{
#ifdef SPS_HAVE_CUDA
  if (ctx && ctx->kind == SPS_DEVICE_CUDA && ctx->cuda)
    return 10 * sps_cuda(ctx)->cc_major + sps_cuda(ctx)->cc_minor;
#else
  (void)ctx;
#endif
  return 0;
}

/* "csr-vector-8" or the variant's name. */
static void config_name(sps_spmv_config c, char *buf, size_t len)
{
  if (c.kind == SPS_SPMV_CSR_VECTOR)
    snprintf(buf, len, "%s-%d", sps_spmv_kind_name(c.kind), c.tpr);
  else
    snprintf(buf, len, "%s", sps_spmv_kind_name(c.kind));
}

int sps_spmv_config_fits(const sps_matrix_stats *s, sps_spmv_config c, char *why, size_t len)
{
  /* AUTO keeps csr-scalar's bits (doc/design.md): the CPU and the GPU then make the same
   * decisions in the solvers, and GMRES may fuse its cycle. */
  const sps_spmv_variant *v = sps_spmv_variant_get(c.kind);
  if (v && !v->rounds_like_csr) {
    snprintf(why, len, "%s does not round like csr-scalar", sps_spmv_kind_name(c.kind));
    return 0;
  }
  if (c.kind == SPS_SPMV_ELL && (double)s->max_len * (double)s->rows >
                                    (double)SPS_ELL_MAX_PADDING * (double)s->nnz) {
    snprintf(why, len, "ell's padding %lld x %lld exceeds %d x nnz", (long long)s->max_len,
             (long long)s->rows, SPS_ELL_MAX_PADDING);
    return 0;
  }
  /* Without short_blocks (AUTO's statistics leave it at -1), the bound of one block per short
   * row. */
  const int64_t short_blocks = s->short_blocks >= 0 ? s->short_blocks : s->rows - s->long_rows;
  if (c.kind == SPS_SPMV_BLOCKWISE && short_blocks + s->long_blocks > INT32_MAX) {
    snprintf(why, len, "blockwise's %s%lld blocks exceed the grid limit",
             s->short_blocks >= 0 ? "" : "up to ", (long long)(short_blocks + s->long_blocks));
    return 0;
  }
  return 1;
}

/*
 * The rule, from the statistics and the SpMV benchmark on an H200 (bench/results/): on the CPU
 * csr-scalar (the references are all row loops). On a GPU:
 *   - even rows (longest <= 4*mean + 8): short ones (mean <= 12) stream best one row per
 *     thread (csr-scalar: G3_circuit, laplacian7pt_100); longer ones take csr-vector with
 *     seed 000's threads per row for the mean (nos3, bcsstk13);
 *   - uneven rows (circuits with supply nets, power networks): blockwise, whose partition
 *     gives long rows whole thread blocks and streams the short ones.
 * merge is not chosen: blockwise already splits very long rows over blocks.
 */
void sps_spmv_select_rule(const sps_matrix_stats *s, sps_device_kind dev, sps_spmv_choice *out)
{
  memset(out, 0, sizeof *out);
  out->kind = SPS_SPMV_CSR_SCALAR;
  if (dev != SPS_DEVICE_CUDA) {
    snprintf(out->why, sizeof out->why, "CPU: csr-scalar (every CPU variant is a row loop)");
  } else if (s->nnz == 0) {
    snprintf(out->why, sizeof out->why, "rule: nnz=0 -> csr-scalar");
  } else if ((double)s->max_len <= 4.0 * s->mean_len + 8.0) {
    if (s->mean_len <= 12.0) {
      snprintf(out->why, sizeof out->why, "rule: max_len<=4*mean_len+8, mean_len<=12 -> csr-scalar");
    } else {
      out->kind = SPS_SPMV_CSR_VECTOR;
      out->tpr = sps_spmv_tpr_from_mean(s->mean_len, 2);
      snprintf(out->why, sizeof out->why,
               "rule: max_len<=4*mean_len+8, mean_len>12 -> csr-vector-%d", out->tpr);
    }
  } else {
    out->kind = SPS_SPMV_BLOCKWISE;
    snprintf(out->why, sizeof out->why, "rule: max_len>4*mean_len+8 -> blockwise");
  }
  out->ranked[0] = (sps_spmv_config){out->kind, out->tpr};
  out->nranked = 1;
}

void sps_spmv_model_leaf(sps_spmv_choice *out, const sps_spmv_config *ranked, int n,
                         const char *path)
{
  if (n > SPS_SPMV_RANKED) n = SPS_SPMV_RANKED;
  out->nranked = n;
  for (int k = 0; k < n; k++) out->ranked[k] = ranked[k];
  out->kind = ranked[0].kind;
  out->tpr = ranked[0].kind == SPS_SPMV_CSR_VECTOR ? ranked[0].tpr : 0;
  size_t l = strlen(out->why);
  char name[32];
  config_name(ranked[0], name, sizeof name);
  snprintf(out->why + l, sizeof out->why - l, "%s -> %s", path, name);
}

/* Keep the first configuration of the ranking that fits the matrix, saying so in why; when
 * none does, the rule's (whose variants ELL never is and blockwise only fits, or csr-scalar). */
static void keep_fitting(const sps_matrix_stats *s, sps_device_kind dev, sps_spmv_choice *out)
{
  char why[128], name[32];
  sps_spmv_config first = {out->kind, out->tpr};
  if (sps_spmv_config_fits(s, first, why, sizeof why) &&
      sps_spmv_kind_available(first.kind, dev))
    return;
  if (!sps_spmv_kind_available(first.kind, dev))
    snprintf(why, sizeof why, "%s is not available on this device", sps_spmv_kind_name(first.kind));
  size_t l = strlen(out->why);
  for (int k = 1; k < out->nranked; k++) {
    char w2[128];
    if (sps_spmv_config_fits(s, out->ranked[k], w2, sizeof w2) &&
        sps_spmv_kind_available(out->ranked[k].kind, dev)) {
      out->kind = out->ranked[k].kind;
      out->tpr = out->kind == SPS_SPMV_CSR_VECTOR ? out->ranked[k].tpr : 0;
      config_name(out->ranked[k], name, sizeof name);
      snprintf(out->why + l, sizeof out->why - l, "; %s, so the next ranked: %s", why, name);
      return;
    }
  }
  sps_spmv_choice rule;
  sps_spmv_select_rule(s, dev, &rule);
  sps_spmv_config rc = {rule.kind, rule.tpr};
  char w2[128];
  if (!sps_spmv_config_fits(s, rc, w2, sizeof w2)) rc = (sps_spmv_config){SPS_SPMV_CSR_SCALAR, 0};
  out->kind = rc.kind;
  out->tpr = rc.tpr;
  config_name(rc, name, sizeof name);
  snprintf(out->why + l, sizeof out->why - l, "; %s and no ranked one fits, so %s", why, name);
}

void sps_spmv_select_model(const sps_matrix_stats *s, sps_device_kind dev, sps_spmv_model_fn model,
                           const char *name, sps_spmv_choice *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->why, sizeof out->why, "model %s: ", name);
  model(s, out);
  keep_fitting(s, dev, out);
}

void sps_spmv_select(const sps_matrix *A, sps_device_kind dev, int compute_capability,
                     sps_spmv_choice *out)
{
  /* The rule reads no column statistics: their pass is made only for a model. No model reads
   * short_blocks (train.py leaves it out), so its sequential host pass is not made; on a CUDA
   * matrix the rest is one kernel (spmv/stats.c). A device error leaves the host's statistics
   * in s, and the setup that follows reports the error. */
  sps_matrix_stats s;
  sps_spmv_stats_compute(
      A, dev == SPS_DEVICE_CUDA && sps_spmv_have_model(compute_capability) ? SPS_STATS_COLUMNS : 0,
      &s);
  sps_spmv_select_stats(&s, dev, compute_capability, out);
}

int sps_spmv_have_model(int compute_capability)
{
  for (const model_entry *m = models; m->fn; m++)
    if (m->cc == compute_capability) return 1;
  return 0;
}

void sps_spmv_select_stats(const sps_matrix_stats *sp, sps_device_kind dev, int compute_capability,
                           sps_spmv_choice *out)
{
  const sps_matrix_stats s = *sp;
  if (dev == SPS_DEVICE_CUDA)
    for (const model_entry *m = models; m->fn; m++)
      if (m->cc == compute_capability) {
        sps_spmv_select_model(&s, dev, m->fn, m->name, out);
        return;
      }
  sps_spmv_select_rule(&s, dev, out);
  if (dev == SPS_DEVICE_CUDA) {
    char rule[sizeof out->why];
    snprintf(rule, sizeof rule, "%s", out->why);
    if (compute_capability > 0)
      snprintf(out->why, sizeof out->why, "no model for sm_%d: %.280s", compute_capability, rule);
    else
      snprintf(out->why, sizeof out->why, "no model for an unknown GPU: %.280s", rule);
  }
  keep_fitting(&s, dev, out);
}

sps_spmv_kind sps_spmv_auto_choose(const sps_matrix *A, sps_device_kind device,
                                   int *threads_per_row)
{
  sps_spmv_choice c;
  const int cc = device == SPS_DEVICE_CUDA ? sps_spmv_context_cc(A->ctx) : 0;
  sps_spmv_select(A, device, cc, &c);
  *threads_per_row = c.kind == SPS_SPMV_CSR_SCALAR ? 1 : c.tpr;
  return c.kind;
}
