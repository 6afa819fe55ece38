/* solve_many.c: sps_solver_solve_many against sps_solver_solve column by column (batched CG, GMRES, BiCGSTAB: the same reason, iterations, x, residual and history to the bit), block CG on rank-deficient blocks, the automatic choice, the one-at-a-time cases and the bad arguments. */
#include "../testlib.h"

/*
 * What the batched methods promise (doc/design.md, "Block solvers"): each column of
 * sps_solver_solve_many takes exactly the iterations and the reason of sps_solver_solve on
 * that column alone, and gives the same x, because every per-column operation is the single
 * solve's with the same rounding. So the reference here is the library itself, run one column
 * at a time by another solver with the same settings, and the comparison is exact (memcmp of
 * x, the residual and the history): a batched step that summed in another order, skipped a
 * restart or updated a stopped column would change a bit. The right-hand sides mix columns that
 * stop at very different iterations: random ones, a zero column (x = 0 at once), a column
 * equal to A x0 (0 iterations from its initial guess), smooth ones (few iterations; some of
 * them scaled by 1e-250), columns scaled by 1e-200 and 1e150 (the solve scaled by a power of
 * two, its x scaled back when the column is written back), and with a lower maxit
 * columns that hit it while others converge; so the blocks compact while they run. The same
 * program runs on the GPU (solve-many-cuda.sh, SPS_TEST_DEVICE=cuda): there the batched
 * kernels must match the single GPU solves.
 *
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each comparison (with its maxit rerun), each block
 * CG case and each of the small test functions is a case.
 */

static sps_context *ctx;

/* A host CSR matrix. */
typedef struct csr {
  int64_t n, nnz;
  int64_t *rp;
  int32_t *ci;
  double *v;
} csr;

/* The 2-D five-point operator on a k x k grid: 4 on the diagonal, -1 - g west and south,
 * -1 + g east and north (g = 0: SPD Poisson; else nonsymmetric convection-diffusion). */
static csr grid2d(int k, double g, double scale)
{
  csr M;
  M.n = (int64_t)k * k;
  M.rp = calloc((size_t)M.n + 1, sizeof *M.rp);
  M.ci = malloc((size_t)(5 * M.n) * sizeof *M.ci);
  M.v = malloc((size_t)(5 * M.n) * sizeof *M.v);
  if (!M.rp || !M.ci || !M.v) sps_bail("out of host memory");
  int64_t e = 0;
  for (int iy = 0; iy < k; iy++)
    for (int ix = 0; ix < k; ix++) {
      const int64_t i = (int64_t)iy * k + ix;
#define ADD(j, a)                                                                                  \
  do {                                                                                             \
    M.ci[e] = (int32_t)(j);                                                                        \
    M.v[e++] = scale * (a);                                                                        \
  } while (0)
      if (iy > 0) ADD(i - k, -1.0 - g);
      if (ix > 0) ADD(i - 1, -1.0 - g);
      ADD(i, 4.0);
      if (ix + 1 < k) ADD(i + 1, -1.0 + g);
      if (iy + 1 < k) ADD(i + k, -1.0 + g);
#undef ADD
      M.rp[i + 1] = e;
    }
  M.nnz = e;
  return M;
}

static void csr_free(csr *M)
{
  free(M->rp);
  free(M->ci);
  free(M->v);
}

static sps_matrix *upload(const csr *M)
{
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, M->n, M->n, M->rp, M->ci, M->v) != SPS_SUCCESS)
    sps_bail("matrix: %s", sps_context_last_error(ctx));
  return A;
}

/* A bundled matrix (tests/data). */
static sps_matrix *read_matrix(const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", sps_test_data_dir(), name);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS)
    sps_bail("%s: %s", path, sps_context_last_error(ctx));
  return A;
}

/* The settings of one comparison. */
typedef struct cfg {
  const char *what;
  sps_solver_type type;
  sps_precond_type pc;
  int restart;
  double rtol;
  int maxit;
  int zero_guess;
  sps_orthog orthog;
  int stop;          /* a progress callback that asks to stop at its first call */
  int monitor_every; /* a monitor that records its calls (0: none) */
} cfg;

