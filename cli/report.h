/* report.h: what spsolve found, and its two renderings: the text report and one JSON object. */
#ifndef SPS_CLI_REPORT_H
#define SPS_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "options.h"
#include "spsolve.h"

/* Statistics of the matrix for --verbose. */
typedef struct cli_matrix_stats {
  int64_t min_row, max_row; /* fewest and most stored entries in a row */
  double mean_row;          /* nnz / rows */
  int64_t empty_rows;       /* rows with no stored entry */
  long long file_bytes;     /* size of the file on disk, -1 when unknown */
} cli_matrix_stats;

/* What a run under mpirun adds to the report (cli/mpi.c): the partition and where the time
 * went, the largest of the ranks' times. */
typedef struct cli_dist {
  int ranks;
  const char *partition;      /* "contiguous" or "metis" */
  const char *read;           /* "root" (rank 0 read and sent) or "each" (every rank read) */
  int reordered;              /* rows free of the halo first on each rank */
  int cuda_aware;             /* device buffers handed to MPI */
  const char *halo_via;       /* "mpi" or "nccl": what carried the halo exchanges */
  const char *reduce_via;     /* the same for the reductions */
  int64_t rows_min, rows_max, nnz_min, nnz_max;
  double imbalance_rows, imbalance_nnz; /* the most loaded rank over the mean */
  int64_t halo_total, halo_max, cut_nnz;
  int neighbors_max;
  double overlap_min;         /* the least share of a rank's rows before its first boundary row */
  double halo_start, spmv_local, halo_wait, spmv_boundary, reduce; /* seconds, most of a rank */
  double comm_max;            /* halo start + wait + reductions of the rank that spent most */
  int64_t halo_exchanges, reductions, halo_bytes; /* rank 0's counts */
  const char *timeline_path;  /* --timeline FILE, or NULL */
  int64_t timeline_events;    /* events written (every rank) */
} cli_dist;

typedef struct cli_report {
  const cli_options *opt;
  int64_t nrows, ncols, nnz;
  sps_symmetry symmetry;
  int symmetry_checked; /* the symmetry was checked numerically, not declared */
  cli_matrix_stats stats;
  char device[256];
  sps_solver_type solver;        /* the method that finished the solve */
  sps_precond_type precond;      /* its preconditioner */
  sps_precond_info pcinfo;       /* what the preconditioner did at setup */
  const sps_solver_attempt *attempts; /* the tries of the automatic choice */
  int attempt_count;
  sps_spmv_kind spmv;
  int threads_per_row;
  sps_spmv_choice_info spmv_choice; /* how the SpMV variant was chosen */
  int restart; /* the GMRES restart in use: --restart capped at n */
  int iterations;
  sps_reason reason;
  double residual_abs, residual_rel; /* true residual ||b - Ax|| and ||b - Ax||/||b|| */
  int have_error;                    /* x* is known */
  double error;                      /* ||x - x*||/||x*|| */
  double t_load, t_setup, t_solve;   /* seconds */
  const double *history;             /* residual norms, NULL unless --history */
  int history_count;
  const cli_dist *dist;              /* a distributed run's facts, or NULL */
  int exit_code;
  /* Many right-hand sides (--nrhs, a k-column --rhs file, --solver block-cg). */
  int many;                          /* solved by sps_solver_solve_many */
  int64_t nrhs;                      /* the columns */
  const sps_column_report *columns;  /* nrhs reports */
  const double *column_error;        /* nrhs errors ||x_j - x*_j||/||x*_j|| (have_error) */
  sps_many_report many_report;       /* the summary */
} cli_report;

/* Row-length statistics from the CSR row offsets, and the size of the file at @p path. */
void cli_matrix_stats_compute(const int64_t *rowptr, int64_t nrows, const char *path,
                              cli_matrix_stats *stats);

/* The symmetry as a word: "unknown", "general", "symmetric", "skew-symmetric". */
const char *cli_symmetry_name(sps_symmetry sym);

/* The human-readable report. */
void cli_report_text(FILE *out, const cli_report *r);

/* One JSON object (NaN and Inf written as null), ending with a newline. */
void cli_report_json(FILE *out, const cli_report *r);

/*
 * The JSON object of a failed run: {"failed": true, "status", "status_text", "message",
 * "exit_code"}, ending with a newline. @p e may be NULL (a failure nobody recorded): then
 * the status is null and the message says so.
 */
void cli_report_json_error(FILE *out, const cli_error *e, int exit_code);

/* A JSON string of s (escaped, invalid UTF-8 as U+FFFD), as the --json report writes it. */
void cli_json_string(FILE *out, const char *s);

#endif /* SPS_CLI_REPORT_H */
