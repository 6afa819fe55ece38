/* select_sweep.c: select-sweep, the data of the SpMV choice: for each matrix of a spec list, its statistics (sps_matrix_stats) and the checked, timed time of every candidate configuration, one TSV row per matrix. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/internal.h"
#include "../spmv/spmv_internal.h"
#include "bench_util.h"
#include "gen.h"
#include "spmv_measure.h"

static const char usage[] =
    "usage: select-sweep [options] [SPEC ...]\n"
    "For each matrix: its statistics (sps_matrix_get_stats) and the time of every candidate SpMV\n"
    "configuration, each checked against the CPU reference with a random x; one TSV row per\n"
    "matrix, written as soon as it is measured.\n"
    "  SPEC                 mtx:NAME (NAME.mtx.gz or NAME.mtx in the matrix folder), a generator\n"
    "                       specification of spmv-bench --gen (see bench/gen.h), or\n"
    "                       slice:A:B:SPEC, rows [A, B) of the matrix of SPEC\n"
    "  --list FILE          read specs from FILE (one per line, '#' starts a comment)\n"
    "  --matrices DIR       the folder of mtx: specs (default: $SPS_MATRICES)\n"
    "  --only SET           only the specs of SET: train, holdout or shared (the mtx: specs;\n"
    "                       the others are holdout when FNV-1a(spec) %% 5 == 0, else train)\n"
    "  --start K            skip the first K specs (after --only; default 0)\n"
    "  --count N            at most N specs (default all)\n"
    "  --device cuda|cpu    where to run (default cuda); on the CPU the times are wall clock\n"
    "  --repeat N           timed batches per configuration, the median is kept (default 7)\n"
    "  --target-ms T        time aimed at per configuration, which sizes the batch (default 20)\n"
    "  --seed S             seed of the check's random x (default 1)\n"
    "  --tsv FILE           the TSV (default: stdout)\n"
    "  --stats-only         generate or load and compute the statistics, time nothing (the cost\n"
    "                       of the matrices themselves; works without a GPU)\n"
    "  --list-specs         print the selected specs with their set and exit\n"
    "  --help               this text\n"
    "Exit status: 0 when every matrix loaded and every configuration that ran was right, 1 when a\n"
    "matrix could not be made or a configuration gave a wrong result (recorded in its row), 2 for\n"
    "bad usage.\n";

/* The candidate configurations, in the order of the TSV's time columns. */
typedef struct config {
  const char *name;
  sps_spmv_kind kind;
  int tpr;
} config;

static const config configs[] = {
    {"csr-scalar", SPS_SPMV_CSR_SCALAR, 0}, {"csr-vector-2", SPS_SPMV_CSR_VECTOR, 2},
    {"csr-vector-4", SPS_SPMV_CSR_VECTOR, 4}, {"csr-vector-8", SPS_SPMV_CSR_VECTOR, 8},
    {"csr-vector-16", SPS_SPMV_CSR_VECTOR, 16}, {"csr-vector-32", SPS_SPMV_CSR_VECTOR, 32},
    {"ell", SPS_SPMV_ELL, 0}, {"coo", SPS_SPMV_COO, 0}, {"hyb", SPS_SPMV_HYB, 0},
    {"merge", SPS_SPMV_MERGE, 0}, {"blockwise", SPS_SPMV_BLOCKWISE, 0},
    {"binned", SPS_SPMV_BINNED, 0}, {"cusparse", SPS_SPMV_CUSPARSE, 0}};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

/* The statistics columns: exactly the fields of sps_matrix_stats, in its order. */
static const char *const stat_columns[] = {
    "rows",         "cols",         "nnz",          "density",        "mean_len",
    "min_len",      "max_len",      "var_len",      "cv_len",         "empty_share",
    "over32_share", "over1024_share", "short_blocks", "long_blocks",  "long_rows",
    "col_distance", "windows_per_row", "stats_s"};
#define NSTATS ((int)(sizeof stat_columns / sizeof stat_columns[0]))

typedef struct options {
  const char *list, *matrices, *only, *tsv;
  const char **specs;
  int nspecs, cap;
  int start, count, repeat, stats_only, list_specs;
  double target_s;
  sps_device_kind device;
  uint64_t seed;
} options;

