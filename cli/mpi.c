/* mpi.c: spsolve under mpirun: the rows of A spread over the ranks, the same solve on every rank, and rank 0's report with the partition and the time spent communicating. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_run.h"

#ifdef SPS_HAVE_MPI
#include <mpi.h>

#include "error.h"
#include "report.h"
#include "rhs.h"
#include "run.h"
#include "spsolve_mpi.h"

int cli_mpi_launched(void)
{
  /* what the launchers set in every rank's environment: Open MPI's mpirun, PMIx launchers,
   * MPICH's Hydra and PMI-1/2 launchers (srun among them) */
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                                     "MPI_LOCALNRANKS"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k])) return 1;
  return 0;
}

/* What one distributed run owns. */
typedef struct mpi_state {
  int rank, size;
  sps_context *ctx;  /* the distributed context */
  sps_context *sctx; /* rank 0's serial CPU context: A0 read there, vectors read and written */
  sps_matrix *A0, *A;
  sps_vector *b, *x;
  sps_solver *solver;
  double *bg, *xs, *xg; /* rank 0: b, x* and the gathered x, in the original numbering */
  cli_progress progress;
} mpi_state;

static void state_free(mpi_state *s)
{
  sps_solver_destroy(&s->solver);
  sps_vector_destroy(&s->b);
  sps_vector_destroy(&s->x);
  sps_matrix_destroy(&s->A);
  sps_matrix_destroy(&s->A0);
  sps_context_destroy(&s->ctx);
  sps_context_destroy(&s->sctx);
  free(s->bg);
  free(s->xs);
  free(s->xg);
}

/* Rank 0's exit code (0: went on) on every rank: the steps only rank 0 takes (reading, the
 * right-hand side) are agreed on before the next collective one. */
static int agree(int code)
{
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

/* Monitor lines from rank 0 only (every rank's monitor is called at the same iterations). */
static void monitor_rank0(void *user, int iteration, double residual_norm)
{
  const mpi_state *s = user;
  if (s->rank == 0) cli_progress_monitor((void *)&s->progress, iteration, residual_norm);
}

/* Read A: rank 0 reads it and sends each rank its rows, or every rank reads its own. */
static int load(mpi_state *s, const cli_options *opt, cli_report *r)
{
  const double t0 = cli_wall_seconds();
  const unsigned flags = opt->allow_nonfinite ? SPS_MM_ALLOW_NONFINITE : 0;
  sps_status st;
  if (opt->read_each) {
    if (opt->partition == 1)
      return cli_fail(SPS_ERR_ARGUMENT, CLI_EXIT_USAGE,
                      "--read each takes contiguous blocks of rows: METIS needs the whole matrix "
                      "on one rank (--read root)");
    st = sps_matrix_read_mm_dist(s->ctx, &s->A, opt->matrix_path, flags);
    if (st) return cli_library_error(s->ctx, st, "cannot read A");
  } else {
    int code = 0;
    if (s->rank == 0) {
      st = sps_matrix_read_mm(s->sctx, &s->A0, opt->matrix_path, flags);
      if (st) code = cli_library_error(s->sctx, st, "cannot read A");
      int64_t m, n;
      if (!code && !sps_matrix_get_size(s->A0, &m, &n, NULL) && m != n)
        code = cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE,
                        "%s: A is %lld x %lld: a linear solve needs a square matrix",
                        opt->matrix_path, (long long)m, (long long)n);
    }
    if ((code = agree(code)) != 0) return code;
    st = sps_matrix_scatter(s->ctx, &s->A, 0, s->A0,
                            opt->partition ? SPS_PARTITION_METIS : SPS_PARTITION_CONTIGUOUS);
    if (st) return cli_library_error(s->ctx, st, "cannot distribute A");
  }
  r->t_load = cli_wall_seconds() - t0;
  sps_dist_info f;
  sps_matrix_get_dist_info(s->A, &f);
  r->nrows = r->ncols = f.rows;
  r->nnz = f.nnz;
  sps_matrix_get_symmetry(s->A, &r->symmetry);
  return 0;
}

