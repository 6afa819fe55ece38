/* spsolve.c: the spsolve command: read A (and b), solve A x = b with a Krylov method, report. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "info.h"
#include "many.h"
#include "state.h"
#include "stats.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "mpi_run.h"
#include "rhs.h"
#include "run.h"
#include "spsolve.h"
#ifdef SPS_HAVE_MPI
#include <mpi.h>
#endif

void cli_state_free(cli_state *s)
{
  sps_solver_destroy(&s->solver);
  sps_multivector_destroy(&s->X);
  sps_multivector_destroy(&s->B);
  sps_vector_destroy(&s->x);
  sps_vector_destroy(&s->b);
  sps_matrix_destroy(&s->A);
  sps_context_destroy(&s->ctx);
  free(s->host_xs);
  free(s->host_x);
  free(s->columns);
  free(s->column_error);
}

int cli_state_error(const cli_state *s, sps_status st, const char *what)
{
  return cli_library_error(s->ctx, st, what);
}

static const char *device_option_text(const cli_options *opt, char *buf, size_t len)
{
  if (opt->device == SPS_DEVICE_CPU) return "cpu";
  if (opt->device == SPS_DEVICE_AUTO) return "auto";
  snprintf(buf, len, "cuda:%d", opt->device_index);
  return buf;
}

/* Create the context; a device that does not exist is an input error (exit 2). */
static int open_device(cli_state *s, const cli_options *opt, cli_report *r)
{
  char buf[32];
  sps_status st = sps_context_create(&s->ctx, opt->device, opt->device_index);
  if (st != SPS_SUCCESS) {
    return cli_fail(st, cli_exit_code_of(st), "--device %s: %s",
                    device_option_text(opt, buf, sizeof buf), sps_context_create_error());
  }
  st = sps_context_get_device_name(s->ctx, r->device, sizeof r->device);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "device name");
  if (opt->spmv_given) {
    sps_device_kind kind;
    int index;
    st = sps_context_get_device(s->ctx, &kind, &index);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "device");
    if (!sps_spmv_kind_available(opt->spmv, kind)) {
      char list[512] = "";
      size_t len = 0;
      for (int k = 0; k < SPS_SPMV_KIND_COUNT && len < sizeof list; k++)
        if (sps_spmv_kind_available((sps_spmv_kind)k, kind))
          len += (size_t)snprintf(list + len, sizeof list - len, "%s %s", len ? "," : "",
                                  sps_spmv_kind_name((sps_spmv_kind)k));
      return cli_fail(SPS_ERR_UNSUPPORTED, CLI_EXIT_USAGE,
                      "--spmv %s is not available on the %s in this build; choose one of%s",
                      sps_spmv_kind_name(opt->spmv), kind == SPS_DEVICE_CUDA ? "GPU" : "CPU", list);
    }
  }
  return 0;
}

/* Read A, refuse a rectangular one, and gather what the report says about it. */
static int load_matrix(cli_state *s, const cli_options *opt, cli_report *r)
{
  double t0 = cli_wall_seconds();
  cli_progress_load_begin(&s->progress);
  sps_status st = sps_context_set_read_progress(s->ctx, cli_progress_load, &s->progress);
  if (st == SPS_SUCCESS)
    st = sps_matrix_read_mm(s->ctx, &s->A, opt->matrix_path,
                            opt->allow_nonfinite ? SPS_MM_ALLOW_NONFINITE : 0);
  cli_progress_end(&s->progress);
  r->t_load = cli_wall_seconds() - t0;
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read A");
  st = sps_matrix_get_size(s->A, &r->nrows, &r->ncols, &r->nnz);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "matrix size");
  /* --stats describes any matrix; only a solve needs a square one. */
  if (opt->action == CLI_ACTION_STATS) return 0;
  if (r->nrows != r->ncols) {
    return cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE,
                    "%s: A is %lld x %lld: a linear solve needs a square matrix", opt->matrix_path,
                    (long long)r->nrows, (long long)r->ncols);
  }
  st = sps_matrix_get_symmetry(s->A, &r->symmetry);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "matrix symmetry");
  if (r->symmetry == SPS_SYMMETRY_UNKNOWN && (opt->solver == CLI_SOLVER_AUTO || opt->verbose)) {
    int sym = 0;
    st = sps_matrix_check_symmetry(s->A, &sym);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "symmetry check");
    r->symmetry = sym ? SPS_SYMMETRY_SYMMETRIC : SPS_SYMMETRY_GENERAL;
    r->symmetry_checked = 1;
  }
  if (opt->verbose) {
    const int64_t *rowptr;
    st = sps_matrix_get_csr(s->A, &rowptr, NULL, NULL);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "matrix arrays");
    cli_matrix_stats_compute(rowptr, r->nrows, opt->matrix_path, &r->stats);
  }
  return 0;
}

