/* spmm_bench.c: spmm-bench, the SpMM benchmark: every SpMM variant and cusparseSpMM (each of its CSR algorithms) on every matrix for k = 1 .. 64 columns, checked against the CPU reference, timed in CUDA graphs, with the bandwidth bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../spmv/ref/spmm_kernels.h"
#include "../spmv/spmm_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#endif
#include "bench_util.h"

#define MAX_RUNS 16
#define MAX_KS 16

static const char usage[] =
    "usage: spmm-bench [options] [FILE.mtx[.gz] ...] [--gen SPEC ...]\n"
    "Times Y = A*X for k columns with each SpMM variant and with cusparseSpMM.\n"
    "  --gen SPEC            a generated matrix (as spmv-bench: poisson3d:N, powerlaw:N:alpha, "
    "...)\n"
    "  --k LIST              column counts, comma-separated (default 1,2,4,8,16,32,64)\n"
    "  --variants a,b,c      variants (default: spmm-csr, sputnik, spmm-balanced, spmm-spmv\n"
    "                        (k = 1 only), auto, and cusparse-spmm with each of\n"
    "                        CUSPARSE_SPMM_CSR_ALG1, 2 and 3)\n"
    "  --device cuda|cpu     where to run (default cuda: exit 77 without a GPU); the CPU times\n"
    "                        the CPU references by the wall clock (a smoke test)\n"
    "  --repeat N            timed graph replays, the median is reported (default 10, CPU 3)\n"
    "  --batch K             applies per graph (default 20, CPU 2)\n"
    "  --seed S              seed of the random X (default 1)\n"
    "  --copy-mb M           size of the copy that measures the bandwidth (default 2048, CPU 256)\n"
    "  --tsv FILE            write the results as TSV (rewritten after every matrix)\n"
    "  --skip-slower F       a variant (not auto, not cusparse-spmm) more than F times slower\n"
    "                        than the fastest at one k is not run at the larger k of the same\n"
    "                        matrix (default 20; 0: run everything)\n"
    "Exit status: 0 when every result was right, 1 when one was wrong or a matrix could not be\n"
    "loaded, 2 for bad usage, 77 without a GPU (--device cuda).\n";

/* One run: a variant, and for cusparse-spmm its algorithm (1..3). */
typedef struct run_spec {
  sps_spmm_kind kind;
  int alg;
} run_spec;

typedef struct options {
  bench_common c;
  run_spec runs[MAX_RUNS];
  int nruns;
  int64_t ks[MAX_KS];
  int nk;
  int repeat, batch;
  size_t copy_bytes;
  double skip_slower; /* --skip-slower F (0: never skip) */
} options;

typedef struct result {
  int run; /* index into options.runs */
  char variant[64];
  sps_spmm_kind used;
  char status[512];
  int wrong, ok;
  double check, setup_ms, sec;
} result;

static const char *const columns[] = {
    "matrix",  "k",          "variant", "rows",     "cols", "nnz",     "bytes", "check", "setup_ms",
    "time_us", "us_per_col", "GBs",     "bound_us", "roof", "speedup", "auto",  "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))
static const int stdout_mask[NCOLS] = {1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static int add_run(options *o, sps_spmm_kind kind, int alg)
{
  if (o->nruns == MAX_RUNS) {
    fprintf(stderr, "spmm-bench: too many variants\n");
    return 1;
  }
  o->runs[o->nruns].kind = kind;
  o->runs[o->nruns++].alg = alg;
  return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
  const char *variants = NULL, *klist = "1,2,4,8,16,32,64";
  int batch = 0;
  memset(o, 0, sizeof *o);
  bench_common_init(&o->c);
  o->skip_slower = 20.0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, common;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if ((common = bench_common_parse(&o->c, argc, argv, &i, "spmm-bench")) != 0) {
      bad = common < 0;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--variants") == 0) {
      variants = v, i++;
    } else if (strcmp(a, "--k") == 0) {
      klist = v, i++;
    } else if (strcmp(a, "--batch") == 0) {
      bad = bench_parse_int(v, &batch), i++;
    } else if (strcmp(a, "--skip-slower") == 0) {
      char *end = NULL;
      o->skip_slower = strtod(v, &end);
      bad = end == v || *end != '\0' || !(o->skip_slower >= 0.0), i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "spmm-bench: bad option or value: %s %s\n%s", a, v ? v : "", usage);
      return 1;
    }
  }
  if (o->c.ninputs == 0) {
    fprintf(stderr, "spmm-bench: no matrix given\n%s", usage);
    return 1;
  }
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", klist);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int k;
    if (bench_parse_int(tok, &k) || o->nk == MAX_KS) {
      fprintf(stderr, "spmm-bench: bad --k list '%s'\n", klist);
      return 1;
    }
    o->ks[o->nk++] = k;
  }
  const int cpu = o->c.device == SPS_DEVICE_CPU;
  o->repeat = o->c.repeat ? o->c.repeat : cpu ? 3 : 10;
  o->batch = batch ? batch : cpu ? 2 : 20;
  o->copy_bytes = (size_t)(o->c.copy_mb ? o->c.copy_mb : cpu ? 256 : 2048) << 20;
  if (!variants)
    variants = cpu ? "spmm-csr,sputnik,spmm-balanced,spmm-spmv,auto"
                   : "spmm-csr,sputnik,spmm-balanced,spmm-spmv,auto,cusparse-spmm";
  snprintf(buf, sizeof buf, "%s", variants);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    sps_spmm_kind k;
    if (sps_spmm_kind_from_name(tok, &k)) {
      fprintf(stderr, "spmm-bench: unknown variant '%s'\n", tok);
      return 1;
    }
    if (k == SPS_SPMM_CUSPARSE) {
      for (int alg = 1; alg <= 3; alg++)
        if (add_run(o, k, alg)) return 1;
    } else if (add_run(o, k, 0)) {
      return 1;
    }
  }
  return 0;
}

