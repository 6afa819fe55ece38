/* spmv_select.c: tests of the SpMV choice (spmv/select.c): the rule where no model exists and its why text, a generated model (tests/select/model_sm99.c, from tests/select/synthetic.tsv), and the fallback from a configuration that cannot run on the matrix. */
#include "testlib.h"
#include "../spmv/spmv_internal.h"

void sps_spmv_model_sm99(const sps_matrix_stats *s, sps_spmv_choice *out);

static sps_context *ctx;

/* An n x n matrix whose row i has len(i) entries in columns 0.. (values 1). */
static sps_matrix *make(int64_t n, int64_t (*len)(int64_t))
{
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) rp[i + 1] = rp[i] + len(i);
  int32_t *ci = malloc((size_t)(rp[n] ? rp[n] : 1) * sizeof *ci);
  double *v = malloc((size_t)(rp[n] ? rp[n] : 1) * sizeof *v);
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      ci[k] = (int32_t)(k - rp[i]);
      v[k] = 1.0;
    }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, v)) sps_bail("create: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(v);
  return A;
}

static int64_t len5(int64_t i) { (void)i; return 5; }
static int64_t len40(int64_t i) { (void)i; return 40; }
static int64_t len_hub(int64_t i) { return i == 7 ? 900 : 3; }

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Hand-written models: ELL first (then merge), ELL alone, cuSPARSE first (then blockwise). */
static void model_ell_merge(const sps_matrix_stats *s, sps_spmv_choice *out)
{
  static const sps_spmv_config r[] = {{SPS_SPMV_ELL, 0}, {SPS_SPMV_MERGE, 0}};
  (void)s;
  sps_spmv_model_leaf(out, r, 2, "max_len>0");
}
static void model_cusparse(const sps_matrix_stats *s, sps_spmv_choice *out)
{
  static const sps_spmv_config r[] = {{SPS_SPMV_CUSPARSE, 0}, {SPS_SPMV_BLOCKWISE, 0}};
  (void)s;
  sps_spmv_model_leaf(out, r, 2, "(root)");
}
static void model_ell(const sps_matrix_stats *s, sps_spmv_choice *out)
{
  static const sps_spmv_config r[] = {{SPS_SPMV_ELL, 0}};
  (void)s;
  sps_spmv_model_leaf(out, r, 1, "(root)");
}

