/* solve_many_bench.c: solve-many-bench: in one run, k right-hand sides solved together (sps_solver_solve_many) against the same k columns solved one at a time with the same solver, for k = 1, 2, 4, ..., 64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/csr_matvec.h"
#include "../core/internal.h"
#include "../solvers/defaults.h"
#include "bench_util.h"

static const char usage[] =
    "usage: solve-many-bench [options] [FILE.mtx[.gz] ...] [--gen SPEC ...]\n"
    "For each matrix: one solver set up for the largest k; the columns b_j = A x*_j (x*_j\n"
    "uniform in [-1,1), seed S + j) solved one at a time with sps_solver_solve, then, for each\n"
    "k of the list, the first k columns solved together with sps_solver_solve_many; x0 = 0.\n"
    "Times are the wall clock with the device synchronised, the median of --repeat runs.\n"
    "  --k LIST              column counts, comma-separated (default 1,2,4,8,16,32,64)\n"
    "  --gen SPEC            a generated matrix (see spmv-bench --help; repeatable)\n"
    "  --solver cg|gmres|bicgstab|block-cg|auto   (default cg; block-cg: block CG together,\n"
    "                        CG one at a time)\n"
    "  --precond NAME        none, jacobi, ilu0, ic0, ilut, bjacobi, cheby, amg or auto\n"
    "                        (default none)\n"
    "  --rtol R              relative tolerance (default " SPS_STRINGIFY(SPS_DEFAULT_RTOL) ")\n"
    "  --restart M           GMRES restart length (default " SPS_STRINGIFY(SPS_DEFAULT_RESTART)
    ")\n"
    "  --maxit N             maximum iterations (default " SPS_STRINGIFY(SPS_DEFAULT_MAXIT) ")\n"
    "  --spmv NAME           SpMV variant (default auto)\n"
    "  --negate              solve with -A (for laplacian7pt_100, stored negative definite)\n"
    "  --seed S              seed of x*_0 (default 1)\n"
    "  --device cuda|cpu     (default cuda)\n"
    "  --repeat N            runs of each solve, the median is reported (default 3, CPU 1)\n"
    "  --tsv FILE            write the results as TSV (rewritten after every matrix)\n"
    "  --help                this text\n"
    "Columns: together_ms (the k columns by solve_many), single_ms (the same k columns one at a\n"
    "time: the sum of their solves), one_ms (single_ms / k: the mean time of one solve),\n"
    "together_over_one (together_ms / one_ms: the issue's targets, at most 4 for 16 columns of\n"
    "G3_circuit and 3 for 64 of a small matrix), speedup (single_ms / together_ms),\n"
    "its_max and its_total together and one at a time, same_its (columns whose iterations equal\n"
    "their single solve's: all of them for the batched methods), max_relres (the true\n"
    "||b_j - A x_j|| / ||b_j|| of the columns solved together, recomputed on the host).\n"
    "Exit status: 0 when every solve ran, converged columns met 10*rtol and the batched\n"
    "columns took their single solve's iterations; 1 otherwise; 2 for bad usage.\n";

typedef struct options {
  bench_common c;
  sps_solver_type solver;
  int block;
  sps_precond_type precond;
  sps_spmv_kind spmv;
  double rtol;
  int restart, maxit, negate, repeat;
  int ks[16], nk, kmax;
} options;

static const char *const columns[] = {
    "matrix",       "solver",     "precond",   "rows",      "nnz",        "k",
    "together_ms",  "together_ms_per_col",     "single_ms", "one_ms",     "together_over_one",
    "speedup",      "its_max",    "its_total", "single_its_max", "single_its_total",
    "converged",    "same_its",   "max_relres", "setup_ms", "mode",       "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))
static const int stdout_mask[NCOLS] = {1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1,
                                       1, 0, 1, 0, 1, 1, 1, 0, 1, 1};

static int parse_klist(const char *s, options *o)
{
  o->nk = 0;
  o->kmax = 0;
  while (*s) {
    char *end;
    const long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 4096 || o->nk >= 16) return 1;
    o->ks[o->nk++] = (int)v;
    if ((int)v > o->kmax) o->kmax = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return 1;
  }
  return o->nk == 0;
}

static int parse_options(int argc, char **argv, options *o)
{
  memset(o, 0, sizeof *o);
  bench_common_init(&o->c);
  o->solver = SPS_SOLVER_CG;
  o->precond = SPS_PRECOND_NONE;
  o->spmv = SPS_SPMV_AUTO;
  o->rtol = SPS_DEFAULT_RTOL;
  o->restart = SPS_DEFAULT_RESTART;
  o->maxit = SPS_DEFAULT_MAXIT;
  parse_klist("1,2,4,8,16,32,64", o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, common;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if (strcmp(a, "--negate") == 0) {
      o->negate = 1;
    } else if ((common = bench_common_parse(&o->c, argc, argv, &i, "solve-many-bench")) != 0) {
      bad = common < 0;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--k") == 0) {
      bad = parse_klist(v, o), i++;
    } else if (strcmp(a, "--solver") == 0) {
      o->block = strcmp(v, "block-cg") == 0;
      bad = o->block ? (o->solver = SPS_SOLVER_CG, 0)
                     : sps_solver_type_from_name(v, &o->solver) != SPS_SUCCESS;
      i++;
    } else if (strcmp(a, "--precond") == 0) {
      bad = sps_precond_type_from_name(v, &o->precond) != SPS_SUCCESS, i++;
    } else if (strcmp(a, "--spmv") == 0) {
      bad = sps_spmv_kind_from_name(v, &o->spmv) != SPS_SUCCESS, i++;
    } else if (strcmp(a, "--rtol") == 0) {
      bad = bench_parse_double(v, &o->rtol), i++;
    } else if (strcmp(a, "--restart") == 0) {
      bad = bench_parse_int(v, &o->restart), i++;
    } else if (strcmp(a, "--maxit") == 0) {
      bad = bench_parse_int(v, &o->maxit), i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "solve-many-bench: bad option or value: %s %s\n%s", a, v ? v : "", usage);
      return 1;
    }
  }
  if (o->c.ninputs == 0) {
    fprintf(stderr, "solve-many-bench: no matrix given\n%s", usage);
    return 1;
  }
  o->repeat = o->c.repeat ? o->c.repeat : o->c.device == SPS_DEVICE_CPU ? 1 : 3;
  return 0;
}

/* ||b - A x|| / ||b|| on the host (0/0 reads as 0). */
static double host_relres(const sps_matrix *A, const double *x, const double *b, double *ax)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  sps_matrix_get_size(A, &m, NULL, NULL);
  sps_csr_matvec_host(m, rp, ci, va, x, ax);
  double rr = 0.0, bb = 0.0;
  for (int64_t i = 0; i < m; i++) {
    rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    bb += b[i] * b[i];
  }
  return bb > 0.0 ? sqrt(rr / bb) : sqrt(rr);
}

