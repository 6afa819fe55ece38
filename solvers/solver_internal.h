/* solver_internal.h: the solver structure, the method registry, the methods' helpers. */
#ifndef SPS_SOLVER_INTERNAL_H
#define SPS_SOLVER_INTERNAL_H

#include "../core/internal.h"
#include "../precond/precond.h"
#include "../spmv/spmv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tries of the automatic choice kept for sps_solver_get_attempts. */
#define SPS_SOLVER_MAX_ATTEMPTS 8

/*
 * One Krylov method, written once against the backend ops table (ctx->be) and the SpMV plan.
 *   setup    allocates the method's work space in s->work (vectors with s->ctx->be->malloc,
 *            small dense arrays on the host); called by sps_solver_setup and again when a
 *            setting that sizes or selects the work space (restart, orthogonalisation,
 *            maximum iterations, history) changes after setup.
 *   solve    iterates from x, whose true residual b - Ax is already in s->r with norm rnorm0
 *            (not NaN, above the tolerance, b nonzero; the driver has recorded iteration 0).
 *            It allocates nothing, fills s->history[1..iterations] (with sps_solver_record()
 *            per iteration, or from a history kept in the backend's memory and downloaded at
 *            the end), calls the monitor, confirms a claimed convergence with
 *            sps_solver_confirm(), and sets s->reason and s->iterations.
 * Fused steps (several vector operations in one kernel, scalars kept in the backend's memory)
 * are entries of the backend ops table (core/internal.h); a method uses them when present.
 *   destroy  frees s->work.
 */
typedef struct sps_solver_method {
  sps_solver_type type;
  const char *name; /* "cg", "gmres", "bicgstab" */
  sps_status (*setup)(sps_solver *s);
  sps_status (*solve)(sps_solver *s, const double *b, double *x, double rnorm0);
  void (*destroy)(sps_solver *s);
} sps_solver_method;

extern const sps_solver_method sps_solver_method_cg;
extern const sps_solver_method sps_solver_method_gmres;
extern const sps_solver_method sps_solver_method_bicgstab;
/* Pipelined CG (solvers/cg_pipelined.c): CG when sps_solver_set_pipelined is on. */
extern const sps_solver_method sps_solver_method_cg_pipelined;

struct sps_solver {
  sps_context *ctx;
  const sps_solver_method *method;

  /* Settings (sps_solver_set_*). */
  sps_solver_type requested;     /* as created: a method or SPS_SOLVER_AUTO */
  sps_precond_params precond_params;
  double rtol, atol;
  double dtol; /* divergence: ||r|| > dtol*max(||b||, ||r_0||) stops the solve (Inf: never) */
  int maxit;
  int restart;
  sps_orthog orthog;
  int flexible; /* GMRES: keep Z = M^-1 V and update x += Z y (flexible GMRES) */
  int gmres_fused; /* GMRES: let the backend run batches as one fused kernel (gmres_fused) */
  int pipelined;   /* CG: the pipelined variant (sps_solver_set_pipelined) */
  sps_precond_type precond_type; /* as set: a preconditioner or SPS_PRECOND_AUTO */
  sps_spmv_kind spmv_kind;
  int spmv_threads_per_row;
  int history_on;
  int zero_guess; /* solve from x_0 = 0 whatever x holds (sps_solver_set_zero_guess) */
  sps_monitor_fn monitor;
  void *monitor_user;
  int monitor_every;
  sps_progress_fn progress;
  void *progress_user;
  double progress_interval; /* seconds: the longest batch when a progress callback is set */

  /* Built by setup. */
  int is_setup;
  double sign;      /* the operator is sign*A and the right-hand side sign*b: -1 when the
                       automatic choice solves (-A) x = -b; the residual is the same norm */
  int auto_on;      /* the method or the preconditioner is the automatic choice's */
  void *auto_state; /* its chain and progress (solvers/auto.c) */
  sps_solver_attempt attempts[SPS_SOLVER_MAX_ATTEMPTS];
  int attempt_count;
  int it_offset;    /* iterations of earlier tries of this solve: the history and the monitor
                       count on from there */
  const sps_matrix *A;
  int64_t n;        /* the rank's rows (all of them off a communicator) */
  int64_t n_global; /* the whole matrix's order: what sizes the method (GMRES's restart cap) */
  sps_spmv_plan *plan;
  sps_spmv_plan *check_plan; /* csr-scalar, for the true residual, when plan's variant does not
                                round like the compensated CSR product (coo, hyb, cusparse):
                                their atomic or library order can cancel b - Ax to a false 0 */
  sps_precond *pc;
  double *r;        /* n: the residual, shared by the driver and the method */
  void *work;       /* the method's work space */
  int work_restart; /* the restart the work space was sized for (GMRES) */
  int restart_used; /* GMRES: the restart of the work space, the setting capped at n */
  double *bs;       /* n: 2^-k b when the solve runs scaled */
  double *history;  /* history_cap entries on the host */
  int history_cap;

