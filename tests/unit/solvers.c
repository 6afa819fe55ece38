/* solvers.c: each Krylov method on small systems with known solutions, and every solver status. */
#include "../testlib.h"

/* The variable preconditioner of the flexible GMRES test replaces a set-up solver's ops. */
#include "../../solvers/solver_internal.h"

/* A host CSR matrix built row by row. */
typedef struct csr {
  int64_t n, nnz, cap;
  int64_t *rp;
  int32_t *ci;
  double *v;
} csr;

static void csr_init(csr *M, int64_t n, int64_t cap)
{
  M->n = n;
  M->nnz = 0;
  M->cap = cap;
  M->rp = calloc((size_t)n + 1, sizeof *M->rp);
  M->ci = malloc((size_t)(cap ? cap : 1) * sizeof *M->ci);
  M->v = malloc((size_t)(cap ? cap : 1) * sizeof *M->v);
  if (!M->rp || !M->ci || !M->v) sps_bail("out of host memory");
}

/* Append a_ij to the current row i (rows in order; call csr_end_row after each). */
static void csr_add(csr *M, int32_t j, double a)
{
  if (M->nnz >= M->cap) sps_bail("csr capacity");
  M->ci[M->nnz] = j;
  M->v[M->nnz] = a;
  M->nnz++;
}

static void csr_end_row(csr *M, int64_t i)
{
  M->rp[i + 1] = M->nnz;
}

static void csr_free(csr *M)
{
  free(M->rp);
  free(M->ci);
  free(M->v);
}

/* y <- M x on the host. */
static void csr_mv(const csr *M, const double *x, double *y)
{
  sps_csr_matvec_host(M->n, M->rp, M->ci, M->v, x, y);
}

/* 1-D Poisson tridiag(-1, 2, -1), SPD. */
static csr poisson1d(int64_t n)
{
  csr M;
  csr_init(&M, n, 3 * n);
  for (int64_t i = 0; i < n; i++) {
    if (i > 0) csr_add(&M, (int32_t)(i - 1), -1.0);
    csr_add(&M, (int32_t)i, 2.0);
    if (i + 1 < n) csr_add(&M, (int32_t)(i + 1), -1.0);
    csr_end_row(&M, i);
  }
  return M;
}

/*
 * 2-D five-point operator on a k x k grid: 4 on the diagonal, -1 - g towards west and south,
 * -1 + g towards east and north. g = 0 is the SPD Poisson matrix; g != 0 the nonsymmetric
 * central-difference convection-diffusion matrix (cell Peclet number 2g), whose symmetric
 * part is the Poisson matrix, so GMRES(m) converges for every m.
 */
static csr grid2d(int k, double g)
{
  csr M;
  int64_t n = (int64_t)k * k;
  csr_init(&M, n, 5 * n);
  for (int iy = 0; iy < k; iy++)
    for (int ix = 0; ix < k; ix++) {
      int64_t i = (int64_t)iy * k + ix;
      if (iy > 0) csr_add(&M, (int32_t)(i - k), -1.0 - g);
      if (ix > 0) csr_add(&M, (int32_t)(i - 1), -1.0 - g);
      csr_add(&M, (int32_t)i, 4.0);
      if (ix + 1 < k) csr_add(&M, (int32_t)(i + 1), -1.0 + g);
      if (iy + 1 < k) csr_add(&M, (int32_t)(i + k), -1.0 + g);
      csr_end_row(&M, i);
    }
  return M;
}

/* diag(d). */
static csr diagonal(int64_t n, const double *d)
{
  csr M;
  csr_init(&M, n, n);
  for (int64_t i = 0; i < n; i++) {
    csr_add(&M, (int32_t)i, d[i]);
    csr_end_row(&M, i);
  }
  return M;
}

static sps_context *ctx;

static sps_matrix *upload_matrix(const csr *M)
{
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, M->n, M->n, M->rp, M->ci, M->v) != SPS_SUCCESS)
    sps_bail("matrix: %s", sps_context_last_error(ctx));
  return A;
}

static sps_vector *upload_vector(const double *h, int64_t n)
{
  sps_vector *v = NULL;
  if (sps_vector_create(ctx, &v, n) || sps_vector_upload(v, h, n))
    sps_bail("vector: %s", sps_context_last_error(ctx));
  return v;
}

/* Options of one solve. */
typedef struct opts {
  sps_solver_type type;
  sps_precond_type pc;
  sps_orthog orthog;
  int restart;
  double rtol, atol;
  int maxit;
  int flexible; /* GMRES: flexible variant (0 unless a test sets it) */
} opts;

static opts defaults(sps_solver_type type)
{
  opts o = {type, SPS_PRECOND_NONE, SPS_ORTHOG_CGS2, 30, 1e-10, 0.0, 10000, 0};
  return o;
}

static const char *label(const opts *o, char *buf, size_t len)
{
  if (o->type == SPS_SOLVER_GMRES)
    snprintf(buf, len, "gmres(%d)%s %s %s", o->restart, o->flexible ? " flexible" : "",
             o->orthog == SPS_ORTHOG_MGS ? "mgs" : "cgs2", sps_precond_type_name(o->pc));
  else
    snprintf(buf, len, "%s %s", sps_solver_type_name(o->type), sps_precond_type_name(o->pc));
  return buf;
}

static sps_solver *make_solver(const opts *o)
{
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, o->type) || sps_solver_set_precond(s, o->pc) ||
      sps_solver_set_orthogonalization(s, o->orthog) || sps_solver_set_restart(s, o->restart) ||
      sps_solver_set_tolerances(s, o->rtol, o->atol) ||
      sps_solver_set_max_iterations(s, o->maxit) || sps_solver_set_flexible(s, o->flexible))
    sps_bail("solver settings: %s", sps_context_last_error(ctx));
  return s;
}

/*
 * Solve M x = M x* from x = 0 and check: converged, the true residual (recomputed here from
 * the downloaded x) within the tolerance, get_residual agreeing with it, and the error
 * ||x - x*|| / ||x*|| <= errtol. Returns the iterations.
 */
static int check_solve(const char *what, const csr *M, const opts *o, double errtol)
{
  char lb[96];
  label(o, lb, sizeof lb);
  const int64_t n = M->n;
  double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *x = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
  sps_rng rng = {(uint64_t)n * 7919u + 17u};
  for (int64_t i = 0; i < n; i++)
    xs[i] = 1.0 + 0.5 * sps_rng_uniform(&rng);
  csr_mv(M, xs, b);
  sps_matrix *A = upload_matrix(M);
  sps_vector *vb = upload_vector(b, n), *vx = NULL;
  sps_vector_create(ctx, &vx, n);
  sps_solver *s = make_solver(o);
  sps_status st = sps_solver_setup(s, A);
  if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
  sps_reason reason = SPS_REASON_NONE;
  int its = -1;
  double rabs = -1, rrel = -1;
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  sps_solver_get_residual(s, &rabs, &rrel);
  sps_vector_download(vx, x, n);
  csr_mv(M, x, r);
  for (int64_t i = 0; i < n; i++) {
    r[i] = b[i] - r[i];
    xs[i] = x[i] - xs[i];
  }
  const double bn = sps_test_norm2(b, n), rn = sps_test_norm2(r, n);
  const double en = sps_test_norm2(xs, n) / sqrt((double)n);
  const double tol = fmax(o->rtol * bn, o->atol);
  sps_ok(st == SPS_SUCCESS && reason > 0 && rn <= tol * (1 + 1e-6) &&
             fabs(rabs - rn) <= 1e-12 * bn + 1e-3 * rn && en <= errtol,
         "%s, %s: %s in %d its, true residual %.3g (tol %.3g, reported %.3g), rms error %.2g", what,
         lb, sps_reason_name(reason), its, rn, tol, rabs, en);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(xs);
  free(b);
  free(x);
  free(r);
  return its;
}

