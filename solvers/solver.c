/* solver.c: the public sps_solver API and the Krylov method registry. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/comm.h"
#include "../spmv/threads_per_row.h"
#include "defaults.h"
#include "solver_internal.h"
#ifdef SPS_HAVE_MPI
#include "../core/dist_matrix.h"
#endif

/* The registry: one entry per sps_solver_type, in enum order. */
static const sps_solver_method *const registry[SPS_SOLVER_TYPE_COUNT] = {
    [SPS_SOLVER_CG] = &sps_solver_method_cg,
    [SPS_SOLVER_GMRES] = &sps_solver_method_gmres,
    [SPS_SOLVER_BICGSTAB] = &sps_solver_method_bicgstab,
};

const char *sps_solver_type_name(sps_solver_type type)
{
  if (type == SPS_SOLVER_AUTO) return "auto";
  if ((int)type < 0 || type >= SPS_SOLVER_TYPE_COUNT) return NULL;
  return registry[type]->name;
}

sps_status sps_solver_type_from_name(const char *name, sps_solver_type *type)
{
  if (!name || !type) return SPS_ERR_ARGUMENT;
  if (strcmp(name, "auto") == 0) {
    *type = SPS_SOLVER_AUTO;
    return SPS_SUCCESS;
  }
  for (int t = 0; t < SPS_SOLVER_TYPE_COUNT; t++)
    if (strcmp(name, registry[t]->name) == 0) {
      *type = (sps_solver_type)t;
      return SPS_SUCCESS;
    }
  return SPS_ERR_ARGUMENT;
}

/* Helpers shared by the methods. */

int sps_solver_bad(double v)
{
  return !isfinite(v);
}

int sps_solver_adaptive_batch(const sps_solver *s, int last, double rate, double rnorm,
                              int min_batch, int max_batch)
{
  int b = 2 * last;
  if (rate > 0.0 && rate < 1.0 && rnorm > s->tol) {
    double need = ceil(log(s->tol / rnorm) / log(rate));
    if (need < b) b = (int)need;
  }
  if (b < min_batch) b = min_batch;
  return b > max_batch ? max_batch : b;
}

int sps_solver_next_batch(const sps_solver *s, int last, double rate, double rnorm, int it,
                          int min_batch, int max_batch)
{
  int b = s->monitor && s->monitor_every > 0
              ? s->monitor_every - it % s->monitor_every
              : sps_solver_adaptive_batch(s, last, rate, rnorm, min_batch, max_batch);
  b = sps_solver_progress_cap(s, b);
  return b < s->maxit - it ? b : s->maxit - it;
}

int sps_solver_progress_on(const sps_solver *s)
{
  /* the ranks of a distributed solve must cut their batches alike and stop at the same
   * iteration, which clocks of their own would not give: no progress callback there */
  return s->progress != NULL && !s->ctx->comm;
}

int sps_solver_progress_cap(const sps_solver *s, int batch)
{
  if (!sps_solver_progress_on(s) || !(s->sec_per_it > 0.0)) return batch;
  const double fit = s->progress_interval / s->sec_per_it;
  const int cap = fit < 1.0 ? 1 : fit > (double)batch ? batch : (int)fit;
  return cap < batch ? cap : batch;
}

int sps_solver_progress(sps_solver *s, int it, double rnorm)
{
  if (!sps_solver_progress_on(s)) return 0;
  const int at = it + s->it_offset;
  const double now = sps_wtime();
  if (at > s->progress_it) s->sec_per_it = (now - s->progress_t) / (double)(at - s->progress_it);
  s->progress_t = now;
  s->progress_it = at;
  return s->progress(s->progress_user, at, ldexp(rnorm, s->scale_exp)) != 0;
}

sps_status sps_solver_issue_batch(sps_solver *s, void *graph, int per_graph, int count,
                                  sps_status (*issue)(sps_solver *s, void *work), void *work)
{
  sps_context *ctx = s->ctx;
  int k = 0;
  if (graph)
    for (; k + per_graph <= count; k += per_graph) {
      /* SPS_ERR_UNSUPPORTED: the graph does not serve now (a distributed context's transports
       * changed since the capture): the rest one by one */
      const sps_status st = ctx->be->graph_launch(ctx, graph);
      if (st == SPS_ERR_UNSUPPORTED) break;
      SPS_CHECK(st);
    }
  for (; k < count; k++) SPS_CHECK(issue(s, work));
  return SPS_SUCCESS;
}

double sps_solver_batch_rate(double before, double after, int iterations)
{
  if (iterations <= 0 || !(before > 0.0) || !(after > 0.0)) return 0.0;
  return pow(after / before, 1.0 / iterations);
}

sps_reason sps_solver_test(const sps_solver *s, double rnorm)
{
  if (!(rnorm <= s->tol)) return SPS_REASON_NONE;
  if (s->rtol > 0.0 && rnorm <= s->rtol * s->bnorm) return SPS_CONVERGED_RTOL;
  return SPS_CONVERGED_ATOL;
}