/*
 * The CPU reference on row-major X (ld k): Yref by the library's reference SpMM, and for each
 * entry the bound tol_ij = (2*len_i + 4)*eps*sum_l |a_il x_lj|, which covers any order of
 * summation and cuSPARSE's fused multiply-adds.
 */
static void reference(const sps_matrix *A, int64_t k, const double *X, double *Yref, double *tol)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  sps_matrix_get_size(A, &m, NULL, NULL);
  sps_ref_spmm_csr(m, rp, ci, va, k, 1.0, X, k, 0.0, Yref, k);
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < k; j++) {
      double b = 0.0;
      for (int64_t e = rp[i]; e < rp[i + 1]; e++)
        b += fabs(va[e] * X[(int64_t)ci[e] * k + j]);
      tol[i * k + j] = (double)(2 * (rp[i + 1] - rp[i]) + 4) * 0x1.0p-52 * b;
    }
}

/* Time batch applies: on CUDA one graph of them replayed repeat times (events), the median per
 * apply; on the CPU the wall clock. */
static sps_status time_applies(sps_context *ctx, sps_spmm_plan *plan, const sps_multivector *X,
                               sps_multivector *Y, bench_timer *t, int repeat, int batch,
                               double *sec, char *msg, size_t msglen)
{
  double v[256];
  if (repeat > 256) repeat = 256;
  sps_status st = SPS_SUCCESS;
  for (int w = 0; w < 2 && !st; w++)
    st = sps_spmm_apply(plan, 1.0, X, 0.0, Y);
  if (st) {
    snprintf(msg, msglen, "warm-up failed: %s", sps_context_last_error(ctx));
    return st;
  }
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    cudaStream_t s = sps_cuda(ctx)->stream;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
      for (int b = 0; b < batch && !st; b++)
        st = sps_spmm_apply(plan, 1.0, X, 0.0, Y);
      cudaError_t e2 = cudaStreamEndCapture(s, &g);
      if (!st && e2 != cudaSuccess) e = e2;
    }
    if (e == cudaSuccess && !st) e = cudaGraphInstantiate(&ge, g, 0);
    if (e == cudaSuccess && !st) e = cudaGraphLaunch(ge, s);
    if (e == cudaSuccess && !st) e = cudaStreamSynchronize(s);
    for (int r = 0; r < repeat && e == cudaSuccess && !st; r++) {
      st = bench_timer_start(t);
      if (!st) e = cudaGraphLaunch(ge, s);
      if (!st && e == cudaSuccess) st = bench_timer_stop(t, &v[r]);
      v[r] /= batch;
    }
    if (st || e != cudaSuccess) {
      snprintf(msg, msglen, "graph capture or replay failed: %s",
               st ? sps_context_last_error(ctx) : cudaGetErrorString(e));
      (void)cudaGetLastError();
      if (!st) st = SPS_ERR_CUDA;
    } else {
      *sec = bench_median(v, repeat);
    }
    if (ge) cudaGraphExecDestroy(ge);
    if (g) cudaGraphDestroy(g);
    return st;
  }