/* S M S with S = diag(s), s_i in [1, 10]: a badly scaled matrix that Jacobi repairs. */
static void scale_sym(csr *M, uint64_t seed)
{
  sps_rng rng = {seed};
  double *sc = malloc((size_t)M->n * sizeof(double));
  for (int64_t i = 0; i < M->n; i++)
    sc[i] = 5.5 + 4.5 * sps_rng_uniform(&rng);
  for (int64_t i = 0; i < M->n; i++)
    for (int64_t k = M->rp[i]; k < M->rp[i + 1]; k++)
      M->v[k] *= sc[i] * sc[M->ci[k]];
  free(sc);
}

/* Jacobi on badly scaled matrices: each method converges and needs fewer iterations with it. */
static void test_jacobi_scaled(void)
{
  csr p2 = grid2d(20, 0.0), cd = grid2d(15, 0.3);
  scale_sym(&p2, 11);
  scale_sym(&cd, 12);
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    const csr *M = t == SPS_SOLVER_CG ? &p2 : &cd;
    const char *what = t == SPS_SOLVER_CG ? "scaled 2-D Poisson" : "scaled convection-diffusion";
    opts o = defaults((sps_solver_type)t);
    o.maxit = 20000;
    int plain = check_solve(what, M, &o, 1e-5);
    o.pc = SPS_PRECOND_JACOBI;
    int jac = check_solve(what, M, &o, 1e-5);
    sps_ok(jac < plain, "%s on %s: Jacobi takes fewer iterations (%d) than none (%d)",
           sps_solver_type_name(o.type), what, jac, plain);
  }
  csr_free(&p2);
  csr_free(&cd);
}

/* Solve with a given b and x0; report reason and iterations. */
static sps_status run(const csr *M, const opts *o, const double *b, double *x, sps_reason *reason,
                      int *its)
{
  sps_matrix *A = upload_matrix(M);
  sps_vector *vb = upload_vector(b, M->n), *vx = upload_vector(x, M->n);
  sps_solver *s = make_solver(o);
  sps_status st = sps_solver_setup(s, A);
  if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
  sps_solver_get_reason(s, reason);
  sps_solver_get_iterations(s, its);
  sps_vector_download(vx, x, M->n);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  return st;
}

static void test_known_solutions(void)
{
  csr p1 = poisson1d(100), p2 = grid2d(20, 0.0), cd = grid2d(15, 0.3);
  double dv[50];
  for (int i = 0; i < 50; i++)
    dv[i] = 1.0 + i;
  csr dg = diagonal(50, dv);
  const double one = 4.0;
  csr m1 = diagonal(1, &one);
  const sps_precond_type pcs[] = {SPS_PRECOND_NONE, SPS_PRECOND_JACOBI};

  for (int k = 0; k < 2; k++) {
    if (!sps_case()) continue;
    opts o = defaults(SPS_SOLVER_CG);
    o.pc = pcs[k];
    int its = check_solve("1-D Poisson n=100", &p1, &o, 1e-5);
    sps_ok(its <= 102,
           "CG on 1-D Poisson n=100 takes about n iterations (%d; n distinct eigenvalues)", its);
    check_solve("2-D Poisson 20x20", &p2, &o, 1e-6);
    its = check_solve("diagonal n=50", &dg, &o, 1e-9);
    if (o.pc == SPS_PRECOND_JACOBI)
      sps_ok(its == 1, "Jacobi-CG on a diagonal matrix: 1 iteration (%d)", its);
    check_solve("1x1", &m1, &o, 1e-12);
  }
  for (int k = 0; k < 2; k++) {
    if (!sps_case()) continue;
    opts o = defaults(SPS_SOLVER_BICGSTAB);
    o.pc = pcs[k];
    check_solve("convection-diffusion 15x15", &cd, &o, 1e-6);
    check_solve("2-D Poisson 20x20", &p2, &o, 1e-6);
    check_solve("diagonal n=50", &dg, &o, 1e-9);
    check_solve("1x1", &m1, &o, 1e-12);
  }
  const int restarts[] = {1, 5, 30, 300};
  const sps_orthog orth[] = {SPS_ORTHOG_MGS, SPS_ORTHOG_CGS2};
  for (int k = 0; k < 2; k++)
    for (int q = 0; q < 2; q++)
      for (int m = 0; m < 4; m++) {
        if (!sps_case()) continue;
        opts o = defaults(SPS_SOLVER_GMRES);
        o.pc = pcs[k];
        o.orthog = orth[q];
        o.restart = restarts[m];
        o.maxit = 20000;
        int its = check_solve("convection-diffusion 15x15", &cd, &o, 1e-6);
        if (o.restart == 300)
          sps_ok(its <= 225, "full GMRES (restart 300 > n = 225) needs <= n iterations (%d)", its);
      }
  for (int q = 0; q < 2; q++) {
    if (!sps_case()) continue;
    opts o = defaults(SPS_SOLVER_GMRES);
    o.orthog = orth[q];
    check_solve("1x1", &m1, &o, 1e-12);
    check_solve("diagonal n=50", &dg, &o, 1e-9);
  }
  csr_free(&p1);
  csr_free(&p2);
  csr_free(&cd);
  csr_free(&dg);
  csr_free(&m1);
}

/* GMRES stops cleanly at a happy breakdown: the Krylov space of A = I has dimension 1, of a
 * matrix with 2 distinct eigenvalues dimension 2. */
static void test_happy_breakdown(void)
{
  double d[40], b[40], x[40];
  for (int i = 0; i < 40; i++) {
    d[i] = (i % 2) ? 3.0 : 1.0;
    b[i] = 1.0 + 0.01 * i;
  }
  for (int q = 0; q < 2; q++) {
    if (!sps_case()) continue;
    opts o = defaults(SPS_SOLVER_GMRES);
    o.orthog = q ? SPS_ORTHOG_CGS2 : SPS_ORTHOG_MGS;
    o.rtol = 1e-14;
    double ones[40];
    for (int i = 0; i < 40; i++)
      ones[i] = 1.0;
    csr I = diagonal(40, ones), D2 = diagonal(40, d);
    sps_reason reason;
    int its;
    memset(x, 0, sizeof x);
    run(&I, &o, b, x, &reason, &its);
    double err = 0.0;
    for (int i = 0; i < 40; i++)
      err = fmax(err, fabs(x[i] - b[i]));
    sps_ok(reason > 0 && its == 1 && err <= 1e-14, "GMRES %s on I: %s in %d iteration, error %.2g",
           q ? "cgs2" : "mgs", sps_reason_name(reason), its, err);
    memset(x, 0, sizeof x);
    run(&D2, &o, b, x, &reason, &its);
    err = 0.0;
    for (int i = 0; i < 40; i++)
      err = fmax(err, fabs(x[i] - b[i] / d[i]));
    sps_ok(reason > 0 && its <= 2 && err <= 1e-13,
           "GMRES %s on diag(1,3,...): %s in %d iterations, error %.2g", q ? "cgs2" : "mgs",
           sps_reason_name(reason), its, err);
    csr_free(&I);
    csr_free(&D2);
  }
}