/* b (and x*) on rank 0 in the original numbering, then every rank's part; x0 likewise. */
static int make_rhs(mpi_state *s, const cli_options *opt, cli_report *r)
{
  const int64_t n = r->nrows;
  int64_t nl;
  sps_matrix_get_size(s->A, &nl, NULL, NULL);
  int code = 0;
  sps_status st;
  if (s->rank == 0) {
    s->bg = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->bg);
    if (opt->rhs == CLI_RHS_SOLUTION) s->xs = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->xs);
    if (!s->bg || (opt->rhs == CLI_RHS_SOLUTION && !s->xs))
      code = cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME,
                      "out of memory for the right-hand side (%lld entries)", (long long)n);
    if (!code && opt->rhs == CLI_RHS_FILE) {
      sps_vector *v = NULL;
      int64_t len = 0;
      st = sps_vector_read_mm(s->sctx, &v, opt->rhs_path, opt->allow_nonfinite ? SPS_MM_ALLOW_NONFINITE : 0);
      if (st) code = cli_library_error(s->sctx, st, "cannot read b");
      if (!code) sps_vector_get_size(v, &len);
      if (!code && len != n)
        code = cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE, "%s: b has %lld entries but A has %lld rows",
                        opt->rhs_path, (long long)len, (long long)n);
      if (!code && (st = sps_vector_download(v, s->bg, n)) != SPS_SUCCESS)
        code = cli_library_error(s->sctx, st, "cannot read b");
      sps_vector_destroy(&v);
    } else if (!code && opt->rhs == CLI_RHS_ONES) {
      for (int64_t i = 0; i < n; i++) s->bg[i] = 1.0;
    } else if (!code && opt->rhs == CLI_RHS_RANDOM) {
      cli_random_fill(s->bg, n, opt->seed);
    } else if (!code) {
      cli_random_fill(s->xs, n, opt->seed);
      r->have_error = 1;
      if (s->A0) {
        /* b = A x* as the single-process run forms it, so both solve the same system */
        const int64_t *rowptr;
        const int32_t *colind;
        const double *values;
        sps_matrix_get_csr(s->A0, &rowptr, &colind, &values);
        cli_csr_matvec(n, rowptr, colind, values, s->xs, s->bg);
      }
    }
  }
  if ((code = agree(code)) != 0) return code;
  if ((st = sps_vector_create(s->ctx, &s->b, nl)) != SPS_SUCCESS ||
      (st = sps_vector_create(s->ctx, &s->x, nl)) != SPS_SUCCESS)
    return cli_library_error(s->ctx, st, "cannot create b and x");
  if (opt->rhs == CLI_RHS_SOLUTION && opt->read_each) {
    /* no rank holds A: b = A x* by the distributed product (compensated row sums, which may
     * differ in the last bit from the plain sums of a single-process run) */
    sps_spmv_plan *plan = NULL;
    if ((st = sps_vector_scatter(s->A, 0, s->xs, s->x)) != SPS_SUCCESS ||
        (st = sps_spmv_plan_create(s->ctx, &plan, s->A, SPS_SPMV_CSR_SCALAR)) != SPS_SUCCESS ||
        (st = sps_spmv_plan_setup(plan)) != SPS_SUCCESS ||
        (st = sps_spmv_apply(plan, 1.0, s->x, 0.0, s->b)) != SPS_SUCCESS ||
        (st = sps_vector_fill(s->x, 0.0)) != SPS_SUCCESS) {
      sps_spmv_plan_destroy(&plan);
      return cli_library_error(s->ctx, st, "cannot form b = A x*");
    }
    sps_spmv_plan_destroy(&plan);
  } else if ((st = sps_vector_scatter(s->A, 0, s->bg, s->b)) != SPS_SUCCESS) {
    return cli_library_error(s->ctx, st, "cannot distribute b");
  }
  if (opt->x0_path) {
    double *x0 = NULL;
    if (s->rank == 0) {
      sps_vector *v = NULL;
      int64_t len = 0;
      x0 = malloc((size_t)(n > 0 ? n : 1) * sizeof *x0);
      st = x0 ? sps_vector_read_mm(s->sctx, &v, opt->x0_path, 0) : SPS_ERR_HOST_MEMORY;
      if (st) code = cli_library_error(s->sctx, st, "cannot read x0");
      if (!code) sps_vector_get_size(v, &len);
      if (!code && len != n)
        code = cli_fail(SPS_ERR_SIZE, CLI_EXIT_USAGE, "%s: x0 has %lld entries but A has %lld rows",
                        opt->x0_path, (long long)len, (long long)n);
      if (!code && (st = sps_vector_download(v, x0, n)) != SPS_SUCCESS)
        code = cli_library_error(s->sctx, st, "cannot read x0");
      sps_vector_destroy(&v);
    }
    if ((code = agree(code)) == 0 && (st = sps_vector_scatter(s->A, 0, x0, s->x)) != SPS_SUCCESS)
      code = cli_library_error(s->ctx, st, "cannot distribute x0");
    free(x0);
    if (code) return code;
  }
  return 0;
}