/* A loaded Matrix Market file kept on a CPU context, for its slices and its full run. */
typedef struct mtx_cache {
  char name[256];
  sps_matrix *A;
} mtx_cache;

#define MAX_CACHE 64

static uint64_t fnv1a64(const char *s)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* The set of a spec: shared (the mtx: matrices), holdout (one in five by hash) or train. */
static const char *spec_set(const char *spec)
{
  if (strncmp(spec, "mtx:", 4) == 0) return "shared";
  return fnv1a64(spec) % 5 == 0 ? "holdout" : "train";
}

/* The family: the generator's name, "mtx" or "slice". */
static void spec_family(const char *spec, char *buf, size_t len)
{
  size_t k = strcspn(spec, ":");
  snprintf(buf, len, "%.*s", (int)(k < len ? k : len - 1), spec);
}

/* Append a copy of spec s (freed by free_specs). */
static int add_spec(options *o, const char *s)
{
  char *copy = strdup(s);
  if (!copy) return 1;
  if (o->nspecs == o->cap) {
    int cap = o->cap ? 2 * o->cap : 256;
    const char **p = realloc(o->specs, (size_t)cap * sizeof *p);
    if (!p) {
      free(copy);
      return 1;
    }
    o->specs = p;
    o->cap = cap;
  }
  o->specs[o->nspecs++] = copy;
  return 0;
}

static void free_specs(options *o)
{
  for (int k = 0; k < o->nspecs; k++)
    free((char *)o->specs[k]);
  free(o->specs);
  o->specs = NULL;
  o->nspecs = o->cap = 0;
}

static int read_list(options *o, const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "select-sweep: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    char *b = line + strspn(line, " \t\r\n");
    size_t l = strcspn(b, " \t\r\n");
    b[l] = '\0';
    if (!*b) continue;
    if (add_spec(o, b)) {
      fclose(f);
      return 1;
    }
  }
  fclose(f);
  return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
  memset(o, 0, sizeof *o);
  o->device = SPS_DEVICE_CUDA;
  o->repeat = 7;
  o->target_s = 0.02;
  o->count = -1;
  o->seed = 1;
  o->matrices = getenv("SPS_MATRICES");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, n;
    double d;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if (a[0] != '-') {
      bad = add_spec(o, a);
    } else if (strcmp(a, "--stats-only") == 0) {
      o->stats_only = 1;
    } else if (strcmp(a, "--list-specs") == 0) {
      o->list_specs = 1;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--list") == 0) {
      o->list = v, i++;
    } else if (strcmp(a, "--matrices") == 0) {
      o->matrices = v, i++;
    } else if (strcmp(a, "--only") == 0) {
      o->only = v, i++;
      bad = strcmp(v, "train") && strcmp(v, "holdout") && strcmp(v, "shared");
    } else if (strcmp(a, "--start") == 0) {
      bad = strcmp(v, "0") ? bench_parse_int(v, &o->start) : 0, i++;
    } else if (strcmp(a, "--count") == 0) {
      bad = bench_parse_int(v, &o->count), i++;
    } else if (strcmp(a, "--device") == 0) {
      if (strcmp(v, "cuda") == 0)
        o->device = SPS_DEVICE_CUDA;
      else if (strcmp(v, "cpu") == 0)
        o->device = SPS_DEVICE_CPU;
      else
        bad = 1;
      i++;
    } else if (strcmp(a, "--repeat") == 0) {
      bad = bench_parse_int(v, &o->repeat) || o->repeat > 64, i++;
    } else if (strcmp(a, "--target-ms") == 0) {
      bad = bench_parse_double(v, &d) || !(d > 0.0), i++;
      o->target_s = 1e-3 * d;
    } else if (strcmp(a, "--seed") == 0) {
      bad = bench_parse_int(v, &n), i++;
      o->seed = (uint64_t)n;
    } else if (strcmp(a, "--tsv") == 0) {
      o->tsv = v, i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "select-sweep: bad option or value: %s %s\n%s", a, v ? v : "", usage);
      return 1;
    }
  }
  if (o->list && read_list(o, o->list)) return 1;
  if (o->nspecs == 0) {
    fprintf(stderr, "select-sweep: no matrix given\n%s", usage);
    return 1;
  }
  /* Keep the specs of the set asked for, then the window [start, start + count). */
  int kept = 0;
  for (int k = 0; k < o->nspecs; k++) {
    if (!o->only || strcmp(spec_set(o->specs[k]), o->only) == 0)
      o->specs[kept++] = o->specs[k];
    else
      free((char *)o->specs[k]);
  }
  int first = o->start < kept ? o->start : kept;
  int n = kept - first;
  if (o->count >= 0 && o->count < n) n = o->count;
  for (int k = 0; k < first; k++)
    free((char *)o->specs[k]);
  for (int k = first + n; k < kept; k++)
    free((char *)o->specs[k]);
  memmove(o->specs, o->specs + first, (size_t)n * sizeof *o->specs);
  o->nspecs = n;
  return 0;
}