  /* The current solve. It runs on the system scaled by 2^-scale_exp (sps_solver_solve), and
   * bnorm, tol and dtol_abs are in the scaled units while the method runs. */
  double bnorm;    /* ||b|| */
  double tol;      /* max(rtol*||b||, atol) */
  double dtol_abs; /* dtol*max(||b||, ||r_0||): a larger residual norm is a divergence */
  int scale_exp;   /* k: the methods see 2^-k b and 2^-k x; history and monitor get 2^k times */
  double progress_t;   /* sps_wtime() of the last progress call (or of the solve's start) */
  int progress_it;     /* the iteration (with it_offset) of that call */
  double sec_per_it;   /* measured between progress calls; 0 until known */

  /* Results of the last solve. */
  sps_reason reason;
  int iterations;
  int history_count;
  double res_abs, res_rel;
  int res_known; /* a method sets it (and res_abs) when its last sps_solver_confirm() was on the
                    final x, so the driver need not recompute ||b - Ax|| */
  double setup_seconds, solve_seconds;

  /* Many right-hand sides (sps_solver_solve_many, solvers/solve_many.c). */
  int columns;               /* the most columns solve_many takes (0: none) */
  int block;                 /* block CG for CG's solve_many */
  struct sps_batch *batch;   /* the block work space (solvers/batch.h), or NULL: one at a time,
                                or not built since the preconditioner changed */
  double *many_b, *many_x;   /* n each: one column through the single solve */
  double *many_x0;           /* n x min(columns, 64), with the automatic choice: the initial
                                guesses of the group, for a column solved again alone */
  sps_column_report *colrep; /* columns reports of the last solve_many */
  double *colhist;           /* columns x (maxit + 1) histories, when history is on */
  int64_t colrep_count;      /* columns of the last solve_many */
  sps_many_report many;      /* its summary */
  char many_note[200];       /* why the columns run one at a time, or "" */
};

/* y <- sign*A x: the operator every method iterates with. */
sps_status sps_solver_operator(sps_solver *s, const double *x, double *y);

/* The same, and *xy <- the compensated sum of x_i y_i with the bits of the backend's dot
 * (sps_spmv_apply_dot), where the operator's plan forms it in the same pass (the CPU's
 * csr-scalar on a square matrix). */
int sps_solver_operator_fuses_dot(const sps_solver *s);
sps_status sps_solver_operator_dot(sps_solver *s, const double *x, double *y, sps_csum *xy);

/* The monitor, with the iteration counted on from earlier tries (it_offset). */
void sps_solver_monitor(sps_solver *s, int it, double rnorm);

/*
 * After a batch read back at iteration `it` (of this method's run) with recurrence norm
 * rnorm: measures the time per iteration and calls the progress callback, if one is set.
 * Returns nonzero when the callback asked to stop (the method then ends with
 * SPS_INTERRUPTED, leaving x the iterate reached).
 */
int sps_solver_progress(sps_solver *s, int it, double rnorm);

/* Whether the progress callback is in force: set, and the context is not distributed (its
 * ranks would cut batches by clocks of their own and stop at different iterations). */
int sps_solver_progress_on(const sps_solver *s);

/* A batch length cut so that the batch lasts about the progress interval (unchanged without a
 * progress callback or before the time per iteration is known); at least 1. */
int sps_solver_progress_cap(const sps_solver *s, int batch);

/*
 * Make (method, preconditioner with params, sign) the solver's current choice: destroy the
 * previous preconditioner and work space, set up the new preconditioner on s->A (with the
 * growth estimate) and the method's work space. On failure nothing is left set up (s->pc and
 * s->work NULL) and the context's message says why.
 */
sps_status sps_solver_use(sps_solver *s, sps_solver_type method, sps_precond_type precond,
                          const sps_precond_params *params, double sign);

