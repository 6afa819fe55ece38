/* spmv_bench.c: spmv-bench, the SpMV benchmark: every variant on every matrix, checked against the CPU reference, timed plainly and in a CUDA graph. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/csr_matvec.h"
#include "../core/internal.h"
#include "../spmv/spmv_internal.h"
#include "../spmv/threads_per_row.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#endif
#include "bench_util.h"
#include "spmv_measure.h"

#define MAX_RUNS 64

static const char usage[] =
    "usage: spmv-bench [options] [FILE.mtx[.gz] ...] [--gen SPEC ...]\n"
    "Times y = A*x for each matrix and each SpMV variant and compares with cuSPARSE.\n"
    "  --gen SPEC            a generated matrix: poisson2d:N, poisson3d:N, convdiff3d:N,\n"
    "                        powerlaw:N:alpha[:seed] (repeatable)\n"
    "  --variants a,b,c      variants to run (default: every one available on the device,\n"
    "                        then auto and tune; names as in `spsolve --spmv`)\n"
    "                        auto and tune rows time the variant as the library picks it\n"
    "                        (named auto(X), tune(X)); tune reads and writes the disk cache of\n"
    "                        SPSOLVE_CACHE_DIR (set it empty to tune on every run: setup_ms\n"
    "                        then includes the tuning)\n"
    "  --threads-per-row K   csr-vector threads per row (0 to choose, 1, 2, 4, 8, 16, 32), or\n"
    "                        'sweep' for 2 to 32 (default: chosen at setup)\n"
    "  --device cuda|cpu     where to run (default cuda); on the CPU the times are wall clock\n"
    "                        and there is no graph\n"
    "  --repeat N            timed runs per figure, the median is reported (default 10, CPU 5)\n"
    "  --batch K             applies per timed run and per graph (default 20, CPU 3)\n"
    "  --x ones|random       the vector x of the timed applies (default ones; random: uniform\n"
    "                        in [-1,1), --seed); each result is checked with a random x\n"
    "  --seed S              seed of the random x (default 1)\n"
    "  --auto-choice         time nothing: print, for each matrix, its row statistics and the\n"
    "                        variant the AUTO rule picks on a GPU (works without one)\n"
    "  --copy-mb M           size of the copy that measures the bandwidth (default 2048, CPU 256)\n"
    "  --tsv FILE            write the results as TSV (rewritten after every matrix)\n"
    "  --help                this text\n"
    "Exit status: 0 when every result was right, 1 when a variant gave a wrong result or a\n"
    "matrix could not be loaded or timed, 2 for bad usage.\n";

/* One variant to run: its kind and, for csr-vector, the threads per row (0 = choose). */
typedef struct run_spec {
  sps_spmv_kind kind;
  int tpr;
} run_spec;

typedef struct options {
  bench_common c; /* matrices, device, seed, TSV file, repeat and copy size as given */
  run_spec runs[MAX_RUNS];
  int nruns;
  int repeat, batch, x_random, auto_choice;
  size_t copy_bytes;
} options;

/* What one variant gave on one matrix. */
typedef struct result {
  char variant[64];
  sps_spmv_kind used; /* the variant that ran (AUTO resolved) */
  int tpr;
  char status[512];
  char choice[96]; /* auto and tune rows: who chose and at what cost; "-" for the others */
  int wrong;
  double check, setup_ms, plain_s, graph_s;
} result;

/* auto: "yes" on the row of the variant (and threads per row) that the AUTO rule picks for
 * the matrix on this device, "-" on the others. choice: on the auto and tune rows, who chose
 * (rule, tune, cache) and for tune the candidates timed and the seconds it took. */