/* Ctrl-C before the solve began: nothing to report. */
int cli_interrupted_before_solve(void)
{
  fprintf(stderr, "spsolve: interrupted before the solve\n");
  return CLI_EXIT_INTERRUPTED;
}

/* Make b (and x*, for the default right-hand side) and the initial guess: x = 0, or read
 * from --x0 FILE. */
static int make_rhs(cli_state *s, const cli_options *opt, cli_report *r)
{
  int64_t n = r->nrows;
  sps_status st;
  r->nrhs = 1;
  if (opt->rhs == CLI_RHS_FILE) {
    /* a file of k columns: the many right-hand sides (many.c), of one column: b */
    st = sps_multivector_read_mm(s->ctx, &s->B, opt->rhs_path,
                                 opt->allow_nonfinite ? SPS_MM_ALLOW_NONFINITE : 0);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read b");
    int64_t len, k;
    double *data;
    st = sps_multivector_get_size(s->B, &len, &k);
    if (st == SPS_SUCCESS) st = sps_multivector_get_data(s->B, &data, NULL);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "right-hand side size");
    if (k > 1 || opt->nrhs > 1 || opt->block) return cli_many_make_rhs(s, opt, r);
    st = sps_vector_wrap(s->ctx, &s->b, len, data);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read b");
    if (len != n) {
      return cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE, "%s: b has %lld entries but A has %lld rows",
                      opt->rhs_path, (long long)len, (long long)n);
    }
  } else if (opt->nrhs > 1 || opt->block) {
    return cli_many_make_rhs(s, opt, r);
  } else {
    st = sps_vector_create(s->ctx, &s->b, n);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot create b");
    if (opt->rhs == CLI_RHS_ONES) {
      st = sps_vector_fill(s->b, 1.0);
    } else {
      double *host_b = malloc((size_t)(n > 0 ? n : 1) * sizeof *host_b);
      if (opt->rhs == CLI_RHS_SOLUTION)
        s->host_xs = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->host_xs);
      if (!host_b || (opt->rhs == CLI_RHS_SOLUTION && !s->host_xs)) {
        free(host_b);
        return cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME,
                        "out of memory for the right-hand side (%lld entries)", (long long)n);
      }
      if (opt->rhs == CLI_RHS_RANDOM) {
        cli_random_fill(host_b, n, opt->seed);
      } else {
        const int64_t *rowptr;
        const int32_t *colind;
        const double *values;
        st = sps_matrix_get_csr(s->A, &rowptr, &colind, &values);
        if (st != SPS_SUCCESS) {
          free(host_b);
          return cli_state_error(s, st, "matrix arrays");
        }
        cli_random_fill(s->host_xs, n, opt->seed);
        cli_csr_matvec(n, rowptr, colind, values, s->host_xs, host_b); /* b <- A x* */
        r->have_error = 1;
      }
      st = sps_vector_upload(s->b, host_b, n);
      free(host_b);
    }
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot set b");
  }
  if (opt->x0_path) {
    st = sps_vector_read_mm(s->ctx, &s->x, opt->x0_path, 0);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read x0");
    int64_t len;
    st = sps_vector_get_size(s->x, &len);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "vector size");
    if (len != n) {
      fprintf(stderr, "spsolve: %s: x0 has %lld entries but A has %lld rows\n", opt->x0_path,
              (long long)len, (long long)n);
      return CLI_EXIT_USAGE;
    }
    return 0;
  }
  st = sps_vector_create(s->ctx, &s->x, n); /* x0 = 0 */
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot create x");
  return 0;
}