/* Gather every rank's events on rank 0 and write them as TSV; *count gets the events written. */
static int write_timeline(mpi_state *s, const char *path, int64_t *count)
{
  const sps_event *ev;
  int64_t n, dropped;
  sps_context_get_timeline(s->ctx, &ev, &n, &dropped);
  int mine = (int)n, *counts = NULL, *displs = NULL, total = 0;
  double *send = malloc((size_t)(3 * (n > 0 ? n : 1)) * sizeof *send), *all = NULL;
  if (!send) return cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME, "out of memory for the timeline");
  for (int64_t k = 0; k < n; k++) {
    send[3 * k] = (double)ev[k].kind;
    send[3 * k + 1] = ev[k].start;
    send[3 * k + 2] = ev[k].end;
  }
  if (s->rank == 0) {
    counts = malloc((size_t)s->size * sizeof *counts);
    displs = malloc((size_t)s->size * sizeof *displs);
  }
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int code = 0;
  if (s->rank == 0) {
    for (int r = 0; r < s->size; r++) {
      displs[r] = 3 * total;
      total += counts[r];
      counts[r] *= 3;
    }
    all = malloc((size_t)(3 * (total > 0 ? total : 1)) * sizeof *all);
  }
  MPI_Gatherv(send, 3 * mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (s->rank == 0) {
    FILE *f = all ? fopen(path, "w") : NULL;
    if (!f) {
      code = cli_fail(SPS_ERR_IO, CLI_EXIT_RUNTIME, "--timeline %s: cannot write it", path);
    } else {
      fprintf(f, "rank\tevent\tstart_s\tend_s\n");
      for (int r = 0; r < s->size; r++)
        for (int k = 0; k < counts[r] / 3; k++) {
          const double *e = all + displs[r] + 3 * k;
          fprintf(f, "%d\t%s\t%.9f\t%.9f\n", r, sps_event_kind_name((sps_event_kind)e[0]), e[1], e[2]);
        }
      if (fclose(f) != 0) code = cli_fail(SPS_ERR_IO, CLI_EXIT_RUNTIME, "--timeline %s: cannot write it", path);
    }
    *count = total;
  }
  free(send);
  free(all);
  free(counts);
  free(displs);
  return agree(code);
}