/* The history and the monitor speak of the user's system: norms of the scaled one times 2^k. */
void sps_solver_record(sps_solver *s, int it, double rnorm)
{
  const int at = it + s->it_offset;
  rnorm = ldexp(rnorm, s->scale_exp);
  if (s->history_on && at < s->history_cap) {
    s->history[at] = rnorm;
    s->history_count = at + 1;
  }
  if (s->monitor && s->monitor_every > 0 && at % s->monitor_every == 0)
    s->monitor(s->monitor_user, at, rnorm);
}

void sps_solver_monitor(sps_solver *s, int it, double rnorm)
{
  if (s->monitor && s->monitor_every > 0)
    s->monitor(s->monitor_user, it + s->it_offset, ldexp(rnorm, s->scale_exp));
}

sps_status sps_solver_operator(sps_solver *s, const double *x, double *y)
{
  return sps_spmv_apply_raw(s->plan, s->sign, x, 0.0, y);
}

int sps_solver_operator_fuses_dot(const sps_solver *s)
{
  return sps_spmv_plan_fuses_dot(s->plan);
}

sps_status sps_solver_operator_dot(sps_solver *s, const double *x, double *y, sps_csum *xy)
{
  return sps_spmv_apply_dot(s->plan, s->sign, x, y, xy);
}

sps_status sps_solver_residual(sps_solver *s, const double *b, const double *x, double *r,
                               double *norm)
{
  sps_context *ctx = s->ctx;
  /* r <- sign*b - sign*A*x (the sign flips both sides: the same norm) */
  if (s->sign < 0.0)
    SPS_CHECK(ctx->be->axpby(ctx, s->n, -1.0, b, 0.0, r));
  else
    SPS_CHECK(ctx->be->copy(ctx, s->n, b, r));
  SPS_CHECK(sps_spmv_apply_raw(s->check_plan ? s->check_plan : s->plan, -s->sign, x, 1.0, r));
  return ctx->be->nrm2(ctx, s->n, r, norm);
}

sps_status sps_solver_confirm(sps_solver *s, const double *b, const double *x, double *r,
                              double *norm, sps_reason *reason)
{
  SPS_CHECK(sps_solver_residual(s, b, x, r, norm));
  *reason = sps_solver_bad(*norm) ? SPS_DIVERGED_NAN : sps_solver_test(s, *norm);
  return SPS_SUCCESS;
}

sps_status sps_solver_nan_reason(sps_solver *s, const double *b, const double *x, double *r,
                                 double *norm, sps_reason *reason)
{
  SPS_CHECK(sps_solver_residual(s, b, x, r, norm));
  *reason = sps_solver_bad(*norm) ? SPS_DIVERGED_NAN : SPS_DIVERGED_BREAKDOWN;
  return SPS_SUCCESS;
}

int sps_solver_dtol_cycle(const sps_solver *s, double rnorm, int it, int *above_since)
{
  if (!(rnorm > s->dtol_abs)) {
    *above_since = -1;
    return 0;
  }
  if (*above_since < 0) *above_since = it;
  return it - *above_since >= SPS_DTOL_ITERATIONS;
}

sps_status sps_solver_confirm_divergence(sps_solver *s, const double *b, const double *x,
                                         double *r, double *norm, sps_reason *reason)
{
  SPS_CHECK(sps_solver_residual(s, b, x, r, norm));
  *reason = sps_solver_bad(*norm)         ? SPS_DIVERGED_NAN
            : *norm > s->dtol_abs ? SPS_DIVERGED_DTOL
                                          : SPS_REASON_NONE;
  return SPS_SUCCESS;
}

sps_status sps_solver_capture(sps_solver *s, int iterations,
                              sps_status (*issue)(sps_solver *s, void *work), void *work,
                              void **graph)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  *graph = NULL;
  if (!be->graph_begin || s->n == 0) return SPS_SUCCESS;
  sps_status st = be->graph_begin(ctx);
  /* SPS_ERR_UNSUPPORTED: the backend captures nothing now (a distributed context whose
   * iterations wait on the host); the solver issues its iterations one by one */
  if (st == SPS_ERR_UNSUPPORTED) return SPS_SUCCESS;
  SPS_CHECK(st);
  for (int k = 0; k < iterations && st == SPS_SUCCESS; k++)
    st = issue(s, work);
  /* End the capture whatever happened, so the stream is usable again. */
  const sps_status st_end = be->graph_end(ctx, graph);
  if (st == SPS_ERR_UNSUPPORTED) {
    /* a step that must wait on the host: no graph */
    if (*graph) be->graph_destroy(ctx, *graph);
    *graph = NULL;
    return SPS_SUCCESS;
  }
  return st != SPS_SUCCESS ? st : st_end;
}

sps_status sps_solver_download_history(sps_solver *s, const double *dev, int it)
{
  if (!dev || it <= 0) return SPS_SUCCESS;
  if (it + s->it_offset >= s->history_cap) it = s->history_cap - 1 - s->it_offset;
  if (it <= 0) return SPS_SUCCESS;
  double *h = s->history + 1 + s->it_offset;
  SPS_CHECK(s->ctx->be->download(s->ctx, h, dev + 1, (size_t)it * sizeof(double)));
  if (s->scale_exp != 0)
    for (int k = 0; k < it; k++)
      h[k] = ldexp(h[k], s->scale_exp);
  s->history_count = it + 1 + s->it_offset;
  return SPS_SUCCESS;
}