static void write_tsv(const options *o, const bench_table *tab, const char *header)
{
  FILE *f = fopen(o->c.tsv, "w");
  if (!f) {
    fprintf(stderr, "solve-many-bench: cannot write %s\n", o->c.tsv);
    return;
  }
  fputs(header, f);
  bench_table_write_tsv(tab, f);
  fclose(f);
}

static sps_status make_solver(sps_context *ctx, const options *o, const sps_matrix *A,
                              sps_solver **s)
{
  SPS_CHECK(sps_solver_create(ctx, s, o->solver));
  SPS_CHECK(sps_solver_set_tolerances(*s, o->rtol, 0.0));
  SPS_CHECK(sps_solver_set_max_iterations(*s, o->maxit));
  SPS_CHECK(sps_solver_set_restart(*s, o->restart));
  SPS_CHECK(sps_solver_set_precond(*s, o->precond));
  SPS_CHECK(sps_solver_set_spmv(*s, o->spmv, 0));
  SPS_CHECK(sps_solver_set_zero_guess(*s, 1));
  SPS_CHECK(sps_solver_set_columns(*s, o->kmax));
  SPS_CHECK(sps_solver_set_block(*s, o->block));
  return sps_solver_setup(*s, A);
}

/* One matrix: the single solves of the kmax columns, then each k together; rows into tab. */
static int run_matrix(sps_context *ctx, const options *o, const sps_matrix *A, const char *name,
                      bench_table *tab)
{
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  const int K = o->kmax;
  sps_solver *s = NULL;
  sps_vector *vb = NULL, *vx = NULL;
  sps_multivector *MB = NULL, *MX = NULL;
  double *B = malloc((size_t)(n * K + 1) * sizeof *B), *X = malloc((size_t)(n * K + 1) * sizeof *X);
  double *ax = malloc((size_t)(n + 1) * sizeof *ax), *t = calloc((size_t)o->repeat, sizeof *t);
  double *single_s = calloc((size_t)K, sizeof *single_s);
  int *single_its = calloc((size_t)K, sizeof *single_its);
  sps_status st = SPS_SUCCESS;
  int failed = 0;
  char status[512] = "ok";
  if (!B || !X || !ax || !t || !single_s || !single_its) {
    st = SPS_ERR_HOST_MEMORY;
    goto cleanup;
  }
  /* b_j = A x*_j on the host */
  {
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    sps_matrix_get_csr(A, &rp, &ci, &va);
    for (int j = 0; j < K; j++) {
      uint64_t rng = o->c.seed + (uint64_t)j;
      for (int64_t i = 0; i < n; i++) X[(int64_t)j * n + i] = sps_splitmix64_sym(&rng);
      sps_csr_matvec_host(m, rp, ci, va, X + (int64_t)j * n, B + (int64_t)j * n);
    }
  }
  SPS_TRY(sps_context_synchronize(ctx));
  double t0 = sps_wtime();
  SPS_TRY(make_solver(ctx, o, A, &s));
  SPS_TRY(sps_context_synchronize(ctx));
  const double setup_s = sps_wtime() - t0;
  /* one at a time */
  SPS_TRY(sps_vector_create(ctx, &vb, n));
  SPS_TRY(sps_vector_create(ctx, &vx, n));
  for (int j = 0; j < K; j++) {
    SPS_TRY(sps_vector_upload(vb, B + (int64_t)j * n, n));
    for (int r = 0; r < o->repeat; r++) {
      SPS_TRY(sps_context_synchronize(ctx));
      t0 = sps_wtime();
      SPS_TRY(sps_solver_solve(s, vb, vx));
      SPS_TRY(sps_context_synchronize(ctx));
      t[r] = sps_wtime() - t0;
    }
    single_s[j] = bench_median(t, o->repeat);
    SPS_TRY(sps_solver_get_iterations(s, &single_its[j]));
  }
  {
    double sum = 0.0;
    for (int j = 0; j < K; j++) sum += single_s[j];
    fprintf(stderr, "solve-many-bench:   %d columns one at a time: %.3f ms each on average\n", K,
            1e3 * sum / K);
  }
  /* together, for each k */
  for (int ki = 0; ki < o->nk; ki++) {
    const int k = o->ks[ki];
    SPS_TRY(sps_multivector_create(ctx, &MB, n, k));
    SPS_TRY(sps_multivector_create(ctx, &MX, n, k));
    SPS_TRY(sps_multivector_upload(MB, B, n, k)); /* the first k columns (column-major) */
    for (int r = 0; r < o->repeat; r++) {
      SPS_TRY(sps_context_synchronize(ctx));
      t0 = sps_wtime();
      SPS_TRY(sps_solver_solve_many(s, MB, MX));
      SPS_TRY(sps_context_synchronize(ctx));
      t[r] = sps_wtime() - t0;
    }
    const double together_s = bench_median(t, o->repeat);
    sps_many_report mr;
    SPS_TRY(sps_solver_get_many_report(s, &mr));
    SPS_TRY(sps_multivector_download(MX, X, n, k));
    double single_sum = 0.0, worst = 0.0;
    int single_max = 0, same = 0;
    int64_t single_total = 0;
    char rowstatus[512] = "ok";
    for (int j = 0; j < k; j++) {
      sps_column_report cr;
      SPS_TRY(sps_solver_get_column_report(s, j, &cr));
      single_sum += single_s[j];
      single_total += single_its[j];
      if (single_its[j] > single_max) single_max = single_its[j];
      same += cr.iterations == single_its[j];
      const double rel = host_relres(A, X + (int64_t)j * n, B + (int64_t)j * n, ax);
      if (!(rel <= worst)) worst = rel;
      if (cr.reason > 0 && !(rel <= 10.0 * o->rtol)) {
        snprintf(rowstatus, sizeof rowstatus,
                 "WRONG: column %d reports %s but its true relative residual is %.3e", j,
                 sps_reason_name(cr.reason), rel);
        failed = 1;
      }
    }
    if (mr.mode == SPS_MANY_BATCHED && same != k && !failed) {
      snprintf(rowstatus, sizeof rowstatus,
               "WRONG: %d of %d columns took other iterations than alone", k - same, k);
      failed = 1;
    }
    const double one_s = single_sum / k;
    char c[NCOLS][272];
    const char *cells[NCOLS];
    static const char *const modes[] = {"none", "batched", "block-cg", "one-by-one"};
    snprintf(c[0], sizeof c[0], "%s%s", name, o->negate ? "(-A)" : "");
    snprintf(c[1], sizeof c[0], "%s", o->block ? "block-cg" : sps_solver_type_name(o->solver));
    snprintf(c[2], sizeof c[0], "%s", sps_precond_type_name(o->precond));
    snprintf(c[3], sizeof c[0], "%lld", (long long)m);
    snprintf(c[4], sizeof c[0], "%lld", (long long)nnz);
    snprintf(c[5], sizeof c[0], "%d", k);
    bench_fmt(c[6], sizeof c[0], "%.3f", 1e3 * together_s);
    bench_fmt(c[7], sizeof c[0], "%.4f", 1e3 * together_s / k);
    bench_fmt(c[8], sizeof c[0], "%.3f", 1e3 * single_sum);
    bench_fmt(c[9], sizeof c[0], "%.4f", 1e3 * one_s);
    bench_fmt(c[10], sizeof c[0], "%.3f", together_s / one_s);
    bench_fmt(c[11], sizeof c[0], "%.3f", single_sum / together_s);
    snprintf(c[12], sizeof c[0], "%d", mr.max_iterations);
    snprintf(c[13], sizeof c[0], "%lld", (long long)mr.total_iterations);
    snprintf(c[14], sizeof c[0], "%d", single_max);
    snprintf(c[15], sizeof c[0], "%lld", (long long)single_total);
    snprintf(c[16], sizeof c[0], "%lld", (long long)mr.converged);
    snprintf(c[17], sizeof c[0], "%d", same);
    bench_fmt(c[18], sizeof c[0], "%.3e", worst);
    bench_fmt(c[19], sizeof c[0], "%.3f", 1e3 * setup_s);
    snprintf(c[20], sizeof c[0], "%s", (int)mr.mode >= 0 && (int)mr.mode < 4 ? modes[mr.mode] : "?");
    for (int q = 0; q < NCOLS - 1; q++) cells[q] = c[q];
    cells[NCOLS - 1] = rowstatus;
    bench_table_add(tab, cells);
    fprintf(stderr,
            "solve-many-bench:   k = %d together: %.3f ms (%.3f ms a column, %.2f times one "
            "solve), %d iterations at most\n",
            k, 1e3 * together_s, 1e3 * together_s / k, together_s / one_s, mr.max_iterations);
    sps_multivector_destroy(&MB);
    sps_multivector_destroy(&MX);
  }
cleanup:
  if (st) {
    snprintf(status, sizeof status, "%s: %s", sps_status_name(st), sps_context_last_error(ctx));
    fprintf(stderr, "solve-many-bench: %s: %s\n", name, status);
    failed = 1;
  }
  sps_multivector_destroy(&MB);
  sps_multivector_destroy(&MX);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_solver_destroy(&s);
  free(B);
  free(X);
  free(ax);
  free(t);
  free(single_s);
  free(single_its);
  return failed;
}

