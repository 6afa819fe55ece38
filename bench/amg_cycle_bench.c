/* amg_cycle_bench.c: amg-cycle-bench, where the multigrid preconditioner's time goes: the setup by phase and by level, and the cycle's cost taken apart level by level (each level's products and a vector operation timed alone) beside the whole cycle launched plainly and from a CUDA graph. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../precond/amg.h"
#include "../spmv/spmv_internal.h"
#include "bench_util.h"
#ifdef SPS_HAVE_CUDA
#include "bench_cuda.h"
#endif

static const char usage[] =
    "usage: amg-cycle-bench [options] FILE.mtx[.gz] | --gen SPEC ...\n"
    "For each matrix: the algebraic multigrid preconditioner of A set up on the device (the\n"
    "library's defaults, changed by --param), its setup time by phase and by level (the\n"
    "library's own clocks, sps_precond_info), then per level the time of one product with\n"
    "A_l, R_l and P_l through the level's SpMV plans and of one axpy of the level's length, and\n"
    "the time of one whole cycle (sps_precond_apply), launched plainly and (CUDA) replayed from\n"
    "a CUDA graph; each the median of --repeat timings after a warm-up. The model column adds\n"
    "the level's share of a V-cycle from those parts (Chebyshev of degree d: 2d products with\n"
    "A_l and 2d + 2 vector passes a level, each priced as an axpy, the fused Chebyshev updates\n"
    "included; one product with R_l and one with P_l; the coarsest level one product with its\n"
    "dense inverse, or two smoothings without one), so the plain cycle over the model's sum\n"
    "shows what the parts leave out. A's SpMV plan is made and timed first and handed to the\n"
    "setup, as a solver does (plan_ms).\n"
    "  --param NAME=VALUE  a preconditioner parameter (sps_precond_params_set names: amg.*)\n"
    "  --device cuda|cpu   (default cuda)\n"
    "  --repeat N          timings of each part (default 20)\n"
    "  --tsv FILE          the per-level table as TSV\n"
    "  --help              this text\n"
    "Exit status: 0 when every matrix ran, 1 otherwise, 2 for bad usage.\n";

static const char *const columns[] = {"matrix", "level", "rows", "nnz", "spmv_A", "tpr_A",
                                      "A_us", "R_us", "P_us", "axpy_us", "model_us",
                                      "setup_ms"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))

typedef enum { OP_A, OP_R, OP_P, OP_AXPY, OP_APPLY } op_kind;

typedef struct op_arg {
  op_kind kind;
  sps_precond *pc;
  amg_level *L, *C;
  double *r, *z;
} op_arg;

static sps_status issue(const op_arg *o)
{
  sps_context *ctx = o->pc->ctx;
  switch (o->kind) {
  case OP_A:
    return sps_spmv_apply_raw(o->L->Aplan, 1.0, o->L->e, 0.0, o->L->t);
  case OP_R:
    return sps_spmv_apply_raw(o->L->Rplan, 1.0, o->L->r, 0.0, o->C->b);
  case OP_P:
    return sps_spmv_apply_raw(o->L->Pplan, 1.0, o->C->x, 1.0, o->L->t);
  case OP_AXPY:
    return ctx->be->axpy(ctx, o->L->n, 0.5, o->L->e, o->L->t);
  default:
    return sps_precond_apply(o->pc, o->r, o->z);
  }
}

/* Median seconds of one issue of o over `repeat` timings of `inner` issues each. */
static double time_op(sps_context *ctx, const op_arg *o, int repeat, int inner)
{
  bench_timer *t = NULL;
  double *s = calloc((size_t)repeat, sizeof *s), med = NAN;
  if (!s || bench_timer_create(ctx, &t)) goto out;
  for (int k = 0; k < 2; k++)
    if (issue(o)) goto out;
  for (int r = 0; r < repeat; r++) {
    if (bench_timer_start(t)) goto out;
    for (int k = 0; k < inner; k++)
      if (issue(o)) goto out;
    if (bench_timer_stop(t, &s[r])) goto out;
    s[r] /= inner;
  }
  med = bench_median(s, repeat);
out:
  bench_timer_destroy(&t);
  free(s);
  return med;
}

#ifdef SPS_HAVE_CUDA
/* The whole cycle captured once in a CUDA graph and replayed: median microseconds. */
static double time_apply_graph(sps_context *ctx, const op_arg *o, int repeat)
{
  cudaStream_t stream = sps_cuda(ctx)->stream;
  cudaGraph_t g = NULL;
  cudaGraphExec_t exec = NULL;
  cudaEvent_t a = NULL, b = NULL;
  double *s = calloc((size_t)repeat, sizeof *s), med = NAN;
  if (!s || cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess) goto out;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) goto out;
  const sps_status st = issue(o);
  if (cudaStreamEndCapture(stream, &g) != cudaSuccess || st) goto out;
  if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) goto out;
  cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  for (int r = 0; r < repeat; r++) {
    float ms = 0.0f;
    cudaEventRecord(a, stream);
    cudaGraphLaunch(exec, stream);
    cudaEventRecord(b, stream);
    if (cudaEventSynchronize(b) != cudaSuccess) goto out;
    cudaEventElapsedTime(&ms, a, b);
    s[r] = 1e3 * ms;
  }
  med = bench_median(s, repeat);