/*
 * A work vector is zeroed once when it is allocated (setup only): a batch of iterations
 * issued as one CUDA graph runs its SpMVs even after a breakdown earlier in the batch has
 * stopped the steps that fill their inputs (the results are discarded), and those inputs
 * must then hold defined values (compute-sanitizer's initcheck found BiCGSTAB's t = A s
 * reading a never-written s after a breakdown in the first iteration).
 */
sps_status sps_solver_vec_alloc(sps_solver *s, double **v, const char *what)
{
  sps_context *ctx = s->ctx;
  SPS_CHECK(ctx->be->malloc(ctx, (void **)v, (size_t)s->n * sizeof(double), what));
  const sps_status st = ctx->be->fill(ctx, s->n, 0.0, *v);
  if (st) sps_solver_vec_free(s, v);
  return st;
}

void sps_solver_vec_free(sps_solver *s, double **v)
{
  if (*v) s->ctx->be->free(s->ctx, *v);
  *v = NULL;
}

/* Creation and settings. */

sps_status sps_solver_create(sps_context *ctx, sps_solver **out, sps_solver_type type)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "solver");
  *out = NULL;
  if (type != SPS_SOLVER_AUTO && ((int)type < 0 || type >= SPS_SOLVER_TYPE_COUNT))
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_create: unknown solver type %d", (int)type);
  sps_solver *s;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&s, 1, sizeof *s, "solver"));
  s->ctx = ctx;
  s->requested = type;
  /* Until setup resolves AUTO, the settings that depend on the method treat it as GMRES. */
  s->method = registry[type == SPS_SOLVER_AUTO ? SPS_SOLVER_GMRES : type];
  s->sign = 1.0;
  sps_precond_params_default(&s->precond_params);
  s->rtol = SPS_DEFAULT_RTOL;
  s->atol = SPS_DEFAULT_ATOL;
  s->dtol = SPS_DEFAULT_DTOL;
  s->maxit = SPS_DEFAULT_MAXIT;
  s->restart = SPS_DEFAULT_RESTART;
  s->orthog = SPS_ORTHOG_CGS2;
  s->precond_type = SPS_PRECOND_AUTO;
  s->spmv_kind = SPS_SPMV_AUTO;
  s->spmv_threads_per_row = 0;
  s->reason = SPS_REASON_NONE;
  sps_context_track(ctx, SPS_OBJECT_SOLVER, 1);
  *out = s;
  return SPS_SUCCESS;
}

sps_status sps_solver_create_by_name(sps_context *ctx, sps_solver **out, const char *name)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "solver");
  *out = NULL;
  SPS_CHECK_ARG(ctx, name, "name");
  sps_solver_type type;
  if (sps_solver_type_from_name(name, &type) != SPS_SUCCESS)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "unknown solver '%s' (expected \"cg\", \"gmres\", \"bicgstab\" or \"auto\")", name);
  return sps_solver_create(ctx, out, type);
}

/* (Re)allocate the history buffer for maxit + 1 entries (when history is on). */
static sps_status history_alloc(sps_solver *s)
{
  sps_host_free(s->history);
  s->history = NULL;
  s->history_cap = 0;
  s->history_count = 0;
  if (!s->history_on) return SPS_SUCCESS;
  SPS_CHECK(sps_host_alloc(s->ctx, (void **)&s->history, (size_t)s->maxit + 1, sizeof(double),
                           "residual history"));
  s->history_cap = s->maxit + 1;
  return SPS_SUCCESS;
}

/* (Re)build the method's work space. */
static sps_status work_alloc(sps_solver *s)
{
  if (s->method->destroy) s->method->destroy(s);
  s->work = NULL;
  s->work_restart = s->restart;
  return s->method->setup(s);
}

/* A setting that sizes the work space (or, with history, the residual history too) changed
 * after setup: rebuild them; a failure leaves the solver to be set up again. */
static sps_status rebuild_after_setup(sps_solver *s, int history)
{
  sps_batch_destroy(s);
  sps_status st = history ? history_alloc(s) : SPS_SUCCESS;
  if (!st) st = work_alloc(s);
  if (!st) st = sps_solver_many_setup(s);
  if (st) s->is_setup = 0;
  return st;
}

sps_status sps_solver_set_tolerances(sps_solver *s, double rtol, double atol)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (!(rtol >= 0.0) || !(atol >= 0.0) || !isfinite(rtol) || !isfinite(atol) ||
      (rtol == 0.0 && atol == 0.0))
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT,
             "tolerances must be finite, >= 0 and not both 0 (rtol %g, atol %g)", rtol, atol);
  s->rtol = rtol;
  s->atol = atol;
  return SPS_SUCCESS;
}

sps_status sps_solver_set_dtol(sps_solver *s, double dtol)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (!(dtol >= 1.0))
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT,
             "divergence tolerance must be >= 1 (or +Inf for no divergence test), not %g", dtol);
  s->dtol = dtol;
  return SPS_SUCCESS;
}

