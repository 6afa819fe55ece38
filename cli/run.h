/* run.h: the steps of a solve that the single-process and the distributed runs of spsolve share: the solver's settings and results, the exit codes of failed calls, the wall clock. */
#ifndef SPS_CLI_RUN_H
#define SPS_CLI_RUN_H

#include "options.h"
#include "progress.h"
#include "report.h"
#include "spsolve.h"

/* Wall clock in seconds, monotonic; times the load, which the library does not time. */
double cli_wall_seconds(void);

/*
 * The exit code of a failed library call: bad input, a missing device or an unsupported
 * request are the user's to fix (2); memory, CUDA, MPI and internal failures are runtime (3).
 */
int cli_exit_code_of(sps_status st);

/* Report a failed call with ctx's message (the status's text when ctx is NULL or has none) and
 * return its exit code. */
int cli_library_error(const sps_context *ctx, sps_status st, const char *what);

/* Apply the command line's solver settings (tolerances, limits, method options, preconditioner
 * and its parameters, SpMV, history, initial guess, monitor with @p progress). */
sps_status cli_solver_settings(sps_solver *sv, const cli_options *opt, cli_progress *progress);

/* Read what the solver chose and took into the report (method, preconditioner, tries, SpMV
 * choice, restart, times): what a solve of one and of many right-hand sides both report. */
sps_status cli_solver_choices(const sps_solver *sv, cli_report *r);

/* Read the solve's results into the report: cli_solver_choices(), then the iterations, reason,
 * residual and history of a solve of one right-hand side. */
sps_status cli_solver_results(const sps_solver *sv, cli_report *r);

#endif /* SPS_CLI_RUN_H */
