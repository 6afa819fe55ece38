/* solve_bench.c: solve-bench, the solver benchmark: time to solution and time per iteration against the bandwidth bound of one iteration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/csr_matvec.h"
#include "../core/internal.h"
#include "../solvers/defaults.h"
#include "bench_util.h"

static const char usage[] =
    "usage: solve-bench [options] [FILE.mtx[.gz] ...] [--gen SPEC ...]\n"
    "Solves A x = b with one of spsolve's Krylov solvers from x0 = 0 and reports the time to\n"
    "solution, the time per iteration and the bandwidth bound of one iteration.\n"
    "  --gen SPEC            a generated matrix (see spmv-bench --help; repeatable)\n"
    "  --solver cg|gmres|bicgstab|auto   (default cg)\n"
    "  --precond NAME        none, jacobi, ilu0, ic0, ilut, bjacobi, cheby, amg or auto (default\n"
    "                        none)\n"
    "  --precond-param N=V   a preconditioner parameter (repeatable; see spsolve --list-precond)\n"
    "  --history FILE        append each matrix's residual history of its last solve to FILE:\n"
    "                        matrix, solver, precond, iteration, relative residual, seconds\n"
    "                        (setup + iteration * solve time / iterations: a uniform time axis)\n"
    "  --rtol R              relative tolerance (default " SPS_STRINGIFY(SPS_DEFAULT_RTOL) ")\n"
    "  --restart M           GMRES restart length (default " SPS_STRINGIFY(SPS_DEFAULT_RESTART)
    ")\n"
    "  --gmres-fused         GMRES: one fused kernel per batch (sps_solver_set_gmres_fused)\n"
    "  --orthog cgs2|mgs     GMRES orthogonalisation (default cgs2)\n"
    "  --maxit N             maximum iterations, GMRES inner ones (default "
    SPS_STRINGIFY(SPS_DEFAULT_MAXIT) ")\n"
    "  --spmv NAME           SpMV variant (default auto)\n"
    "  --negate              solve with -A (for laplacian7pt_100, stored negative definite)\n"
    "  --rhs ones|random     b = A*x* with x* = ones (default) or uniform in [-1,1) (--seed)\n"
    "  --seed S              seed of the random x* (default 1)\n"
    "  --device cuda|cpu     (default cuda)\n"
    "  --repeat N            solves per matrix, the median time is reported (default 3, CPU 1)\n"
    "  --copy-mb M           size of the bandwidth copy (default 2048, CPU 256)\n"
    "  --peers LIST          CPU: also solve each system with these peers, rows beside\n"
    "                        spsolve's: petsc (petsc4py), scipy, or petsc,scipy; same file,\n"
    "                        b, x0, rtol, restart, maxit, preconditioner (none or jacobi),\n"
    "                        repeat and thread count (bench/cpu-peers.py; matrix files only)\n"
    "  --python PY           the Python that runs the peers (default $PYTHON, else python3)\n"
    "  --peers-script FILE   the peer script (default " SPS_BENCH_SRCDIR "/cpu-peers.py)\n"
    "  --tsv FILE            write the results as TSV (rewritten after every matrix)\n"
    "  --help                this text\n"
    "Exit status: 0 when every solve ran and every converged solve has a true relative\n"
    "residual within 10*rtol; 1 otherwise; 2 for bad usage.\n";

typedef struct options {
  bench_common c; /* matrices, device, seed, TSV file, repeat and copy size as given */
  sps_solver_type solver;
  sps_precond_type precond;
  sps_orthog orthog;
  sps_spmv_kind spmv;
  double rtol;
  int restart, maxit, negate, rhs_random, repeat, gmres_fused;
  size_t copy_bytes;
  char pnames[32][32]; /* --precond-param, in order */
  double pvalues[32];
  int nparams;
  const char *history; /* --history FILE, or NULL */
  const char *peers;   /* --peers LIST, or NULL */
  const char *python;  /* --python PY */
  const char *peers_script;
} options;

/* The columns, shared with peers.py so the two TSVs sit side by side. */
static const char *const columns[] = {
    "matrix",     "impl",     "solver",   "precond",  "restart",        "rtol",
    "rows",       "nnz",      "iterations", "reason",  "relres",         "error",
    "setup_ms",   "solve_ms", "us_per_iter", "bytes_per_iter", "bound_us_per_iter",
    "time_over_bound", "status"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))