/* The history buffer is sized by maxit, so a change after setup resizes it here, not in solve. */
sps_status sps_solver_set_max_iterations(sps_solver *s, int maxit)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (maxit < 1 || maxit == INT32_MAX)
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "maximum iterations must be in [1, %d), not %d", INT32_MAX,
             maxit);
  s->maxit = maxit;
  if (s->is_setup) return rebuild_after_setup(s, 1);
  return SPS_SUCCESS;
}

/* The GMRES basis is sized by the restart, so a change after setup rebuilds it here. */
sps_status sps_solver_set_restart(sps_solver *s, int restart)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (restart < 1) SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "restart must be >= 1, not %d", restart);
  s->restart = restart;
  if (s->is_setup && s->work_restart != restart) return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

/* GMRES builds another work space for MGS (host-driven), so a change after setup rebuilds it. */
sps_status sps_solver_set_orthogonalization(sps_solver *s, sps_orthog orthog)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (orthog != SPS_ORTHOG_MGS && orthog != SPS_ORTHOG_CGS2)
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "unknown orthogonalisation %d", (int)orthog);
  const int changed = s->orthog != orthog;
  s->orthog = orthog;
  if (s->is_setup && changed && s->method->type == SPS_SOLVER_GMRES)
    return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

/* Flexible GMRES needs the second basis Z, so a change after setup rebuilds the work space. */
sps_status sps_solver_set_flexible(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  const int changed = s->flexible != (enable != 0);
  s->flexible = enable != 0;
  if (s->is_setup && changed && s->method->type == SPS_SOLVER_GMRES)
    return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

/* The fused cycle replaces the captured graphs, so a change after setup rebuilds the work space. */
sps_status sps_solver_set_gmres_fused(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  const int changed = s->gmres_fused != (enable != 0);
  s->gmres_fused = enable != 0;
  if (s->is_setup && changed && s->method->type == SPS_SOLVER_GMRES)
    return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

sps_status sps_solver_set_pipelined(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  s->pipelined = enable != 0;
  return SPS_SUCCESS;
}

sps_status sps_solver_set_precond(sps_solver *s, sps_precond_type precond)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (precond != SPS_PRECOND_AUTO && ((int)precond < 0 || precond >= SPS_PRECOND_TYPE_COUNT))
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "unknown preconditioner type %d", (int)precond);
  s->precond_type = precond;
  return SPS_SUCCESS;
}

sps_status sps_solver_set_precond_param(sps_solver *s, const char *name, double value)
{
  if (!s) return SPS_ERR_ARGUMENT;
  return sps_precond_params_set(s->ctx, &s->precond_params, name, value);
}

sps_status sps_solver_set_spmv(sps_solver *s, sps_spmv_kind kind, int threads_per_row)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if ((int)kind < 0 || kind >= SPS_SPMV_KIND_COUNT)
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "unknown SpMV kind %d", (int)kind);
  if (!sps_spmv_tpr_valid(threads_per_row))
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "threads per row must be " SPS_SPMV_TPR_LIST ", not %d",
             threads_per_row);
  s->spmv_kind = kind;
  s->spmv_threads_per_row = threads_per_row;
  return SPS_SUCCESS;
}

sps_status sps_solver_set_history(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  s->history_on = enable != 0;
  if (s->is_setup) return rebuild_after_setup(s, 1);
  return SPS_SUCCESS;
}

sps_status sps_solver_set_columns(sps_solver *s, int columns)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (columns < 0) SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "columns must be >= 0, not %d", columns);
  const int changed = s->columns != columns;
  s->columns = columns;
  if (s->is_setup && changed) return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

sps_status sps_solver_set_block(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  const int changed = s->block != (enable != 0);
  s->block = enable != 0;
  if (s->is_setup && changed) return rebuild_after_setup(s, 0);
  return SPS_SUCCESS;
}

sps_status sps_solver_set_zero_guess(sps_solver *s, int enable)
{
  if (!s) return SPS_ERR_ARGUMENT;
  s->zero_guess = enable != 0;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_report(const sps_solver *s, sps_solve_report *report)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, report, "report");
  memset(report, 0, sizeof *report);
  SPS_CHECK(sps_solver_get_reason(s, &report->reason));
  SPS_CHECK(sps_solver_get_iterations(s, &report->iterations));
  SPS_CHECK(sps_solver_get_residual(s, &report->residual_abs, &report->residual_rel));
  SPS_CHECK(sps_solver_get_times(s, &report->setup_seconds, &report->solve_seconds));
  SPS_CHECK(sps_solver_get_method(s, &report->method, &report->precond));
  SPS_CHECK(sps_solver_get_spmv(s, &report->spmv, &report->threads_per_row));
  SPS_CHECK(sps_solver_get_attempts(s, &report->attempts, &report->attempt_count));
  SPS_CHECK(sps_solver_get_history(s, &report->history, &report->history_count));
  return SPS_SUCCESS;
}

sps_status sps_solver_set_progress(sps_solver *s, sps_progress_fn fn, void *user, double interval)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (fn && !(interval > 0.0))
    SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "progress interval must be > 0 seconds, not %g", interval);
  s->progress = fn;
  s->progress_user = user;
  s->progress_interval = fn ? interval : 0.0;
  return SPS_SUCCESS;
}