static void test_reasons(void)
{
  csr p2 = grid2d(10, 0.0);
  const int64_t n = p2.n;
  double b[100], x[100];
  sps_reason reason;
  int its;

  /* b = 0 gives x = 0 in 0 iterations, whatever x0 was. */
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    opts o = defaults((sps_solver_type)t);
    for (int i = 0; i < n; i++) {
      b[i] = 0.0;
      x[i] = 1.0 + i;
    }
    run(&p2, &o, b, x, &reason, &its);
    double xn = sps_test_norm2(x, n);
    sps_ok(reason == SPS_CONVERGED_ZERO_RHS && its == 0 && xn == 0.0,
           "%s with b = 0: %s, %d iterations, ||x|| = %g", sps_solver_type_name(o.type),
           sps_reason_name(reason), its, xn);
  }

  /* An initial guess that already solves the system takes 0 iterations. */
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    opts o = defaults((sps_solver_type)t);
    for (int i = 0; i < n; i++)
      x[i] = 1.0;
    csr_mv(&p2, x, b);
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_RTOL && its == 0,
           "%s from the exact solution: %s in %d iterations", sps_solver_type_name(o.type),
           sps_reason_name(reason), its);
  }

  /* The iteration limit. */
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    opts o = defaults((sps_solver_type)t);
    o.maxit = 3;
    for (int i = 0; i < n; i++) {
      b[i] = 1.0;
      x[i] = 0.0;
    }
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_DIVERGED_MAX_ITERATIONS && its == 3, "%s with maxit 3: %s after %d",
           sps_solver_type_name(o.type), sps_reason_name(reason), its);
  }

  /* NaN in b. */
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    opts o = defaults((sps_solver_type)t);
    for (int i = 0; i < n; i++) {
      b[i] = 1.0;
      x[i] = 0.0;
    }
    b[7] = NAN;
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_DIVERGED_NAN, "%s with NaN in b: %s", sps_solver_type_name(o.type),
           sps_reason_name(reason));
  }

  /* atol only: rtol 0, atol 1e-6. And atol above rtol*||b||: the atol bound is the one met. */
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    opts o = defaults((sps_solver_type)t);
    o.rtol = 0.0;
    o.atol = 1e-6;
    for (int i = 0; i < n; i++) {
      b[i] = 1.0;
      x[i] = 0.0;
    }
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_ATOL, "%s with atol only: %s in %d",
           sps_solver_type_name(o.type), sps_reason_name(reason), its);
    o.rtol = 1e-12;
    o.atol = 1e-3;
    memset(x, 0, sizeof x);
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_ATOL, "%s with atol > rtol*||b||: %s",
           sps_solver_type_name(o.type), sps_reason_name(reason));
    o.rtol = 1e-6;
    o.atol = 1e-12;
    memset(x, 0, sizeof x);
    run(&p2, &o, b, x, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_RTOL, "%s with rtol*||b|| > atol: %s",
           sps_solver_type_name(o.type), sps_reason_name(reason));
  }
  csr_free(&p2);

  /* CG on an indefinite matrix: diag(1, -2), b = (1, 1): p.Ap = -1. */
  if (sps_case()) {
    const double d[2] = {1.0, -2.0};
    csr D = diagonal(2, d);
    double b2[2] = {1.0, 1.0}, x2[2] = {0.0, 0.0};
    opts o = defaults(SPS_SOLVER_CG);
    run(&D, &o, b2, x2, &reason, &its);
    sps_ok(reason == SPS_DIVERGED_INDEFINITE_MATRIX, "CG on diag(1, -2): %s",
           sps_reason_name(reason));
    csr_free(&D);
  }
  /* CG on -A (A SPD, so a negative diagonal): solved as (-A) x = -b, with and without Jacobi
   * (whose M = -D would otherwise be negative definite). */
  if (sps_case()) {
    csr M = poisson1d(10);
    for (int64_t k = 0; k < M.nnz; k++)
      M.v[k] = -M.v[k];
    double b2[10], x2[10];
    for (int i = 0; i < 10; i++) {
      b2[i] = 1.0;
      x2[i] = 0.0;
    }
    opts o = defaults(SPS_SOLVER_CG);
    o.pc = SPS_PRECOND_JACOBI;
    run(&M, &o, b2, x2, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_RTOL && its > 0, "Jacobi-CG on -A, solved as (-A) x = -b: %s",
           sps_reason_name(reason));
    o.pc = SPS_PRECOND_NONE;
    memset(x2, 0, sizeof x2);
    run(&M, &o, b2, x2, &reason, &its);
    sps_ok(reason == SPS_CONVERGED_RTOL && its > 0, "CG on -A, solved as (-A) x = -b: %s",
           sps_reason_name(reason));
    csr_free(&M);
  }
  /* Jacobi-CG where (r, M^-1 r) < 0 at the start: A = [[2, 1], [1, -1]] (a diagonal of both
   * signs: not negated), b = (0, 1): z = D^-1 b = (0, -1), r.z = -1. */
  if (sps_case()) {
    csr M;
    csr_init(&M, 2, 4);
    csr_add(&M, 0, 2.0);
    csr_add(&M, 1, 1.0);
    csr_end_row(&M, 0);
    csr_add(&M, 0, 1.0);
    csr_add(&M, 1, -1.0);
    csr_end_row(&M, 1);
    double b2[2] = {0.0, 1.0}, x2[2] = {0.0, 0.0};
    opts o = defaults(SPS_SOLVER_CG);
    o.pc = SPS_PRECOND_JACOBI;
    run(&M, &o, b2, x2, &reason, &its);
    sps_ok(reason == SPS_DIVERGED_INDEFINITE_PRECOND && its == 0,
           "Jacobi-CG with (r, M^-1 r) < 0: %s", sps_reason_name(reason));
    csr_free(&M);
  }
  /* BiCGSTAB on the rotation [[0, 1], [-1, 0]]: (rhat, A r) = 0 for every r, a breakdown;
   * GMRES solves it in 2 iterations. */
  if (sps_case()) {
    csr R;
    csr_init(&R, 2, 2);
    csr_add(&R, 1, 1.0);
    csr_end_row(&R, 0);
    csr_add(&R, 0, -1.0);
    csr_end_row(&R, 1);
    double b2[2] = {1.0, 2.0}, x2[2] = {0.0, 0.0};
    opts o = defaults(SPS_SOLVER_BICGSTAB);
    run(&R, &o, b2, x2, &reason, &its);
    sps_ok(reason == SPS_DIVERGED_BREAKDOWN, "BiCGSTAB on a rotation: %s", sps_reason_name(reason));
    o = defaults(SPS_SOLVER_GMRES);
    memset(x2, 0, sizeof x2);
    run(&R, &o, b2, x2, &reason, &its);
    sps_ok(reason > 0 && its == 2 && fabs(x2[0] + 2.0) < 1e-14 && fabs(x2[1] - 1.0) < 1e-14,
           "GMRES on a rotation: %s in %d, x = (%g, %g)", sps_reason_name(reason), its, x2[0],
           x2[1]);
    csr_free(&R);
  }
  /* GMRES on diag(0, 1), b = e_1: A v_1 = 0, the rotated diagonal is 0 and x cannot move, a
   * breakdown whichever loop runs it (CGS2 device-driven, MGS host-driven). */
  if (sps_case()) {
    const double d[2] = {0.0, 1.0};
    csr D = diagonal(2, d);
    for (int q = 0; q < 2; q++) {
      double b2[2] = {1.0, 0.0}, x2[2] = {0.0, 0.0};
      opts o = defaults(SPS_SOLVER_GMRES);
      o.orthog = q ? SPS_ORTHOG_MGS : SPS_ORTHOG_CGS2;
      run(&D, &o, b2, x2, &reason, &its);
      sps_ok(reason == SPS_DIVERGED_BREAKDOWN && its <= 1 && x2[0] == 0.0 && x2[1] == 0.0,
             "GMRES %s on diag(0, 1), b = e_1: %s in %d, x = (%g, %g)", q ? "mgs" : "cgs2",
             sps_reason_name(reason), its, x2[0], x2[1]);
    }
    csr_free(&D);
  }
}

static void count_calls(void *user, int it, double rn)
{
  int *c = user;
  (void)rn;
  if (it % 5 == 0) c[0]++;
  c[1]++;
}