/* Set up and run the solver; the solve's share of the clocks, the partition, the timeline. */
static int run(mpi_state *s, const cli_options *opt, cli_report *r, cli_dist *d)
{
  sps_status st = sps_solver_create(
      s->ctx, &s->solver,
      opt->solver == CLI_SOLVER_AUTO ? SPS_SOLVER_AUTO : (sps_solver_type)opt->solver);
  if (st) return cli_library_error(s->ctx, st, "cannot create the solver");
  if ((st = cli_solver_settings(s->solver, opt, &s->progress)) != SPS_SUCCESS ||
      (opt->monitor_every > 0 &&
       (st = sps_solver_set_monitor(s->solver, monitor_rank0, s, opt->monitor_every)) != SPS_SUCCESS))
    return cli_library_error(s->ctx, st, "solver options");
  if ((st = sps_solver_setup(s->solver, s->A)) != SPS_SUCCESS)
    return cli_library_error(s->ctx, st, "setup failed");
  if (opt->timeline_path) {
    /* about a dozen events an iteration suffices for every method; at most 2^22 (96 MB) */
    int64_t cap = (int64_t)opt->maxit * 12 + 4096;
    if (cap > ((int64_t)1 << 22)) cap = (int64_t)1 << 22;
    if ((st = sps_context_set_timeline(s->ctx, cap)) != SPS_SUCCESS)
      return cli_library_error(s->ctx, st, "timeline");
  }
  double bnorm;
  if ((st = sps_vector_norm2(s->b, &bnorm)) != SPS_SUCCESS) return cli_library_error(s->ctx, st, "||b||");
  cli_progress_solve_begin(&s->progress, bnorm, opt->rtol);
  sps_context_reset_comm_times(s->ctx);
  st = sps_solver_solve(s->solver, s->b, s->x);
  if (st) return cli_library_error(s->ctx, st, "solve failed");
  if ((st = cli_solver_results(s->solver, r)) != SPS_SUCCESS)
    return cli_library_error(s->ctx, st, "solver results");
  /* the partition and the clocks: the largest of the ranks' times */
  sps_dist_info f;
  sps_comm_times t;
  sps_matrix_get_dist_info(s->A, &f);
  sps_context_get_comm_times(s->ctx, &t);
  double times[6] = {t.halo_start, t.spmv_local, t.halo_wait, t.spmv_boundary, t.reduce,
                     t.halo_start + t.halo_wait + t.reduce};
  MPI_Allreduce(MPI_IN_PLACE, times, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  d->ranks = f.ranks;
  d->partition = f.partition == SPS_PARTITION_METIS ? "metis" : "contiguous";
  d->read = opt->read_each ? "each" : "root";
  d->reordered = f.reordered;
  d->cuda_aware = sps_context_mpi_cuda_aware(s->ctx);
  sps_transport th = SPS_TRANSPORT_MPI, tr = SPS_TRANSPORT_MPI;
  sps_context_get_transport(s->ctx, &th, &tr);
  d->halo_via = sps_transport_name(th);
  d->reduce_via = sps_transport_name(tr);
  d->rows_min = f.rows_min;
  d->rows_max = f.rows_max;
  d->nnz_min = f.nnz_min;
  d->nnz_max = f.nnz_max;
  d->imbalance_rows = f.imbalance_rows;
  d->imbalance_nnz = f.imbalance_nnz;
  d->halo_total = f.halo_total;
  d->halo_max = f.halo_max;
  d->cut_nnz = f.cut_nnz;
  d->neighbors_max = f.neighbors_max;
  d->overlap_min = f.overlap_min;
  d->halo_start = times[0];
  d->spmv_local = times[1];
  d->halo_wait = times[2];
  d->spmv_boundary = times[3];
  d->reduce = times[4];
  d->comm_max = times[5];
  d->halo_exchanges = t.halo_exchanges;
  d->reductions = t.reductions;
  d->halo_bytes = t.halo_bytes;
  r->dist = d;
  if (opt->timeline_path) {
    d->timeline_path = opt->timeline_path;
    const int code = write_timeline(s, opt->timeline_path, &d->timeline_events);
    if (code) return code;
  }
  return 0;
}

/* x on rank 0: the error against x*, and -o FILE. */
static int finish(mpi_state *s, const cli_options *opt, cli_report *r)
{
  const int64_t n = r->nrows;
  int code = 0;
  if (s->rank == 0) {
    s->xg = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->xg);
    if (!s->xg)
      code = cli_fail(SPS_ERR_HOST_MEMORY, CLI_EXIT_RUNTIME,
                      "out of memory for the solution (%lld entries)", (long long)n);
  }
  if ((code = agree(code)) != 0) return code;
  sps_status st = sps_vector_gather(s->A, 0, s->x, s->xg);
  if (st) return cli_library_error(s->ctx, st, "cannot gather x");
  if (s->rank == 0) {
    if (r->have_error) r->error = cli_relative_error(s->xg, s->xs, n);
    if (opt->output_path) {
      sps_vector *v = NULL;
      if ((st = sps_vector_create(s->sctx, &v, n)) != SPS_SUCCESS ||
          (st = sps_vector_upload(v, s->xg, n)) != SPS_SUCCESS ||
          (st = sps_vector_write_mm(v, opt->output_path)) != SPS_SUCCESS)
        code = cli_library_error(s->sctx, st, "cannot write x");
      sps_vector_destroy(&v);
    }
  }
  return agree(code);
}