sps_status sps_solver_set_monitor(sps_solver *s, sps_monitor_fn fn, void *user, int every)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (every < 0) SPS_FAIL(s->ctx, SPS_ERR_ARGUMENT, "monitor interval must be >= 0, not %d", every);
  s->monitor = every > 0 ? fn : NULL;
  s->monitor_user = user;
  s->monitor_every = fn ? every : 0;
  return SPS_SUCCESS;
}

/* Setup: everything the solve needs, allocated once. */

static void solver_release(sps_solver *s)
{
  sps_solver_many_release(s);
  if (s->method->destroy) s->method->destroy(s);
  s->work = NULL;
  sps_solver_auto_destroy(s);
  sps_solver_vec_free(s, &s->r);
  sps_solver_vec_free(s, &s->bs);
  sps_precond_destroy(&s->pc);
  sps_spmv_plan_destroy(&s->plan);
  sps_spmv_plan_destroy(&s->check_plan);
  sps_host_free(s->history);
  s->history = NULL;
  s->history_cap = 0;
  s->history_count = 0;
  s->is_setup = 0;
  s->A = NULL;
  s->n = 0;
  s->n_global = 0;
  s->sign = 1.0;
  s->auto_on = 0;
  s->attempt_count = 0;
  s->restart_used = 0;
}

sps_solver_attempt *sps_solver_add_attempt(sps_solver *s, sps_solver_type method,
                                           sps_precond_type precond, const char *fmt, ...)
{
  if (s->attempt_count < SPS_SOLVER_MAX_ATTEMPTS) s->attempt_count++;
  sps_solver_attempt *a = &s->attempts[s->attempt_count - 1];
  memset(a, 0, sizeof *a);
  a->method = method;
  a->precond = precond;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->note, sizeof a->note, fmt, ap);
  va_end(ap);
  return a;
}

/*
 * The preconditioners a distributed matrix takes: those built on each rank's diagonal block
 * alone (block Jacobi over the ranks). Chebyshev's spectrum and AMG's hierarchy are of the
 * whole matrix, which no rank holds.
 */
static int precond_distributes(sps_precond_type t)
{
  return t == SPS_PRECOND_NONE || t == SPS_PRECOND_JACOBI || t == SPS_PRECOND_BJACOBI ||
         t == SPS_PRECOND_ILU0 || t == SPS_PRECOND_IC0 || t == SPS_PRECOND_ILUT;
}

/*
 * On a distributed context every local step (an allocation, a factorisation) is followed by
 * the ranks' agreement on its status (sps_comm_agree) before the next collective one, so that
 * a failure on one rank fails the call on all instead of leaving them waiting.
 */
sps_status sps_solver_use(sps_solver *s, sps_solver_type method, sps_precond_type precond,
                          const sps_precond_params *params, double sign)
{
  sps_context *ctx = s->ctx;
  /* The block work space refers to the preconditioner (its graphs apply it); the next
   * sps_solver_solve_many builds it again, or decides again to go one column at a time. */
  sps_batch_destroy(s);
  s->many_note[0] = '\0';
  if (s->method->destroy) s->method->destroy(s);
  s->work = NULL;
  sps_precond_destroy(&s->pc);
  s->method = method == SPS_SOLVER_CG && s->pipelined ? &sps_solver_method_cg_pipelined
                                                       : registry[method];
  s->sign = sign;
  sps_status st = SPS_SUCCESS;
  if (s->A->dist && !precond_distributes(precond))
    st = sps_error_set(ctx, SPS_ERR_UNSUPPORTED,
                       "preconditioner '%s' does not run on a distributed matrix (none, jacobi, "
                       "bjacobi, ilu0, ic0 and ilut do, on each rank's diagonal block)",
                       sps_precond_type_name(precond));
  if (!st) st = sps_precond_create(ctx, &s->pc, precond, params);
  if (!st) st = sps_precond_setup(s->pc, s->A, sign, s->plan);
  st = sps_comm_agree(ctx, st);
  if (!st && !sps_precond_is_identity(s->pc)) st = sps_precond_estimate_growth(s->pc);
  if (!st) st = sps_comm_agree(ctx, work_alloc(s));
  if (st) {
    if (s->method->destroy) s->method->destroy(s);
    s->work = NULL;
    sps_precond_destroy(&s->pc);
  }
  return st;
}