/* The monitor's calls. */
static int mon_calls, mon_bad, mon_last;

static void monitor(void *user, int it, double value)
{
  (void)user;
  if (it <= mon_last || !(value >= 0.0)) mon_bad++;
  mon_last = it;
  mon_calls++;
}

static int stop_now(void *user, int it, double value)
{
  (void)user;
  (void)it;
  (void)value;
  return 1;
}

static sps_solver *make_solver(const sps_matrix *A, const cfg *c, int columns)
{
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, c->type) || sps_solver_set_precond(s, c->pc) ||
      sps_solver_set_restart(s, c->restart > 0 ? c->restart : 30) ||
      sps_solver_set_tolerances(s, c->rtol, 0.0) || sps_solver_set_max_iterations(s, c->maxit) ||
      sps_solver_set_orthogonalization(s, c->orthog) || sps_solver_set_history(s, 1) ||
      sps_solver_set_zero_guess(s, c->zero_guess) || sps_solver_set_columns(s, columns) ||
      (c->stop && sps_solver_set_progress(s, stop_now, NULL, 1e-6)) ||
      (c->monitor_every && sps_solver_set_monitor(s, monitor, NULL, c->monitor_every)) ||
      sps_solver_setup(s, A))
    sps_bail("%s: solver: %s", c->what, sps_context_last_error(ctx));
  return s;
}

/* One column alone: what sps_solver_solve gives. */
typedef struct single {
  sps_reason reason;
  int iterations;
  double res_abs, res_rel;
  double *x;
  double *hist;
  int hist_count;
} single;

/*
 * The right-hand sides (column-major, n x k) and initial guesses of the mixed test: column j
 * of kind j % 6 (random, zero, A x0, smooth, random * 1e-200, random * 1e150); the zero column
 * only when k > 1, so that k = 1 solves something.
 */
static void make_columns(const sps_matrix *A, int64_t k, double *B, double *X0, uint64_t seed)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_rng rng = {seed};
  for (int64_t j = 0; j < k; j++) {
    double *b = B + j * n, *x0 = X0 + j * n;
    const int kind = k == 1 ? 0 : (int)(j % 6);
    for (int64_t i = 0; i < n; i++) x0[i] = 0.0;
    switch (kind) {
    case 1:
      for (int64_t i = 0; i < n; i++) b[i] = 0.0;
      break;
    case 2:
      for (int64_t i = 0; i < n; i++) x0[i] = sps_rng_uniform(&rng);
      sps_test_host_mv(A, x0, b);
      break;
    case 3: {
      /* smooth, and every other one tiny: a scaled column that finishes early */
      const double f = (j / 6) % 2 ? 1e-250 : 1.0;
      for (int64_t i = 0; i < n; i++) b[i] = f * (1.0 + 0.001 * (double)(i % 7));
      break;
    }
    default: {
      const double f = kind == 4 ? 1e-200 : kind == 5 ? 1e150 : 1.0;
      for (int64_t i = 0; i < n; i++) b[i] = f * sps_rng_uniform(&rng);
      break;
    }
    }
  }
}

static int same_bits(const double *a, const double *b, int64_t n)
{
  return n == 0 || memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

/* Solve column j alone with a fresh solver of the same settings. */
static void solve_single(const sps_matrix *A, const cfg *c, const double *b, const double *x0,
                         single *out)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_solver *s = make_solver(A, c, 0);
  sps_vector *vb = NULL, *vx = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_create(ctx, &vx, n) ||
      sps_vector_upload(vb, b, n) || sps_vector_upload(vx, x0, n))
    sps_bail("vectors: %s", sps_context_last_error(ctx));
  if (sps_solver_solve(s, vb, vx)) sps_bail("%s: single solve: %s", c->what, sps_context_last_error(ctx));
  out->x = malloc((size_t)(n ? n : 1) * sizeof(double));
  sps_vector_download(vx, out->x, n);
  sps_solver_get_reason(s, &out->reason);
  sps_solver_get_iterations(s, &out->iterations);
  sps_solver_get_residual(s, &out->res_abs, &out->res_rel);
  const double *h;
  sps_solver_get_history(s, &h, &out->hist_count);
  out->hist = malloc((size_t)(out->hist_count + 1) * sizeof(double));
  if (out->hist_count) memcpy(out->hist, h, (size_t)out->hist_count * sizeof(double));
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
}