int cli_solve_mpi(const cli_options *opt, int *reported)
{
  mpi_state s;
  cli_report r;
  cli_dist d;
  memset(&s, 0, sizeof s);
  memset(&r, 0, sizeof r);
  memset(&d, 0, sizeof d);
  r.opt = opt;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  /* every rank meets the same failures (the library agrees on them): rank 0 tells them */
  cli_error_quiet(s.rank != 0);
  cli_progress_init(&s.progress, CLI_PROGRESS_NEVER, opt->monitor_every);
  /* many right-hand sides (sps_solver_solve_many) are solved in one process */
  if (opt->nrhs > 1 || opt->block)
    return cli_fail(SPS_ERR_UNSUPPORTED, CLI_EXIT_USAGE,
                    "%s runs in one process: start spsolve without mpirun for several right-hand "
                    "sides", opt->block ? "--solver block-cg" : "--nrhs");
  /* one rank per GPU: the rank's place on its node picks it, unless --device cuda:N named one */
  const int index = opt->device_index_given ? opt->device_index : -1;
  int code = 0;
  sps_status st = sps_context_create_mpi(&s.ctx, MPI_COMM_WORLD, opt->device, index);
  if (st) code = cli_fail(st, cli_exit_code_of(st), "--device: %s", sps_context_create_error());
  if (!code && s.rank == 0 && (st = sps_context_create(&s.sctx, SPS_DEVICE_CPU, 0)) != SPS_SUCCESS)
    code = cli_fail(st, CLI_EXIT_RUNTIME, "%s", sps_context_create_error());
  if (!code) code = agree(code);
  if (!code && (st = sps_context_set_transport(s.ctx, (sps_transport)opt->transport_halo,
                                               (sps_transport)opt->transport_reduce)) != SPS_SUCCESS)
    code = cli_fail(st, cli_exit_code_of(st), "--transport: %s", sps_context_last_error(s.ctx));
  if (!code && (st = sps_context_get_device_name(s.ctx, r.device, sizeof r.device)) != SPS_SUCCESS)
    code = cli_library_error(s.ctx, st, "device name");
  if (!code) code = load(&s, opt, &r);
  if (!code) code = make_rhs(&s, opt, &r);
  if (!code) code = run(&s, opt, &r, &d);
  if (!code) code = finish(&s, opt, &r);
  if (!code) {
    r.exit_code = r.reason > 0 ? CLI_EXIT_CONVERGED : CLI_EXIT_NOT_CONVERGED;
    if (s.rank == 0 && !opt->quiet) {
      if (opt->json) {
        cli_report_json(stdout, &r);
        *reported = 1;
      } else {
        cli_report_text(stdout, &r);
      }
    }
    code = r.exit_code;
  }
  if (s.rank != 0) *reported = 1; /* the other ranks print nothing, errors included */
  state_free(&s);
  return code;
}

#else

int cli_mpi_launched(void)
{
  return 0;
}

int cli_solve_mpi(const cli_options *opt, int *reported)
{
  (void)opt;
  (void)reported;
  return CLI_EXIT_USAGE;
}

#endif
