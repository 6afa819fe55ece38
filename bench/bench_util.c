/* bench_util.c: the shared pieces of the benchmark drivers (bench_util.h): inputs, timers, copy bandwidth, tables. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#endif
#include "bench_util.h"
#include "gen.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_date(char *buf, size_t len)
{
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The base name of a path without its .gz and .mtx suffixes. */
static void base_name(const char *path, char *name, size_t len)
{
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  snprintf(name, len, "%s", b);
  size_t l = strlen(name);
  if (l > 3 && strcmp(name + l - 3, ".gz") == 0) name[l -= 3] = '\0';
  if (l > 4 && strcmp(name + l - 4, ".mtx") == 0) name[l - 4] = '\0';
}

sps_status bench_load_matrix(sps_context *ctx, const bench_input *in, sps_matrix **A, char *name,
                             size_t namelen, char *err, size_t errlen)
{
  *A = NULL;
  if (!in->is_gen) {
    base_name(in->spec, name, namelen);
    sps_status st = sps_matrix_read_mm(ctx, A, in->spec, 0);
    if (st) snprintf(err, errlen, "%s: %s", sps_status_name(st), sps_context_last_error(ctx));
    return st;
  }
  snprintf(name, namelen, "%s", in->spec);
  bench_csr m;
  if (bench_gen(in->spec, &m, err, errlen)) return SPS_ERR_ARGUMENT;
  /* The arrays are sorted and duplicate-free: the matrix takes them without a copy. */
  sps_status st = sps_matrix_adopt_csr(ctx, A, m.nrows, m.ncols, m.rowptr, m.colind, m.values,
                                       m.symmetry);
  if (st) snprintf(err, errlen, "%s", sps_context_last_error(ctx));
  return st;
}

double bench_spmv_bytes(int64_t m, int64_t n, int64_t nnz)
{
  return 12.0 * (double)nnz + 4.0 * (double)(m + 1) + 8.0 * (double)n + 8.0 * (double)m;
}

struct bench_timer {
  sps_context *ctx;
  double t0;
#ifdef SPS_HAVE_CUDA
  cudaEvent_t start, stop;
#endif
};

sps_status bench_timer_create(sps_context *ctx, bench_timer **out)
{
  bench_timer *t = calloc(1, sizeof *t);
  *out = NULL;
  if (!t) return SPS_ERR_HOST_MEMORY;
  t->ctx = ctx;
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    if (cudaEventCreate(&t->start) != cudaSuccess || cudaEventCreate(&t->stop) != cudaSuccess) {
      free(t);
      return SPS_ERR_CUDA;
    }
  }
#endif
  *out = t;
  return SPS_SUCCESS;
}

sps_status bench_timer_start(bench_timer *t)
{
#ifdef SPS_HAVE_CUDA
  if (t->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA(t->ctx, cudaEventRecord(t->start, sps_cuda(t->ctx)->stream));
    return SPS_SUCCESS;
  }
#endif
  SPS_CHECK(sps_context_synchronize(t->ctx));
  t->t0 = sps_wtime();
  return SPS_SUCCESS;
}

sps_status bench_timer_stop(bench_timer *t, double *seconds)
{
#ifdef SPS_HAVE_CUDA
  if (t->ctx->kind == SPS_DEVICE_CUDA) {
    float ms = 0.0f;
    SPS_CUDA(t->ctx, cudaEventRecord(t->stop, sps_cuda(t->ctx)->stream));
    SPS_CUDA(t->ctx, cudaEventSynchronize(t->stop));
    SPS_CUDA(t->ctx, cudaEventElapsedTime(&ms, t->start, t->stop));
    *seconds = 1e-3 * (double)ms;
    return SPS_SUCCESS;
  }
#endif
  SPS_CHECK(sps_context_synchronize(t->ctx));
  *seconds = sps_wtime() - t->t0;
  return SPS_SUCCESS;
}

void bench_timer_destroy(bench_timer **t)
{
  if (!t || !*t) return;
#ifdef SPS_HAVE_CUDA
  if ((*t)->ctx->kind == SPS_DEVICE_CUDA) {
    cudaEventDestroy((*t)->start);
    cudaEventDestroy((*t)->stop);
  }
#endif
  free(*t);
  *t = NULL;
}