out:
  cudaGetLastError();
  if (exec) cudaGraphExecDestroy(exec);
  if (g) cudaGraphDestroy(g);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  free(s);
  return med;
}
#endif

int main(int argc, char **argv)
{
  bench_common c;
  bench_common_init(&c);
  c.repeat = 20;
  const char *params[64];
  int nparams = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--param") && i + 1 < argc && nparams < 64) {
      params[nparams++] = argv[++i];
      continue;
    }
    const int rc = bench_common_parse(&c, argc, argv, &i, "amg-cycle-bench");
    if (rc != 1) {
      if (rc == 0) fprintf(stderr, "amg-cycle-bench: unknown option %s\n", argv[i]);
      fputs(usage, stderr);
      return 2;
    }
  }
  if (c.ninputs == 0) {
    fputs(usage, stderr);
    return 2;
  }
  sps_context *ctx = NULL;
  char dev[256], date[64];
  double bw = 0.0;
  size_t used = 0;
  if (bench_open("amg-cycle-bench", c.device, (size_t)64 << 20, 5, &ctx, dev, sizeof dev, date,
                 sizeof date, &bw, &used))
    return 1;
  sps_precond_params prm;
  sps_precond_params_default(&prm);
  for (int k = 0; k < nparams; k++) {
    char name[128];
    const char *eq = strchr(params[k], '=');
    double v;
    if (!eq || (size_t)(eq - params[k]) >= sizeof name || bench_parse_double_signed(eq + 1, &v)) {
      fprintf(stderr, "amg-cycle-bench: --param %s: NAME=VALUE expected\n", params[k]);
      return 2;
    }
    memcpy(name, params[k], (size_t)(eq - params[k]));
    name[eq - params[k]] = '\0';
    if (sps_precond_params_set(ctx, &prm, name, v)) {
      fprintf(stderr, "amg-cycle-bench: --param %s: %s\n", params[k], sps_context_last_error(ctx));
      return 2;
    }
  }
  printf("# amg-cycle-bench, %s, %s; copy bandwidth %.1f GB/s; params:", dev, date, bw / 1e9);
  for (int k = 0; k < nparams; k++)
    printf(" %s", params[k]);
  printf("%s\n", nparams ? "" : " (defaults)");
  bench_table *tab = bench_table_create(NCOLS, columns);
  int failed = 0;
  for (int in = 0; in < c.ninputs; in++) {
    sps_matrix *A = NULL;
    sps_precond *pc = NULL;
    sps_spmv_plan *plan = NULL;
    double *r = NULL, *z = NULL;
    char name[256], err[512];
    if (bench_load_matrix(ctx, &c.inputs[in], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "amg-cycle-bench: %s\n", err);
      failed = 1;
      continue;
    }
    const int64_t n = A->nrows;
    const double tp = sps_wtime();
    if (sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_AUTO) || sps_spmv_plan_setup(plan) ||
        ctx->be->synchronize(ctx)) {
      fprintf(stderr, "amg-cycle-bench: %s: plan: %s\n", name, sps_context_last_error(ctx));
      failed = 1;
      goto next;
    }
    const double plan_s = sps_wtime() - tp;
    const double t0 = sps_wtime();
    if (sps_precond_create(ctx, &pc, SPS_PRECOND_AMG, &prm) ||
        sps_precond_setup(pc, A, 1.0, plan) || ctx->be->synchronize(ctx)) {
      fprintf(stderr, "amg-cycle-bench: %s: setup: %s\n", name, sps_context_last_error(ctx));
      failed = 1;
      goto next;
    }
    const double setup = sps_wtime() - t0;
    const sps_precond_info *pi = &pc->info;
    amg_data *d = pc->data;
    printf("# %s: %lld rows, %lld entries; A's SpMV plan (%s) %.2f ms; AMG setup %.2f ms (wall);"
           " %d levels, operator complexity %.3f; by phase (ms):",
           name, (long long)n, (long long)A->nnz, sps_spmv_kind_name(plan->kind), 1e3 * plan_s,
           1e3 * setup, d->nlevels,
           pi->amg_operator_complexity);
    for (int k = 0; k < SPS_AMG_SETUP_PHASES; k++)
      printf(" %s %.2f", sps_amg_setup_phase_name(k), 1e3 * pi->amg_setup_seconds[k]);
    printf("\n");
    if (ctx->be->malloc(ctx, (void **)&r, (size_t)n * sizeof *r, "r") ||
        ctx->be->malloc(ctx, (void **)&z, (size_t)n * sizeof *z, "z") ||
        ctx->be->fill(ctx, n, 1.0, r)) {
      failed = 1;
      goto next;
    }
    double model_sum = 0.0;
    const int deg = d->smoother == AMG_SMOOTHER_CHEBY ? d->degree : 1;
    for (int l = 0; l < d->nlevels; l++) {
      amg_level *L = &d->lv[l];
      const int last = l == d->nlevels - 1;
      op_arg o = {OP_A, pc, L, last ? NULL : &d->lv[l + 1], r, z};
      ctx->be->fill(ctx, L->n, 1.0, L->e);
      ctx->be->fill(ctx, L->n, 1.0, L->r);
      if (!last) ctx->be->fill(ctx, d->lv[l + 1].n, 1.0, d->lv[l + 1].x);
      const int inner = L->n > 100000 ? 5 : 50;
      const double tA = time_op(ctx, &o, c.repeat, inner);
      o.kind = OP_AXPY;
      const double tv = time_op(ctx, &o, c.repeat, inner);
      double tR = NAN, tP = NAN, tinv = 0.0, model;
      if (!last) {
        o.kind = OP_R;
        tR = time_op(ctx, &o, c.repeat, inner);
        o.kind = OP_P;
        tP = time_op(ctx, &o, c.repeat, inner);
        model = 2 * deg * tA + (2 * deg + 2) * tv + tR + tP;
      } else if (L->Ainvplan) {
        op_arg oi = o;
        oi.kind = OP_A;
        amg_level Li = *L;
        Li.Aplan = L->Ainvplan;
        oi.L = &Li;
        tinv = time_op(ctx, &oi, c.repeat, inner);
        model = tinv;
      } else
        model = 2 * deg * tA + (2 * deg + 2) * tv;
      model_sum += model;
      char cells[NCOLS][300];
      const char *row[NCOLS];
      snprintf(cells[0], 300, "%s", name);
      snprintf(cells[1], 64, "%d", l);
      snprintf(cells[2], 64, "%lld", (long long)L->n);
      snprintf(cells[3], 64, "%lld", (long long)L->nnz);
      snprintf(cells[4], 64, "%s", L->Aplan ? sps_spmv_kind_name(L->Aplan->kind) : "-");
      snprintf(cells[5], 64, "%d", L->Aplan ? L->Aplan->threads_per_row : 0);
      bench_fmt(cells[6], 64, "%.2f", 1e6 * tA);
      bench_fmt(cells[7], 64, "%.2f", 1e6 * tR);
      bench_fmt(cells[8], 64, "%.2f", 1e6 * tP);
      bench_fmt(cells[9], 64, "%.2f", 1e6 * tv);
      bench_fmt(cells[10], 64, "%.2f", 1e6 * model);
      bench_fmt(cells[11], 64, "%.2f", 1e3 * pi->amg_level_seconds[l]);
      for (int k = 0; k < NCOLS; k++)
        row[k] = cells[k];
      bench_table_add(tab, row);
      if (last && L->Ainvplan)
        printf("# %s: coarsest level %d: dense inverse product %.2f us\n", name, l, 1e6 * tinv);
    }
    {
      op_arg o = {OP_APPLY, pc, NULL, NULL, r, z};
      const double plain = time_op(ctx, &o, c.repeat, 3);
      double graph = NAN;
#ifdef SPS_HAVE_CUDA
      if (ctx->kind == SPS_DEVICE_CUDA) graph = time_apply_graph(ctx, &o, c.repeat);
#endif
      printf("# %s: one cycle: plain %.2f us, graph %.2f us; the model's sum %.2f us (plain over "
             "model %.2f); one fine-level product %.2f us\n",
             name, 1e6 * plain, graph, 1e6 * model_sum, plain / model_sum,
             1e6 * time_op(ctx, &(op_arg){OP_A, pc, &d->lv[0], NULL, r, z}, c.repeat, 5));
    }
  next:
    if (r) ctx->be->free(ctx, r);
    if (z) ctx->be->free(ctx, z);
    sps_precond_destroy(&pc);
    sps_spmv_plan_destroy(&plan);
    sps_matrix_destroy(&A);
  }
  bench_table_print(tab, stdout, NULL);
  if (c.tsv) {
    FILE *f = fopen(c.tsv, "w");
    if (f) {
      fprintf(f, "# amg-cycle-bench, %s, %s\n", dev, date);
      bench_table_write_tsv(tab, f);
      fclose(f);
    } else
      failed = 1;
  }
  bench_table_destroy(&tab);
  sps_context_destroy(&ctx);
  return failed;
}