/* The path of mtx:NAME: NAME.mtx.gz in the matrix folder, or NAME.mtx. */
static int mtx_path(const options *o, const char *name, char *path, size_t len, char *err,
                    size_t errlen)
{
  if (!o->matrices) {
    snprintf(err, errlen, "mtx:%s needs --matrices DIR or SPS_MATRICES", name);
    return 1;
  }
  snprintf(path, len, "%s/%s.mtx.gz", o->matrices, name);
  if (access(path, R_OK) == 0) return 0;
  snprintf(path, len, "%s/%s.mtx", o->matrices, name);
  if (access(path, R_OK) == 0) return 0;
  snprintf(err, errlen, "no %s.mtx.gz or %s.mtx in %s", name, name, o->matrices);
  return 1;
}

/* Host CSR arrays copied from a matrix, for sps_matrix_adopt_csr. */
static int copy_csr(const sps_matrix *A, bench_csr *out, char *err, size_t errlen)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  return bench_csr_rows(rp, ci, va, m, n, 0, m, out, err, errlen);
}

/*
 * Make the host CSR arrays of a spec (recursively for slices). mtx: files are read once on the
 * CPU context and kept in the cache.
 */
static int make_csr(const options *o, sps_context *cpu, mtx_cache *cache, int *ncache,
                    const char *spec, bench_csr *out, sps_symmetry *sym, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (strncmp(spec, "slice:", 6) == 0) {
    char *end;
    errno = 0;
    long long a = strtoll(spec + 6, &end, 10);
    if (errno || *end != ':') goto bad_slice;
    long long b = strtoll(end + 1, &end, 10);
    if (errno || *end != ':') goto bad_slice;
    bench_csr src;
    sps_symmetry ssym;
    if (make_csr(o, cpu, cache, ncache, end + 1, &src, &ssym, err, errlen)) return 1;
    int r = bench_csr_rows(src.rowptr, src.colind, src.values, src.nrows, src.ncols, a, b, out,
                           err, errlen);
    bench_csr_free(&src);
    *sym = SPS_SYMMETRY_GENERAL;
    return r;
  bad_slice:
    snprintf(err, errlen, "'%s': expected slice:A:B:SPEC", spec);
    return 1;
  }
  if (strncmp(spec, "mtx:", 4) == 0) {
    const char *name = spec + 4;
    for (int k = 0; k < *ncache; k++)
      if (strcmp(cache[k].name, name) == 0) {
        sps_matrix_get_symmetry(cache[k].A, sym);
        return copy_csr(cache[k].A, out, err, errlen);
      }
    char path[4096];
    if (mtx_path(o, name, path, sizeof path, err, errlen)) return 1;
    sps_matrix *A = NULL;
    sps_status st = sps_matrix_read_mm(cpu, &A, path, 0);
    if (st) {
      snprintf(err, errlen, "%s", sps_context_last_error(cpu));
      return 1;
    }
    sps_matrix_get_symmetry(A, sym);
    int r = copy_csr(A, out, err, errlen);
    if (*ncache < MAX_CACHE) {
      snprintf(cache[*ncache].name, sizeof cache[*ncache].name, "%s", name);
      cache[(*ncache)++].A = A;
    } else {
      sps_matrix_destroy(&A);
    }
    return r;
  }
  if (bench_gen(spec, out, err, errlen)) return 1;
  *sym = out->symmetry;
  return 0;
}

