/* options.h: the command line of spsolve, parsed into one struct, and the tool's exit codes. */
#ifndef SPS_CLI_OPTIONS_H
#define SPS_CLI_OPTIONS_H

#include <stdint.h>

#include "spsolve.h"

/* Exit codes, documented in --help and in spsolve(1). */
enum {
  CLI_EXIT_CONVERGED = 0,     /* the solve converged */
  CLI_EXIT_NOT_CONVERGED = 1, /* the solve stopped without converging */
  CLI_EXIT_USAGE = 2,         /* bad option, bad or missing input file, no such device */
  CLI_EXIT_RUNTIME = 3,       /* out of memory, CUDA or cuSPARSE failure */
  CLI_EXIT_INTERRUPTED = 130  /* Ctrl-C: 128 + SIGINT, as a shell reports it */
};

/* What the program is asked to do besides solving. */
typedef enum cli_action {
  CLI_ACTION_SOLVE = 0,
  CLI_ACTION_HELP,
  CLI_ACTION_VERSION,
  CLI_ACTION_LIST_SPMV,
  CLI_ACTION_LIST_PRECOND,
  CLI_ACTION_STATS /* --stats: print the statistics of A and exit */
} cli_action;

/* Where the right-hand side comes from. */
typedef enum cli_rhs_kind {
  CLI_RHS_SOLUTION = 0, /* b = A*x* with a seeded random x* (the default) */
  CLI_RHS_ONES,         /* b = (1, ..., 1) */
  CLI_RHS_RANDOM,       /* b seeded random, uniform in [-1, 1) */
  CLI_RHS_FILE          /* b read from a Matrix Market file */
} cli_rhs_kind;

/* When to show the progress line (cli/progress.h). */
typedef enum cli_progress_mode {
  CLI_PROGRESS_AUTO = 0, /* when stderr is a terminal */
  CLI_PROGRESS_ALWAYS,
  CLI_PROGRESS_NEVER
} cli_progress_mode;

/* Which solver; AUTO picks CG for a symmetric matrix and GMRES otherwise. */
typedef enum cli_solver_choice { CLI_SOLVER_AUTO = -1 } cli_solver_choice;

/* A preconditioner parameter from --precond-param NAME=VALUE or --precond NAME:ARGS. */
typedef struct cli_precond_param {
  char name[32];
  double value;
} cli_precond_param;

#define CLI_MAX_PRECOND_PARAMS 32

typedef struct cli_options {
  cli_action action;
  const char *matrix_path; /* first positional argument */
  const char *rhs_path;    /* --rhs FILE or the second positional argument */
  const char *output_path; /* -o FILE, or NULL */
  const char *x0_path;     /* --x0 FILE: the initial guess, or NULL for x0 = 0 */
  cli_rhs_kind rhs;
  uint64_t seed;
  int nrhs;   /* --nrhs K: K right-hand sides (0: not given, one, or the file's columns) */
  int solver; /* an sps_solver_type or CLI_SOLVER_AUTO */
  int block;  /* --solver block-cg: CG over all right-hand sides at once */
  sps_precond_type precond;
  cli_precond_param params[CLI_MAX_PRECOND_PARAMS]; /* applied in order */
  int nparams;
  double rtol, atol;
  double dtol; /* --dtol: divergence tolerance, >= 1 or +Inf */
  int maxit, restart;
  int flexible; /* --flexible: flexible GMRES */
  int gmres_fused; /* --gmres-fused: GMRES's fused cluster cycle */
  sps_device_kind device;
  int device_index;
  int device_index_given; /* --device cuda:N named the index */
  sps_spmv_kind spmv;
  int spmv_given; /* --spmv was on the command line */
  int threads_per_row;
  int monitor_every; /* 0: no monitor */
  cli_progress_mode progress;
  int history, json, quiet, verbose;
  int allow_nonfinite; /* --allow-nonfinite: read NaN and Inf in A and b */
  int pipelined;       /* --pipelined: pipelined CG */
  /* A run under mpirun (a build with MPI): */
  int partition;             /* --partition: 0 contiguous (the default), 1 metis */
  int read_each;             /* --read each: every rank reads its rows; 0: rank 0 reads */
  const char *timeline_path; /* --timeline FILE: the events of every rank, or NULL */
  int transport_halo;        /* --transport HALO[,REDUCE]: sps_transport values (0 auto) */
  int transport_reduce;
} cli_options;

/*
 * Parse argv into @p opt. On a usage error, print a message naming the option and the
 * value on stderr (recorded by cli_fail) and return CLI_EXIT_USAGE; otherwise return 0.
 */
int cli_parse_options(int argc, char **argv, cli_options *opt);

/* Print the --help text on stdout. */
void cli_print_help(void);

#endif /* SPS_CLI_OPTIONS_H */