/* A multivector with the host column-major values. */
static sps_multivector *make_mv(int64_t n, int64_t k, const double *host)
{
  sps_multivector *M = NULL;
  if (sps_multivector_create(ctx, &M, n, k) || (host && sps_multivector_upload(M, host, n, k)))
    sps_bail("multivector: %s", sps_context_last_error(ctx));
  return M;
}

/*
 * Compare solve_many with k columns against the k single solves; returns the mode and, in
 * *maxits, the most iterations of a single solve (for the caller's maxit experiments).
 */
static sps_many_mode compare(const sps_matrix *A, const cfg *c, int64_t k, uint64_t seed,
                             int *maxits, int *minits)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *B = malloc((size_t)(n * k + 1) * sizeof(double));
  double *X0 = malloc((size_t)(n * k + 1) * sizeof(double));
  double *X = malloc((size_t)(n * k + 1) * sizeof(double));
  single *ref = calloc((size_t)k, sizeof *ref);
  if (!B || !X0 || !X || !ref) sps_bail("out of host memory");
  make_columns(A, k, B, X0, seed);
  for (int64_t j = 0; j < k; j++) solve_single(A, c, B + j * n, X0 + j * n, &ref[j]);
  sps_solver *s = make_solver(A, c, (int)k);
  sps_multivector *MB = make_mv(n, k, B), *MX = make_mv(n, k, X0);
  mon_calls = mon_bad = mon_last = 0; /* the monitor's calls of this solve_many only */
  const sps_status st = sps_solver_solve_many(s, MB, MX);
  sps_multivector_download(MX, X, n, k);
  sps_many_report mr;
  sps_solver_get_many_report(s, &mr);
  int bad = -1, its_max = 0, its_min = 1 << 30, converged = 0;
  char why[160] = "";
  for (int64_t j = 0; j < k && st == SPS_SUCCESS; j++) {
    sps_column_report r;
    sps_solver_get_column_report(s, j, &r);
    if (ref[j].iterations > its_max) its_max = ref[j].iterations;
    if (ref[j].iterations > 0 && ref[j].iterations < its_min) its_min = ref[j].iterations;
    if (r.reason > 0) converged++;
    const char *diff = r.reason != ref[j].reason             ? "reason"
                       : r.iterations != ref[j].iterations   ? "iterations"
                       : !same_bits(X + j * n, ref[j].x, n) ? "x"
                       : !same_bits(&r.residual_abs, &ref[j].res_abs, 1) ? "residual"
                       : r.history_count != ref[j].hist_count             ? "history length"
                       : !same_bits(r.history, ref[j].hist, r.history_count) ? "history"
                                                                             : NULL;
    if (diff && bad < 0) {
      bad = (int)j;
      snprintf(why, sizeof why, "column %lld: %s differs (many: %s, %d its; single: %s, %d its)",
               (long long)j, diff, sps_reason_name(r.reason), r.iterations,
               sps_reason_name(ref[j].reason), ref[j].iterations);
    }
  }
  sps_ok(st == SPS_SUCCESS && bad < 0 && mr.columns == k && mr.converged == converged,
         "%s, k = %lld (%s): every column as its single solve (%d converged, %d to %d "
         "iterations)%s%s",
         c->what, (long long)k, mr.note, converged, its_min == 1 << 30 ? 0 : its_min, its_max,
         st ? ": " : "", st ? sps_context_last_error(ctx) : why);
  if (maxits) *maxits = its_max;
  if (minits) *minits = its_min;
  for (int64_t j = 0; j < k; j++) {
    free(ref[j].x);
    free(ref[j].hist);
  }
  free(ref);
  sps_multivector_destroy(&MB);
  sps_multivector_destroy(&MX);
  sps_solver_destroy(&s);
  free(B);
  free(X0);
  free(X);
  return mr.mode;
}

