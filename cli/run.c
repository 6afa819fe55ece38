/* run.c: the steps of a solve that the single-process and the distributed runs of spsolve share: the solver's settings and results, the exit codes of failed calls, the wall clock. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "run.h"

double cli_wall_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_exit_code_of(sps_status st)
{
  switch (st) {
  case SPS_ERR_ARGUMENT:
  case SPS_ERR_SIZE:
  case SPS_ERR_UNSUPPORTED:
  case SPS_ERR_IO:
  case SPS_ERR_NO_DEVICE:
    return CLI_EXIT_USAGE;
  case SPS_ERR_INTERRUPTED:
    return CLI_EXIT_INTERRUPTED;
  default:
    return CLI_EXIT_RUNTIME;
  }
}

/*
 * The library's message in the tool's words: the reader names its flag
 * SPS_MM_ALLOW_NONFINITE, which the tool spells --allow-nonfinite.
 */
static void translate_message(const char *msg, char *out, size_t len)
{
  static const char flag[] = "pass SPS_MM_ALLOW_NONFINITE";
  const char *at = strstr(msg, flag);
  if (at)
    snprintf(out, len, "%.*suse --allow-nonfinite%s", (int)(at - msg), msg, at + sizeof flag - 1);
  else
    snprintf(out, len, "%s", msg);
}

int cli_library_error(const sps_context *ctx, sps_status st, const char *what)
{
  const char *msg = ctx ? sps_context_last_error(ctx) : "";
  char text[1200];
  translate_message(msg[0] ? msg : sps_status_string(st), text, sizeof text);
  return cli_fail(st, cli_exit_code_of(st), "%s: %s", what, text);
}

/* The parameters of --precond NAME:ARGS and --precond-param, in order. */
static sps_status set_precond_params(sps_solver *sv, const cli_options *opt)
{
  for (int k = 0; k < opt->nparams; k++) {
    const sps_status st = sps_solver_set_precond_param(sv, opt->params[k].name, opt->params[k].value);
    if (st != SPS_SUCCESS) return st;
  }
  return SPS_SUCCESS;
}

sps_status cli_solver_settings(sps_solver *sv, const cli_options *opt, cli_progress *progress)
{
  sps_status st;
  if ((st = sps_solver_set_tolerances(sv, opt->rtol, opt->atol)) != SPS_SUCCESS ||
      (st = sps_solver_set_dtol(sv, opt->dtol)) != SPS_SUCCESS ||
      (st = sps_solver_set_max_iterations(sv, opt->maxit)) != SPS_SUCCESS ||
      (st = sps_solver_set_restart(sv, opt->restart)) != SPS_SUCCESS ||
      (st = sps_solver_set_flexible(sv, opt->flexible)) != SPS_SUCCESS ||
      (st = sps_solver_set_gmres_fused(sv, opt->gmres_fused)) != SPS_SUCCESS ||
      (st = sps_solver_set_pipelined(sv, opt->pipelined)) != SPS_SUCCESS ||
      (st = sps_solver_set_precond(sv, opt->precond)) != SPS_SUCCESS ||
      (st = set_precond_params(sv, opt)) != SPS_SUCCESS ||
      (st = sps_solver_set_spmv(sv, opt->spmv, opt->threads_per_row)) != SPS_SUCCESS ||
      (st = sps_solver_set_history(sv, opt->history)) != SPS_SUCCESS ||
      (st = sps_solver_set_zero_guess(sv, opt->x0_path == NULL)) != SPS_SUCCESS ||
      (opt->monitor_every > 0 &&
       (st = sps_solver_set_monitor(sv, cli_progress_monitor, progress, opt->monitor_every)) !=
           SPS_SUCCESS))
    return st;
  return SPS_SUCCESS;
}

sps_status cli_solver_choices(const sps_solver *sv, cli_report *r)
{
  sps_status st;
  if ((st = sps_solver_get_method(sv, &r->solver, &r->precond)) != SPS_SUCCESS ||
      (st = sps_solver_get_precond_info(sv, &r->pcinfo)) != SPS_SUCCESS ||
      (st = sps_solver_get_attempts(sv, &r->attempts, &r->attempt_count)) != SPS_SUCCESS ||
      (st = sps_solver_get_spmv(sv, &r->spmv, &r->threads_per_row)) != SPS_SUCCESS ||
      (st = sps_solver_get_spmv_choice(sv, &r->spmv_choice)) != SPS_SUCCESS ||
      (st = sps_solver_get_restart(sv, &r->restart)) != SPS_SUCCESS ||
      (st = sps_solver_get_times(sv, &r->t_setup, &r->t_solve)) != SPS_SUCCESS)
    return st;
  return SPS_SUCCESS;
}

sps_status cli_solver_results(const sps_solver *sv, cli_report *r)
{
  sps_status st;
  if ((st = cli_solver_choices(sv, r)) != SPS_SUCCESS ||
      (st = sps_solver_get_iterations(sv, &r->iterations)) != SPS_SUCCESS ||
      (st = sps_solver_get_reason(sv, &r->reason)) != SPS_SUCCESS ||
      (st = sps_solver_get_residual(sv, &r->residual_abs, &r->residual_rel)) != SPS_SUCCESS ||
      (r->opt->history &&
       (st = sps_solver_get_history(sv, &r->history, &r->history_count)) != SPS_SUCCESS))
    return st;
  return SPS_SUCCESS;
}