static const int stdout_mask[NCOLS] = {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1,
                                       1, 1, 1, 0, 1, 1, 1};

static int parse_options(int argc, char **argv, options *o)
{
  memset(o, 0, sizeof *o);
  bench_common_init(&o->c);
  o->solver = SPS_SOLVER_CG;
  o->precond = SPS_PRECOND_NONE;
  o->orthog = SPS_ORTHOG_CGS2;
  o->spmv = SPS_SPMV_AUTO;
  o->rtol = SPS_DEFAULT_RTOL;
  o->restart = SPS_DEFAULT_RESTART;
  o->maxit = SPS_DEFAULT_MAXIT;
  o->python = getenv("PYTHON") && getenv("PYTHON")[0] ? getenv("PYTHON") : "python3";
  o->peers_script = SPS_BENCH_SRCDIR "/cpu-peers.py";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, common;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      exit(0);
    } else if (strcmp(a, "--negate") == 0) {
      o->negate = 1;
    } else if ((common = bench_common_parse(&o->c, argc, argv, &i, "solve-bench")) != 0) {
      bad = common < 0;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--solver") == 0) {
      bad = sps_solver_type_from_name(v, &o->solver) != SPS_SUCCESS, i++;
    } else if (strcmp(a, "--precond") == 0) {
      bad = sps_precond_type_from_name(v, &o->precond) != SPS_SUCCESS, i++;
    } else if (strcmp(a, "--precond-param") == 0) {
      /* NAME=VALUE, VALUE a number or a value name (amg.coarsening=classical) */
      const char *eq = strchr(v, '=');
      bad = !eq || o->nparams >= 32 || (size_t)(eq - v) >= sizeof o->pnames[0];
      if (!bad) {
        snprintf(o->pnames[o->nparams], sizeof o->pnames[0], "%.*s", (int)(eq - v), v);
        bad = sps_precond_param_value(o->pnames[o->nparams], eq + 1,
                                      &o->pvalues[o->nparams]) != SPS_SUCCESS;
      }
      if (!bad) o->nparams++;
      i++;
    } else if (strcmp(a, "--history") == 0) {
      o->history = v, i++;
    } else if (strcmp(a, "--peers") == 0) {
      o->peers = v, i++;
      bad = strspn(v, "abcdefghijklmnopqrstuvwxyz,") != strlen(v);
    } else if (strcmp(a, "--python") == 0) {
      o->python = v, i++;
    } else if (strcmp(a, "--peers-script") == 0) {
      o->peers_script = v, i++;
    } else if (strcmp(a, "--spmv") == 0) {
      bad = sps_spmv_kind_from_name(v, &o->spmv) != SPS_SUCCESS, i++;
    } else if (strcmp(a, "--orthog") == 0) {
      i++;
      if (strcmp(v, "cgs2") == 0)
        o->orthog = SPS_ORTHOG_CGS2;
      else if (strcmp(v, "mgs") == 0)
        o->orthog = SPS_ORTHOG_MGS;
      else
        bad = 1;
    } else if (strcmp(a, "--rtol") == 0) {
      bad = bench_parse_double(v, &o->rtol), i++;
    } else if (strcmp(a, "--gmres-fused") == 0) {
      o->gmres_fused = 1;
    } else if (strcmp(a, "--restart") == 0) {
      bad = bench_parse_int(v, &o->restart), i++;
    } else if (strcmp(a, "--maxit") == 0) {
      bad = bench_parse_int(v, &o->maxit), i++;
    } else if (strcmp(a, "--rhs") == 0) {
      bad = bench_parse_ones_random(v, &o->rhs_random), i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "solve-bench: bad option or value: %s %s\n%s", a, v ? v : "", usage);
      return 1;
    }
  }
  if (o->c.ninputs == 0) {
    fprintf(stderr, "solve-bench: no matrix given\n%s", usage);
    return 1;
  }
  int cpu = o->c.device == SPS_DEVICE_CPU;
  if (o->peers && !cpu) {
    fprintf(stderr, "solve-bench: --peers runs the CPU peers beside --device cpu only\n");
    return 1;
  }
  o->repeat = o->c.repeat ? o->c.repeat : cpu ? 1 : 3;
  o->copy_bytes = (size_t)(o->c.copy_mb ? o->c.copy_mb : cpu ? 256 : 2048) << 20;
  return 0;
}