/* A comparison, then the same with maxit between the columns' counts, so that some columns
 * hit it while others converge. */
static void compare_with_maxit(const sps_matrix *A, cfg c, int64_t k, uint64_t seed)
{
  int hi = 0, lo = 0;
  const sps_many_mode mode = compare(A, &c, k, seed, &hi, &lo);
  sps_ok(mode == SPS_MANY_BATCHED, "%s, k = %lld: batched", c.what, (long long)k);
  if (lo < hi && hi > 1) {
    char what[160];
    snprintf(what, sizeof what, "%s, maxit %d", c.what, (lo + hi) / 2);
    c.what = what;
    c.maxit = (lo + hi) / 2;
    compare(A, &c, k, seed, NULL, NULL);
  }
}

static void test_batched(void)
{
  csr p = grid2d(13, 0.0, 1.0), cd = grid2d(11, 0.3, 1.0), neg = grid2d(9, 0.0, -1.0);
  sps_matrix *P = upload(&p), *CD = upload(&cd), *NEG = upload(&neg);
  sps_matrix *nos3 = read_matrix("nos3.mtx.gz"), *ors = read_matrix("orsreg_1.mtx.gz");
  sps_matrix *watt = read_matrix("watt_2.mtx.gz");
  const double rtol = 1e-10;
  cfg c;

  c = (cfg){"CG, 2-D Poisson (169)", SPS_SOLVER_CG, SPS_PRECOND_NONE, 0, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(P, c, 1, 1);
  if (sps_case()) compare_with_maxit(P, c, 7, 2);
  if (sps_case()) compare_with_maxit(P, c, 64, 3);
  c.what = "CG + Jacobi, 2-D Poisson (169)";
  c.pc = SPS_PRECOND_JACOBI;
  if (sps_case()) compare_with_maxit(P, c, 12, 4);
  c.what = "CG + Jacobi, zero guess";
  c.zero_guess = 1;
  if (sps_case()) compare(P, &c, 6, 5, NULL, NULL);
  c = (cfg){"CG on a negative definite A (-A solved)", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare(NEG, &c, 5, 6, NULL, NULL);
  c = (cfg){"CG + IC(0), nos3", SPS_SOLVER_CG, SPS_PRECOND_IC0, 0, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(nos3, c, 6, 7);

  c = (cfg){"GMRES(30), convection-diffusion (121)", SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 30, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(CD, c, 7, 8);
  c.what = "GMRES(8) + Jacobi, convection-diffusion (restarts)";
  c.restart = 8;
  c.pc = SPS_PRECOND_JACOBI;
  if (sps_case()) compare_with_maxit(CD, c, 16, 9);
  c = (cfg){"GMRES(30) + ILU(0), orsreg_1", SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 30, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(ors, c, 4, 10);
  c = (cfg){"GMRES(20), 2-D Poisson, 64 columns", SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 20, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare(P, &c, 64, 11, NULL, NULL);

  c = (cfg){"BiCGSTAB, convection-diffusion (121)", SPS_SOLVER_BICGSTAB, SPS_PRECOND_NONE, 0, rtol, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(CD, c, 9, 12);
  if (sps_case()) compare(CD, &c, 64, 13, NULL, NULL);
  /* maxit 300: a random b stagnates on watt_2 (restarting after breakdowns), the other
   * columns converge */
  c = (cfg){"BiCGSTAB + ILU(0), watt_2", SPS_SOLVER_BICGSTAB, SPS_PRECOND_ILU0, 0, rtol, 300, 0, SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare_with_maxit(watt, c, 3, 14);
  c.what = "BiCGSTAB + Jacobi, 2-D Poisson";
  c.pc = SPS_PRECOND_JACOBI;
  if (sps_case()) compare_with_maxit(P, c, 10, 15);

  sps_matrix_destroy(&P);
  sps_matrix_destroy(&CD);
  sps_matrix_destroy(&NEG);
  sps_matrix_destroy(&nos3);
  sps_matrix_destroy(&ors);
  sps_matrix_destroy(&watt);
  csr_free(&p);
  csr_free(&cd);
  csr_free(&neg);
}

/* A progress callback that stops at once: every running column ends interrupted at the first
 * batch read with the iterate reached (GMRES: x from the part of its cycle done), as the
 * single solve; a monitor: calls at increasing multiples of its interval, results unchanged. */
static void test_interrupt_and_monitor(void)
{
  csr p = grid2d(13, 0.0, 1.0), cd = grid2d(11, 0.3, 1.0);
  sps_matrix *P = upload(&p), *CD = upload(&cd);
  const struct {
    const char *what;
    sps_solver_type type;
    sps_matrix *A;
  } runs[] = {{"CG, stopped by the progress callback", SPS_SOLVER_CG, P},
              {"GMRES(30), stopped by the progress callback", SPS_SOLVER_GMRES, CD},
              {"BiCGSTAB, stopped by the progress callback", SPS_SOLVER_BICGSTAB, CD}};
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    if (!sps_case()) continue;
    cfg c = {runs[k].what, runs[k].type, SPS_PRECOND_JACOBI, 30, 1e-10, 10000, 0, SPS_ORTHOG_CGS2, 1, 0};
    compare(runs[k].A, &c, 8, 51 + k, NULL, NULL);
  }
  cfg c = {"CG with a monitor every 5 iterations", SPS_SOLVER_CG, SPS_PRECOND_NONE, 0, 1e-10, 10000, 0, SPS_ORTHOG_CGS2, 0, 5};
  if (sps_case()) {
    compare(P, &c, 8, 55, NULL, NULL);
    sps_ok(mon_calls > 0 && mon_bad == 0 && mon_last % 5 == 0,
           "the monitor: %d calls, iterations increasing, multiples of 5", mon_calls);
  }
  sps_matrix_destroy(&P);
  sps_matrix_destroy(&CD);
  csr_free(&p);
  csr_free(&cd);
}

/* Settings the batched steps cannot match bit for bit: one column at a time, with the single
 * solve's results (so the comparison still holds) and the mode saying so. */
static void test_one_by_one(void)
{
  csr cd = grid2d(11, 0.3, 1.0);
  sps_matrix *CD = upload(&cd);
  cfg c = {"GMRES(30) with MGS", SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 30, 1e-10, 10000, 0,
           SPS_ORTHOG_MGS, 0, 0};
  const sps_many_mode mode = compare(CD, &c, 5, 21, NULL, NULL);
  sps_ok(mode == SPS_MANY_ONE_BY_ONE, "GMRES with MGS runs one column at a time (mode %d)", (int)mode);
  sps_matrix_destroy(&CD);
  csr_free(&cd);
}

/* The automatic choice: the batch runs the choice setup made; on these matrices every column
 * converges within the first chunk of the chain, where the chain is the plain method. */
static void test_auto(void)
{
  csr p = grid2d(13, 0.0, 1.0), cd = grid2d(11, 0.3, 1.0);
  sps_matrix *P = upload(&p), *CD = upload(&cd);
  cfg c = {"automatic choice, 2-D Poisson", SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0, 1e-10, 10000, 0,
           SPS_ORTHOG_CGS2, 0, 0};
  if (sps_case()) compare(P, &c, 9, 31, NULL, NULL);
  c.what = "automatic choice, convection-diffusion";
  if (sps_case()) compare(CD, &c, 9, 32, NULL, NULL);
  sps_matrix_destroy(&P);
  sps_matrix_destroy(&CD);
  csr_free(&p);
  csr_free(&cd);
}

/* ||b - A x|| on the host for column j. */
static double host_residual(const sps_matrix *A, const double *b, const double *x, double *bound)
{
  return sps_test_residual_norm(A, b, x, bound);
}

/*
 * Block CG: every column converges to its tolerance (checked on the host from the downloaded
 * X), also when B is rank deficient (two equal columns, a zero column), and in no more
 * iterations than the slowest column of batched CG.
 */
static void block_case(const char *what, const sps_matrix *A, sps_precond_type pc, int64_t k,
                       int dup)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *B = malloc((size_t)(n * k) * sizeof(double)), *X = malloc((size_t)(n * k) * sizeof(double));
  sps_rng rng = {(uint64_t)(n + k)};
  for (int64_t j = 0; j < k; j++)
    for (int64_t i = 0; i < n; i++) B[j * n + i] = sps_rng_uniform(&rng);
  if (dup && k >= 3) {
    memcpy(B + n, B, (size_t)n * sizeof(double)); /* column 1 = column 0 */
    for (int64_t i = 0; i < n; i++) B[2 * n + i] = 0.0; /* column 2 = 0 */
  }
  const double rtol = 1e-8;
  int its[2] = {0, 0};
  double worst = 0.0;
  int ok = 1;
  for (int block = 0; block < 2; block++) {
    sps_solver *s = NULL;
    if (sps_solver_create(ctx, &s, SPS_SOLVER_CG) || sps_solver_set_precond(s, pc) ||
        sps_solver_set_tolerances(s, rtol, 0.0) || sps_solver_set_columns(s, (int)k) ||
        sps_solver_set_block(s, block) || sps_solver_set_history(s, 1) ||
        sps_solver_set_zero_guess(s, 1) || sps_solver_setup(s, A))
      sps_bail("block CG solver: %s", sps_context_last_error(ctx));
    sps_multivector *MB = make_mv(n, k, B), *MX = make_mv(n, k, NULL);
    const sps_status st = sps_solver_solve_many(s, MB, MX);
    sps_multivector_download(MX, X, n, k);
    sps_many_report mr;
    sps_solver_get_many_report(s, &mr);
    ok &= st == SPS_SUCCESS && mr.mode == (block ? SPS_MANY_BLOCK_CG : SPS_MANY_BATCHED);
    for (int64_t j = 0; j < k && block; j++) {
      sps_column_report r;
      sps_solver_get_column_report(s, j, &r);
      double bound;
      const double rn = host_residual(A, B + j * n, X + j * n, &bound);
      const double bn = sps_test_norm2(B + j * n, n);
      const double rel = bn > 0.0 ? rn / bn : rn;
      if (!(rel <= worst)) worst = rel;
      ok &= r.reason > 0 && rn <= rtol * bn + bound && r.history_count == r.iterations + 1 &&
            fabs(r.residual_abs - rn) <= bound + 1e-12 * bn;
      if (dup && k >= 3 && j == 1) ok &= r.iterations == 0 || r.reason > 0;
    }
    its[block] = mr.max_iterations;
    sps_multivector_destroy(&MB);
    sps_multivector_destroy(&MX);
    sps_solver_destroy(&s);
  }
  sps_ok(ok && its[1] <= its[0],
         "block CG, %s, k = %lld%s: every column converged (worst true relative residual %.2g), "
         "%d block iterations against %d for batched CG",
         what, (long long)k, dup ? " with two equal columns and a zero one" : "", worst, its[1],
         its[0]);
  free(B);
  free(X);
}

static void test_block_cg(void)
{
  csr p = grid2d(15, 0.0, 1.0);
  sps_matrix *P = upload(&p), *nos3 = read_matrix("nos3.mtx.gz");
  if (sps_case()) block_case("2-D Poisson", P, SPS_PRECOND_NONE, 1, 0);
  if (sps_case()) block_case("2-D Poisson", P, SPS_PRECOND_NONE, 6, 1);
  if (sps_case()) block_case("2-D Poisson + Jacobi", P, SPS_PRECOND_JACOBI, 16, 0);
  if (sps_case()) block_case("nos3 + Jacobi", nos3, SPS_PRECOND_JACOBI, 8, 1);
  if (sps_case()) block_case("nos3 + IC(0)", nos3, SPS_PRECOND_IC0, 5, 1);
  sps_matrix_destroy(&P);
  sps_matrix_destroy(&nos3);
  csr_free(&p);
}

/* Every bad argument and state is refused with its status, and the message names it. */
static void test_bad_arguments(void)
{
  csr p = grid2d(5, 0.0, 1.0);
  sps_matrix *A = upload(&p);
  const int64_t n = p.n;
  sps_solver *s = NULL, *s0 = NULL;
  sps_solver_create(ctx, &s, SPS_SOLVER_CG);
  sps_solver_create(ctx, &s0, SPS_SOLVER_CG);
  sps_multivector *B = make_mv(n, 3, NULL), *X = make_mv(n, 3, NULL), *X2 = make_mv(n, 2, NULL);
  sps_multivector *Bn = make_mv(n + 1, 3, NULL), *B4 = make_mv(n, 4, NULL), *X4 = make_mv(n, 4, NULL);
  sps_ok(sps_solver_solve_many(NULL, B, X) == SPS_ERR_ARGUMENT, "NULL solver: SPS_ERR_ARGUMENT");
  sps_ok(sps_solver_solve_many(s, B, X) == SPS_ERR_STATE, "before setup: SPS_ERR_STATE");
  sps_solver_set_precond(s, SPS_PRECOND_NONE);
  sps_solver_set_precond(s0, SPS_PRECOND_NONE);
  sps_ok(sps_solver_set_columns(s, -1) == SPS_ERR_ARGUMENT, "columns -1: SPS_ERR_ARGUMENT");
  sps_solver_setup(s0, A);
  sps_ok(sps_solver_solve_many(s0, B, X) == SPS_ERR_STATE &&
             strstr(sps_context_last_error(ctx), "sps_solver_set_columns") != NULL,
         "no columns set: SPS_ERR_STATE naming sps_solver_set_columns (%s)",
         sps_context_last_error(ctx));
  sps_solver_set_columns(s, 3);
  sps_solver_setup(s, A);
  sps_ok(sps_solver_solve_many(s, NULL, X) == SPS_ERR_ARGUMENT, "B NULL: SPS_ERR_ARGUMENT");
  sps_ok(sps_solver_solve_many(s, B, B) == SPS_ERR_ARGUMENT &&
             strstr(sps_context_last_error(ctx), "same") != NULL,
         "B and X the same: SPS_ERR_ARGUMENT (%s)", sps_context_last_error(ctx));
  sps_ok(sps_solver_solve_many(s, B, X2) == SPS_ERR_SIZE, "B 3 columns, X 2: SPS_ERR_SIZE (%s)",
         sps_context_last_error(ctx));
  sps_ok(sps_solver_solve_many(s, Bn, X) == SPS_ERR_SIZE, "B of n + 1 rows: SPS_ERR_SIZE (%s)",
         sps_context_last_error(ctx));
  sps_ok(sps_solver_solve_many(s, B4, X4) == SPS_ERR_SIZE,
         "4 columns for a solver set up for 3: SPS_ERR_SIZE (%s)", sps_context_last_error(ctx));
  sps_column_report r;
  sps_ok(sps_solver_get_column_report(s, 0, &r) == SPS_ERR_SIZE,
         "column report before any solve_many: SPS_ERR_SIZE");
  sps_ok(sps_solver_solve_many(s, B, X) == SPS_SUCCESS, "B = 0, 3 columns: solved");
  int zero_ok = 1;
  for (int j = 0; j < 3; j++) {
    zero_ok &= sps_solver_get_column_report(s, j, &r) == SPS_SUCCESS &&
               r.reason == SPS_CONVERGED_ZERO_RHS && r.iterations == 0;
  }
  sps_ok(zero_ok, "every zero column: SPS_CONVERGED_ZERO_RHS in 0 iterations");
  sps_ok(sps_solver_get_column_report(s, 3, &r) == SPS_ERR_SIZE &&
             sps_solver_get_column_report(s, -1, &r) == SPS_ERR_SIZE,
         "column 3 and -1 of 3: SPS_ERR_SIZE");
  sps_ok(sps_solver_get_column_report(s, 0, NULL) == SPS_ERR_ARGUMENT &&
             sps_solver_get_many_report(s, NULL) == SPS_ERR_ARGUMENT,
         "NULL reports: SPS_ERR_ARGUMENT");
  /* A multivector of another context. */
  sps_context *other = NULL;
  if (sps_context_create(&other, SPS_DEVICE_CPU, 0) == SPS_SUCCESS) {
    sps_multivector *Bo = NULL;
    sps_multivector_create(other, &Bo, n, 3);
    sps_ok(sps_solver_solve_many(s, Bo, X) == SPS_ERR_ARGUMENT,
           "B of another context: SPS_ERR_ARGUMENT (%s)", sps_context_last_error(ctx));
    sps_multivector_destroy(&Bo);
    sps_context_destroy(&other);
  }
  sps_multivector *mvs[] = {B, X, X2, Bn, B4, X4};
  for (size_t k = 0; k < sizeof mvs / sizeof mvs[0]; k++) sps_multivector_destroy(&mvs[k]);
  sps_solver_destroy(&s);
  sps_solver_destroy(&s0);
  sps_matrix_destroy(&A);
  csr_free(&p);
}

/* After solve_many, the single solve's getters give the worst column; a later single solve
 * gives its own results; set_columns after setup rebuilds the work space. */
static void test_report_and_rebuild(void)
{
  csr p = grid2d(9, 0.0, 1.0);
  sps_matrix *A = upload(&p);
  const int64_t n = p.n;
  cfg c = {"report", SPS_SOLVER_CG, SPS_PRECOND_NONE, 0, 1e-10, 10000, 0, SPS_ORTHOG_CGS2, 0, 0};
  sps_solver *s = make_solver(A, &c, 2);
  double *B = malloc((size_t)(3 * n) * sizeof(double)), *X0 = malloc((size_t)(3 * n) * sizeof(double));
  make_columns(A, 3, B, X0, 41);
  sps_multivector *MB = make_mv(n, 3, B), *MX = make_mv(n, 3, X0);
  sps_ok(sps_solver_solve_many(s, MB, MX) == SPS_ERR_SIZE, "3 columns with 2 set: SPS_ERR_SIZE");
  sps_ok(sps_solver_set_columns(s, 3) == SPS_SUCCESS && sps_solver_solve_many(s, MB, MX) == SPS_SUCCESS,
         "set_columns(3) after setup rebuilds the work space: solved");
  sps_many_report mr;
  sps_solve_report sr;
  sps_column_report r0, r1;
  sps_solver_get_many_report(s, &mr);
  sps_solver_get_report(s, &sr);
  sps_solver_get_column_report(s, 0, &r0);
  sps_solver_get_column_report(s, 1, &r1);
  sps_ok(mr.columns == 3 && mr.converged == 3 && sr.reason == r0.reason &&
             sr.iterations == mr.max_iterations && r1.reason == SPS_CONVERGED_ZERO_RHS &&
             mr.total_iterations == (int64_t)r0.iterations && mr.block_width == 3 &&
             sr.history_count == 0,
         "the summary and the single getters after solve_many (the column with most iterations, "
         "%d; total %lld; reasons %d %d, %d; width %d)", mr.max_iterations,
         (long long)mr.total_iterations, (int)sr.reason, (int)r0.reason, (int)r1.reason,
         mr.block_width);
  free(B);
  free(X0);
  sps_multivector_destroy(&MB);
  sps_multivector_destroy(&MX);
  sps_solver_destroy(&s);
  sps_matrix_destroy(&A);
  csr_free(&p);
}

int main(void)
{
  ctx = sps_test_context();
  if (sps_case()) test_bad_arguments();
  if (sps_case()) test_report_and_rebuild();
  test_batched(); /* these four: a case per comparison */
  test_interrupt_and_monitor();
  if (sps_case()) test_one_by_one();
  test_auto();
  test_block_cg();
  sps_context_destroy(&ctx);
  return sps_done();
}