static const char *const columns[] = {
    "matrix",       "variant",   "tpr",      "rows",      "cols",         "nnz",
    "bytes",        "check",     "setup_ms", "plain_us",  "graph_us",     "plain_GBs",
    "graph_GBs",    "plain_roof", "graph_roof", "speedup_plain", "speedup_graph", "auto",
    "choice",       "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))
/* The aligned table on stdout leaves out cols and bytes. */
static const int stdout_mask[NCOLS] = {1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static int add_runs(options *o, const char *list, const int *tprs, int ntpr)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    sps_spmv_kind k;
    if (sps_spmv_kind_from_name(tok, &k)) {
      fprintf(stderr, "spmv-bench: unknown variant '%s'\n", tok);
      return 1;
    }
    int n = k == SPS_SPMV_CSR_VECTOR ? ntpr : 1;
    for (int t = 0; t < n; t++) {
      if (o->nruns == MAX_RUNS) {
        fprintf(stderr, "spmv-bench: too many variants\n");
        return 1;
      }
      o->runs[o->nruns].kind = k;
      o->runs[o->nruns].tpr = k == SPS_SPMV_CSR_VECTOR ? tprs[t] : 0;
      o->nruns++;
    }
  }
  return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
  const char *variants = NULL, *tpr_arg = NULL;
  int batch = 0;
  memset(o, 0, sizeof *o);
  bench_common_init(&o->c);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, common;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if ((common = bench_common_parse(&o->c, argc, argv, &i, "spmv-bench")) != 0) {
      bad = common < 0;
    } else if (strcmp(a, "--auto-choice") == 0) {
      o->auto_choice = 1;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--variants") == 0) {
      variants = v, i++;
    } else if (strcmp(a, "--threads-per-row") == 0) {
      tpr_arg = v, i++;
    } else if (strcmp(a, "--batch") == 0) {
      bad = bench_parse_int(v, &batch), i++;
    } else if (strcmp(a, "--x") == 0) {
      bad = bench_parse_ones_random(v, &o->x_random), i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "spmv-bench: bad option or value: %s %s\n%s", a, v ? v : "", usage);
      return 1;
    }
  }
  if (o->c.ninputs == 0) {
    fprintf(stderr, "spmv-bench: no matrix given\n%s", usage);
    return 1;
  }
  int cpu = o->c.device == SPS_DEVICE_CPU;
  o->repeat = o->c.repeat ? o->c.repeat : cpu ? 5 : 10;
  o->batch = batch ? batch : cpu ? 3 : 20;
  o->copy_bytes = (size_t)(o->c.copy_mb ? o->c.copy_mb : cpu ? 256 : 2048) << 20;

  int tprs[5] = {0}, ntpr = 1;
  if (tpr_arg && strcmp(tpr_arg, "sweep") == 0) {
    for (ntpr = 0; ntpr < 5; ntpr++) tprs[ntpr] = 2 << ntpr;
  } else if (tpr_arg) {
    if (bench_parse_int(tpr_arg, &tprs[0]) || !sps_spmv_tpr_valid(tprs[0])) {
      fprintf(stderr, "spmv-bench: --threads-per-row takes " SPS_SPMV_TPR_LIST ", or sweep\n");
      return 1;
    }
  }
  if (variants) return add_runs(o, variants, tprs, ntpr);
  /* Default: every variant this build has on this device, then AUTO and TUNE (each runs one of
   * them as the library picks it, so the loss of the automatic choice shows). */
  for (int k = 0; k < SPS_SPMV_KIND_COUNT; k++)
    if (sps_spmv_kind_is_variant((sps_spmv_kind)k) &&
        sps_spmv_kind_available((sps_spmv_kind)k, o->c.device))
      if (add_runs(o, sps_spmv_kind_name((sps_spmv_kind)k), tprs, ntpr)) return 1;
  return add_runs(o, "auto,tune", tprs, ntpr);
}

/* Median seconds per apply over repeat runs of batch plain applies, after a warm-up. */
static sps_status time_plain(sps_spmv_plan *plan, const sps_vector *x, sps_vector *y,
                             bench_timer *t, int repeat, int batch, double *sec)
{
  double s[1024];
  if (repeat > 1024) repeat = 1024;
  for (int k = 0; k < (batch + 3) / 4 + 1; k++) SPS_CHECK(sps_spmv_apply(plan, 1.0, x, 0.0, y));
  for (int r = 0; r < repeat; r++) {
    SPS_CHECK(bench_timer_start(t));
    for (int k = 0; k < batch; k++) SPS_CHECK(sps_spmv_apply(plan, 1.0, x, 0.0, y));
    SPS_CHECK(bench_timer_stop(t, &s[r]));
    s[r] /= batch;
  }
  *sec = bench_median(s, repeat);
  return SPS_SUCCESS;
}