#endif
  for (int r = 0; r < repeat && !st; r++) {
    st = bench_timer_start(t);
    for (int b = 0; b < batch && !st; b++)
      st = sps_spmm_apply(plan, 1.0, X, 0.0, Y);
    if (!st) st = bench_timer_stop(t, &v[r]);
    v[r] /= batch;
  }
  if (st)
    snprintf(msg, msglen, "apply failed: %s", sps_context_last_error(ctx));
  else
    *sec = bench_median(v, repeat);
  return st;
}

/* Set up, check and time one run on A with k columns; reports in r. */
static void run_one(sps_context *ctx, const options *o, const run_spec *rs, const sps_matrix *A,
                    int64_t k, const sps_multivector *X, sps_multivector *Y, const double *Yref,
                    const double *tol, double *Yh, double *nan_block, bench_timer *t, result *r)
{
  int64_t m;
  sps_matrix_get_size(A, &m, NULL, NULL);
  sps_spmm_plan *plan = NULL;
  memset(r, 0, sizeof *r);
  r->check = r->setup_ms = r->sec = NAN;
  r->used = rs->kind;
  if (rs->alg)
    snprintf(r->variant, sizeof r->variant, "%s-alg%d", sps_spmm_kind_name(rs->kind), rs->alg);
  else
    snprintf(r->variant, sizeof r->variant, "%s", sps_spmm_kind_name(rs->kind));
  snprintf(r->status, sizeof r->status, "ok");
  sps_status st = sps_spmm_plan_create(ctx, &plan, A, k);
  if (!st) st = sps_spmm_plan_set_kind(plan, rs->kind);
  if (!st) {
    plan->cusparse_alg = rs->alg;
    st = sps_context_synchronize(ctx);
    const double t0 = sps_wtime();
    if (!st) st = sps_spmm_plan_setup(plan);
    if (!st) st = sps_context_synchronize(ctx);
    r->setup_ms = 1e3 * (sps_wtime() - t0);
  }
  if (st) {
    snprintf(r->status, sizeof r->status, "%s: %s",
             st == SPS_ERR_UNSUPPORTED ? "refused" : sps_status_name(st),
             sps_context_last_error(ctx));
    r->wrong = st != SPS_ERR_UNSUPPORTED;
    goto done;
  }
  sps_spmm_plan_get_kind(plan, &r->used, NULL);
  if (rs->kind == SPS_SPMM_AUTO)
    snprintf(r->variant, sizeof r->variant, "auto(%s)", sps_spmm_kind_name(r->used));
  /* Check: Y starts as NaN, so an entry the variant skips is caught. */
  st = sps_multivector_upload(Y, nan_block, m, k);
  if (!st) st = sps_spmm_apply(plan, 1.0, X, 0.0, Y);
  if (!st) st = sps_multivector_download(Y, Yh, m, k);
  if (st) {
    snprintf(r->status, sizeof r->status, "%s: %s", sps_status_name(st),
             sps_context_last_error(ctx));
    r->wrong = 1;
    goto done;
  }
  int64_t bad = 0, first = -1;
  double worst = 0.0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < k; j++) {
      const double d = fabs(Yh[j * m + i] - Yref[i * k + j]), tl = tol[i * k + j];
      if (!(d <= tl)) {
        if (bad++ == 0) first = i * k + j;
        worst = INFINITY;
      } else if (tl > 0.0 && d / tl > worst) {
        worst = d / tl;
      }
    }
  r->check = worst;
  if (bad) {
    snprintf(r->status, sizeof r->status,
             "WRONG: %lld entries differ from the CPU reference, first (%lld, %lld): %.17g, "
             "expected %.17g",
             (long long)bad, (long long)(first / k), (long long)(first % k),
             Yh[(first % k) * m + first / k], Yref[first]);
    r->wrong = 1;
    goto done;
  }
  char msg[512];
  if (time_applies(ctx, plan, X, Y, t, o->repeat, o->batch, &r->sec, msg, sizeof msg)) {
    snprintf(r->status, sizeof r->status, "%s", msg);
    r->wrong = 1;
    goto done;
  }
  r->ok = 1;
done:
  sps_spmm_plan_destroy(&plan);
}

static void write_tsv(const options *o, const bench_table *tab, const char *header)
{
  FILE *f = fopen(o->c.tsv, "w");
  if (!f) {
    fprintf(stderr, "spmm-bench: cannot write %s\n", o->c.tsv);
    return;
  }
  fputs(header, f);
  bench_table_write_tsv(tab, f);
  fclose(f);
}