sps_status sps_solver_setup(sps_solver *s, const sps_matrix *A)
{
  if (!s) return SPS_ERR_ARGUMENT;
  sps_context *ctx = s->ctx;
  SPS_CHECK_ARG(ctx, A, "A");
  if (A->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_setup: matrix belongs to another context");
  if (A->nrows != A->ncols)
    SPS_FAIL(ctx, SPS_ERR_SIZE, "sps_solver_setup: matrix is %lld x %lld, not square",
             (long long)A->nrows, (long long)A->ncols);
  sps_status st = SPS_SUCCESS;
  double t0 = sps_wtime();
  solver_release(s);
  s->A = A;
  s->n = A->nrows;
#ifdef SPS_HAVE_MPI
  s->n_global = A->dist ? A->dist->nglobal : A->nrows;
#else
  s->n_global = A->nrows;
#endif
  /* Each local step is agreed on before the next collective one (see sps_solver_use). */
  st = sps_spmv_plan_create(ctx, &s->plan, A, s->spmv_kind);
  if (!st) {
    sps_spmv_plan_set_owned(s->plan);
    st = sps_spmv_plan_set_threads_per_row(s->plan, s->spmv_threads_per_row);
  }
  SPS_TRY(sps_comm_agree(ctx, st));
  SPS_TRY(sps_spmv_plan_setup(s->plan));
  if (!sps_spmv_plan_rounds_like_csr(s->plan)) {
    st = sps_spmv_plan_create(ctx, &s->check_plan, A, SPS_SPMV_CSR_SCALAR);
    if (!st) sps_spmv_plan_set_owned(s->check_plan);
    SPS_TRY(sps_comm_agree(ctx, st));
    SPS_TRY(sps_spmv_plan_setup(s->check_plan));
  }
  st = sps_solver_vec_alloc(s, &s->r, "solver residual");
  if (!st) st = sps_solver_vec_alloc(s, &s->bs, "solver scaled right-hand side");
  if (!st) st = history_alloc(s);
  SPS_TRY(sps_comm_agree(ctx, st));
  s->auto_on = s->requested == SPS_SOLVER_AUTO || s->precond_type == SPS_PRECOND_AUTO;
  if (s->auto_on) {
    SPS_TRY(sps_solver_auto_setup(s));
  } else {
    const double sign =
        s->requested == SPS_SOLVER_CG && sps_solver_diagonal_sign(A) < 0 ? -1.0 : 1.0;
    st = sps_solver_use(s, s->requested, s->precond_type, &s->precond_params, sign);
    sps_solver_attempt *a = sps_solver_add_attempt(
        s, s->requested, s->precond_type, "%s", st ? sps_context_last_error(ctx) : "as requested");
    if (st) goto cleanup;
    a->accepted = 1;
  }
  SPS_TRY(sps_comm_agree(ctx, sps_solver_many_setup(s)));
  SPS_TRY(sps_comm_agree(ctx, ctx->be->synchronize(ctx)));
  s->is_setup = 1;
  s->reason = SPS_REASON_NONE;
  s->iterations = 0;
  s->setup_seconds = sps_wtime() - t0;
cleanup:
  if (st) solver_release(s);
  return st;
}

/*
 * The scale of a solve. Krylov methods square their residuals (CG's (r, r), GMRES's ||w||,
 * BiCGSTAB's (t, t)) inside fused steps on both backends; with ||b|| = 1e-200 those squares
 * underflow to 0, with 1e200 they overflow. So the solve runs on A x' = b' with b' = 2^-k b,
 * x'_0 = 2^-k x_0, k the exponent of max(||b||, ||r_0||): every vector of the method is then
 * of order one, and the full exponent range is left to A and M. Every operation of the
 * methods is linear in (b, x_0) or a ratio of such quantities, and a power of two scales
 * exactly, so the iterates are those of the unscaled solve times 2^-k, bit for bit, as long as
 * nothing overflows or becomes subnormal; the norms recorded are scaled back by 2^k exactly.
 * Within 2^-SOLVE_FREE_EXP <= max(||b||, ||r_0||) < 2^SOLVE_FREE_EXP the squares are safe
 * whatever the sensible scale of A, and the scaling (a copy of b, two passes over x, a final
 * residual) is skipped: it would change no bit.
 */
#define SOLVE_FREE_EXP 64

/* k for the solve: 0 within the free range, else the exponent e of big = f 2^e, f in
 * [0.5, 1), kept in [-1022, 1022] so that 2^-k and 2^k are normal doubles. */
static int solve_scale_exponent(double big)
{
  int e;
  (void)frexp(big, &e);
  if (e > -SOLVE_FREE_EXP && e <= SOLVE_FREE_EXP) return 0;
  if (e < -1022) e = -1022;
  if (e > 1022) e = 1022;
  return e;
}

/*
 * Run the method on the system scaled by 2^-k (k from max(||b||, ||r_0||); *scaled_by gets k):
 * b' = 2^-k b into s->bs, x and s->r scaled in place, bnorm, tol and atol in the scaled units;
 * afterwards x is scaled back (also when the method fails) and the true residual is left to
 * the caller.
 */
static sps_status solve_scaled(sps_solver *s, const double *b, double *x, double bnorm,
                               double rnorm0, int *scaled_by)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const int k = solve_scale_exponent(fmax(bnorm, rnorm0));
  const double *bk = b;
  sps_status st = SPS_SUCCESS;
  int scaled = 0;
  *scaled_by = k;
  s->scale_exp = k;
  if (k != 0) {
    const double down = ldexp(1.0, -k);
    /* b' = 2^-k b, x' = 2^-k x, r' = 2^-k r: exact */
    SPS_TRY(be->axpby(ctx, s->n, down, b, 0.0, s->bs));
    bk = s->bs;
    scaled = 1;
    SPS_TRY(be->scal(ctx, s->n, down, x));
    SPS_TRY(be->scal(ctx, s->n, down, s->r));
    s->bnorm = ldexp(bnorm, -k);
    s->tol = fmax(s->rtol * s->bnorm, ldexp(s->atol, -k));
    rnorm0 = ldexp(rnorm0, -k);
  }
  /* dtol * max(||b||, ||r_0||): relative to b, or to a worse initial guess (PETSc's rnorm0) */
  s->dtol_abs = s->dtol * fmax(s->bnorm, rnorm0);
  sps_solver_record(s, 0, rnorm0);
  if (s->auto_on)
    SPS_TRY(sps_solver_auto_solve(s, bk, x, rnorm0));
  else
    SPS_TRY(s->method->solve(s, bk, x, rnorm0));
cleanup:
  if (scaled) {
    /* x = 2^k x'; the true residual is recomputed on the user's b and x. */
    const sps_status st_back = be->scal(ctx, s->n, ldexp(1.0, k), x);
    if (st == SPS_SUCCESS) st = st_back;
    s->bnorm = bnorm;
    s->tol = fmax(s->rtol * bnorm, s->atol);
    s->res_known = 0;
  }
  s->scale_exp = 0;
  return st;
}

