/* state.h: what one run of spsolve owns, and the steps of a solve shared by the one right-hand side (spsolve.c) and the many (many.c). */
#ifndef SPS_CLI_STATE_H
#define SPS_CLI_STATE_H

#include "options.h"
#include "progress.h"
#include "report.h"
#include "spsolve.h"

/* Everything one run owns; cli_state_free() releases it in reverse order of creation. */
typedef struct cli_state {
  sps_context *ctx;
  sps_matrix *A;
  sps_vector *b, *x;
  sps_multivector *B, *X; /* the right-hand sides and solutions of a solve_many */
  sps_solver *solver;
  double *host_xs; /* the exact solutions x* (n x k, column-major), when b = A*x* */
  double *host_x;  /* the computed solutions, downloaded to compare with x* */
  sps_column_report *columns; /* copies of the column reports of a solve_many */
  double *column_error;       /* ||x_j - x*_j|| / ||x*_j|| per column */
  cli_progress progress;      /* the progress line and the monitor lines on stderr */
} cli_state;

void cli_state_free(cli_state *s);

/* Report a failed library call with the context's message and return its exit code
 * (cli_library_error() of run.h on s->ctx). */
int cli_state_error(const cli_state *s, sps_status st, const char *what);

/* "spsolve: interrupted before the solve" on stderr; the exit code of an interruption. */
int cli_interrupted_before_solve(void);

/* Create the solver and apply every solver option of the command line. */
int cli_solver_create(cli_state *s, const cli_options *opt);

#endif /* SPS_CLI_STATE_H */