sps_status bench_copy_bandwidth(sps_context *ctx, size_t bytes, int repeat, double *bw,
                                size_t *used, char *err, size_t errlen)
{
  const sps_backend *be = ctx->be;
  void *a = NULL, *b = NULL;
  bench_timer *t = NULL;
  double *sec = NULL;
  sps_status st = SPS_SUCCESS;
  *bw = NAN;
  /* Halve the size until both buffers fit. */
  for (;;) {
    st = be->malloc(ctx, &a, bytes, "copy source");
    if (!st) {
      st = be->malloc(ctx, &b, bytes, "copy destination");
      if (!st) break;
      be->free(ctx, a);
      a = NULL;
    }
    if (bytes <= ((size_t)64 << 20)) goto cleanup;
    bytes /= 2;
  }
  *used = bytes;
#ifdef SPS_HAVE_CUDA
  /* A failed cudaMalloc above leaves its error behind; clear it before the kernels check theirs. */
  if (ctx->kind == SPS_DEVICE_CUDA) (void)cudaGetLastError();
#endif
  /* Fill the source so the pages exist (first touch) and the copy moves real data. */
  SPS_TRY(be->fill(ctx, (int64_t)(bytes / sizeof(double)), 1.0, (double *)a));
  SPS_TRY(be->fill(ctx, (int64_t)(bytes / sizeof(double)), 0.0, (double *)b));
  SPS_TRY(bench_timer_create(ctx, &t));
  sec = calloc((size_t)repeat, sizeof *sec);
  if (!sec) {
    st = SPS_ERR_HOST_MEMORY;
    goto cleanup;
  }
  for (int r = -1; r < repeat; r++) {
    double s;
    SPS_TRY(bench_timer_start(t));
    SPS_TRY(be->copy_bytes(ctx, b, a, bytes));
    SPS_TRY(bench_timer_stop(t, &s));
    if (r >= 0) sec[r] = s;
  }
  *bw = 2.0 * (double)bytes / bench_median(sec, repeat);
cleanup:
  if (st) snprintf(err, errlen, "copy bandwidth: %s", sps_context_last_error(ctx));
  free(sec);
  bench_timer_destroy(&t);
  if (a) be->free(ctx, a);
  if (b) be->free(ctx, b);
  return st;
}

struct bench_table {
  int ncols, nrows, cap;
  char **cells; /* nrows x ncols, row-major; row 0 is the header */
};

bench_table *bench_table_create(int ncols, const char *const *header)
{
  bench_table *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->ncols = ncols;
  bench_table_add(t, header);
  return t;
}

void bench_table_add(bench_table *t, const char *const *cells)
{
  if (!t) return;
  if (t->nrows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    char **c = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *c);
    if (!c) return;
    t->cells = c;
    t->cap = cap;
  }
  for (int j = 0; j < t->ncols; j++)
    t->cells[(size_t)t->nrows * (size_t)t->ncols + (size_t)j] = strdup(cells[j] ? cells[j] : "-");
  t->nrows++;
}

void bench_table_write_tsv(const bench_table *t, FILE *f)
{
  if (!t) return;
  for (int i = 0; i < t->nrows; i++)
    for (int j = 0; j < t->ncols; j++) {
      const char *c = t->cells[(size_t)i * (size_t)t->ncols + (size_t)j];
      /* A cell never holds a tab or newline: they would break the TSV. */
      for (const char *p = c; *p; p++) fputc(*p == '\t' || *p == '\n' ? ' ' : *p, f);
      fputc(j + 1 < t->ncols ? '\t' : '\n', f);
    }
}

void bench_table_print(const bench_table *t, FILE *f, const int *mask)
{
  if (!t) return;
  size_t *w = calloc((size_t)t->ncols, sizeof *w);
  if (!w) return;
  for (int i = 0; i < t->nrows; i++)
    for (int j = 0; j < t->ncols; j++) {
      size_t l = strlen(t->cells[(size_t)i * (size_t)t->ncols + (size_t)j]);
      if (l > w[j]) w[j] = l;
    }
  for (int i = 0; i < t->nrows; i++) {
    int first = 1;
    for (int j = 0; j < t->ncols; j++) {
      if (mask && !mask[j]) continue;
      const char *c = t->cells[(size_t)i * (size_t)t->ncols + (size_t)j];
      /* Text columns (the first two) left-aligned, numbers right-aligned. */
      if (j < 2)
        fprintf(f, "%s%-*s", first ? "" : "  ", (int)w[j], c);
      else
        fprintf(f, "%s%*s", first ? "" : "  ", (int)w[j], c);
      first = 0;
    }
    fputc('\n', f);
  }
  free(w);
}

void bench_table_destroy(bench_table **t)
{
  if (!t || !*t) return;
  for (size_t k = 0; k < (size_t)(*t)->nrows * (size_t)(*t)->ncols; k++) free((*t)->cells[k]);
  free((*t)->cells);
  free(*t);
  *t = NULL;
}