/* The checks of sps_solver_solve's arguments. */
static sps_status solve_arguments(sps_solver *s, const sps_vector *b, const sps_vector *x)
{
  sps_context *ctx = s->ctx;
  SPS_CHECK_ARG(ctx, b, "b");
  SPS_CHECK_ARG(ctx, x, "x");
  if (!s->is_setup) SPS_FAIL(ctx, SPS_ERR_STATE, "sps_solver_solve: solver is not set up");
  if (b->ctx != ctx || x->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_solve: vectors belong to another context");
  if (b == x || b->data == x->data)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT,
             "sps_solver_solve: 'b' and 'x' are the same vector: x is overwritten by the iterates "
             "while b is still read (solve into another vector)");
  if (b->n != s->n || x->n != s->n)
    SPS_FAIL(ctx, SPS_ERR_SIZE,
             "sps_solver_solve: b has length %lld and x %lld, the matrix has order %lld",
             (long long)b->n, (long long)x->n, (long long)s->n);
  return SPS_SUCCESS;
}

/*
 * Solve: the checks and the work common to every method. ||b|| sets the tolerance
 * tol = max(rtol*||b||, atol); b = 0 gives x = 0 at once; an initial guess whose true
 * residual already meets tol takes 0 iterations; otherwise the method iterates from the
 * residual in s->r, on the system scaled as solve_scaled says. At the end the true residual
 * b - Ax is recomputed for get_residual. b and x must be distinct: x changes while b is read.
 */
sps_status sps_solver_solve(sps_solver *s, const sps_vector *b, sps_vector *x)
{
  if (!s) return SPS_ERR_ARGUMENT;
  sps_context *ctx = s->ctx;
  /* a rank with bad arguments fails the solve on every rank (sps_comm_agree), before any
   * collective step */
  SPS_CHECK(sps_comm_agree(ctx, solve_arguments(s, b, x)));
  double t0 = sps_wtime();
  int k = 0;
  s->reason = SPS_REASON_NONE;
  s->iterations = 0;
  s->history_count = 0;
  s->res_abs = s->res_rel = 0.0;
  s->res_known = 0;
  s->it_offset = 0;
  s->scale_exp = 0;
  s->dtol_abs = INFINITY;
  s->progress_t = t0;
  s->progress_it = 0;
  s->sec_per_it = 0.0;
  SPS_CHECK(ctx->be->nrm2(ctx, s->n, b->data, &s->bnorm));
  s->tol = fmax(s->rtol * s->bnorm, s->atol);
  if (s->bnorm == 0.0) {
    SPS_CHECK(ctx->be->fill(ctx, s->n, 0.0, x->data));
    s->reason = SPS_CONVERGED_ZERO_RHS;
    sps_solver_record(s, 0, 0.0);
  } else {
    double rnorm0;
    if (s->zero_guess) {
      /* x_0 = 0: r_0 = sign*b exactly and ||r_0|| = ||b||, without the SpMV */
      SPS_CHECK(ctx->be->fill(ctx, s->n, 0.0, x->data));
      if (s->sign < 0.0)
        SPS_CHECK(ctx->be->axpby(ctx, s->n, -1.0, b->data, 0.0, s->r));
      else
        SPS_CHECK(ctx->be->copy(ctx, s->n, b->data, s->r));
      rnorm0 = s->bnorm;
    } else {
      SPS_CHECK(sps_solver_residual(s, b->data, x->data, s->r, &rnorm0));
    }
    if (sps_solver_bad(s->bnorm) || sps_solver_bad(rnorm0)) {
      sps_solver_record(s, 0, rnorm0);
      s->reason = SPS_DIVERGED_NAN;
    } else if ((s->reason = sps_solver_test(s, rnorm0)) != SPS_REASON_NONE) {
      sps_solver_record(s, 0, rnorm0);
    } else {
      SPS_CHECK(solve_scaled(s, b->data, x->data, s->bnorm, rnorm0, &k));
    }
    if (!s->res_known) SPS_CHECK(sps_solver_residual(s, b->data, x->data, s->r, &s->res_abs));
    s->res_rel = s->res_abs / s->bnorm;
    /* Scaled back, x = 2^k x' rounds where its entries become subnormal, or overflows: the
     * scaled system converged, the user's does not. */
    if (k != 0 && s->reason > 0 && sps_solver_test(s, s->res_abs) == SPS_REASON_NONE)
      s->reason = SPS_DIVERGED_RANGE;
  }
  SPS_CHECK(ctx->be->synchronize(ctx));
  s->solve_seconds = sps_wtime() - t0;
  return SPS_SUCCESS;
}

