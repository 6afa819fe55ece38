/* solver.c: libFuzzer target: sps_matrix_create_csr, then setup and a few iterations of each solver and preconditioner on a small random CSR with NaN, Inf and extreme values. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spsolve.h"

static sps_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) abort();
  return 0;
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
  const double rtol = tols[next_byte(&s) % 8], atol = tols[next_byte(&s) % 8];

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
  (void)sps_solver_set_tolerances(sv, rtol, atol);
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

  if (sps_solver_setup(sv, A) == SPS_SUCCESS && sps_solver_solve(sv, vb, vx) == SPS_SUCCESS) {
    sps_reason reason;
    int iterations;
    double rabs, rrel;
    if (sps_solver_get_reason(sv, &reason) || sps_solver_get_iterations(sv, &iterations) ||
        sps_solver_get_residual(sv, &rabs, &rrel))
      abort();
    if (reason == SPS_REASON_NONE || iterations < 0) abort();
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