static void test_history_monitor_api(void)
{
  csr p2 = grid2d(12, 0.2);
  const int64_t n = p2.n;
  double *b = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 3);
  sps_matrix *A = upload_matrix(&p2);
  sps_vector *vb = upload_vector(b, n), *vx = NULL;
  sps_vector_create(ctx, &vx, n);

  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++) {
    if (!sps_case()) continue;
    sps_solver *s = NULL;
    sps_solver_create(ctx, &s, (sps_solver_type)t);
    const char *name = sps_solver_type_name((sps_solver_type)t);
    int calls[2] = {0, 0};
    sps_solver_set_history(s, 1);
    sps_solver_set_monitor(s, count_calls, calls, 5);
    if (t == SPS_SOLVER_CG) sps_solver_set_spmv(s, SPS_SPMV_CSR_SCALAR, 0);
    sps_ok(sps_solver_solve(s, vb, vx) == SPS_ERR_STATE, "%s: solve before setup is SPS_ERR_STATE",
           name);
    sps_ok(sps_solver_setup(s, A) == SPS_SUCCESS, "%s: setup", name);
    sps_vector_fill(vx, 0.0);
    sps_ok(sps_solver_solve(s, vb, vx) == SPS_SUCCESS, "%s: solve", name);
    int its = -1, count = -1;
    const double *h = NULL;
    sps_solver_get_iterations(s, &its);
    sps_solver_get_history(s, &h, &count);
    double bn = sps_test_norm2(b, n);
    sps_ok(h && count == its + 1 && fabs(h[0] - bn) <= 1e-12 * bn,
           "%s: history has iterations + 1 = %d entries (%d), entry 0 = ||b|| (%g vs %g)", name,
           its + 1, count, h ? h[0] : -1.0, bn);
    /* Every method stops at the first iteration whose residual norm (the recurrence's, which
     * the history holds) meets rtol*||b|| (the default rtol, 1e-8): earlier entries lie above
     * it, the last one on or below it. */
    const double tol = 1e-8 * bn;
    int first = h && count == its + 1 && count > 1 && h[its] <= tol;
    for (int k = 0; first && k < its; k++)
      if (!(h[k] > tol)) first = 0;
    sps_ok(first, "%s: the history meets rtol*||b|| = %.3g first at its last entry (%.3g)", name,
           tol, h && count > 0 ? h[count - 1] : -1.0);
    /* GMRES minimises ||r|| over a growing Krylov space within a cycle, and a restart starts
     * from the cycle's end, so its history is nonincreasing (to rounding: a restart records
     * the true ||b - Ax||). CG minimises the A-norm of the error when A is SPD (this A is not
     * symmetric) and BiCGSTAB minimises nothing: their ||r|| may rise, so it is only reported. */
    int rises = 0;
    for (int k = 1; h && k < count; k++)
      if (h[k] > h[k - 1] * (1 + 1e-12)) rises++;
    if (t == SPS_SOLVER_GMRES)
      sps_ok(rises == 0, "%s: history nonincreasing (%d rises)", name, rises);
    else
      sps_diag("%s: the residual norm rose at %d of %d iterations (not monotone for this method)",
               name, rises, its);
    sps_ok(calls[1] == its / 5 + 1 && calls[0] == calls[1],
           "%s: monitor called %d times every 5 iterations over %d iterations", name, calls[1],
           its);
    double ts = -1, tv = -1;
    sps_solver_get_times(s, &ts, &tv);
    sps_ok(ts >= 0.0 && tv >= 0.0, "%s: times setup %.3g s, solve %.3g s", name, ts, tv);
    sps_spmv_kind kind;
    int tpr = -1;
    sps_solver_get_spmv(s, &kind, &tpr);
    sps_ok(kind != SPS_SPMV_AUTO && tpr >= 0, "%s: SpMV in use %s, %d threads per row", name,
           sps_spmv_kind_name(kind), tpr);

    /* Turning history off empties it; settings after setup take effect. */
    sps_solver_set_history(s, 0);
    sps_solver_set_max_iterations(s, 2);
    sps_vector_fill(vx, 0.0);
    sps_solver_solve(s, vb, vx);
    sps_solver_get_history(s, &h, &count);
    sps_reason reason;
    sps_solver_get_reason(s, &reason);
    sps_solver_get_iterations(s, &its);
    sps_ok(count == 0 && reason == SPS_DIVERGED_MAX_ITERATIONS && its == 2,
           "%s: after set_history(0), set_max_iterations(2): %d entries, %s in %d", name, count,
           sps_reason_name(reason), its);

    /* Size mismatch. */
    sps_vector *short_v = NULL;
    sps_vector_create(ctx, &short_v, n - 1);
    sps_ok(sps_solver_solve(s, short_v, vx) == SPS_ERR_SIZE,
           "%s: b of the wrong length is SPS_ERR_SIZE", name);
    sps_ok(sps_solver_solve(s, vb, short_v) == SPS_ERR_SIZE,
           "%s: x of the wrong length is SPS_ERR_SIZE", name);
    sps_vector_destroy(&short_v);
    sps_solver_destroy(&s);
    sps_ok(s == NULL, "%s: destroy sets the pointer to NULL", name);
  }

  /* GMRES: a restart changed after setup rebuilds the basis. */
  if (sps_case()) {
    sps_solver *s = NULL;
    sps_solver_create(ctx, &s, SPS_SOLVER_GMRES);
    sps_solver_setup(s, A);
    sps_solver_set_restart(s, 60);
    sps_vector_fill(vx, 0.0);
    /* the solve before the message: the arguments of sps_ok are evaluated in no fixed order */
    sps_reason reason = SPS_REASON_NONE;
    const int ok = sps_solver_solve(s, vb, vx) == SPS_SUCCESS &&
                   sps_solver_get_reason(s, &reason) == 0 && reason == SPS_CONVERGED_RTOL;
    sps_ok(ok, "gmres: restart 60 set after setup, %s", sps_reason_name(reason));
    sps_solver_destroy(&s);
  }

  /* A rectangular matrix is refused at setup. */
  if (sps_case()) {
    int64_t rp[3] = {0, 1, 2};
    int32_t ci[2] = {0, 2};
    double v[2] = {1.0, 1.0};
    sps_matrix *R = NULL;
    sps_matrix_create_csr(ctx, &R, 2, 3, rp, ci, v);
    sps_solver *s = NULL;
    sps_solver_create(ctx, &s, SPS_SOLVER_CG);
    sps_ok(sps_solver_setup(s, R) == SPS_ERR_SIZE, "setup on a 2 x 3 matrix is SPS_ERR_SIZE");
    sps_solver_destroy(&s);
    sps_matrix_destroy(&R);
  }

  /* Names and settings. */
  if (sps_case()) {
    sps_solver_type ty;
    sps_precond_type pt;
    sps_ok(sps_solver_type_from_name("bicgstab", &ty) == 0 && ty == SPS_SOLVER_BICGSTAB &&
               strcmp(sps_solver_type_name(SPS_SOLVER_GMRES), "gmres") == 0 &&
               sps_solver_type_name(SPS_SOLVER_TYPE_COUNT) == NULL &&
               sps_solver_type_from_name("minres", &ty) == SPS_ERR_ARGUMENT,
           "solver type names");
    sps_ok(sps_precond_type_from_name("jacobi", &pt) == 0 && pt == SPS_PRECOND_JACOBI &&
               strcmp(sps_precond_type_name(SPS_PRECOND_NONE), "none") == 0 &&
               sps_precond_type_name(SPS_PRECOND_TYPE_COUNT) == NULL &&
               sps_precond_type_from_name("ilu", &pt) == SPS_ERR_ARGUMENT,
           "preconditioner names");
    sps_solver *s = NULL;
    sps_ok(sps_solver_create_by_name(ctx, &s, "minres") == SPS_ERR_ARGUMENT && s == NULL,
           "create_by_name with an unknown name is SPS_ERR_ARGUMENT");
    sps_ok(sps_solver_create_by_name(ctx, &s, "cg") == SPS_SUCCESS && s, "create_by_name(\"cg\")");
    sps_ok(sps_solver_set_tolerances(s, 0.0, 0.0) == SPS_ERR_ARGUMENT &&
               sps_solver_set_tolerances(s, -1.0, 0.0) == SPS_ERR_ARGUMENT &&
               sps_solver_set_tolerances(s, NAN, 0.0) == SPS_ERR_ARGUMENT &&
               sps_solver_set_max_iterations(s, 0) == SPS_ERR_ARGUMENT &&
               sps_solver_set_restart(s, 0) == SPS_ERR_ARGUMENT &&
               sps_solver_set_orthogonalization(s, (sps_orthog)7) == SPS_ERR_ARGUMENT &&
               sps_solver_set_precond(s, SPS_PRECOND_TYPE_COUNT) == SPS_ERR_ARGUMENT &&
               sps_solver_set_spmv(s, SPS_SPMV_AUTO, 3) == SPS_ERR_ARGUMENT &&
               sps_solver_set_monitor(s, count_calls, NULL, -1) == SPS_ERR_ARGUMENT,
           "bad settings are SPS_ERR_ARGUMENT");
    sps_ok(strlen(sps_context_last_error(ctx)) > 0, "the last error is recorded: \"%s\"",
           sps_context_last_error(ctx));
    sps_solver_destroy(&s);
    sps_ok(sps_solver_destroy(NULL) == SPS_SUCCESS && sps_solver_destroy(&s) == SPS_SUCCESS,
           "destroy accepts NULL");
  }

  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(b);
  csr_free(&p2);
}