/*
 * Bytes that inner iteration k (1-based) must move in the unfused textbook loop, every
 * vector of n doubles read or written once per operation (a vector dotted with itself is
 * read once); S is one SpMV (GPU.md's count). bench/traffic.py counts the same for peers.py
 * and plot.py.
 *   CG:        S + 8*12n  ((p, q) reads 2n, r.r n; 3 axpy-type updates read 6n, write 3n)
 *   PCG:       S + 8*17n  (also z = D^-1 r: read 2n, write n; (r, z) 2n; ||r|| n)
 *   GMRES(m), step j = (k-1) mod m + 1, w = A v_j orthogonalised against v_1..v_j:
 *     CGS2:    S + 8*(4j + 9)n  (two passes, each h = V^T w reading jn + n and
 *                                w -= V h reading jn + n, writing n; then ||w|| and
 *                                w /= ||w|| read 2n, write n)
 *     MGS:     S + 8*(5j + 3)n  (per basis vector a dot, 2n, and an axpy, 3n)
 *     right Jacobi adds 8*3n (z = D^-1 v_j).
 *   BiCGSTAB:  2S + 8*24n  ((r0hat, v), (t, s), (r0hat, r) read 2n each, t.t and ||r|| n
 *                           each; the updates of s, x (two axpy), r and p read 11n and
 *                           write 5n); right Jacobi 2S + 8*30n (p^ and s^).
 */
static double iteration_bytes(const options *o, int64_t n, double S, int k)
{
  double v = 8.0 * (double)n;
  int jac = o->precond == SPS_PRECOND_JACOBI;
  switch (o->solver) {
  case SPS_SOLVER_CG:
    return S + v * (jac ? 17.0 : 12.0);
  case SPS_SOLVER_GMRES: {
    int j = (k - 1) % o->restart + 1;
    double orth = o->orthog == SPS_ORTHOG_CGS2 ? 4.0 * j + 9.0 : 5.0 * j + 3.0;
    return S + v * (orth + (jac ? 3.0 : 0.0));
  }
  case SPS_SOLVER_BICGSTAB:
  default:
    return 2.0 * S + v * (jac ? 30.0 : 24.0);
  }
}

/* The traffic model covers the iteration without a preconditioner or with Jacobi only. */
static int bytes_known(const options *o)
{
  return o->precond == SPS_PRECOND_NONE || o->precond == SPS_PRECOND_JACOBI;
}

/* ||b - A x|| / ||b|| on the host, from the CSR arrays (0/0 reads as 0; NaN without memory). */
static double host_relres(const sps_matrix *A, const double *x, const double *b)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  sps_matrix_get_size(A, &m, NULL, NULL);
  double *ax = malloc((size_t)(m ? m : 1) * sizeof *ax);
  if (!ax) return NAN;
  sps_csr_matvec_host(m, rp, ci, va, x, ax);
  double rr = 0.0, bb = 0.0;
#pragma omp parallel for reduction(+ : rr, bb)
  for (int64_t i = 0; i < m; i++) {
    rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    bb += b[i] * b[i];
  }
  free(ax);
  return bb > 0.0 ? sqrt(rr / bb) : sqrt(rr);
}

/* bytes_per_iter, bound_us_per_iter and time_over_bound of a solve of its iterations taking
 * solve_s seconds ("-" where the model does not apply). */
static void bound_cells(const options *o, int64_t n, double S, double bw, int its, double solve_s,
                        char *bytes, char *bound_us, char *over)
{
  double total = 0.0;
  for (int k = 1; k <= its; k++) total += iteration_bytes(o, n, S, k);
  if (!bytes_known(o)) total = NAN;
  const double it = its > 0 ? (double)its : NAN;
  const double per = total / it, bound = per / bw, tpi = solve_s / it;
  bench_fmt(bytes, 96, "%.0f", per);
  bench_fmt(bound_us, 96, "%.2f", 1e6 * bound);
  bench_fmt(over, 96, "%.2f", tpi / bound);
}

