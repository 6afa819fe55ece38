/* progress.h: what a person watching a long run sees on stderr: the progress line, the monitor lines, and Ctrl-C. */
#ifndef SPS_CLI_PROGRESS_H
#define SPS_CLI_PROGRESS_H

#include <signal.h>
#include <stdint.h>

#include "options.h"

/* Set by the SIGINT handler (cli_interrupt_install); the solve's progress callback returns it. */
extern volatile sig_atomic_t cli_interrupted;

/* The last samples of (time, iteration, relative residual), for the rate and the time left. */
#define CLI_PROGRESS_SAMPLES 8

typedef struct cli_progress {
  int enabled;      /* the line may be drawn (--progress, stderr a terminal) */
  int drawn;        /* a line is on the screen and must be cleared before other output */
  double t_start;   /* start of the step being shown (load or solve) */
  double t_drawn;   /* last time the line was drawn */
  double bnorm;     /* ||b||: the relative residual is ||r|| / ||b|| */
  double rtol;      /* the target of the time left */
  int monitor_every; /* --monitor K, for the monitor lines */
  int many;          /* a solve of many right-hand sides: the values are relative residuals */
  int nsamples;
  double sample_t[CLI_PROGRESS_SAMPLES], sample_rel[CLI_PROGRESS_SAMPLES];
  int sample_it[CLI_PROGRESS_SAMPLES];
} cli_progress;

/*
 * Ctrl-C: the first sets cli_interrupted and says so on stderr (a solve stops at its next
 * check and reports with reason interrupted); a second ends the program at once with exit 130.
 */
void cli_interrupt_install(void);

/* Decide whether the line is shown: ALWAYS, NEVER, or AUTO when stderr is a terminal. */
void cli_progress_init(cli_progress *p, cli_progress_mode mode, int monitor_every);

/* Loading a file: the line shows bytes read and the share of the file (total 0: unknown). */
void cli_progress_load_begin(cli_progress *p);
int cli_progress_load(void *user, int64_t bytes, int64_t total);

/* The solve: call before sps_solver_solve; cli_progress_solve is an sps_progress_fn and
 * cli_progress_monitor an sps_monitor_fn, both with the cli_progress as user data. */
void cli_progress_solve_begin(cli_progress *p, double bnorm, double rtol);
/* The same for sps_solver_solve_many, whose monitor and progress callbacks receive the
 * largest relative residual ||r_j|| / ||b_j|| of the running columns. */
void cli_progress_many_begin(cli_progress *p, double rtol);
int cli_progress_solve(void *user, int iteration, double residual_norm);
void cli_progress_monitor(void *user, int iteration, double residual_norm);

/* Clear the line (before the report). */
void cli_progress_end(cli_progress *p);

#endif /* SPS_CLI_PROGRESS_H */