/*
 * Set up, check and time one variant on A; never fails the program, reports in r. The check
 * applies it to xc (random: a wrong column gathers a wrong value, which x = ones, summing rows
 * only, would not show) against yref and tol; the timing applies it to x.
 */
static void run_variant(sps_context *ctx, const options *o, const run_spec *rs, const sps_matrix *A,
                        const sps_vector *xc, const sps_vector *x, sps_vector *y,
                        const double *yref, const double *tol, double *yhost, bench_timer *t,
                        result *r)
{
  sps_spmv_plan *plan = NULL;
  int64_t m;
  sps_matrix_get_size(A, &m, NULL, NULL);
  memset(r, 0, sizeof *r);
  r->check = r->setup_ms = r->plain_s = r->graph_s = NAN;
  snprintf(r->variant, sizeof r->variant, "%s", sps_spmv_kind_name(rs->kind));
  r->used = rs->kind;
  r->tpr = rs->tpr;
  snprintf(r->status, sizeof r->status, "ok");
  snprintf(r->choice, sizeof r->choice, "-");

  sps_status st = sps_spmv_plan_create(ctx, &plan, A, rs->kind);
  if (!st && rs->tpr) st = sps_spmv_plan_set_threads_per_row(plan, rs->tpr);
  if (!st) {
    SPS_TRY(sps_context_synchronize(ctx));
    double t0 = sps_wtime();
    st = sps_spmv_plan_setup(plan);
    if (!st) st = sps_context_synchronize(ctx);
    r->setup_ms = 1e3 * (sps_wtime() - t0);
  }
  if (st) {
    snprintf(r->status, sizeof r->status, "%s: %s",
             st == SPS_ERR_UNSUPPORTED ? "refused" : sps_status_name(st),
             sps_context_last_error(ctx));
    r->wrong = st != SPS_ERR_UNSUPPORTED;
    st = SPS_SUCCESS;
    goto cleanup;
  }
  sps_spmv_kind used;
  sps_spmv_plan_get_kind(plan, &used, &r->tpr);
  r->used = used;
  if (!sps_spmv_kind_is_variant(rs->kind)) {
    sps_spmv_choice_info ci;
    sps_spmv_plan_get_choice(plan, &ci);
    snprintf(r->variant, sizeof r->variant, "%s(%s)", sps_spmv_kind_name(rs->kind),
             sps_spmv_kind_name(used));
    if (ci.source == SPS_SPMV_SOURCE_TUNE)
      snprintf(r->choice, sizeof r->choice, "tune: %d timed in %.3f s", ci.timed, ci.tune_seconds);
    else
      snprintf(r->choice, sizeof r->choice, "%s", sps_spmv_source_name(ci.source));
  }
  if (used != SPS_SPMV_CSR_VECTOR && r->tpr <= 1) r->tpr = 0;

  /* Check before timing: y starts as NaN, so a row the variant skips is caught. */
  SPS_TRY(sps_vector_fill(y, NAN));
  SPS_TRY(sps_spmv_apply(plan, 1.0, xc, 0.0, y));
  SPS_TRY(sps_vector_download(y, yhost, m));
  int64_t first;
  int64_t bad = bench_spmv_compare(m, yhost, yref, tol, &r->check, &first);
  if (bad) {
    snprintf(r->status, sizeof r->status,
             "WRONG: %lld rows differ from the CPU reference, first row %lld: %.17g, expected %.17g",
             (long long)bad, (long long)first, yhost[first], yref[first]);
    r->wrong = 1;
    goto cleanup;
  }
  SPS_TRY(time_plain(plan, x, y, t, o->repeat, o->batch, &r->plain_s));
#ifdef SPS_HAVE_CUDA
  if (o->c.device == SPS_DEVICE_CUDA) {
    char msg[512];
    if (bench_spmv_time_graph(ctx, plan, x, y, t, o->repeat, o->batch, &r->graph_s, msg,
                              sizeof msg)) {
      snprintf(r->status, sizeof r->status, "%s", msg);
      r->wrong = 1;
    }
  }
#endif
cleanup:
  if (st) {
    snprintf(r->status, sizeof r->status, "%s: %s", sps_status_name(st),
             sps_context_last_error(ctx));
    r->wrong = 1;
  }
  sps_spmv_plan_destroy(&plan);
}