int cli_solver_create(cli_state *s, const cli_options *opt)
{
  sps_status st = sps_solver_create(
      s->ctx, &s->solver,
      opt->solver == CLI_SOLVER_AUTO ? SPS_SOLVER_AUTO : (sps_solver_type)opt->solver);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot create the solver");
  if ((st = cli_solver_settings(s->solver, opt, &s->progress)) != SPS_SUCCESS ||
      (st = sps_solver_set_progress(s->solver, cli_progress_solve, &s->progress, 0.2)) !=
          SPS_SUCCESS)
    return cli_state_error(s, st, "solver options");
  return 0;
}

/* Create, configure, set up and run the solver, then read its results into the report. */
static int run_solver(cli_state *s, const cli_options *opt, cli_report *r)
{
  int code = cli_solver_create(s, opt);
  if (code) return code;
  sps_solver *sv = s->solver;
  sps_status st = sps_solver_setup(sv, s->A);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "setup failed");
  if (cli_interrupted) return cli_interrupted_before_solve();
  double bnorm;
  st = sps_vector_norm2(s->b, &bnorm);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "||b||");
  cli_progress_solve_begin(&s->progress, bnorm, opt->rtol);
  st = sps_solver_solve(sv, s->b, s->x);
  cli_progress_end(&s->progress);
  if (st != SPS_SUCCESS) return cli_state_error(s, st, "solve failed");
  if ((st = cli_solver_results(sv, r)) != SPS_SUCCESS)
    return cli_state_error(s, st, "solver results");
  return 0;
}

/* Compare x with x* and write x when asked. */
static int finish(cli_state *s, const cli_options *opt, cli_report *r)
{
  sps_status st;
  if (r->have_error) {
    int64_t n = r->nrows;
    s->host_x = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->host_x);
    if (!s->host_x) {
      return cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME,
                      "out of memory for the solution (%lld entries)", (long long)n);
    }
    st = sps_vector_download(s->x, s->host_x, n);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot read x");
    r->error = cli_relative_error(s->host_x, s->host_xs, n);
  }
  if (opt->output_path) {
    st = sps_vector_write_mm(s->x, opt->output_path);
    if (st != SPS_SUCCESS) return cli_state_error(s, st, "cannot write x");
  }
  return 0;
}

static int solve(const cli_options *opt, int *reported)
{
  cli_state s;
  cli_report r;
  memset(&s, 0, sizeof s);
  memset(&r, 0, sizeof r);
  r.opt = opt;
  cli_progress_init(&s.progress, opt->progress, opt->monitor_every);
  cli_interrupt_install();
  int code = open_device(&s, opt, &r);
  if (!code) code = load_matrix(&s, opt, &r);
  if (!code && cli_interrupted) code = cli_interrupted_before_solve();
  if (!code) code = make_rhs(&s, opt, &r);
  if (!code) code = r.many ? cli_many_solve(&s, opt, &r) : run_solver(&s, opt, &r);
  if (!code) code = r.many ? cli_many_finish(&s, opt, &r) : finish(&s, opt, &r);
  if (!code) {
    r.exit_code = r.reason > 0                  ? CLI_EXIT_CONVERGED
                  : r.reason == SPS_INTERRUPTED ? CLI_EXIT_INTERRUPTED
                                                : CLI_EXIT_NOT_CONVERGED;
    if (opt->json && !opt->quiet) {
      cli_report_json(stdout, &r);
      *reported = 1;
    }
    else if (!opt->quiet)
      cli_report_text(stdout, &r);
    code = r.exit_code;
  }
  cli_state_free(&s);
  return code;
}