static void write_header(FILE *f, const options *o, int argc, char **argv, const char *dev)
{
  char date[64];
  bench_date(date, sizeof date);
  fprintf(f, "# select-sweep (spsolve %s)\n# device: %s\n# date: %s\n# command:", sps_version(),
          dev, date);
  for (int i = 1; i < argc; i++) fprintf(f, " %s", argv[i]);
  fprintf(f,
          "\n# set: shared for mtx: specs, holdout when FNV-1a-64(spec) %% 5 == 0, else train\n"
          "# make_s: seconds to generate, read or slice the matrix on the host\n"
          "# rows .. windows_per_row: the fields of sps_matrix_stats (include/spsolve.h), "
          "computed on the %s context; stats_s: the seconds of AUTO's statistics, "
          "sps_spmv_stats_compute without short_blocks (on a CUDA matrix of at least 8192 rows "
          "plus entries one kernel), median of 3 calls made after sps_matrix_get_stats\n"
          "# us_<config>: microseconds per y = A*x, %s (median of %d batches, batch sized to "
          "about %.0f ms per configuration); '-' when the configuration refused the matrix, "
          "failed, or gave a wrong result (see failures)\n"
          "# check: every configuration is applied once to x uniform in [-1,1) (seed %llu) "
          "and compared row by row with the CPU row loop within (2*len+4)*eps*sum_j |a_ij*x_j|\n"
          "# best: the fastest configuration of the row; stats_spmv: stats_s / best_us\n",
          o->device == SPS_DEVICE_CUDA ? "CUDA" : "CPU",
          o->device == SPS_DEVICE_CUDA
              ? "GPU time of one CUDA graph of a batch of applies, CUDA events, divided by the batch"
              : "CPU wall time of a batch of plain applies divided by the batch (NOT GPU data)",
          o->repeat, 1e3 * o->target_s, (unsigned long long)o->seed);
  fputs("spec\tset\tfamily\tmake_s", f);
  for (int k = 0; k < NSTATS; k++) fprintf(f, "\t%s", stat_columns[k]);
  if (!o->stats_only)
    for (int c = 0; c < NCONFIGS; c++) fprintf(f, "\tus_%s", configs[c].name);
  fputs(o->stats_only ? "\n" : "\tbest\tbest_us\tstats_spmv\tfailures\n", f);
  fflush(f);
}

static void write_stats(FILE *f, const sps_matrix_stats *s)
{
  fprintf(f, "\t%lld\t%lld\t%lld\t%.6g\t%.6g\t%lld\t%lld\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%lld\t%lld\t%"
             "lld\t%.6g\t%.6g\t%.6g",
          (long long)s->rows, (long long)s->cols, (long long)s->nnz, s->density, s->mean_len,
          (long long)s->min_len, (long long)s->max_len, s->var_len, s->cv_len, s->empty_share,
          s->over32_share, s->over1024_share, (long long)s->short_blocks,
          (long long)s->long_blocks, (long long)s->long_rows, s->col_distance, s->windows_per_row,
          s->seconds);
}

/* Append "name: why; " to the failures text, with tabs and newlines made spaces. */
static void add_failure(char *buf, size_t len, const char *name, const char *why)
{
  size_t l = strlen(buf);
  snprintf(buf + l, len - l, "%s%s: %s", l ? "; " : "", name, why);
  for (char *p = buf + l; *p; p++)
    if (*p == '\t' || *p == '\n') *p = ' ';
}

/*
 * Set up, check and time one configuration on A. Returns 1 when it gave a wrong result or
 * failed in a way that is a bug, 0 otherwise; *us is NaN unless it was timed.
 */