static void write_tsv(const options *o, const bench_table *tab, const char *header)
{
  FILE *f = fopen(o->c.tsv, "w");
  if (!f) {
    fprintf(stderr, "spmv-bench: cannot write %s\n", o->c.tsv);
    return;
  }
  fputs(header, f);
  bench_table_write_tsv(tab, f);
  fclose(f);
}

/*
 * --auto-choice: each matrix's row statistics and the variant that the AUTO rule
 * (sps_spmv_auto_choose, spmv/plan.c) picks on a GPU, read on the CPU; with --tsv also as a
 * TSV, the file that ties a spmv-bench run without an auto column to what the library runs.
 */
static int auto_choice(const options *o, int argc, char **argv)
{
  static const char *const cols[] = {"matrix", "rows", "nnz", "mean_len", "max_len", "variant",
                                     "tpr"};
  sps_context *ctx = NULL;
  char err[1024], date[64];
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) {
    fprintf(stderr, "spmv-bench: cannot create a CPU context: %s\n", sps_context_create_error());
    return 1;
  }
  bench_date(date, sizeof date);
  bench_table *tab = bench_table_create(7, cols);
  int failed = !tab;
  for (int mi = 0; tab && mi < o->c.ninputs; mi++) {
    char name[256], c[6][64];
    sps_matrix *A = NULL;
    if (bench_load_matrix(ctx, &o->c.inputs[mi], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "spmv-bench: %s: cannot load: %s\n", o->c.inputs[mi].spec, err);
      failed = 1;
      continue;
    }
    int64_t m, nnz;
    sps_matrix_get_size(A, &m, NULL, &nnz);
    sps_spmv_row_stats rs;
    sps_spmv_row_stats_compute(A, &rs);
    int tpr = 0;
    const sps_spmv_kind k = sps_spmv_auto_choose(A, SPS_DEVICE_CUDA, &tpr);
    if (k != SPS_SPMV_CSR_VECTOR) tpr = 0;
    snprintf(c[0], 64, "%lld", (long long)m);
    snprintf(c[1], 64, "%lld", (long long)nnz);
    snprintf(c[2], 64, "%.3f", rs.mean);
    snprintf(c[3], 64, "%lld", (long long)rs.max_len);
    snprintf(c[4], 64, "%s", sps_spmv_kind_name(k));
    snprintf(c[5], 64, "%d", tpr);
    const char *cells[7] = {name, c[0], c[1], c[2], c[3], c[4], c[5]};
    bench_table_add(tab, cells);
    sps_matrix_destroy(&A);
  }
  if (tab) {
    bench_table_print(tab, stdout, NULL);
    FILE *f = o->c.tsv ? fopen(o->c.tsv, "w") : NULL;
    if (o->c.tsv && !f) {
      fprintf(stderr, "spmv-bench: cannot write %s\n", o->c.tsv);
      failed = 1;
    } else if (f) {
      fprintf(f, "# spmv-bench --auto-choice (spsolve %s)\n# date: %s\n# command:", sps_version(),
              date);
      for (int i = 1; i < argc; i++) fprintf(f, " %s", argv[i]);
      fprintf(f, "\n# variant, tpr: what sps_spmv_auto_choose picks on a CUDA device from "
                 "mean_len = nnz/rows and max_len (the longest row)\n");
      bench_table_write_tsv(tab, f);
      fclose(f);
    }
  }
  bench_table_destroy(&tab);
  sps_context_destroy(&ctx);
  return failed;
}