/* Jacobi refuses a matrix whose diagonal has a zero or a missing entry, naming the row. */
/* The monitor calls of one solve: iteration numbers and norms. */
typedef struct calls_log {
  int count, max;
  int its[4096];
  double norms[4096];
} calls_log;

static void log_calls(void *user, int it, double rn)
{
  calls_log *c = user;
  if (c->count < 4096) {
    c->its[c->count] = it;
    c->norms[c->count] = rn;
  }
  c->count++;
}

/*
 * GMRES (CGS2, restart <= SPS_GMRES_STEPS_MAX_M) and BiCGSTAB run device-driven, in batches
 * read once each: the monitor must still be called with increasing iteration numbers, each a
 * multiple of the interval (cycle ends in between included), with the norm the history holds
 * there (GMRES: where a cycle restarts, the history holds the true ||b - Ax||, the monitor
 * the recurrence's estimate; they differ by the rounding of b - Ax, about eps ||A|| ||x||);
 * the history must have iterations + 1 entries; and the batching must not change the
 * arithmetic: the same solve without a monitor (adaptive batches) gives the same iterations
 * and history.
 */
static void test_monitor_batches(void)
{
  csr p2 = grid2d(12, 0.2);
  const int64_t n = p2.n;
  double *b = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 3);
  sps_matrix *A = upload_matrix(&p2);
  sps_vector *vb = upload_vector(b, n), *vx = NULL;
  sps_vector_create(ctx, &vx, n);
  static calls_log log;
  const struct {
    sps_solver_type type;
    sps_precond_type pc;
    int restart, every;
  } cases[] = {
      {SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 30, 1},     {SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, 10, 7},
      {SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 300, 5},    {SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 1, 3},
      {SPS_SOLVER_BICGSTAB, SPS_PRECOND_NONE, 30, 1},  {SPS_SOLVER_BICGSTAB, SPS_PRECOND_JACOBI, 30, 3},
      {SPS_SOLVER_BICGSTAB, SPS_PRECOND_NONE, 30, 100},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (!sps_case()) continue;
    opts o = defaults(cases[c].type);
    o.pc = cases[c].pc;
    o.restart = cases[c].restart;
    char lb[96], name[128];
    label(&o, lb, sizeof lb);
    snprintf(name, sizeof name, "%s, monitor every %d", lb, cases[c].every);
    sps_solver *s = make_solver(&o);
    memset(&log, 0, sizeof log);
    sps_solver_set_history(s, 1);
    sps_solver_set_monitor(s, log_calls, &log, cases[c].every);
    sps_status st = sps_solver_setup(s, A);
    sps_vector_fill(vx, 0.0);
    if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
    sps_reason reason = SPS_REASON_NONE;
    int its = -1, count = -1;
    const double *h = NULL;
    sps_solver_get_reason(s, &reason);
    sps_solver_get_iterations(s, &its);
    sps_solver_get_history(s, &h, &count);
    sps_ok(st == SPS_SUCCESS && reason > 0 && its > 0 && h && count == its + 1,
           "%s: %s in %d iterations, history of %d entries", name, sps_reason_name(reason), its,
           count);
    int increasing = log.count > 0 && log.its[0] == 0, multiples = 1, agree = 1;
    for (int k = 1; k < log.count && k < 4096; k++) {
      if (log.its[k] <= log.its[k - 1]) increasing = 0;
      if (log.its[k] % cases[c].every != 0 || log.its[k] > its) multiples = 0;
      else if (h && fabs(log.norms[k] - h[log.its[k]]) > 1e-6 * h[log.its[k]] + 1e-12 * h[0])
        agree = 0;
    }
    sps_ok(increasing && multiples && log.count == its / cases[c].every + 1,
           "%s: %d monitor calls, at increasing multiples of the interval up to %d", name,
           log.count, its);
    sps_ok(agree, "%s: the monitor's norms are the history's at the same iterations", name);
    double *h1 = malloc((size_t)(its > 0 ? its + 1 : 1) * sizeof(double));
    if (h && count == its + 1) memcpy(h1, h, (size_t)count * sizeof(double));
    /* The same solve in adaptive batches. */
    sps_solver_set_monitor(s, NULL, NULL, 0);
    sps_vector_fill(vx, 0.0);
    int its2 = -1, count2 = -1;
    const double *h2 = NULL;
    st = sps_solver_solve(s, vb, vx);
    sps_solver_get_iterations(s, &its2);
    sps_solver_get_history(s, &h2, &count2);
    double diff = 0.0;
    if (its2 == its && count2 == count && h2 && count == its + 1)
      for (int k = 0; k < count; k++)
        diff = fmax(diff, fabs(h2[k] - h1[k]) / h1[0]);
    sps_ok(st == SPS_SUCCESS && its2 == its && count2 == its2 + 1 && diff <= 1e-12,
           "%s: without a monitor %d iterations (%d), history of %d entries, differing by %.1e",
           name, its2, its, count2, diff);
    free(h1);
    sps_solver_destroy(&s);
  }

  /* The orthogonalisation changed after setup rebuilds GMRES for the host-driven MGS loop. */
  if (sps_case()) {
    opts o = defaults(SPS_SOLVER_GMRES);
    sps_solver *s = make_solver(&o);
    sps_solver_set_history(s, 1);
    sps_solver_setup(s, A);
    int its[2] = {-1, -1}, count[2] = {-1, -1};
    sps_reason reason[2] = {SPS_REASON_NONE, SPS_REASON_NONE};
    for (int q = 0; q < 2; q++) {
      const double *h;
      sps_ok(sps_solver_set_orthogonalization(s, q ? SPS_ORTHOG_MGS : SPS_ORTHOG_CGS2) == 0,
             "gmres: orthogonalisation %s set after setup", q ? "mgs" : "cgs2");
      sps_vector_fill(vx, 0.0);
      sps_solver_solve(s, vb, vx);
      sps_solver_get_reason(s, &reason[q]);
      sps_solver_get_iterations(s, &its[q]);
      sps_solver_get_history(s, &h, &count[q]);
    }
    sps_ok(reason[0] > 0 && reason[1] > 0 && abs(its[0] - its[1]) <= 2 &&
               count[0] == its[0] + 1 && count[1] == its[1] + 1,
           "gmres cgs2 (device-driven) %s in %d, mgs (host-driven) %s in %d, histories %d and %d",
           sps_reason_name(reason[0]), its[0], sps_reason_name(reason[1]), its[1], count[0],
           count[1]);
    sps_solver_destroy(&s);
  }
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  csr_free(&p2);
  free(b);
}