/*
 * z <- M^-1 r with the preconditioner in use. M approximates sign*A (the operator the method
 * runs on), so sign * M^-1 r approximates A^-1 r.
 */
sps_status sps_solver_apply_precond(sps_solver *s, const sps_vector *r, sps_vector *z)
{
  if (!s) return SPS_ERR_ARGUMENT;
  sps_context *ctx = s->ctx;
  SPS_CHECK_ARG(ctx, r, "r");
  SPS_CHECK_ARG(ctx, z, "z");
  if (!s->is_setup || !s->pc)
    SPS_FAIL(ctx, SPS_ERR_STATE, "sps_solver_apply_precond: solver is not set up");
  if (r->ctx != ctx || z->ctx != ctx)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_apply_precond: vectors belong to another context");
  if (r->n != s->n || z->n != s->n)
    SPS_FAIL(ctx, SPS_ERR_SIZE,
             "sps_solver_apply_precond: r has length %lld and z %lld, the matrix has order %lld",
             (long long)r->n, (long long)z->n, (long long)s->n);
  if (r->data == z->data && s->n > 0)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_solver_apply_precond: r and z must not share storage");
  SPS_CHECK(sps_precond_apply(s->pc, r->data, z->data));
  if (s->sign < 0.0) SPS_CHECK(ctx->be->scal(ctx, s->n, -1.0, z->data));
  return ctx->be->synchronize(ctx);
}

/* Results. */

sps_status sps_solver_get_reason(const sps_solver *s, sps_reason *reason)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, reason, "reason");
  *reason = s->reason;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_iterations(const sps_solver *s, int *iterations)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, iterations, "iterations");
  *iterations = s->iterations;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_residual(const sps_solver *s, double *abs, double *rel)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (abs) *abs = s->res_abs;
  if (rel) *rel = s->res_rel;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_history(const sps_solver *s, const double **norms, int *count)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, norms, "norms");
  SPS_CHECK_ARG(s->ctx, count, "count");
  *norms = s->history_on ? s->history : NULL;
  *count = s->history_on ? s->history_count : 0;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_spmv(const sps_solver *s, sps_spmv_kind *kind, int *threads_per_row)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (s->is_setup) return sps_spmv_plan_get_kind(s->plan, kind, threads_per_row);
  if (kind) *kind = s->spmv_kind;
  if (threads_per_row) *threads_per_row = s->spmv_threads_per_row;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_spmv_choice(const sps_solver *s, sps_spmv_choice_info *info)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, info, "info");
  if (s->is_setup) return sps_spmv_plan_get_choice(s->plan, info);
  memset(info, 0, sizeof *info);
  info->requested = s->spmv_kind;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_method(const sps_solver *s, sps_solver_type *method,
                                 sps_precond_type *precond)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (method) *method = s->is_setup ? s->method->type : s->requested;
  if (precond) *precond = s->is_setup && s->pc ? s->pc->ops->type : s->precond_type;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_precond_info(const sps_solver *s, sps_precond_info *info)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, info, "info");
  if (s->is_setup && s->pc)
    *info = s->pc->info;
  else
    memset(info, 0, sizeof *info);
  return SPS_SUCCESS;
}

sps_status sps_solver_get_attempts(const sps_solver *s, const sps_solver_attempt **attempts,
                                   int *count)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, attempts, "attempts");
  SPS_CHECK_ARG(s->ctx, count, "count");
  *attempts = s->attempts;
  *count = s->attempt_count;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_restart(const sps_solver *s, int *restart)
{
  if (!s) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(s->ctx, restart, "restart");
  *restart = s->is_setup && s->restart_used > 0 ? s->restart_used : s->restart;
  return SPS_SUCCESS;
}

sps_status sps_solver_get_times(const sps_solver *s, double *setup_seconds, double *solve_seconds)
{
  if (!s) return SPS_ERR_ARGUMENT;
  if (setup_seconds) *setup_seconds = s->setup_seconds;
  if (solve_seconds) *solve_seconds = s->solve_seconds;
  return SPS_SUCCESS;
}

sps_status sps_solver_destroy(sps_solver **s)
{
  if (!s || !*s) return SPS_SUCCESS;
  sps_context_track((*s)->ctx, SPS_OBJECT_SOLVER, -1);
  solver_release(*s);
  sps_host_free(*s);
  *s = NULL;
  return SPS_SUCCESS;
}