int main(int argc, char **argv)
{
  options o;
  if (parse_options(argc, argv, &o)) return 2;
  sps_context *ctx = NULL;
  char dev[256], date[64], err[1024];
  double bw;
  size_t copy_used;
  if (bench_open("solve-many-bench", o.c.device, (size_t)256 << 20, 3, &ctx, dev, sizeof dev,
                 date, sizeof date, &bw, &copy_used))
    return 1;
  char header[4096];
  int hl = snprintf(header, sizeof header,
                    "# solve-many-bench (spsolve %s)\n# device: %s\n# date: %s\n# command:",
                    sps_version(), dev, date);
  for (int i = 1; i < argc && hl < (int)sizeof header - 256; i++)
    hl += snprintf(header + hl, sizeof header - (size_t)hl, " %s", argv[i]);
  snprintf(header + hl, sizeof header - (size_t)hl,
           "\n# x0 = 0; b_j = A x*_j, x*_j uniform in [-1,1) with seed %llu + j; wall clock with "
           "the device synchronised, median of %d runs; the single solves and solve_many use "
           "one solver set up once for k = %d\n",
           (unsigned long long)o.c.seed, o.repeat, o.kmax);
  fprintf(stderr, "solve-many-bench: %s\n", dev);
  bench_table *tab = bench_table_create(NCOLS, columns);
  if (!tab) return 1;
  int failed = 0;
  for (int mi = 0; mi < o.c.ninputs; mi++) {
    char name[256];
    sps_matrix *A = NULL;
    if (bench_load_matrix(ctx, &o.c.inputs[mi], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "solve-many-bench: %s: cannot load: %s\n", o.c.inputs[mi].spec, err);
      failed = 1;
      continue;
    }
    if (o.negate && sps_matrix_scale(A, -1.0)) {
      fprintf(stderr, "solve-many-bench: %s: %s\n", name, sps_context_last_error(ctx));
      failed = 1;
      sps_matrix_destroy(&A);
      continue;
    }
    int64_t m, n, nnz;
    sps_matrix_get_size(A, &m, &n, &nnz);
    fprintf(stderr, "solve-many-bench: [%d/%d] %s: %lld x %lld, %lld nonzeros\n", mi + 1,
            o.c.ninputs, name, (long long)m, (long long)n, (long long)nnz);
    if (m == n)
      failed |= run_matrix(ctx, &o, A, name, tab);
    if (o.c.tsv) write_tsv(&o, tab, header);
    sps_matrix_destroy(&A);
  }
  printf("# %s, %s\n", dev, date);
  bench_table_print(tab, stdout, stdout_mask);
  if (o.c.tsv) write_tsv(&o, tab, header);
  bench_table_destroy(&tab);
  sps_context_destroy(&ctx);
  return failed;
}