static void test_jacobi_setup_errors(void)
{
  if (!sps_case()) return; /* one case */
  csr Z = poisson1d(6);
  for (int64_t k = Z.rp[2]; k < Z.rp[3]; k++)
    if (Z.ci[k] == 2) Z.v[k] = 0.0;
  sps_matrix *A = upload_matrix(&Z);
  sps_solver *s = NULL;
  sps_solver_create(ctx, &s, SPS_SOLVER_CG);
  sps_solver_set_precond(s, SPS_PRECOND_JACOBI);
  sps_status st = sps_solver_setup(s, A);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_UNSUPPORTED && strstr(msg, "row 3"),
         "Jacobi, zero diagonal in row 3: %s \"%s\"", sps_status_name(st), msg);
  sps_vector *vb = upload_vector(Z.v, 6), *vx = NULL;
  sps_vector_create(ctx, &vx, 6);
  sps_ok(sps_solver_solve(s, vb, vx) == SPS_ERR_STATE,
         "solve after a failed setup is SPS_ERR_STATE");
  sps_matrix_destroy(&A);

  /* Row 5 (1-based) without a diagonal entry. */
  csr M;
  csr_init(&M, 6, 6);
  for (int64_t i = 0; i < 6; i++) {
    csr_add(&M, (int32_t)(i == 4 ? 5 : i), 1.0);
    csr_end_row(&M, i);
  }
  A = upload_matrix(&M);
  st = sps_solver_setup(s, A);
  msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_UNSUPPORTED && strstr(msg, "row 5"),
         "Jacobi, no diagonal in row 5: %s \"%s\"", sps_status_name(st), msg);
  /* The same matrix without a preconditioner sets up. */
  sps_solver_set_precond(s, SPS_PRECOND_NONE);
  sps_ok(sps_solver_setup(s, A) == SPS_SUCCESS, "the same matrix sets up without Jacobi");
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  csr_free(&Z);
  csr_free(&M);
}

/*
 * A variable preconditioner for the flexible GMRES test: Jacobi whose every apply scales row i
 * by its own factor in [0.5, 1.5], drawn anew at each call, z = diag(f_k) D^-1 r, so M_k
 * changes from one inner iteration to the next. It is installed over a set-up solver's
 * Jacobi and works on host memory only (CPU contexts).
 */
static sps_precond_ops variable_ops;
static const sps_precond_ops *variable_base;
static sps_rng variable_rng;

static sps_status variable_apply(sps_precond *pc, const double *r, double *z)
{
  SPS_CHECK(variable_base->apply(pc, r, z));
  for (int64_t i = 0; i < pc->n; i++)
    z[i] *= 1.0 + 0.5 * sps_rng_uniform(&variable_rng);
  return SPS_SUCCESS;
}

static void variable_install(sps_solver *s)
{
  variable_base = s->pc->ops;
  variable_ops = *variable_base;
  variable_ops.apply = variable_apply;
  variable_ops.diagonal_inverse = NULL;
  s->pc->ops = &variable_ops;
  variable_rng.s = 2026;
}

/* ||b - M x|| / ||b|| on the host. */
static double true_relres(const csr *M, const double *b, const double *x)
{
  double *r = malloc((size_t)M->n * sizeof(double));
  csr_mv(M, x, r);
  for (int64_t i = 0; i < M->n; i++)
    r[i] = b[i] - r[i];
  const double rel = sps_test_norm2(r, M->n) / sps_test_norm2(b, M->n);
  free(r);
  return rel;
}

/*
 * Flexible GMRES. With a fixed preconditioner (Jacobi) it builds the same Arnoldi relation as
 * right-preconditioned GMRES and differs only in how x is updated (x += Z_k y against
 * x += M^-1 V_k y), so the iterations agree within 1 and the solutions to 1e-10 (both are
 * solved to rtol 1e-10, and the update differs by rounding only). Both paths: CGS2
 * (device-driven steps) and MGS (host-driven loop). Without a preconditioner, and for CG, the
 * flag changes nothing. With a preconditioner that changes at every apply, flexible GMRES
 * still converges (checked on the true residual); plain GMRES is reported but not judged.
 */
static void test_flexible(void)
{
  csr cd = grid2d(15, 0.3);
  scale_sym(&cd, 12);
  const int64_t n = cd.n;
  double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *x0 = malloc((size_t)n * sizeof(double)), *x1 = malloc((size_t)n * sizeof(double));
  sps_rng rng = {31};
  for (int64_t i = 0; i < n; i++)
    xs[i] = 1.0 + 0.5 * sps_rng_uniform(&rng);
  csr_mv(&cd, xs, b);

  const int restarts[] = {30, 5};
  const sps_orthog orth[] = {SPS_ORTHOG_CGS2, SPS_ORTHOG_MGS};
  const sps_precond_type pcs[] = {SPS_PRECOND_JACOBI, SPS_PRECOND_NONE};
  for (int p = 0; p < 2; p++)
    for (int q = 0; q < 2; q++)
      for (int m = 0; m < 2; m++) {
        if (!sps_case()) continue;
        opts o = defaults(SPS_SOLVER_GMRES);
        o.pc = pcs[p];
        o.orthog = orth[q];
        o.restart = restarts[m];
        o.maxit = 20000;
        sps_reason reason[2];
        int its[2];
        memset(x0, 0, (size_t)n * sizeof(double));
        memset(x1, 0, (size_t)n * sizeof(double));
        sps_status st = run(&cd, &o, b, x0, &reason[0], &its[0]);
        o.flexible = 1;
        st |= run(&cd, &o, b, x1, &reason[1], &its[1]);
        double d = 0.0;
        for (int64_t i = 0; i < n; i++)
          d += (x1[i] - x0[i]) * (x1[i] - x0[i]);
        d = sqrt(d) / sps_test_norm2(x0, n);
        const double r1 = true_relres(&cd, b, x1);
        char lb[96];
        sps_ok(st == SPS_SUCCESS && reason[0] > 0 && reason[1] > 0 && abs(its[1] - its[0]) <= 1 &&
                   d <= 1e-10 && r1 <= 1e-10 * (1 + 1e-6),
               "%s against plain: %s in %d its (plain %d), solutions differ by %.2g relative, "
               "true residual %.3g",
               label(&o, lb, sizeof lb), sps_reason_name(reason[1]), its[1], its[0], d, r1);
      }

  /* CG ignores the flag: the same iterations and the same x (up to the order of reductions). */
  if (sps_case()) {
    csr p2 = grid2d(20, 0.0);
    const int64_t n2 = p2.n;
    double *b2 = malloc((size_t)n2 * sizeof(double)), *y0 = calloc((size_t)n2, sizeof(double));
    double *y1 = calloc((size_t)n2, sizeof(double));
    for (int64_t i = 0; i < n2; i++)
      b2[i] = 1.0 + 0.5 * sps_rng_uniform(&rng);
    opts o = defaults(SPS_SOLVER_CG);
    o.pc = SPS_PRECOND_JACOBI;
    sps_reason reason[2];
    int its[2];
    sps_status st = run(&p2, &o, b2, y0, &reason[0], &its[0]);
    o.flexible = 1;
    st |= run(&p2, &o, b2, y1, &reason[1], &its[1]);
    double d = 0.0;
    for (int64_t i = 0; i < n2; i++)
      d = fmax(d, fabs(y1[i] - y0[i]));
    d /= sps_test_norm2(y0, n2) / sqrt((double)n2);
    sps_ok(st == SPS_SUCCESS && reason[0] > 0 && reason[1] == reason[0] && its[1] == its[0] &&
               d <= 1e-12,
           "CG ignores flexible: %s in %d its with it, %d without, x differing by %.1e",
           sps_reason_name(reason[1]), its[1], its[0], d);
    free(b2);
    free(y0);
    free(y1);
    csr_free(&p2);
  }

  /*
   * set_flexible after setup rebuilds the work space. With a preconditioner that varies at
   * every apply (host memory: CPU contexts only), the flexible solve must converge.
   */
  sps_matrix *A = upload_matrix(&cd);
  sps_vector *vb = upload_vector(b, n), *vx = NULL;
  sps_vector_create(ctx, &vx, n);
  const int cpu = ctx->kind == SPS_DEVICE_CPU;
  for (int q = 0; q < 2; q++) {
    if (!sps_case()) continue;
    opts o = defaults(SPS_SOLVER_GMRES);
    o.pc = SPS_PRECOND_JACOBI;
    o.orthog = orth[q];
    o.maxit = 2000;
    sps_solver *s = make_solver(&o);
    if (sps_solver_setup(s, A)) sps_bail("setup: %s", sps_context_last_error(ctx));
    sps_reason reason[3] = {SPS_REASON_NONE, SPS_REASON_NONE, SPS_REASON_NONE};
    int its[3] = {-1, -1, -1};
    double rel[3] = {-1, -1, -1};
    for (int k = 0; k < 3; k++) {
      /* plain, flexible set after setup, plain again */
      sps_status st = sps_solver_set_flexible(s, k == 1);
      sps_vector_fill(vx, 0.0);
      if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
      sps_solver_get_reason(s, &reason[k]);
      sps_solver_get_iterations(s, &its[k]);
      sps_vector_download(vx, x1, n);
      rel[k] = true_relres(&cd, b, x1);
      sps_ok(st == SPS_SUCCESS && reason[k] > 0 && rel[k] <= 1e-10 * (1 + 1e-6),
             "gmres %s, Jacobi, flexible %s after setup: %s in %d its, true residual %.3g",
             q ? "mgs" : "cgs2", k == 1 ? "on" : "off", sps_reason_name(reason[k]), its[k], rel[k]);
    }
    sps_ok(abs(its[1] - its[0]) <= 1 && abs(its[2] - its[0]) <= 1,
           "gmres %s: flexible set after setup takes %d its, plain %d before and %d after",
           q ? "mgs" : "cgs2", its[1], its[0], its[2]);
    if (cpu) {
      variable_install(s);
      for (int k = 0; k < 2; k++) {
        sps_status st = sps_solver_set_flexible(s, k);
        sps_vector_fill(vx, 0.0);
        if (st == SPS_SUCCESS) st = sps_solver_solve(s, vb, vx);
        sps_solver_get_reason(s, &reason[k]);
        sps_solver_get_iterations(s, &its[k]);
        sps_vector_download(vx, x1, n);
        rel[k] = true_relres(&cd, b, x1);
        if (k == 0)
          sps_diag("gmres %s, variable preconditioner, plain (not judged): %s in %d its, true "
                   "residual %.3g",
                   q ? "mgs" : "cgs2", sps_reason_name(reason[k]), its[k], rel[k]);
        else
          sps_ok(st == SPS_SUCCESS && reason[k] > 0 && rel[k] <= 1e-10 * (1 + 1e-6),
                 "gmres %s, variable preconditioner, flexible: %s in %d its, true residual %.3g",
                 q ? "mgs" : "cgs2", sps_reason_name(reason[k]), its[k], rel[k]);
      }
      /* Plain GMRES updates x with the last M, not the ones its basis was built with, so it
       * loses the minimisation property and restarts far more often (when it converges). */
      sps_ok(reason[1] > 0 && (reason[0] <= 0 || its[1] < its[0]),
             "gmres %s, variable preconditioner: flexible (set after setup) needs fewer "
             "iterations (%d) than plain (%d, %s)",
             q ? "mgs" : "cgs2", its[1], its[0], sps_reason_name(reason[0]));
      s->pc->ops = variable_base;
    }
    sps_solver_destroy(&s);
  }
  if (!cpu) sps_diag("variable preconditioner: host memory only, skipped on this device");
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  free(xs);
  free(b);
  free(x0);
  free(x1);
  csr_free(&cd);
}