/* --stats: read A on the device and print its statistics. */
static int matrix_stats(const cli_options *opt, int *reported)
{
  cli_state s;
  cli_report r;
  sps_matrix_stats ms;
  memset(&s, 0, sizeof s);
  memset(&r, 0, sizeof r);
  r.opt = opt;
  cli_progress_init(&s.progress, opt->progress, 0);
  int code = open_device(&s, opt, &r);
  if (!code) code = load_matrix(&s, opt, &r);
  if (!code) {
    sps_status st = sps_matrix_get_stats(s.A, &ms);
    if (st != SPS_SUCCESS) code = cli_state_error(&s, st, "matrix statistics");
  }
  if (!code && !opt->quiet) {
    cli_print_stats(stdout, opt->matrix_path, r.device, &ms, opt->json);
    *reported = opt->json;
  }
  cli_state_free(&s);
  return code;
}

/*
 * Whether the command line asks for --json (and not -q), for an error met while parsing it:
 * the options anywhere before a "--".
 */
static int json_requested(int argc, char **argv)
{
  int json = 0, quiet = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    json |= strcmp(argv[i], "--json") == 0;
    quiet |= strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0;
  }
  return json && !quiet;
}

int main(int argc, char **argv)
{
  cli_options opt;
  int reported = 0;
  int code = cli_parse_options(argc, argv, &opt);
  if (code) {
    if (json_requested(argc, argv)) cli_report_json_error(stdout, cli_last_error(), code);
    return code;
  }
  switch (opt.action) {
  case CLI_ACTION_HELP:
    cli_print_help();
    return 0;
  case CLI_ACTION_VERSION:
    cli_print_version();
    return 0;
  case CLI_ACTION_LIST_SPMV:
    cli_print_spmv_list();
    return 0;
  case CLI_ACTION_LIST_PRECOND:
    cli_print_precond_list();
    return 0;
  case CLI_ACTION_STATS:
  case CLI_ACTION_SOLVE:
    break;
  }
#ifdef SPS_HAVE_MPI
  /* Under an MPI launcher the solve runs on the ranks (cli/mpi.c); --stats runs on rank 0.
   * A caller that initialised MPI itself (the allocation-failure test, which runs this main
   * path in a process of its own that an MPI singleton marks as launched) gets the
   * single-process run. */
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  if (cli_mpi_launched() && !mpi_up) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (opt.action == CLI_ACTION_STATS)
      code = rank == 0 ? matrix_stats(&opt, &reported) : 0;
    else
      code = cli_solve_mpi(&opt, &reported);
    if (rank != 0) reported = 1;
    if (code >= CLI_EXIT_USAGE && opt.json && !opt.quiet && !reported)
      cli_report_json_error(stdout, cli_last_error(), code);
    if (fflush(stdout) != 0 && code < CLI_EXIT_USAGE)
      code = cli_fail(SPS_ERR_IO, CLI_EXIT_RUNTIME, "standard output: %s", strerror(errno));
    MPI_Finalize();
    return code;
  }
#endif
  code = opt.action == CLI_ACTION_STATS ? matrix_stats(&opt, &reported) : solve(&opt, &reported);
  /* Scripts read --json: a failure is one JSON object too, with the status and the message. */
  if (code >= CLI_EXIT_USAGE && opt.json && !opt.quiet && !reported)
    cli_report_json_error(stdout, cli_last_error(), code);
  if (fflush(stdout) != 0 && code < CLI_EXIT_USAGE)
    code = cli_fail(SPS_ERR_IO, CLI_EXIT_RUNTIME, "standard output: %s", strerror(errno));
  return code;
}