/* s in single quotes for /bin/sh (a quote inside as '\''); 0 when it does not fit in len. */
static int shell_quote(char *dst, size_t len, const char *s)
{
  size_t k = 0;
  if (len < 3) return 0;
  dst[k++] = '\'';
  for (; *s; s++) {
    if (*s == '\'') {
      if (k + 5 >= len) return 0;
      memcpy(dst + k, "'\\''", 4);
      k += 4;
    } else {
      if (k + 2 >= len) return 0;
      dst[k++] = *s;
    }
  }
  dst[k++] = '\'';
  dst[k] = '\0';
  return 1;
}

/*
 * The peers (bench/cpu-peers.py) on the system just solved: the same file, b, x0, tolerance,
 * restart, iteration limit, preconditioner, repeat count and thread count. Their rows join the
 * table with the bound columns computed here, as for spsolve's row; their '#' lines (versions)
 * join the header once. Returns 1 when the script could not run or gave no row.
 */
static int run_peers(const options *o, const char *file, int64_t n, double S, double bw,
                     bench_table *tab, char *header, size_t header_len)
{
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  const char *solver = o->solver == SPS_SOLVER_GMRES      ? "gmres"
                       : o->solver == SPS_SOLVER_BICGSTAB ? "bicgstab"
                       : o->solver == SPS_SOLVER_CG       ? "cg"
                                                          : NULL;
  const char *precond = o->precond == SPS_PRECOND_NONE     ? "none"
                        : o->precond == SPS_PRECOND_JACOBI ? "jacobi"
                                                           : NULL;
  if (!solver || !precond || o->nparams > 0) {
    fprintf(stderr, "solve-bench:   peers: skipped (they run cg, gmres or bicgstab with no "
                    "preconditioner or jacobi, without parameters)\n");
    return 0;
  }
  char qpy[1024], qscript[1024], qfile[1024], qpeers[256], cmd[4096];
  if (!shell_quote(qpy, sizeof qpy, o->python) ||
      !shell_quote(qscript, sizeof qscript, o->peers_script) ||
      !shell_quote(qfile, sizeof qfile, file) || !shell_quote(qpeers, sizeof qpeers, o->peers)) {
    fprintf(stderr, "solve-bench:   peers: a path is too long\n");
    return 1;
  }
  int len = snprintf(cmd, sizeof cmd,
                     "%s %s --peers %s --solver %s --precond %s --rtol %.17g --restart %d "
                     "--maxit %d --repeat %d --rhs %s --seed %llu --threads %d%s %s",
                     qpy, qscript, qpeers, solver, precond, o->rtol, o->restart, o->maxit,
                     o->repeat, o->rhs_random ? "random" : "ones", (unsigned long long)o->c.seed,
                     threads, o->negate ? " --negate" : "", qfile);
  if (len < 0 || (size_t)len >= sizeof cmd) {
    fprintf(stderr, "solve-bench:   peers: the command is too long\n");
    return 1;
  }
  fflush(NULL);
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(stderr, "solve-bench:   peers: cannot run %s\n", cmd);
    return 1;
  }
  char line[4096];
  int rows = 0;
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#') {
      size_t hl = strlen(header);
      if (!strstr(header, line) && hl + strlen(line) + 2 < header_len)
        snprintf(header + hl, header_len - hl, "%s\n", line);
      continue;
    }
    char *cells[NCOLS], *save = NULL, *tok = strtok_r(line, "\t", &save);
    int nc = 0;
    for (; tok && nc < NCOLS; tok = strtok_r(NULL, "\t", &save)) cells[nc++] = tok;
    if (nc != NCOLS) continue;
    char c15[96], c16[96], c17[96];
    int its = atoi(cells[8]);
    double solve_s = strtod(cells[13], NULL) * 1e-3;
    if (its > 0 && strcmp(cells[13], "-") != 0) {
      bound_cells(o, n, S, bw, its, solve_s, c15, c16, c17);
      cells[15] = c15;
      cells[16] = c16;
      cells[17] = c17;
    }
    bench_table_add(tab, (const char *const *)cells);
    fprintf(stderr, "solve-bench:   %s %s %s iterations, %s, relres %s, solve %s ms, %s us/iteration%s%s\n",
            cells[1], cells[2], cells[8], cells[9], cells[10], cells[13], cells[14],
            strcmp(cells[18], "ok") ? ": " : "", strcmp(cells[18], "ok") ? cells[18] : "");
    rows++;
  }
  int rc = pclose(p);
  if (rows == 0 || rc != 0) {
    fprintf(stderr, "solve-bench:   peers: %s ended with status %d after %d rows\n", cmd, rc,
            rows);
    return 1;
  }
  return 0;
}