/* One GMRES(30) solve of M x = b from x = 0 on context c, fused cycle asked for or not
 * (set after setup, which rebuilds the work space), with its history copied out (owned). */
typedef struct fused_run {
  sps_status st;
  sps_reason reason;
  int its, count;
  double *hist;
} fused_run;

static fused_run run_fused(sps_context *c, const csr *M, const double *b, int fused)
{
  fused_run out = {SPS_SUCCESS, SPS_REASON_NONE, -1, 0, NULL};
  sps_matrix *A = NULL;
  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  const double *h = NULL;
  if (sps_matrix_create_csr(c, &A, M->n, M->n, M->rp, M->ci, M->v) ||
      sps_vector_create(c, &vb, M->n) || sps_vector_upload(vb, b, M->n) ||
      sps_vector_create(c, &vx, M->n) || sps_solver_create(c, &s, SPS_SOLVER_GMRES) ||
      sps_solver_set_precond(s, SPS_PRECOND_NONE) || sps_solver_set_restart(s, 30) ||
      sps_solver_set_tolerances(s, 1e-9, 0.0) || sps_solver_set_history(s, 1))
    sps_bail("fused setting: %s", sps_context_last_error(c));
  out.st = sps_solver_setup(s, A);
  if (out.st == SPS_SUCCESS) out.st = sps_solver_set_gmres_fused(s, fused);
  if (out.st == SPS_SUCCESS) out.st = sps_solver_solve(s, vb, vx);
  sps_solver_get_reason(s, &out.reason);
  sps_solver_get_iterations(s, &out.its);
  sps_solver_get_history(s, &h, &out.count);
  out.hist = malloc((size_t)(out.count > 0 ? out.count : 1) * sizeof(double));
  if (!out.hist) sps_bail("out of host memory");
  if (h && out.count > 0) memcpy(out.hist, h, (size_t)out.count * sizeof(double));
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_matrix_destroy(&A);
  return out;
}

/* Same status, reason, iterations and history to the bit. */
static int same_run(const fused_run *a, const fused_run *b)
{
  return a->st == SPS_SUCCESS && b->st == SPS_SUCCESS && a->reason > 0 &&
         a->reason == b->reason && a->its == b->its && a->count == b->count && a->count > 1 &&
         memcmp(a->hist, b->hist, (size_t)a->count * sizeof(double)) == 0;
}

/*
 * sps_solver_set_gmres_fused: GMRES(30) on a nonsymmetric grid matrix with the fused cycle
 * asked for and not gives the same reason, iterations and residual history to the bit (on a
 * GPU with clusters the first runs one kernel per batch with the SpMV inside, the second SpMV
 * and Arnoldi step launches; elsewhere, the CPU included, the setting is ignored and the check
 * is that it changes nothing). On a GPU both runs must also give the CPU backend's history to
 * the bit, as the design promises (compensated sums, the same operations in the same order).
 * A change after setup rebuilds the work space; NULL is SPS_ERR_ARGUMENT.
 */
static void test_gmres_fused_setting(void)
{
  if (!sps_case()) return; /* one case */
  csr M = grid2d(40, 0.4);
  const int64_t n = M.n;
  double *b = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i % 7);
  const char *where = ctx->kind == SPS_DEVICE_CPU ? "cpu" : "cuda";
  fused_run fu = run_fused(ctx, &M, b, 1), un = run_fused(ctx, &M, b, 0);
  sps_ok(same_run(&fu, &un),
         "%s gmres(30) with and without the fused cycle: %s/%s in %d/%d its, the same history to "
         "the bit",
         where, sps_reason_name(fu.reason), sps_reason_name(un.reason), fu.its, un.its);
  if (ctx->kind != SPS_DEVICE_CPU) {
    sps_context *cpu = NULL;
    if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
      sps_bail("CPU context: %s", sps_context_create_error());
    fused_run ref = run_fused(cpu, &M, b, 0);
    sps_ok(same_run(&ref, &fu) && same_run(&ref, &un),
           "cuda gmres(30), fused and not, against the CPU backend: %s in %d its (CPU %s in %d), "
           "the same history to the bit",
           sps_reason_name(fu.reason), fu.its, sps_reason_name(ref.reason), ref.its);
    free(ref.hist);
    sps_context_destroy(&cpu);
  }
  sps_ok(sps_solver_set_gmres_fused(NULL, 1) == SPS_ERR_ARGUMENT,
         "sps_solver_set_gmres_fused(NULL) is SPS_ERR_ARGUMENT");
  free(fu.hist);
  free(un.hist);
  free(b);
  csr_free(&M);
}