/* Append a try to s->attempts (the last slot is reused when full); returns it. */
sps_solver_attempt *sps_solver_add_attempt(sps_solver *s, sps_solver_type method,
                                           sps_precond_type precond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The sign of A's diagonal: +1 every entry positive, -1 every entry negative, 0 otherwise
 * (solvers/auto.c). CG runs on -A when it is -1 (A negative definite: -A is SPD). On a
 * distributed matrix: the whole diagonal's (collective). */
int sps_solver_diagonal_sign(const sps_matrix *A);

/* The automatic choice (solvers/auto.c): setup picks and sets up the first try that builds;
 * solve runs the tries in turn from the residual already in s->r (norm rnorm0), moving on
 * when one stagnates or breaks down, and sets s->reason and s->iterations. */
sps_status sps_solver_auto_setup(sps_solver *s);
sps_status sps_solver_auto_solve(sps_solver *s, const double *b, double *x, double rnorm0);
void sps_solver_auto_destroy(sps_solver *s);

/* The convergence reason a residual norm meets (RTOL or ATOL), or SPS_REASON_NONE. */
sps_reason sps_solver_test(const sps_solver *s, double rnorm);

/* Record the recurrence norm of iteration `it` in the history and call the monitor. */
void sps_solver_record(sps_solver *s, int it, double rnorm);

/* r <- b - A*x and *norm <- ||r||. */
sps_status sps_solver_residual(sps_solver *s, const double *b, const double *x, double *r,
                               double *norm);

/*
 * A method's recurrence claims convergence: recompute the true residual r <- b - A*x and
 * return in *reason the reason it meets (RTOL/ATOL), SPS_DIVERGED_NAN, or SPS_REASON_NONE
 * when the recurrence lied; *norm gets ||b - Ax||. With NONE, r holds the true residual and
 * the method restarts its recurrence from it.
 */
sps_status sps_solver_confirm(sps_solver *s, const double *b, const double *x, double *r,
                              double *norm, sps_reason *reason);

/*
 * Batches of device-driven iterations. sps_solver_adaptive_batch: twice the last batch, or as
 * many as the last batch's rate of decrease per iteration (`rate`, 0 when unknown) says
 * remain to reach s->tol from rnorm, within [min_batch, max_batch]. sps_solver_next_batch:
 * to the next multiple of the monitor interval when a monitor is set, else the adaptive
 * length; never past maxit (it: iterations done).
 */
int sps_solver_adaptive_batch(const sps_solver *s, int last, double rate, double rnorm,
                              int min_batch, int max_batch);
int sps_solver_next_batch(const sps_solver *s, int last, double rate, double rnorm, int it,
                          int min_batch, int max_batch);

/*
 * Issue `count` device-driven iterations without waiting: `graph` (a captured group of
 * `per_graph` iterations, or NULL) replayed as often as it fits, then `issue` (one iteration
 * on `work`) for the rest.
 */
sps_status sps_solver_issue_batch(sps_solver *s, void *graph, int per_graph, int count,
                                  sps_status (*issue)(sps_solver *s, void *work), void *work);

/*
 * Capture `iterations` device-driven iterations (`issue` on `work`) as one graph in *graph.
 * Leaves *graph NULL, and succeeds, where the backend records no graphs or n = 0, or says
 * SPS_ERR_UNSUPPORTED (it captures nothing now, or a step would wait on the host).
 */
sps_status sps_solver_capture(sps_solver *s, int iterations,
                              sps_status (*issue)(sps_solver *s, void *work), void *work,
                              void **graph);

/* s->history[1..it] <- the norms of a history kept in the backend's memory (dev[1..it]), and
 * the count; nothing when dev is NULL or it = 0. */
sps_status sps_solver_download_history(sps_solver *s, const double *dev, int it);

/* The observed per-iteration rate of decrease from rnorm `before` to `after` over
 * `iterations`, or 0 when it cannot be told (no iteration, or a zero norm). */
double sps_solver_batch_rate(double before, double after, int iterations);

/* Nonzero when v is NaN or +-Inf. */
int sps_solver_bad(double v);

/*
 * A method's state says NaN or Inf: recompute the true residual r <- b - A x (*norm its norm)
 * and return in *reason SPS_DIVERGED_NAN when that is not finite, else
 * SPS_DIVERGED_BREAKDOWN (the method's scalars overflowed or a preconditioner gave Inf; x is
 * the last finite iterate). The method may restart from r instead of stopping.
 */
sps_status sps_solver_nan_reason(sps_solver *s, const double *b, const double *x, double *r,
                                 double *norm, sps_reason *reason);

/*
 * The divergence test of a method that knows the true residual norm rnorm only now and then
 * (GMRES at its cycle ends), after `it` iterations: 1 once rnorm has been above s->dtol_abs at
 * every such point for SPS_DTOL_ITERATIONS iterations. *above_since: the iteration where the
 * current run above began, -1 when none (the caller sets -1 at the start of a solve).
 */
int sps_solver_dtol_cycle(const sps_solver *s, double rnorm, int it, int *above_since);

/*
 * A method's recurrence claims divergence (its norm above s->dtol_abs): recompute the true
 * residual into r and return SPS_DIVERGED_DTOL in *reason when it confirms, SPS_DIVERGED_NAN
 * when it is not finite, or SPS_REASON_NONE (the method restarts from r, whose norm is *norm).
 */
sps_status sps_solver_confirm_divergence(sps_solver *s, const double *b, const double *x,
                                         double *r, double *norm, sps_reason *reason);

/*
 * Many right-hand sides (solvers/solve_many.c): build what sps_solver_solve_many needs for
 * s->columns columns (reports, histories, the block work space) after the method's work
 * space, or release it. sps_batch_destroy (solvers/batch.h) drops only the block work space,
 * which refers to the preconditioner and is built again when it changes.
 */
sps_status sps_solver_many_setup(sps_solver *s);
void sps_solver_many_release(sps_solver *s);
void sps_batch_destroy(sps_solver *s);

/* 1 when GMRES's work space runs the device-driven cycle (solvers/gmres.c). */
int sps_gmres_device_driven(const sps_solver *s);

/* Allocate and free an n-vector in the context's memory space. */
sps_status sps_solver_vec_alloc(sps_solver *s, double **v, const char *what);
void sps_solver_vec_free(sps_solver *s, double **v);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SOLVER_INTERNAL_H */
