/* solver.c: libFuzzer target: sps_matrix_create_csr, then setup and a few iterations of each solver and preconditioner on a small random CSR with NaN, Inf and extreme values. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spsolve.h"

static sps_context *ctx;
static int oracle; /* SPS_FUZZ_ORACLE is set: check the answers of converged solves */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) abort();
  /* spmv=tune may be drawn: its disk cache stays off, so fuzzing writes no files. */
  if (sps_context_set_cache_dir(ctx, "") != SPS_SUCCESS) abort();
  oracle = getenv("SPS_FUZZ_ORACLE") != NULL;
  return 0;
}

/*
 * With SPS_FUZZ_ORACLE set in the environment, a solve that claims convergence is checked
 * against the true residual, recomputed here in long double from the matrix as stored:
 * ||b - Ax|| <= 10 max(rtol ||b||, atol) plus what rounding in double can leave, and
 * b = 0 (or x = 0 within the tolerance) for SPS_CONVERGED_ZERO_RHS. Off by default: it is a
 * tool to look for wrong answers, which the solvers' own tests then keep fixed.
 */
static void check_converged(const sps_matrix *A, const double *b, const sps_vector *vx, int n,
                            sps_reason reason, double rtol, double atol)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  double x[12];
  if (sps_matrix_get_csr(A, &rp, &ci, &va) || sps_vector_download(vx, x, n)) abort();
  /*
   * Values beyond 1e+-150 are left out: their squares leave the double range, and the
   * unscaled norms that get them wrong are a known defect of their own (issue 10).
   */
  if (getenv("SPS_FUZZ_ORACLE_ALL") == NULL) {
    for (int i = 0; i < n; i++)
      if (b[i] != 0 && !(fabs(b[i]) >= 1e-150 && fabs(b[i]) <= 1e150)) return;
    for (int64_t k = 0; k < rp[n]; k++)
      if (va[k] != 0 && !(fabs(va[k]) >= 1e-150 && fabs(va[k]) <= 1e150)) return;
  }
  long double rr = 0, bb = 0, aa = 0;
  int b_zero = 1;
  for (int i = 0; i < n; i++) {
    long double r = b[i], ax = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      r -= (long double)va[k] * x[ci[k]];
      ax += fabsl((long double)va[k] * x[ci[k]]);
    }
    rr += r * r;
    bb += (long double)b[i] * b[i];
    aa += ax * ax;
    b_zero &= b[i] == 0.0;
  }
  const long double rnorm = sqrtl(rr), bnorm = sqrtl(bb);
  /* The tolerance, and what rounding in double can leave: n u (||b|| + || |A||x| ||). */
  const long double tol = 10 * fmaxl((long double)rtol * bnorm, (long double)atol) +
                          16 * n * DBL_EPSILON * (bnorm + sqrtl(aa));
  /* x = 0 for a b that is not 0 is wrong only when it misses the tolerance too. */
  const int wrong = reason == SPS_CONVERGED_ZERO_RHS ? !b_zero && !(bnorm <= tol) : !(rnorm <= tol);
  if (wrong) {
    fprintf(stderr, "wrong answer: %s, but ||b - Ax|| = %Lg, ||b|| = %Lg, rtol %g, atol %g\n",
            sps_reason_name(reason), rnorm, bnorm, rtol, atol);
    for (int i = 0; i < n; i++) {
      fprintf(stderr, "row %d: b %.17g x %.17g |", i, b[i], x[i]);
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) fprintf(stderr, " (%d, %.17g)", ci[k], va[k]);
      fputc('\n', stderr);
    }
    abort();
  }
}

/* The input read as a stream of bytes; zeros once it is used up. */
typedef struct byte_stream {
  const uint8_t *p;
  size_t left;
} byte_stream;

static unsigned next_byte(byte_stream *s)
{
  if (!s->left) return 0;
  s->left--;
  return *s->p++;
}