/*
 * sps_solver_set_zero_guess: with it on, a solve ignores what x holds (here 1e300 and NaN
 * entries, which would give an infinite or NaN initial residual) and gives the run from an x of
 * zeros to the bit (same reason, iterations, history and x), for CG on a symmetric grid matrix,
 * GMRES on a nonsymmetric one, and the automatic choice on a negative definite one (it solves
 * with -A: r_0 = -b). sps_solver_get_report returns
 * what the single getters return. NULL solver or report is SPS_ERR_ARGUMENT.
 */
static void test_zero_guess_and_report(void)
{
  const char *where = ctx->kind == SPS_DEVICE_CPU ? "cpu" : "cuda";
  for (int c = 0; c < 3; c++) {
    if (!sps_case()) continue;
    const sps_solver_type type = c == 0 ? SPS_SOLVER_CG : c == 1 ? SPS_SOLVER_GMRES : SPS_SOLVER_AUTO;
    csr M = grid2d(30, c == 1 ? 0.4 : 0.0);
    const int64_t n = M.n;
    if (c == 2) /* -A, A SPD: the automatic choice runs CG on A (sign -1) */
      for (int64_t k = 0; k < M.rp[n]; k++)
        M.v[k] = -M.v[k];
    double *b = malloc((size_t)n * sizeof(double)), *junk = malloc((size_t)n * sizeof(double));
    double *x1 = malloc((size_t)n * sizeof(double)), *x2 = malloc((size_t)n * sizeof(double));
    double *h1 = NULL;
    if (!b || !junk || !x1 || !x2) sps_bail("out of host memory");
    for (int64_t i = 0; i < n; i++) {
      b[i] = 1.0 + (double)(i % 5);
      junk[i] = i % 3 == 0 ? 1e300 : (i % 3 == 1 ? NAN : -7.0);
    }
    sps_matrix *A = upload_matrix(&M);
    sps_vector *vb = upload_vector(b, n), *vx = upload_vector(junk, n), *v0 = NULL;
    sps_solver *s = NULL;
    if (sps_vector_create(ctx, &v0, n) || sps_solver_create(ctx, &s, type) ||
        sps_solver_set_tolerances(s, 1e-9, 0.0) || sps_solver_set_history(s, 1) ||
        sps_solver_setup(s, A))
      sps_bail("zero guess: %s", sps_context_last_error(ctx));
    sps_reason r1 = SPS_REASON_NONE, r2 = SPS_REASON_NONE;
    int it1 = -1, it2 = -2, n1 = 0, n2 = 0;
    const double *hist = NULL;
    /* reference: x of zeros, the setting off */
    sps_status st1 = sps_solver_solve(s, vb, v0);
    sps_solver_get_reason(s, &r1);
    sps_solver_get_iterations(s, &it1);
    sps_solver_get_history(s, &hist, &n1);
    h1 = malloc((size_t)(n1 > 0 ? n1 : 1) * sizeof(double));
    if (!h1) sps_bail("out of host memory");
    if (n1 > 0) memcpy(h1, hist, (size_t)n1 * sizeof(double));
    sps_vector_download(v0, x1, n);
    /* the setting on, x full of junk */
    sps_status st2 = sps_solver_set_zero_guess(s, 1);
    if (st2 == SPS_SUCCESS) st2 = sps_solver_solve(s, vb, vx);
    sps_solver_get_reason(s, &r2);
    sps_solver_get_iterations(s, &it2);
    sps_solver_get_history(s, &hist, &n2);
    sps_vector_download(vx, x2, n);
    sps_ok(st1 == SPS_SUCCESS && st2 == SPS_SUCCESS && r1 > 0 && r1 == r2 && it1 == it2 &&
               it1 > 0 && n1 == n2 && memcmp(h1, hist, (size_t)n1 * sizeof(double)) == 0 &&
               memcmp(x1, x2, (size_t)n * sizeof(double)) == 0,
           "%s %s, zero guess over an x of 1e300 and NaN: %s in %d its, the run from zeros "
           "(%s in %d) to the bit, x included",
           where, c == 0 ? "cg" : c == 1 ? "gmres" : "auto on a negative definite A", sps_reason_name(r2), it2,
           sps_reason_name(r1), it1);
    sps_solve_report rep;
    double ra = -1, rr = -1, ts = -1, tv = -1;
    sps_solver_type m = SPS_SOLVER_AUTO;
    sps_precond_type p = SPS_PRECOND_AUTO;
    sps_spmv_kind k = SPS_SPMV_AUTO;
    int tpr = -1, na = -1;
    const sps_solver_attempt *att = NULL;
    sps_solver_get_residual(s, &ra, &rr);
    sps_solver_get_times(s, &ts, &tv);
    sps_solver_get_method(s, &m, &p);
    sps_solver_get_spmv(s, &k, &tpr);
    sps_solver_get_attempts(s, &att, &na);
    sps_status st3 = sps_solver_get_report(s, &rep);
    sps_ok(st3 == SPS_SUCCESS && rep.reason == r2 && rep.iterations == it2 &&
               rep.residual_abs == ra && rep.residual_rel == rr && rep.setup_seconds == ts &&
               rep.solve_seconds == tv && rep.method == m && rep.precond == p && rep.spmv == k &&
               rep.threads_per_row == tpr && rep.attempts == att && rep.attempt_count == na &&
               rep.history == hist && rep.history_count == n2,
           "%s sps_solver_get_report gives what the getters give (%s, %d its, rel %.3g, %d "
           "tries)",
           where, sps_reason_name(rep.reason), rep.iterations, rep.residual_rel,
           rep.attempt_count);
    sps_solver_destroy(&s);
    sps_vector_destroy(&vb);
    sps_vector_destroy(&vx);
    sps_vector_destroy(&v0);
    sps_matrix_destroy(&A);
    csr_free(&M);
    free(b);
    free(junk);
    free(x1);
    free(x2);
    free(h1);
  }
  sps_solve_report rep;
  if (sps_case())
    sps_ok(sps_solver_set_zero_guess(NULL, 1) == SPS_ERR_ARGUMENT &&
               sps_solver_get_report(NULL, &rep) == SPS_ERR_ARGUMENT,
           "sps_solver_set_zero_guess(NULL) and sps_solver_get_report(NULL) are SPS_ERR_ARGUMENT");
}

/* The groups of checks, by name: `solvers [GROUP...]` runs only those named (so that slow
 * runs, such as under compute-sanitizer, can be split over several processes); no argument
 * runs them all. */
static const struct {
  const char *name;
  void (*run)(void);
} groups[] = {
    {"known_solutions", test_known_solutions},
    {"jacobi_scaled", test_jacobi_scaled},
    {"happy_breakdown", test_happy_breakdown},
    {"reasons", test_reasons},
    {"history_monitor_api", test_history_monitor_api},
    {"monitor_batches", test_monitor_batches},
    {"jacobi_setup_errors", test_jacobi_setup_errors},
    {"flexible", test_flexible},
    {"gmres_fused_setting", test_gmres_fused_setting},
    {"zero_guess_and_report", test_zero_guess_and_report},
};
enum { NGROUPS = sizeof groups / sizeof groups[0] };

int main(int argc, char **argv)
{
  for (int a = 1; a < argc; a++) {
    int known = 0;
    for (int g = 0; g < NGROUPS; g++)
      known |= strcmp(argv[a], groups[g].name) == 0;
    if (!known) {
      fprintf(stderr, "solvers: no group '%s'; the groups are:", argv[a]);
      for (int g = 0; g < NGROUPS; g++)
        fprintf(stderr, " %s", groups[g].name);
      fprintf(stderr, "\n");
      return 99;
    }
  }
  ctx = sps_test_context();
  char dev[128];
  sps_context_get_device_name(ctx, dev, sizeof dev);
  sps_diag("device: %s", dev);
  for (int g = 0; g < NGROUPS; g++) {
    int run = argc == 1;
    for (int a = 1; a < argc; a++)
      run |= strcmp(argv[a], groups[g].name) == 0;
    if (run) groups[g].run();
  }
  sps_context_destroy(&ctx);
  return sps_done();
}
