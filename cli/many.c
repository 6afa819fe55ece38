/* many.c: the many right-hand sides of spsolve (--nrhs K, a k-column --rhs file, --solver block-cg): the block problem, sps_solver_solve_many, the per-column errors and -o. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "many.h"
#include "rhs.h"
#include "run.h"

/* n*k doubles on the host, or a recorded failure. */
static double *host_block(int64_t n, int64_t k, const char *what)
{
  const size_t len = (size_t)(n > 0 ? n : 1) * (size_t)k;
  double *p = malloc(len * sizeof *p);
  if (!p)
    cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME, "out of memory for the %s (%lld x %lld)", what,
             (long long)n, (long long)k);
  return p;
}

int cli_many_make_rhs(cli_state *s, const cli_options *opt, cli_report *r)
{
  const int64_t n = r->nrows;
  int64_t k;
  sps_status st;
  if (opt->rhs == CLI_RHS_FILE) {
    int64_t rows;
    st = sps_multivector_get_size(s->B, &rows, &k);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "right-hand side size");
    if (rows != n)
      return cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE, "%s: B has %lld rows but A has %lld",
                      opt->rhs_path, (long long)rows, (long long)n);
    if (opt->nrhs > 0 && opt->nrhs != k)
      return cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE, "--nrhs %d, but %s has %lld columns",
                      opt->nrhs, opt->rhs_path, (long long)k);
  } else {
    k = opt->nrhs > 0 ? opt->nrhs : 1;
    st = sps_multivector_create(s->ctx, &s->B, n, k);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot create B");
    double *hb = host_block(n, k, "right-hand sides");
    if (!hb) return CLI_EXIT_RUNTIME;
    if (opt->rhs == CLI_RHS_ONES) {
      for (int64_t i = 0; i < n * k; i++) hb[i] = 1.0;
    } else if (opt->rhs == CLI_RHS_RANDOM) {
      for (int64_t j = 0; j < k; j++) cli_random_fill(hb + j * n, n, opt->seed + (uint64_t)j);
    } else {
      /* b_j <- A x*_j, x*_j seeded random (seed + j) */
      const int64_t *rowptr;
      const int32_t *colind;
      const double *values;
      s->host_xs = host_block(n, k, "exact solutions");
      if (!s->host_xs) {
        free(hb);
        return CLI_EXIT_RUNTIME;
      }
      st = sps_matrix_get_csr(s->A, &rowptr, &colind, &values);
      if (st != SPS_SUCCESS) {
        free(hb);
        return cli_state_error(s, st, "matrix arrays");
      }
      for (int64_t j = 0; j < k; j++) {
        cli_random_fill(s->host_xs + j * n, n, opt->seed + (uint64_t)j);
        cli_csr_matvec(n, rowptr, colind, values, s->host_xs + j * n, hb + j * n);
      }
      r->have_error = 1;
    }
    st = sps_multivector_upload(s->B, hb, n, k);
    free(hb);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot set B");
  }
  r->many = 1;
  r->nrhs = k;
  st = sps_multivector_create(s->ctx, &s->X, n, k);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot create X");
  if (!opt->x0_path) return 0; /* x0 = 0 */
  sps_multivector *X0 = NULL;
  st = sps_multivector_read_mm(s->ctx, &X0, opt->x0_path, 0);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read x0");
  int64_t rows, cols;
  sps_multivector_get_size(X0, &rows, &cols);
  if (rows != n || (cols != 1 && cols != k)) {
    sps_multivector_destroy(&X0);
    return cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE,
                    "%s: x0 is %lld x %lld, but A has %lld rows and there are %lld right-hand "
                    "sides (x0 needs one column or %lld)",
                    opt->x0_path, (long long)rows, (long long)cols, (long long)n, (long long)k,
                    (long long)k);
  }
  double *hx = host_block(n, k, "initial guesses");
  if (!hx) {
    sps_multivector_destroy(&X0);
    return CLI_EXIT_RUNTIME;
  }
  st = sps_multivector_download(X0, hx, n, cols);
  sps_multivector_destroy(&X0);
  /* one column serves every right-hand side */
  for (int64_t j = 1; j < k && cols == 1 && st == SPS_SUCCESS; j++)
    memcpy(hx + j * n, hx, (size_t)n * sizeof *hx);
  if (st == SPS_SUCCESS) st = sps_multivector_upload(s->X, hx, n, k);
  free(hx);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot set x0");
  return 0;
}

int cli_many_solve(cli_state *s, const cli_options *opt, cli_report *r)
{
  int code = cli_solver_create(s, opt);
  if (code) return code;
  sps_solver *sv = s->solver;
  sps_status st;
  if ((st = sps_solver_set_columns(sv, (int)(r->nrhs < 1 << 30 ? r->nrhs : 1 << 30))) != SPS_SUCCESS ||
      (st = sps_solver_set_block(sv, opt->block)) != SPS_SUCCESS)
    return cli_state_error(s, st, "solver options");
  st = sps_solver_setup(sv, s->A);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "setup failed");
  if (cli_interrupted) return cli_interrupted_before_solve();
  /* the monitor and the progress see the largest relative residual of the running columns */
  cli_progress_many_begin(&s->progress, opt->rtol);
  st = sps_solver_solve_many(sv, s->B, s->X);
  cli_progress_end(&s->progress);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "solve failed");
  if ((st = cli_solver_choices(s->solver, r)) != SPS_SUCCESS)
    return cli_state_error(s, st, "solver results");
  if ((st = sps_solver_get_many_report(sv, &r->many_report)) != SPS_SUCCESS ||
      (st = sps_solver_get_iterations(sv, &r->iterations)) != SPS_SUCCESS ||
      (st = sps_solver_get_reason(sv, &r->reason)) != SPS_SUCCESS ||
      (st = sps_solver_get_residual(sv, &r->residual_abs, &r->residual_rel)) != SPS_SUCCESS)
    return cli_state_error(s, st, "solver results");
  r->iterations = r->many_report.max_iterations;
  s->columns = calloc((size_t)r->nrhs, sizeof *s->columns);
  if (!s->columns)
    return cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME, "out of memory for %lld column reports",
                    (long long)r->nrhs);
  for (int64_t j = 0; j < r->nrhs; j++) {
    st = sps_solver_get_column_report(sv, j, &s->columns[j]);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "column results");
  }
  r->columns = s->columns;
  return 0;
}

int cli_many_finish(cli_state *s, const cli_options *opt, cli_report *r)
{
  const int64_t n = r->nrows, k = r->nrhs;
  sps_status st;
  if (r->have_error) {
    s->host_x = host_block(n, k, "solutions");
    s->column_error = calloc((size_t)k, sizeof *s->column_error);
    if (!s->host_x || !s->column_error)
      return cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME, "out of memory for the solutions");
    st = sps_multivector_download(s->X, s->host_x, n, k);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read X");
    r->error = 0.0;
    for (int64_t j = 0; j < k; j++) {
      const double e = cli_relative_error(s->host_x + j * n, s->host_xs + j * n, n);
      s->column_error[j] = e;
      if (!(e <= r->error)) r->error = e;
    }
    r->column_error = s->column_error;
  }
  if (opt->output_path) {
    st = sps_multivector_write_mm(s->X, opt->output_path);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot write X");
  }
  return 0;
}