static int run_config(sps_context *ctx, const options *o, const config *c, const sps_matrix *A,
                      const sps_vector *xc, const sps_vector *x, sps_vector *y,
                      const double *yref, const double *tol, double *yhost, bench_timer *t,
                      double *us, char *why, size_t whylen)
{
  sps_spmv_plan *plan = NULL;
  int64_t m;
  int wrong = 0;
  sps_matrix_get_size(A, &m, NULL, NULL);
  *us = NAN;
  why[0] = '\0';
  if (!sps_spmv_kind_available(c->kind, o->device)) {
    snprintf(why, whylen, "not available on this device");
    return 0;
  }
  sps_status st = sps_spmv_plan_create(ctx, &plan, A, c->kind);
  if (!st && c->tpr) st = sps_spmv_plan_set_threads_per_row(plan, c->tpr);
  if (!st) st = sps_spmv_plan_setup(plan);
  if (st) {
    snprintf(why, whylen, "%s: %s", st == SPS_ERR_UNSUPPORTED ? "refused" : sps_status_name(st),
             sps_context_last_error(ctx));
    wrong = st != SPS_ERR_UNSUPPORTED && st != SPS_ERR_DEVICE_MEMORY && st != SPS_ERR_SIZE;
    goto done;
  }
  /* Check before timing: y starts as NaN, so a row the configuration skips is caught. */
  double worst;
  int64_t first;
  if ((st = sps_vector_fill(y, NAN)) || (st = sps_spmv_apply(plan, 1.0, xc, 0.0, y)) ||
      (st = sps_vector_download(y, yhost, m))) {
    snprintf(why, whylen, "%s: %s", sps_status_name(st), sps_context_last_error(ctx));
    wrong = 1;
    goto done;
  }
  int64_t bad = bench_spmv_compare(m, yhost, yref, tol, &worst, &first);
  if (bad) {
    snprintf(why, whylen, "WRONG: %lld rows differ from the CPU reference, first row %lld",
             (long long)bad, (long long)first);
    wrong = 1;
    goto done;
  }
  double sec;
  if (bench_spmv_time(ctx, plan, x, y, t, o->repeat, o->target_s, &sec, why, whylen)) {
    wrong = 1;
    goto done;
  }
  *us = 1e6 * sec;
done:
  sps_spmv_plan_destroy(&plan);
  return wrong;
}