int main(int argc, char **argv)
{
  options o;
  if (parse_options(argc, argv, &o)) return 2;
  if (o.c.device == SPS_DEVICE_CUDA) {
    int count = 0;
    if (!sps_have_cuda() || sps_cuda_device_query(&count, NULL, 0) || count <= 0) {
      fprintf(stderr, "spmm-bench: no CUDA device (built %s CUDA): skipped\n",
              sps_have_cuda() ? "with" : "without");
      return 77;
    }
  }
  sps_context *ctx = NULL;
  char dev[256], date[64], err[1024];
  double bw;
  size_t copy_used;
  if (bench_open("spmm-bench", o.c.device, o.copy_bytes, o.repeat, &ctx, dev, sizeof dev, date,
                 sizeof date, &bw, &copy_used))
    return 1;
  const int cuda = o.c.device == SPS_DEVICE_CUDA;
  char header[4096];
  int hl = snprintf(
      header, sizeof header,
      "# spmm-bench (spsolve %s)\n# device: %s\n# date: %s\n# command:", sps_version(), dev, date);
  for (int i = 1; i < argc && hl < (int)sizeof header - 256; i++)
    hl += snprintf(header + hl, sizeof header - (size_t)hl, " %s", argv[i]);
  snprintf(header + hl, sizeof header - (size_t)hl,
           "\n# copy_bandwidth_GBs: %.1f (%s copy of %zu MiB, bytes read + written, median of %d)\n"
           "# bytes: 12*nnz + 4*(m+1) + 8*k*(n + m): A read once (int32 offsets, as GPU.md "
           "counts them), X read once, Y written once (beta = 0)\n"
           "# bound_us: bytes / copy bandwidth; roof: bound_us / time_us (1 = at the bound)\n"
           "# timing: %s, median of %d runs of %d applies Y = A*X (beta = 0)\n"
           "# check: X uniform random in [-1,1) (seed %llu), max over entries of |y - y_ref| / "
           "((2*len+4)*eps*sum_l |a_il*x_lj|), y_ref by the CPU reference SpMM\n"
           "# speedup: the fastest cusparse-spmm-algN of the same matrix and k / time of the row\n"
           "# auto: yes on the row of the variant AUTO picks (auto(X) times it as picked)\n",
           1e-9 * bw, cuda ? "device-to-device cudaMemcpyAsync" : "host memcpy", copy_used >> 20,
           o.repeat,
           cuda ? "one CUDA graph of the applies on the context's stream, replayed and timed with "
                  "events"
                : "wall clock",
           o.repeat, o.batch, (unsigned long long)o.c.seed);
  fprintf(stderr, "spmm-bench: %s, copy bandwidth %.1f GB/s\n", dev, 1e-9 * bw);
  bench_table *tab = bench_table_create(NCOLS, columns);
  bench_timer *t = NULL;
  if (!tab || bench_timer_create(ctx, &t)) {
    fprintf(stderr, "spmm-bench: out of memory\n");
    return 1;
  }
  int failed = 0;
  for (int mi = 0; mi < o.c.ninputs; mi++) {
    char name[256];
    sps_matrix *A = NULL;
    if (bench_load_matrix(ctx, &o.c.inputs[mi], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "spmm-bench: [%d/%d] %s: cannot load: %s\n", mi + 1, o.c.ninputs,
              o.c.inputs[mi].spec, err);
      failed = 1;
      continue;
    }
    int64_t m, n, nnz;
    sps_matrix_get_size(A, &m, &n, &nnz);
    fprintf(stderr, "spmm-bench: [%d/%d] %s: %lld x %lld, %lld nonzeros\n", mi + 1, o.c.ninputs,
            name, (long long)m, (long long)n, (long long)nnz);
    /* variants left out at the larger k of this matrix (--skip-slower) */
    int skip[MAX_RUNS] = {0};
    for (int ki = 0; ki < o.nk; ki++) {
      const int64_t k = o.ks[ki];
      sps_multivector *X = NULL, *Y = NULL;
      double *xr = malloc((size_t)(n * k > 0 ? n * k : 1) * sizeof(double));
      double *xc = malloc((size_t)(n * k > 0 ? n * k : 1) * sizeof(double));
      double *yref = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
      double *tol = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
      double *yh = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
      double *nanb = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
      result res[MAX_RUNS];
      int nres = 0;
      if (!xr || !xc || !yref || !tol || !yh || !nanb || sps_multivector_create(ctx, &X, n, k) ||
          sps_multivector_create(ctx, &Y, m, k)) {
        fprintf(stderr, "spmm-bench: %s, k %lld: out of memory\n", name, (long long)k);
        failed = 1;
        goto next_k;
      }
      uint64_t rng = o.c.seed;
      for (int64_t i = 0; i < n * k; i++)
        xr[i] = sps_splitmix64_sym(&rng); /* row-major */
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
          xc[j * n + i] = xr[i * k + j];
      for (int64_t i = 0; i < m * k; i++)
        nanb[i] = NAN;
      reference(A, k, xr, yref, tol);
      if (sps_multivector_upload(X, xc, n, k)) {
        fprintf(stderr, "spmm-bench: %s: %s\n", name, sps_context_last_error(ctx));
        failed = 1;
        goto next_k;
      }
      char why[320];
      const sps_spmm_kind auto_kind = sps_spmm_select(A, k, o.c.device, why, sizeof why);
      for (int r = 0; r < o.nruns; r++) {
        if (o.runs[r].kind == SPS_SPMM_SPMV && k != 1) continue; /* one column only */
        if (skip[r]) {
          fprintf(stderr, "spmm-bench:   k %3lld %-22s skipped: more than %g times the fastest at "
                  "a smaller k\n", (long long)k, sps_spmm_kind_name(o.runs[r].kind), o.skip_slower);
          continue;
        }
        run_one(ctx, &o, &o.runs[r], A, k, X, Y, yref, tol, yh, nanb, t, &res[nres]);
        res[nres].run = r;
        failed |= res[nres].wrong;
        fprintf(stderr, "spmm-bench:   k %3lld %-22s %10.2f us  %s\n", (long long)k,
                res[nres].variant, 1e6 * res[nres].sec, res[nres].status);
        nres++;
      }
      double fastest = NAN;
      for (int r = 0; r < nres; r++)
        if (res[r].ok && (isnan(fastest) || res[r].sec < fastest)) fastest = res[r].sec;
      for (int r = 0; r < nres && o.skip_slower > 0.0; r++) {
        const sps_spmm_kind kind = o.runs[res[r].run].kind;
        if (res[r].ok && kind != SPS_SPMM_AUTO && kind != SPS_SPMM_CUSPARSE &&
            res[r].sec > o.skip_slower * fastest)
          skip[res[r].run] = 1;
      }
      double best_cusparse = NAN;
      for (int r = 0; r < nres; r++)
        if (res[r].ok && o.runs[res[r].run].kind == SPS_SPMM_CUSPARSE &&
            (isnan(best_cusparse) || res[r].sec < best_cusparse))
          best_cusparse = res[r].sec;
      const double bytes =
          12.0 * (double)nnz + 4.0 * (double)(m + 1) + 8.0 * (double)k * (double)(n + m);
      const double bound = bytes / bw;
      for (int r = 0; r < nres; r++) {
        char c[NCOLS][64];
        const char *cells[NCOLS];
        snprintf(c[1], 64, "%lld", (long long)k);
        snprintf(c[3], 64, "%lld", (long long)m);
        snprintf(c[4], 64, "%lld", (long long)n);
        snprintf(c[5], 64, "%lld", (long long)nnz);
        snprintf(c[6], 64, "%.0f", bytes);
        bench_fmt(c[7], 64, "%.3f", res[r].check);
        bench_fmt(c[8], 64, "%.3f", res[r].setup_ms);
        bench_fmt(c[9], 64, "%.2f", 1e6 * res[r].sec);
        bench_fmt(c[10], 64, "%.3f", 1e6 * res[r].sec / (double)k);
        bench_fmt(c[11], 64, "%.1f", 1e-9 * bytes / res[r].sec);
        bench_fmt(c[12], 64, "%.2f", 1e6 * bound);
        bench_fmt(c[13], 64, "%.3f", bound / res[r].sec);
        bench_fmt(c[14], 64, "%.3f", best_cusparse / res[r].sec);
        snprintf(c[15], 64, "%s",
                 o.runs[res[r].run].kind != SPS_SPMM_AUTO && res[r].used == auto_kind ? "yes"
                                                                                   : "-");
        for (int j = 1; j < NCOLS - 1; j++)
          cells[j] = c[j];
        cells[0] = name;
        cells[2] = res[r].variant;
        cells[NCOLS - 1] = res[r].status;
        bench_table_add(tab, cells);
      }
      if (o.c.tsv) write_tsv(&o, tab, header);
    next_k:
      free(xr);
      free(xc);
      free(yref);
      free(tol);
      free(yh);
      free(nanb);
      sps_multivector_destroy(&X);
      sps_multivector_destroy(&Y);
    }
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