const char *bench_fmt(char *buf, size_t len, const char *fmt, double v)
{
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, fmt, v);
  return buf;
}

int bench_open(const char *name, sps_device_kind device, size_t bytes, int repeat,
               sps_context **ctx, char *dev, size_t devlen, char *date, size_t datelen, double *bw,
               size_t *used)
{
  char err[1024];
  *ctx = NULL;
  if (sps_context_create(ctx, device, 0)) {
    fprintf(stderr, "%s: cannot create the context: %s\n", name, sps_context_create_error());
    return 1;
  }
  sps_context_get_device_name(*ctx, dev, devlen);
  bench_date(date, datelen);
  *used = 0;
  if (bench_copy_bandwidth(*ctx, bytes, repeat, bw, used, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", name, err);
    sps_context_destroy(ctx);
    return 1;
  }
  return 0;
}

int bench_parse_int(const char *s, int *v)
{
  if (!s || !*s) return 1;
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno || *end || x <= 0 || x > 1000000000L) return 1;
  *v = (int)x;
  return 0;
}

int bench_parse_files_args(int argc, char **argv, const char *name, const char *usage,
                           int *repeat, const char **tsv, const char **files, int max,
                           int *nfiles)
{
  *nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0) {
      fputs(usage, stdout);
      return 1;
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      if (bench_parse_int(argv[++i], repeat)) {
        fprintf(stderr, "%s: --repeat takes a positive integer\n%s", name, usage);
        return 2;
      }
    } else if (strcmp(argv[i], "--tsv") == 0 && i + 1 < argc) {
      *tsv = argv[++i];
    } else if (argv[i][0] != '-' && *nfiles < max) {
      files[(*nfiles)++] = argv[i];
    } else {
      fprintf(stderr, "%s: bad option %s\n%s", name, argv[i], usage);
      return 2;
    }
  }
  if (!*nfiles) {
    fprintf(stderr, "%s: no matrix given\n%s", name, usage);
    return 2;
  }
  return 0;
}

int bench_parse_ones_random(const char *s, int *random)
{
  if (s && strcmp(s, "ones") == 0)
    *random = 0;
  else if (s && strcmp(s, "random") == 0)
    *random = 1;
  else
    return 1;
  return 0;
}

int bench_parse_double(const char *s, double *v)
{
  if (!s || !*s) return 1;
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (errno || *end || !(x >= 0.0) || !isfinite(x)) return 1;
  *v = x;
  return 0;
}

int bench_parse_double_signed(const char *s, double *v)
{
  if (!s || !*s) return 1;
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (errno || *end || !isfinite(x)) return 1;
  *v = x;
  return 0;
}

void bench_common_init(bench_common *c)
{
  memset(c, 0, sizeof *c);
  c->device = SPS_DEVICE_CUDA;
  c->seed = 1;
}

int bench_common_parse(bench_common *c, int argc, char **argv, int *i, const char *prog)
{
  const char *a = argv[*i];
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (a[0] != '-' || strcmp(a, "--gen") == 0) {
    const int gen = a[0] == '-';
    if (gen && !v) return -1;
    if (c->ninputs == (int)(sizeof c->inputs / sizeof c->inputs[0])) {
      fprintf(stderr, "%s: too many matrices\n", prog);
      return -1;
    }
    c->inputs[c->ninputs].spec = gen ? v : a;
    c->inputs[c->ninputs++].is_gen = gen;
    *i += gen;
    return 1;
  }
  int ok = 1, taken = 1;
  if (strcmp(a, "--device") == 0) {
    if (v && strcmp(v, "cuda") == 0)
      c->device = SPS_DEVICE_CUDA;
    else if (v && strcmp(v, "cpu") == 0)
      c->device = SPS_DEVICE_CPU;
    else
      ok = 0;
  } else if (strcmp(a, "--repeat") == 0) {
    ok = v && !bench_parse_int(v, &c->repeat);
  } else if (strcmp(a, "--copy-mb") == 0) {
    ok = v && !bench_parse_int(v, &c->copy_mb);
  } else if (strcmp(a, "--seed") == 0) {
    int sd = 0;
    ok = v && !bench_parse_int(v, &sd);
    c->seed = (uint64_t)sd;
  } else if (strcmp(a, "--tsv") == 0) {
    ok = v != NULL;
    c->tsv = v;
  } else {
    taken = 0;
  }
  if (!taken) return 0;
  (*i)++;
  return ok ? 1 : -1;
}