static void write_tsv(const options *o, const bench_table *tab, const char *header)
{
  FILE *f = fopen(o->c.tsv, "w");
  if (!f) {
    fprintf(stderr, "solve-bench: cannot write %s\n", o->c.tsv);
    return;
  }
  fputs(header, f);
  bench_table_write_tsv(tab, f);
  fclose(f);
}

/* What one solve gave. */
typedef struct result {
  int iterations;
  sps_reason reason;
  sps_solver_type method; /* what finished the solve (auto resolved) */
  sps_precond_type precond;
  double relres, error, setup_s, solve_s, bytes;
  char name[300]; /* the matrix, for the history file */
  char status[512];
  int failed;
} result;

/* Set up and solve (repeat times) on A with b = A x*; fills r, never exits. */
static void run_solve(sps_context *ctx, const options *o, const sps_matrix *A, result *r)
{
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_solver *s = NULL;
  sps_vector *b = NULL, *x = NULL;
  double *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
  double *bh = malloc((size_t)(m ? m : 1) * sizeof *bh);
  double *xh = malloc((size_t)(n ? n : 1) * sizeof *xh);
  double *t = calloc((size_t)o->repeat, sizeof *t);
  sps_status st = SPS_SUCCESS;
  snprintf(r->status, sizeof r->status, "ok");
  if (!xs || !bh || !xh || !t) {
    st = SPS_ERR_HOST_MEMORY;
    goto cleanup;
  }
  if (m != n) {
    snprintf(r->status, sizeof r->status, "skipped: not square");
    goto cleanup;
  }
  /* x* and b = A x* on the host. */
  uint64_t rng = o->c.seed;
  for (int64_t j = 0; j < n; j++) xs[j] = o->rhs_random ? sps_splitmix64_sym(&rng) : 1.0;
  {
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    sps_matrix_get_csr(A, &rp, &ci, &va);
    sps_csr_matvec_host(m, rp, ci, va, xs, bh);
  }
  SPS_TRY(sps_vector_create(ctx, &b, m));
  SPS_TRY(sps_vector_create(ctx, &x, n));
  SPS_TRY(sps_vector_upload(b, bh, m));
  SPS_TRY(sps_solver_create(ctx, &s, o->solver));
  SPS_TRY(sps_solver_set_tolerances(s, o->rtol, 0.0));
  SPS_TRY(sps_solver_set_max_iterations(s, o->maxit));
  SPS_TRY(sps_solver_set_restart(s, o->restart));
  SPS_TRY(sps_solver_set_gmres_fused(s, o->gmres_fused));
  SPS_TRY(sps_solver_set_orthogonalization(s, o->orthog));
  SPS_TRY(sps_solver_set_precond(s, o->precond));
  for (int k = 0; k < o->nparams; k++)
    SPS_TRY(sps_solver_set_precond_param(s, o->pnames[k], o->pvalues[k]));
  SPS_TRY(sps_solver_set_history(s, o->history != NULL));
  SPS_TRY(sps_solver_set_spmv(s, o->spmv, 0));
  SPS_TRY(sps_context_synchronize(ctx));
  double t0 = sps_wtime();
  SPS_TRY(sps_solver_setup(s, A));
  SPS_TRY(sps_context_synchronize(ctx));
  r->setup_s = sps_wtime() - t0;
  for (int k = 0; k < o->repeat; k++) {
    SPS_TRY(sps_vector_fill(x, 0.0));
    SPS_TRY(sps_context_synchronize(ctx));
    t0 = sps_wtime();
    SPS_TRY(sps_solver_solve(s, b, x));
    SPS_TRY(sps_context_synchronize(ctx));
    t[k] = sps_wtime() - t0;
  }
  r->solve_s = bench_median(t, o->repeat);
  SPS_TRY(sps_solver_get_iterations(s, &r->iterations));
  SPS_TRY(sps_solver_get_reason(s, &r->reason));
  SPS_TRY(sps_solver_get_method(s, &r->method, &r->precond));
  if (o->history) {
    const double *h;
    int cnt;
    double bn;
    SPS_TRY(sps_solver_get_history(s, &h, &cnt));
    SPS_TRY(sps_vector_norm2(b, &bn));
    FILE *hf = fopen(o->history, "a");
    if (hf) {
      for (int k = 0; k < cnt; k++)
        fprintf(hf, "%s\t%s\t%s\t%d\t%.6e\t%.6e\n", r->name, sps_solver_type_name(r->method),
                sps_precond_type_name(o->precond == SPS_PRECOND_AUTO ? SPS_PRECOND_AUTO : r->precond),
                k, bn > 0.0 ? h[k] / bn : h[k],
                r->setup_s + (cnt > 1 ? k * r->solve_s / (cnt - 1) : 0.0));
      fclose(hf);
    }
  }
  SPS_TRY(sps_vector_download(x, xh, n));
  r->relres = host_relres(A, xh, bh);
  double ee = 0.0, xx = 0.0;
  for (int64_t j = 0; j < n; j++) {
    ee += (xh[j] - xs[j]) * (xh[j] - xs[j]);
    xx += xs[j] * xs[j];
  }
  r->error = xx > 0.0 ? sqrt(ee / xx) : sqrt(ee);
  if (r->reason > 0 && !(r->relres <= 10.0 * o->rtol)) {
    snprintf(r->status, sizeof r->status,
             "WRONG: reports %s but the true relative residual is %.3e > 10*rtol",
             sps_reason_name(r->reason), r->relres);
    r->failed = 1;
  }
cleanup:
  if (st) {
    snprintf(r->status, sizeof r->status, "%s: %s", sps_status_name(st),
             sps_context_last_error(ctx));
    r->failed = 1;
  }
  sps_solver_destroy(&s);
  sps_vector_destroy(&b);
  sps_vector_destroy(&x);
  free(xs);
  free(bh);
  free(xh);
  free(t);
}