/* A value: special ones (NaN, Inf, 0, extremes, subnormals) or 8 raw bytes as a double. */
static double next_value(byte_stream *s)
{
  static const double special[] = {0.0,     -0.0,    1.0,   -1.0,    2.0,    0.5,    4.0,
                                   -4.0,    1e-300,  1e300, -1e300,  1e-200, 1e200,  5e-324,
                                   1e308,   -1e308,  1e-8,  1e8,     3.0,    -2.5,   10.0};
  unsigned b = next_byte(s);
  if (b < 21) return special[b];
  if (b == 21) return NAN;
  if (b == 22) return INFINITY;
  if (b == 23) return -INFINITY;
  if (b < 200) return (double)((int)b - 100) / 8.0; /* small, exact, often nonsingular */
  uint64_t bits = 0;
  for (int k = 0; k < 8; k++) bits = bits << 8 | next_byte(s);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  byte_stream s = {data, size};
  const int n = 1 + (int)(next_byte(&s) % 12);
  const int solver = (int)(next_byte(&s) % 4) - 1;  /* AUTO, CG, GMRES, BICGSTAB */
  const int precond = (int)(next_byte(&s) % 8) - 1; /* AUTO and every type */
  const int maxit = 1 + (int)(next_byte(&s) % 40);
  const int restart = 1 + (int)(next_byte(&s) % 16);
  const unsigned opts = next_byte(&s);
  static const double tols[] = {1e-8, 1e-2, 0.0, 1e-300, 0.5, 1e-15, 2.0, 1e-12};
  double rtol = tols[next_byte(&s) % 8], atol = tols[next_byte(&s) % 8];

  /* Rows of 0..4 entries (duplicates and unsorted columns allowed), the diagonal often. */
  int64_t rowptr[13];
  int32_t colind[12 * 5];
  double values[12 * 5];
  int64_t nnz = 0;
  rowptr[0] = 0;
  for (int i = 0; i < n; i++) {
    unsigned len = next_byte(&s);
    int count = (int)(len % 5);
    for (int k = 0; k < count; k++) {
      unsigned c = next_byte(&s);
      colind[nnz] = (int32_t)(c < 64 ? i : c % (unsigned)n);
      values[nnz] = next_value(&s);
      nnz++;
    }
    rowptr[i + 1] = nnz;
  }
  double b[12];
  for (int i = 0; i < n; i++) b[i] = next_value(&s);

  sps_matrix *A = NULL;
  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *sv = NULL;
  /* The arrays are valid, whatever the values: the matrix must be made. */
  if (sps_matrix_create_csr(ctx, &A, n, n, rowptr, colind, values) != SPS_SUCCESS) {
    fprintf(stderr, "%s\n", sps_context_last_error(ctx));
    abort();
  }
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n))
    abort();
  if (sps_solver_create(ctx, &sv, (sps_solver_type)solver) != SPS_SUCCESS) abort();
  /* Settings the API may refuse (it must say so, not crash). */
  if (sps_solver_set_tolerances(sv, rtol, atol) != SPS_SUCCESS) {
    rtol = 1e-8; /* refused (both 0): the defaults stay */
    atol = 0.0;
  }
  (void)sps_solver_set_max_iterations(sv, maxit);
  (void)sps_solver_set_restart(sv, restart);
  (void)sps_solver_set_flexible(sv, opts & 1);
  (void)sps_solver_set_orthogonalization(sv, (opts & 2) ? SPS_ORTHOG_CGS2 : SPS_ORTHOG_MGS);
  (void)sps_solver_set_history(sv, (opts >> 2) & 1);
  (void)sps_solver_set_precond(sv, (sps_precond_type)precond);
  const char *pname, *pdesc;
  double pdef;
  for (int k = 0; k < 2 && next_byte(&s) % 2; k++)
    if (sps_precond_param_info((int)(next_byte(&s) % 16), &pname, &pdesc, &pdef) == SPS_SUCCESS)
      (void)sps_solver_set_precond_param(sv, pname, next_value(&s));
  (void)sps_solver_set_spmv(sv, (sps_spmv_kind)((opts >> 3) % SPS_SPMV_KIND_COUNT), 0);

  if (oracle)
    fprintf(stderr, "n %d solver %d precond %d maxit %d restart %d flexible %u cgs2 %u spmv %u\n",
            n, solver, precond, maxit, restart, opts & 1, (opts >> 1) & 1,
            (opts >> 3) % SPS_SPMV_KIND_COUNT);
  if (sps_solver_setup(sv, A) == SPS_SUCCESS && sps_solver_solve(sv, vb, vx) == SPS_SUCCESS) {
    sps_reason reason;
    int iterations;
    double rabs, rrel;
    if (sps_solver_get_reason(sv, &reason) || sps_solver_get_iterations(sv, &iterations) ||
        sps_solver_get_residual(sv, &rabs, &rrel))
      abort();
    if (reason == SPS_REASON_NONE || iterations < 0) abort();
    if (oracle && reason > 0) check_converged(A, b, vx, n, reason, rtol, atol);
    const double *hist;
    int count;
    if ((opts >> 2) & 1) (void)sps_solver_get_history(sv, &hist, &count);
  }
  sps_solver_destroy(&sv);
  sps_vector_destroy(&vx);
  sps_vector_destroy(&vb);
  sps_matrix_destroy(&A);
  return 0;
}