int main(void)
{
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  sps_matrix *even5 = make(1000, len5), *even40 = make(1000, len40), *hub = make(1000, len_hub);
  sps_spmv_choice c;
  /* The device the models are for: CUDA in a CUDA build (nothing runs on it here). */
  const sps_device_kind gpu = sps_have_cuda() ? SPS_DEVICE_CUDA : SPS_DEVICE_CPU;

  /* The rule, on a GPU without a model. */
  if (sps_have_cuda()) {
    sps_spmv_select(even5, SPS_DEVICE_CUDA, 75, &c);
    sps_ok(c.kind == SPS_SPMV_CSR_SCALAR &&
               strcmp(c.why, "no model for sm_75: rule: max_len<=4*mean_len+8, mean_len<=12 -> "
                             "csr-scalar") == 0,
           "rule, short even rows: csr-scalar (%s)", c.why);
    sps_spmv_select(even40, SPS_DEVICE_CUDA, 75, &c);
    /* mean 40: 2 -> 4 -> 8 -> 16 -> 32 while 40 > sqrt(2)*t, so 32 (40 > 22.6). */
    sps_ok(c.kind == SPS_SPMV_CSR_VECTOR && c.tpr == 32 &&
               strstr(c.why, "mean_len>12 -> csr-vector-32") != NULL,
           "rule, long even rows: csr-vector-32 (%s)", c.why);
    sps_spmv_select(hub, SPS_DEVICE_CUDA, 0, &c);
    sps_ok(c.kind == SPS_SPMV_BLOCKWISE &&
               starts(c.why, "no model for an unknown GPU: rule: max_len>4*mean_len+8 -> blockwise"),
           "rule, a hub row: blockwise (%s)", c.why);
    int tpr = -1;
    sps_ok(sps_spmv_auto_choose(even40, SPS_DEVICE_CUDA, &tpr) == SPS_SPMV_CSR_VECTOR && tpr == 32,
           "sps_spmv_auto_choose keeps the rule's answer");
  } else {
    sps_skip("no CUDA in this build: the GPU rule is not reachable");
  }
  sps_spmv_select(hub, SPS_DEVICE_CPU, 0, &c);
  sps_ok(c.kind == SPS_SPMV_CSR_SCALAR && starts(c.why, "CPU: csr-scalar"), "CPU: csr-scalar (%s)",
         c.why);

  /* The generated model of the synthetic sweep: three leaves, reached by hand-made statistics. */
  sps_matrix_stats s;
  sps_matrix_get_stats(even5, &s);
  s.nnz = 50000;
  s.max_len = 12;
  sps_spmv_select_model(&s, gpu, sps_spmv_model_sm99, "sm99", &c);
  sps_ok(c.kind == SPS_SPMV_CSR_SCALAR && c.nranked == 4 &&
             strcmp(c.why, "model sm99: nnz<=2.75e+05, max_len<=2506 -> csr-scalar") == 0,
         "model sm99: short rows -> csr-scalar (%s)", c.why);
  s.max_len = 5000;
  sps_spmv_select_model(&s, gpu, sps_spmv_model_sm99, "sm99", &c);
  sps_ok(c.kind == SPS_SPMV_BLOCKWISE && strstr(c.why, "max_len>2506 -> blockwise") != NULL,
         "model sm99: a long row -> blockwise (%s)", c.why);
  s.nnz = 1000000;
  s.max_len = 120;
  sps_spmv_select_model(&s, gpu, sps_spmv_model_sm99, "sm99", &c);
  sps_ok(c.kind == SPS_SPMV_CSR_VECTOR && c.tpr == 32 && c.ranked[1].tpr == 16 &&
             strcmp(c.why, "model sm99: nnz>2.75e+05 -> csr-vector-32") == 0,
         "model sm99: many nonzeros -> csr-vector-32, then 16 (%s)", c.why);

  /* Fallback: ELL cannot hold the hub row (900 x 1000 padded > 3 x 3897), so the next ranked. */
  sps_matrix_get_stats(hub, &s);
  sps_spmv_select_model(&s, gpu, model_ell_merge, "test", &c);
  sps_ok(c.kind == SPS_SPMV_MERGE && strstr(c.why, "-> ell; ell's padding 900 x 1000 exceeds 3 x nnz, "
                                                   "so the next ranked: merge") != NULL,
         "ELL does not fit: the next ranked, merge (%s)", c.why);
  /* AUTO keeps csr-scalar's bits: never coo, hyb or cusparse, whatever a model says. */
  sps_spmv_select_model(&s, gpu, model_cusparse, "test", &c);
  /* (In a build without CUDA the reason is that cuSPARSE is not there at all.) */
  sps_ok(c.kind == SPS_SPMV_BLOCKWISE &&
             (strstr(c.why, "-> cusparse; cusparse does not round like csr-scalar, so the next "
                            "ranked: blockwise") != NULL ||
              (!sps_have_cuda() &&
               strstr(c.why, "-> cusparse; cusparse is not available on this device, so the "
                             "next ranked: blockwise") != NULL)),
         "cuSPARSE first: the next ranked, blockwise (%s)", c.why);
  sps_spmv_select_model(&s, gpu, model_ell, "test", &c);
  sps_ok(sps_have_cuda() ? c.kind == SPS_SPMV_BLOCKWISE &&
                              strstr(c.why, "no ranked one fits, so blockwise") != NULL
                        : c.kind == SPS_SPMV_CSR_SCALAR &&
                              strstr(c.why, "no ranked one fits, so csr-scalar") != NULL,
         "ELL alone does not fit: the rule's choice (%s)", c.why);
  sps_matrix_get_stats(even5, &s);
  sps_spmv_select_model(&s, gpu, model_ell, "test", &c);
  sps_ok(c.kind == SPS_SPMV_ELL && strcmp(c.why, "model test: (root) -> ell") == 0,
         "ELL fits even rows: kept (%s)", c.why);
  char why[128];
  sps_ok(!sps_spmv_config_fits(&(sps_matrix_stats){.rows = 10, .nnz = 10, .max_len = 4},
                               (sps_spmv_config){SPS_SPMV_ELL, 0}, why, sizeof why) &&
             sps_spmv_config_fits(&(sps_matrix_stats){.rows = 10, .nnz = 10, .max_len = 3},
                                  (sps_spmv_config){SPS_SPMV_ELL, 0}, why, sizeof why),
         "ELL fits up to 3 x nnz of padding exactly");
  /* Blockwise's grid limit: with short_blocks counted, exactly; with AUTO's statistics
   * (short_blocks -1), the bound of one block per short row. */
  const sps_spmv_config bw = {SPS_SPMV_BLOCKWISE, 0};
  sps_ok(sps_spmv_config_fits(&(sps_matrix_stats){.rows = INT32_MAX, .nnz = INT32_MAX,
                                                  .short_blocks = 1000, .long_blocks = 10,
                                                  .long_rows = 10},
                              bw, why, sizeof why) &&
             sps_spmv_config_fits(&(sps_matrix_stats){.rows = INT32_MAX, .nnz = INT32_MAX,
                                                      .short_blocks = -1, .long_blocks = 10,
                                                      .long_rows = 10},
                                  bw, why, sizeof why) &&
             !sps_spmv_config_fits(&(sps_matrix_stats){.rows = INT32_MAX, .nnz = INT32_MAX,
                                                       .short_blocks = -1, .long_blocks = 20,
                                                       .long_rows = 10},
                                   bw, why, sizeof why) &&
             strstr(why, "up to 2147483657 blocks") != NULL,
         "blockwise's grid limit, with and without short_blocks (%s)", why);
  /* AUTO's statistics leave short_blocks out (-1) and agree with the full ones otherwise. */
  {
    sps_matrix_stats full, fast;
    sps_matrix_get_stats(hub, &full);
    sps_spmv_stats_compute(hub, SPS_STATS_COLUMNS, &fast);
    sps_ok(full.short_blocks > 0 && fast.short_blocks == -1 &&
               fast.long_blocks == full.long_blocks && fast.long_rows == full.long_rows &&
               fast.var_len == full.var_len &&
               fast.windows_per_row == full.windows_per_row,
           "AUTO's statistics: short_blocks -1 (full: %lld), the rest as sps_matrix_get_stats",
           (long long)full.short_blocks);
  }

  /* A plan with AUTO records why; on the CPU it runs csr-scalar. */
  sps_spmv_plan *plan = NULL;
  sps_spmv_kind kind;
  int ok = sps_spmv_plan_create(ctx, &plan, hub, SPS_SPMV_AUTO) == SPS_SUCCESS &&
           sps_spmv_plan_setup(plan) == SPS_SUCCESS &&
           sps_spmv_plan_get_kind(plan, &kind, NULL) == SPS_SUCCESS;
  sps_ok(ok && kind == SPS_SPMV_CSR_SCALAR && starts(plan->choice.why, "CPU: csr-scalar"),
         "AUTO plan on the CPU: csr-scalar, why kept (%s)", plan ? plan->choice.why : "");
  sps_spmv_plan_destroy(&plan);

  sps_matrix_destroy(&even5);
  sps_matrix_destroy(&even40);
  sps_matrix_destroy(&hub);
  sps_context_destroy(&ctx);
  return sps_done();
}