int main(int argc, char **argv)
{
  options o;
  if (parse_options(argc, argv, &o)) return 2;
  sps_context *ctx = NULL;
  char dev[256], date[64], err[1024];
  double bw;
  size_t copy_used;
  if (bench_open("solve-bench", o.c.device, o.copy_bytes, 5, &ctx, dev, sizeof dev, date,
                 sizeof date, &bw, &copy_used))
    return 1;
  int cuda = o.c.device == SPS_DEVICE_CUDA;
  char header[4096];
  int hl = snprintf(header, sizeof header,
                    "# solve-bench (spsolve %s)\n# device: %s\n# date: %s\n# command:",
                    sps_version(), dev, date);
  for (int i = 1; i < argc && hl < (int)sizeof header - 256; i++)
    hl += snprintf(header + hl, sizeof header - (size_t)hl, " %s", argv[i]);
  snprintf(header + hl, sizeof header - (size_t)hl,
           "\n# copy_bandwidth_GBs: %.1f (%s copy of %zu MiB, bytes read + written, median of 5)\n"
           "# x0 = 0, b = A*x* with x* = %s%s; relres = ||b - A x||/||b|| recomputed on the host; "
           "error = ||x - x*||/||x*||\n"
           "# setup and solve: wall clock with the device synchronised; solve_ms: median of %d solves\n"
           "# bytes_per_iter: traffic of the unfused textbook iteration (bench/README.md; a "
           "vector dotted with itself read once: CG 12n, BiCGSTAB 24n doubles besides the "
           "SpMVs), SpMV counted as 12*nnz + 4*(m+1) + 8*n + 8*m; bound = bytes / copy "
           "bandwidth (none or jacobi only)\n",
           1e-9 * bw, cuda ? "device-to-device cudaMemcpyAsync" : "host memcpy", copy_used >> 20,
           o.rhs_random ? "uniform random in [-1,1)" : "ones", o.negate ? " (A negated)" : "",
           o.repeat);
  fprintf(stderr, "solve-bench: %s, copy bandwidth %.1f GB/s\n", dev, 1e-9 * bw);

  bench_table *tab = bench_table_create(NCOLS, columns);
  if (!tab) return 1;
  int failed = 0;
  for (int mi = 0; mi < o.c.ninputs; mi++) {
    char name[256];
    sps_matrix *A = NULL;
    double t0 = sps_wtime();
    if (bench_load_matrix(ctx, &o.c.inputs[mi], &A, name, sizeof name, err, sizeof err)) {
      fprintf(stderr, "solve-bench: [%d/%d] %s: cannot load: %s\n", mi + 1, o.c.ninputs,
              o.c.inputs[mi].spec, err);
      failed = 1;
      continue;
    }
    if (o.negate && sps_matrix_scale(A, -1.0)) {
      fprintf(stderr, "solve-bench: %s: %s\n", name, sps_context_last_error(ctx));
      failed = 1;
      sps_matrix_destroy(&A);
      continue;
    }
    int64_t m, n, nnz;
    sps_matrix_get_size(A, &m, &n, &nnz);
    fprintf(stderr, "solve-bench: [%d/%d] %s%s: %lld x %lld, %lld nonzeros, loaded in %.2f s\n",
            mi + 1, o.c.ninputs, name, o.negate ? " (negated)" : "", (long long)m, (long long)n,
            (long long)nnz, sps_wtime() - t0);
    result r;
    memset(&r, 0, sizeof r);
    r.relres = r.error = NAN;
    snprintf(r.name, sizeof r.name, "%s%s", name, o.negate ? "(-A)" : "");
    run_solve(ctx, &o, A, &r);
    failed |= r.failed;

    double S = bench_spmv_bytes(m, n, nnz);
    double tpi = r.solve_s / (r.iterations > 0 ? (double)r.iterations : NAN);
    char c[NCOLS][96], nm[300];
    const char *cells[NCOLS];
    snprintf(nm, sizeof nm, "%s%s", name, o.negate ? "(-A)" : "");
    snprintf(c[1], 96, "%s", o.gmres_fused && o.solver == SPS_SOLVER_GMRES ? "spsolve-fused" : "spsolve");
    snprintf(c[2], 96, "%s%s", sps_solver_type_name(r.method), o.solver == SPS_SOLVER_AUTO ? "(auto)" : "");
    snprintf(c[3], 96, "%s%s", sps_precond_type_name(r.precond), o.precond == SPS_PRECOND_AUTO ? "(auto)" : "");
    if (r.method == SPS_SOLVER_GMRES)
      snprintf(c[4], 96, "%d", o.restart);
    else
      snprintf(c[4], 96, "-");
    snprintf(c[5], 96, "%.1e", o.rtol);
    snprintf(c[6], 96, "%lld", (long long)m);
    snprintf(c[7], 96, "%lld", (long long)nnz);
    snprintf(c[8], 96, "%d", r.iterations);
    snprintf(c[9], 96, "%s", r.reason == SPS_REASON_NONE ? "-" : sps_reason_name(r.reason));
    bench_fmt(c[10], 96, "%.3e", r.relres);
    bench_fmt(c[11], 96, "%.3e", r.error);
    bench_fmt(c[12], 96, "%.3f", 1e3 * r.setup_s);
    bench_fmt(c[13], 96, "%.3f", 1e3 * r.solve_s);
    bench_fmt(c[14], 96, "%.2f", 1e6 * tpi);
    bound_cells(&o, n, S, bw, r.iterations, r.solve_s, c[15], c[16], c[17]);
    for (int j = 1; j < NCOLS - 1; j++) cells[j] = c[j];
    cells[0] = nm;
    cells[NCOLS - 1] = r.status;
    bench_table_add(tab, cells);
    fprintf(stderr, "solve-bench:   %s %d iterations, %s, relres %.2e, solve %.3f ms, %.2f us/iteration\n",
            c[2], r.iterations, c[9], r.relres, 1e3 * r.solve_s, 1e6 * tpi);
    if (o.peers) {
      if (o.c.inputs[mi].is_gen)
        fprintf(stderr, "solve-bench:   peers: skipped (a generated matrix; files only)\n");
      else
        failed |= run_peers(&o, o.c.inputs[mi].spec, n, S, bw, tab, header, sizeof header);
    }
    if (o.c.tsv) write_tsv(&o, tab, header);
    sps_matrix_destroy(&A);
  }
  printf("# %s, %s, copy bandwidth %.1f GB/s\n", dev, date, 1e-9 * bw);
  bench_table_print(tab, stdout, stdout_mask);
  if (o.c.tsv) write_tsv(&o, tab, header);
  bench_table_destroy(&tab);
  sps_context_destroy(&ctx);
  return failed;
}
