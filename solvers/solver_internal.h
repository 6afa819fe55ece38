/* solver_internal.h: the solver structure, the method registry and optional fused steps. */
#ifndef SPS_SOLVER_INTERNAL_H
#define SPS_SOLVER_INTERNAL_H

#include "../core/internal.h"
#include "../precond/precond.h"
#include "../spmv/spmv_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One Krylov method, written once against the backend ops table (ctx->be) and the SpMV plan.
 *   setup    allocates the method's work space in s->work (vectors with s->ctx->be->malloc,
 *            small dense arrays on the host); called by sps_solver_setup and again when a
 *            setting that sizes the work space (the GMRES restart) changes after setup.
 *   solve    iterates from x, whose true residual b - Ax is already in s->r with norm rnorm0
 *            (not NaN, above the tolerance, b nonzero). It allocates nothing, records each
 *            iteration with sps_solver_record(), confirms a claimed convergence with
 *            sps_solver_confirm(), and sets s->reason and s->iterations.
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

/*
 * Fused steps a backend may supply (Ginkgo's cg::step_1 / step_2): one kernel in place of
 * several ops-table calls, with the same result up to rounding. Every entry is optional; a
 * method calls an entry when it is not NULL and otherwise composes the step from ctx->be.
 * The table for a context comes from sps_solver_fused_for() at setup; no backend supplies one
 * yet, so every method runs on the composed ops today.
 *
 *   cg_step_1        p <- z + beta*p
 *   cg_step_2        x <- x + alpha*p, r <- r - alpha*q, and *rr <- r.r
 *   bicgstab_step_1  p <- r + beta*(p - omega*v)
 *   bicgstab_step_2  x <- x + alpha*phat + omega*shat, r <- s - omega*t
 *   run[type]        the whole iteration of a method (for instance a batch of iterations
 *                    captured in a CUDA graph, with the residual checked every k steps). It
 *                    has the contract of sps_solver_method.solve and replaces it entirely.
 */
typedef struct sps_solver_fused {
  sps_status (*cg_step_1)(sps_context *ctx, int64_t n, double beta, const double *z, double *p);
  sps_status (*cg_step_2)(sps_context *ctx, int64_t n, double alpha, const double *p,
                          const double *q, double *x, double *r, double *rr);
  sps_status (*bicgstab_step_1)(sps_context *ctx, int64_t n, double beta, double omega,
                                const double *r, const double *v, double *p);
  sps_status (*bicgstab_step_2)(sps_context *ctx, int64_t n, double alpha, double omega,
                                const double *phat, const double *shat, const double *s,
                                const double *t, double *x, double *r);
  sps_status (*run[SPS_SOLVER_TYPE_COUNT])(sps_solver *s, const double *b, double *x,
                                           double rnorm0);
} sps_solver_fused;

/* The fused steps of the context's backend, or NULL when it has none (every backend today). */
const sps_solver_fused *sps_solver_fused_for(const sps_context *ctx);

struct sps_solver {
  sps_context *ctx;
  const sps_solver_method *method;

  /* Settings (sps_solver_set_*). */
  double rtol, atol;
  int maxit;
  int restart;
  sps_orthog orthog;
  sps_precond_type precond_type;
  sps_spmv_kind spmv_kind;
  int spmv_threads_per_row;
  int history_on;
  sps_monitor_fn monitor;
  void *monitor_user;
  int monitor_every;

  /* Built by setup. */
  int is_setup;
  const sps_matrix *A;
  int64_t n;
  sps_spmv_plan *plan;
  sps_precond *pc;
  const sps_solver_fused *fused;
  double *r;        /* n: the residual, shared by the driver and the method */
  void *work;       /* the method's work space */
  int work_restart; /* the restart the work space was sized for (GMRES) */
  double *history;  /* history_cap entries on the host */
  int history_cap;

  /* The current solve. */
  double bnorm; /* ||b|| */
  double tol;   /* max(rtol*||b||, atol) */

  /* Results of the last solve. */
  sps_reason reason;
  int iterations;
  int history_count;
  double res_abs, res_rel;
  double setup_seconds, solve_seconds;
};

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

/* Nonzero when v is NaN or +-Inf. */
int sps_solver_bad(double v);

/* Allocate and free an n-vector in the context's memory space. */
sps_status sps_solver_vec_alloc(sps_solver *s, double **v, const char *what);
void sps_solver_vec_free(sps_solver *s, double **v);

#ifdef __cplusplus
}
#endif

#endif /* SPS_SOLVER_INTERNAL_H */