int main(int argc, char **argv)
{
  options o;
  if (parse_options(argc, argv, &o)) return 2;
  if (o.auto_choice) return auto_choice(&o, argc, argv);

  sps_context *ctx = NULL;
  char dev[256], date[64], err[1024];
  double bw;
  size_t copy_used;
  if (bench_open("spmv-bench", o.c.device, o.copy_bytes, o.repeat, &ctx, dev, sizeof dev, date,
                 sizeof date, &bw, &copy_used))
    return 1;
  int cuda = o.c.device == SPS_DEVICE_CUDA;
  char header[4096];
  int hl = snprintf(header, sizeof header,
                    "# spmv-bench (spsolve %s)\n# device: %s\n# date: %s\n# command:", sps_version(),
                    dev, date);
  for (int i = 1; i < argc && hl < (int)sizeof header - 256; i++)
    hl += snprintf(header + hl, sizeof header - (size_t)hl, " %s", argv[i]);
  snprintf(header + hl, sizeof header - (size_t)hl,
           "\n# copy_bandwidth_GBs: %.1f (%s copy of %zu MiB, bytes read + written, median of %d)\n"
           "# bytes: 12*nnz + 4*(m+1) + 8*n + 8*m per SpMV as in GPU.md (int32 row offsets; "
           "spsolve stores int64 offsets, 4*(m+1) bytes more)\n"
           "# timing: median of %d runs of %d back-to-back applies after a warm-up (%s); %s\n"
           "# x: %s (timed applies); check: with x uniform random in [-1,1) (seed %llu), max "
           "over rows of |y - y_ref| / ((2*len+4)*eps*sum_j |a_ij*x_j|), y_ref by the plain "
           "CPU row loop\n"
           "# speedup: time of cusparse / time of the variant, same run\n"
           "# auto: yes on the row of the variant the AUTO rule picks on this device\n"
           "# auto(X), tune(X): the variant X as the library picks it with spmv=auto and "
           "spmv=tune (choice: who chose; tune's setup_ms includes the tuning unless the disk "
           "cache answered)\n",
           1e-9 * bw, cuda ? "device-to-device cudaMemcpyAsync" : "host memcpy",
           copy_used >> 20, o.repeat, o.repeat, o.batch, cuda ? "CUDA events" : "wall clock",
           cuda ? "graph: the same applies captured in one CUDA graph on the context's stream, replayed"
                : "no graph on the CPU",
           o.x_random ? "uniform random in [-1,1)" : "ones", (unsigned long long)o.c.seed);
  fprintf(stderr, "spmv-bench: %s, copy bandwidth %.1f GB/s, %d variant runs per matrix\n", dev,
          1e-9 * bw, o.nruns);

  bench_table *tab = bench_table_create(NCOLS, columns);
  bench_timer *t = NULL;
  if (!tab || bench_timer_create(ctx, &t)) {
    fprintf(stderr, "spmv-bench: out of memory\n");
    return 1;
  }
  int failed = 0;
  for (int mi = 0; mi < o.c.ninputs; mi++) {
    char name[256];
    sps_matrix *A = NULL;
    sps_vector *x = NULL, *xc = NULL, *y = NULL;
    double *xh = NULL, *yref = NULL, *tol = NULL, *yh = NULL;
    result res[MAX_RUNS];
    double t0 = sps_wtime();
    if (bench_load_matrix(ctx, &o.c.inputs[mi], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "spmv-bench: [%d/%d] %s: cannot load: %s\n", mi + 1, o.c.ninputs,
              o.c.inputs[mi].spec, err);
      failed = 1;
      continue;
    }
    int64_t m, n, nnz;
    sps_matrix_get_size(A, &m, &n, &nnz);
    fprintf(stderr, "spmv-bench: [%d/%d] %s: %lld x %lld, %lld nonzeros, loaded in %.2f s\n",
            mi + 1, o.c.ninputs, name, (long long)m, (long long)n, (long long)nnz,
            sps_wtime() - t0);
    xh = malloc((size_t)(n ? n : 1) * sizeof *xh);
    yref = malloc((size_t)(m ? m : 1) * sizeof *yref);
    tol = malloc((size_t)(m ? m : 1) * sizeof *tol);
    yh = malloc((size_t)(m ? m : 1) * sizeof *yh);
    if (!xh || !yref || !tol || !yh || sps_vector_create(ctx, &x, n) ||
        sps_vector_create(ctx, &xc, n) || sps_vector_create(ctx, &y, m)) {
      fprintf(stderr, "spmv-bench: %s: out of memory for the vectors\n", name);
      failed = 1;
      goto next;
    }
    /* The check's random x (and the reference with it), then the timed x. */
    uint64_t rng = o.c.seed;
    for (int64_t j = 0; j < n; j++) xh[j] = sps_splitmix64_sym(&rng);
    bench_spmv_reference(A, xh, yref, tol);
    int up = sps_vector_upload(xc, xh, n);
    if (!o.x_random)
      for (int64_t j = 0; j < n; j++) xh[j] = 1.0;
    if (up || sps_vector_upload(x, xh, n)) {
      fprintf(stderr, "spmv-bench: %s: %s\n", name, sps_context_last_error(ctx));
      failed = 1;
      goto next;
    }
    /* The variant the library would run on this matrix (AUTO), marked in the auto column. */
    int auto_tpr = 0;
    const sps_spmv_kind auto_kind = sps_spmv_auto_choose(A, o.c.device, &auto_tpr);

    for (int k = 0; k < o.nruns; k++) {
      run_variant(ctx, &o, &o.runs[k], A, xc, x, y, yref, tol, yh, t, &res[k]);
      failed |= res[k].wrong;
      fprintf(stderr, "spmv-bench:   %-12s tpr %2d  plain %10.2f us  graph %10.2f us  %s\n",
              res[k].variant, res[k].tpr, 1e6 * res[k].plain_s, 1e6 * res[k].graph_s,
              res[k].status);
    }
    /* The speedups over cuSPARSE in this run, when it ran. */
    double ref_plain = NAN, ref_graph = NAN;
    for (int k = 0; k < o.nruns; k++)
      if (o.runs[k].kind == SPS_SPMV_CUSPARSE && strcmp(res[k].status, "ok") == 0) {
        ref_plain = res[k].plain_s;
        ref_graph = res[k].graph_s;
      }
    double bytes = bench_spmv_bytes(m, n, nnz);
    for (int k = 0; k < o.nruns; k++) {
      const result *r = &res[k];
      char c[NCOLS][64];
      const char *cells[NCOLS];
      snprintf(c[2], 64, "%d", r->tpr);
      snprintf(c[3], 64, "%lld", (long long)m);
      snprintf(c[4], 64, "%lld", (long long)n);
      snprintf(c[5], 64, "%lld", (long long)nnz);
      snprintf(c[6], 64, "%.0f", bytes);
      bench_fmt(c[7], 64, "%.3f", r->check);
      bench_fmt(c[8], 64, "%.3f", r->setup_ms);
      bench_fmt(c[9], 64, "%.2f", 1e6 * r->plain_s);
      bench_fmt(c[10], 64, "%.2f", 1e6 * r->graph_s);
      bench_fmt(c[11], 64, "%.1f", 1e-9 * bytes / r->plain_s);
      bench_fmt(c[12], 64, "%.1f", 1e-9 * bytes / r->graph_s);
      bench_fmt(c[13], 64, "%.3f", bytes / r->plain_s / bw);
      bench_fmt(c[14], 64, "%.3f", bytes / r->graph_s / bw);
      bench_fmt(c[15], 64, "%.3f", ref_plain / r->plain_s);
      bench_fmt(c[16], 64, "%.3f", ref_graph / r->graph_s);
      const int is_auto =
          r->used == auto_kind && (auto_kind != SPS_SPMV_CSR_VECTOR || r->tpr == auto_tpr);
      snprintf(c[17], 64, "%s", is_auto ? "yes" : "-");
      snprintf(c[18], 64, "%.63s", r->choice);
      for (int j = 2; j < NCOLS - 1; j++) cells[j] = c[j];
      cells[0] = name;
      cells[1] = r->variant;
      cells[NCOLS - 1] = r->status;
      bench_table_add(tab, cells);
    }
    if (o.c.tsv) write_tsv(&o, tab, header);
  next:
    free(xh);
    free(yref);
    free(tol);
    free(yh);
    sps_vector_destroy(&x);
    sps_vector_destroy(&xc);
    sps_vector_destroy(&y);
    sps_matrix_destroy(&A);
  }
  printf("# %s, %s, copy bandwidth %.1f GB/s\n", dev, date, 1e-9 * bw);
  bench_table_print(tab, stdout, stdout_mask);
  if (o.c.tsv) write_tsv(&o, tab, header);
  bench_table_destroy(&tab);
  bench_timer_destroy(&t);
  sps_context_destroy(&ctx);
  return failed;
}
