/* poisson_cg.c: example: the 2-D Poisson problem on an N x N grid, built in memory as CSR and
 * solved by CG. */
/*
 * The 5-point Laplacian with Dirichlet boundary conditions: for the unknown (i, j) of the
 * N x N interior grid, row k = i*N + j holds 4 on the diagonal and -1 for each of the (up
 * to four) neighbours (i+-1, j), (i, j+-1) inside the grid. The matrix is symmetric
 * positive definite, so CG applies. The example picks a known solution x*, forms b = A x*,
 * solves from x = 0 and prints the relative error ||x - x*||/||x*||.
 *
 * Build against an installed library:
 *   cc poisson_cg.c $(pkg-config --cflags --libs spsolve) -lm -o poisson_cg
 * Run: ./poisson_cg [N] (default 64). Exit status 0 when the error is small, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <spsolve.h>

/* Print what failed with the library's message and jump to the cleanup. */
#define CHECK(call)                                                                                \
  do {                                                                                             \
    sps_status st_ = (call);                                                                       \
    if (st_ != SPS_SUCCESS) {                                                                      \
      fprintf(stderr, "poisson_cg: %s failed: %s (%s)\n", #call,                                   \
              ctx ? sps_context_last_error(ctx) : sps_context_create_error(),                      \
              sps_status_name(st_));                                                               \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv)
{
  int N = 64;
  if (argc > 1) {
    char *end;
    long v = strtol(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || v < 1 || v > 4096) {
      fprintf(stderr, "usage: poisson_cg [N], 1 <= N <= 4096\n");
      return 2;
    }
    N = (int)v;
  }
  const int64_t n = (int64_t)N * N;
  const double rtol = 1e-10;
  int status = 1;
  sps_context *ctx = NULL;
  sps_matrix *A = NULL;
  sps_vector *b = NULL, *x = NULL;
  sps_solver *cg = NULL;
  int64_t *rowptr = malloc((size_t)(n + 1) * sizeof *rowptr);
  int32_t *colind = malloc((size_t)(5 * n) * sizeof *colind);
  double *values = malloc((size_t)(5 * n) * sizeof *values);
  double *xs = malloc((size_t)n * sizeof *xs);
  double *bh = malloc((size_t)n * sizeof *bh);
  double *xh = malloc((size_t)n * sizeof *xh);
  if (!rowptr || !colind || !values || !xs || !bh || !xh) {
    fprintf(stderr, "poisson_cg: out of memory\n");
    goto cleanup;
  }

  /* Assemble A row by row; entries within a row in increasing column order. */
  int64_t nz = 0;
  rowptr[0] = 0;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      int64_t k = (int64_t)i * N + j;
      if (i > 0) {
        colind[nz] = (int32_t)(k - N);
        values[nz++] = -1.0;
      }
      if (j > 0) {
        colind[nz] = (int32_t)(k - 1);
        values[nz++] = -1.0;
      }
      colind[nz] = (int32_t)k;
      values[nz++] = 4.0;
      if (j < N - 1) {
        colind[nz] = (int32_t)(k + 1);
        values[nz++] = -1.0;
      }
      if (i < N - 1) {
        colind[nz] = (int32_t)(k + N);
        values[nz++] = -1.0;
      }
      rowptr[k + 1] = nz;
    }
  }

  /* The known solution x*(i, j) = sin(pi*(i+1)/(N+1)) * (j+1)/(N+1), and b = A x*. */
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      xs[(int64_t)i * N + j] = sin(pi * (i + 1) / (N + 1)) * (j + 1) / (N + 1);
  for (int64_t k = 0; k < n; k++) {
    double s = 0.0;
    for (int64_t p = rowptr[k]; p < rowptr[k + 1]; p++)
      s += values[p] * xs[colind[p]];
    bh[k] = s;
  }

  CHECK(sps_context_create(&ctx, SPS_DEVICE_AUTO, 0));
  CHECK(sps_matrix_create_csr(ctx, &A, n, n, rowptr, colind, values));
  CHECK(sps_vector_create(ctx, &b, n));
  CHECK(sps_vector_create(ctx, &x, n)); /* x0 = 0 */
  CHECK(sps_vector_upload(b, bh, n));

  CHECK(sps_solver_create(ctx, &cg, SPS_SOLVER_CG));
  CHECK(sps_solver_set_tolerances(cg, rtol, 0.0));
  CHECK(sps_solver_set_max_iterations(cg, 10 * N + 100));
  CHECK(sps_solver_setup(cg, A));
  CHECK(sps_solver_solve(cg, b, x));

  sps_reason reason;
  int iterations;
  double relres;
  CHECK(sps_solver_get_reason(cg, &reason));
  CHECK(sps_solver_get_iterations(cg, &iterations));
  CHECK(sps_solver_get_residual(cg, NULL, &relres));
  CHECK(sps_vector_download(x, xh, n));

  double diff = 0.0, ref = 0.0;
  for (int64_t k = 0; k < n; k++) {
    diff += (xh[k] - xs[k]) * (xh[k] - xs[k]);
    ref += xs[k] * xs[k];
  }
  double err = sqrt(diff / ref);
  /*
   * ||x - x*||/||x*|| <= cond(A) * ||b - Ax||/||b||, and cond(A) ~ 4(N+1)^2/pi^2 for this
   * matrix; allow that bound with a factor 10 of slack.
   */
  double bound = 10.0 * 4.0 * (N + 1.0) * (N + 1.0) / (pi * pi) * rtol;
  char device[128];
  CHECK(sps_context_get_device_name(ctx, device, sizeof device));
  printf("poisson_cg: N = %d (%lld unknowns) on %s\n", N, (long long)n, device);
  printf("poisson_cg: %s after %d iterations\n", sps_reason_string(reason), iterations);
  printf("poisson_cg: relative residual %.3e, relative error %.3e (bound %.1e)\n", relres, err,
         bound);
  status = reason > 0 && err <= bound ? 0 : 1;
  if (status) fprintf(stderr, "poisson_cg: FAILED\n");

cleanup:
  sps_solver_destroy(&cg);
  sps_vector_destroy(&x);
  sps_vector_destroy(&b);
  sps_matrix_destroy(&A);
  sps_context_destroy(&ctx);
  free(rowptr);
  free(colind);
  free(values);
  free(xs);
  free(bh);
  free(xh);
  return status;
}