static int sweep(int argc, char **argv, options *po)
{
  options o = *po;
  if (o.list_specs) {
    for (int k = 0; k < o.nspecs; k++) printf("%s\t%s\n", spec_set(o.specs[k]), o.specs[k]);
    return 0;
  }
  const sps_device_kind dev_kind = o.stats_only ? SPS_DEVICE_CPU : o.device;
  if (o.stats_only) o.device = SPS_DEVICE_CPU;
  sps_context *ctx = NULL, *cpu = NULL;
  if (sps_context_create(&ctx, dev_kind, 0) ||
      (dev_kind == SPS_DEVICE_CPU ? (cpu = ctx, 0) : sps_context_create(&cpu, SPS_DEVICE_CPU, 0))) {
    fprintf(stderr, "select-sweep: cannot create the context: %s\n", sps_context_create_error());
    return 1;
  }
  char dev[256];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  FILE *f = o.tsv ? fopen(o.tsv, "w") : stdout;
  if (!f) {
    fprintf(stderr, "select-sweep: cannot write %s: %s\n", o.tsv, strerror(errno));
    return 1;
  }
  write_header(f, &o, argc, argv, dev);
  bench_timer *t = NULL;
  if (bench_timer_create(ctx, &t)) {
    fprintf(stderr, "select-sweep: cannot create the timer\n");
    return 1;
  }
  static mtx_cache cache[MAX_CACHE];
  int ncache = 0, failed = 0, nwrong = 0;
  const double t_all = sps_wtime();
  for (int k = 0; k < o.nspecs; k++) {
    const char *spec = o.specs[k];
    char err[1024], family[64], failures[8192] = "";
    sps_matrix *A = NULL;
    sps_vector *x = NULL, *xc = NULL, *y = NULL;
    double *xh = NULL, *yref = NULL, *tol = NULL, *yh = NULL;
    bench_csr csr;
    sps_symmetry sym;
    spec_family(spec, family, sizeof family);
    double t0 = sps_wtime();
    const int made = make_csr(&o, cpu, cache, &ncache, spec, &csr, &sym, err, sizeof err) == 0;
    if (!made || sps_matrix_adopt_csr(ctx, &A, csr.nrows, csr.ncols, csr.rowptr, csr.colind,
                                      csr.values, sym)) {
      fprintf(stderr, "select-sweep: [%d/%d] %s: cannot make: %s\n", k + 1, o.nspecs, spec,
              made ? sps_context_last_error(ctx) : err);
      failed = 1;
      continue;
    }
    const double make_s = sps_wtime() - t0;
    sps_matrix_stats s;
    sps_matrix_get_stats(A, &s);
    /* stats_s: what AUTO pays for its statistics (no short_blocks), median of three calls. */
    double st[3];
    for (int r = 0; r < 3; r++) {
      sps_matrix_stats f;
      sps_spmv_stats_compute(A, SPS_STATS_COLUMNS, &f);
      st[r] = f.seconds;
    }
    s.seconds = st[0] > st[1] ? (st[1] > st[2] ? st[1] : (st[0] > st[2] ? st[2] : st[0]))
                              : (st[0] > st[2] ? st[0] : (st[1] > st[2] ? st[2] : st[1]));
    fprintf(stderr,
            "select-sweep: [%d/%d] %s (%s): %lld x %lld, %lld nonzeros, made in %.3f s, stats in "
            "%.4f s\n",
            k + 1, o.nspecs, spec, spec_set(spec), (long long)s.rows, (long long)s.cols,
            (long long)s.nnz, make_s, s.seconds);
    fprintf(f, "%s\t%s\t%s\t%.4f", spec, spec_set(spec), family, make_s);
    write_stats(f, &s);
    if (o.stats_only) {
      fputc('\n', f);
      fflush(f);
      sps_matrix_destroy(&A);
      continue;
    }
    const int64_t m = s.rows, n = s.cols;
    xh = malloc((size_t)(n ? n : 1) * sizeof *xh);
    yref = malloc((size_t)(m ? m : 1) * sizeof *yref);
    tol = malloc((size_t)(m ? m : 1) * sizeof *tol);
    yh = malloc((size_t)(m ? m : 1) * sizeof *yh);
    double us[NCONFIGS];
    int best = -1;
    for (int c = 0; c < NCONFIGS; c++) us[c] = NAN;
    if (!xh || !yref || !tol || !yh || sps_vector_create(ctx, &x, n) ||
        sps_vector_create(ctx, &xc, n) || sps_vector_create(ctx, &y, m)) {
      add_failure(failures, sizeof failures, "all", "out of memory for the vectors");
      failed = 1;
    } else {
      /* The check's random x and the reference with it; the timed x is ones. */
      uint64_t rng = o.seed;
      for (int64_t j = 0; j < n; j++) xh[j] = sps_splitmix64_sym(&rng);
      bench_spmv_reference(A, xh, yref, tol);
      int up = sps_vector_upload(xc, xh, n);
      for (int64_t j = 0; j < n; j++) xh[j] = 1.0;
      if (up || sps_vector_upload(x, xh, n)) {
        add_failure(failures, sizeof failures, "all", sps_context_last_error(ctx));
        failed = 1;
      } else {
        for (int c = 0; c < NCONFIGS; c++) {
          char why[1024];
          int w = run_config(ctx, &o, &configs[c], A, xc, x, y, yref, tol, yh, t, &us[c], why,
                             sizeof why);
          nwrong += w;
          failed |= w;
          if (why[0]) add_failure(failures, sizeof failures, configs[c].name, why);
          if (!isnan(us[c]) && (best < 0 || us[c] < us[best])) best = c;
          fprintf(stderr, "select-sweep:   %-14s %10.2f us  %s\n", configs[c].name, us[c],
                  why[0] ? why : "ok");
        }
      }
    }
    for (int c = 0; c < NCONFIGS; c++) {
      char b[64];
      fprintf(f, "\t%s", bench_fmt(b, sizeof b, "%.3f", us[c]));
    }
    if (best >= 0)
      fprintf(f, "\t%s\t%.3f\t%.3g", configs[best].name, us[best], s.seconds / (1e-6 * us[best]));
    else
      fputs("\t-\t-\t-", f);
    fprintf(f, "\t%s\n", failures[0] ? failures : "-");
    fflush(f);
    free(xh);
    free(yref);
    free(tol);
    free(yh);
    sps_vector_destroy(&x);
    sps_vector_destroy(&xc);
    sps_vector_destroy(&y);
    sps_matrix_destroy(&A);
  }
  fprintf(stderr, "select-sweep: %d matrices in %.1f s, %d wrong results\n", o.nspecs,
          sps_wtime() - t_all, nwrong);
  if (f != stdout) fclose(f);
  bench_timer_destroy(&t);
  for (int k = 0; k < ncache; k++) sps_matrix_destroy(&cache[k].A);
  if (cpu != ctx) sps_context_destroy(&cpu);
  sps_context_destroy(&ctx);
  return failed;
}

int main(int argc, char **argv)
{
  options o;
  if (parse_options(argc, argv, &o)) {
    free_specs(&o);
    return 2;
  }
  const int rc = sweep(argc, argv, &o);
  free_specs(&o);
  return rc;
}
