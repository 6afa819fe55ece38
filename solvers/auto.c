/* auto.c: the automatic choice of method and preconditioner: the first try from the matrix, and the fallback chain when a try fails to build, is unstable, stagnates or breaks down. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/comm.h"
#include "solver_internal.h"
#ifdef SPS_HAVE_MPI
#include "../core/dist_matrix.h"
#endif

/*
 * The rule (doc/design.md, "The automatic choice"). From the matrix:
 *   symmetric (as declared by its source, or checked exactly) with a diagonal of one sign:
 *     CG with algebraic multigrid when A has at least AUTO_AMG_MIN_ROWS rows and at most
 *     AUTO_AMG_MAX_ROW_MEAN entries a row on average, then CG with IC(0); a negative diagonal
 *     is solved as (-A) x = -b, where -A has a positive one; then the nonsymmetric chain with
 *     GMRES;
 *   otherwise GMRES(m) with ILU(0) (after the matching and scaling of precond/reorder.h when
 *     the diagonal is weak), then ILUT(10, 1e-4), ILUT(30, 1e-6), and no preconditioner
 *     with the restart raised to 100 (some matrices, rdb3200l among them, are only made
 *     worse by incomplete factors).
 * A method named by the user (--solver) is kept for every try; a preconditioner named by the
 * user makes a chain of one.
 *
 * At setup the first try whose preconditioner builds is set up; one whose setup fails
 * (breakdown, structurally singular A) or whose M^-1 is unstable (the growth
 * ||M^-1 v|| ||A v|| / ||v||^2 for a fixed random v above AUTO_GROWTH_MAX, or not finite) is
 * recorded and skipped.
 *
 * During the solve each try but the last runs in chunks, the first of AUTO_PROBE_GMRES
 * (GMRES) or AUTO_PROBE_CG (CG) iterations, each next one twice as long. After a chunk that
 * did not converge, the rate of decrease of the true residual over that chunk says how many
 * more iterations the try needs; it continues when that fits in what is left of maxit and
 * within AUTO_STAGE_MAX iterations of the try, and otherwise the next try takes over from
 * the better of the iterate before and after (a try that made the residual larger or NaN is
 * undone). Breakdowns move on too. The last try gets whatever iterations remain. Every try
 * is recorded with its iterations and why it ended.
 */

#define AUTO_MAX_TRIES 6
#define AUTO_PROBE_GMRES 90
#define AUTO_PROBE_CG 500
#define AUTO_STAGE_MAX 4000
#define AUTO_GROWTH_MAX 1e14
#define AUTO_LAST_RESTART 100
/*
 * Multigrid goes first for symmetric matrices with a diagonal of one sign of at least
 * AUTO_AMG_MIN_ROWS rows and at most AUTO_AMG_MAX_ROW_MEAN entries a row on average. Measured
 * on the CPU (bench/amg-auto.sh, bench/results/2026-11-27-cpu/amg-auto/, doc/performance.md,
 * "The automatic choice"), time to solution with the setup: CG+AMG beat CG+IC(0) on the 2-D
 * Laplacians of 1e5 and 1e6 rows (2 and 8.6 times) and on G3_circuit (2.2 times), where IC(0)
 * needs hundreds of iterations, and lost on the one of 1e4 rows (1.4 times), on the 3-D
 * Laplacians of 1e5 and 1e6 rows and laplacian7pt_100 (1.4 to 4 times: IC(0) needs only 50 to
 * 120 iterations there, fewer than AMG's setup is worth on this CPU) and on the small shared
 * matrices. The size threshold lies between 1e4 and 1e5 rows (3e4, the middle in ratio); the
 * mean row length (4.8 to 5 on those AMG won, 6.9 on the 3-D ones) stands for the dimension of
 * the problem, which decides how fast IC(0)'s iterations grow. What would change them: the GPU
 * run of the same script, where IC(0)'s setup is its host analysis (0.6 s on G3_circuit on the
 * H100) and its solves are latency-bound, so AMG may win on the 3-D problems too; a cheaper CPU
 * setup; problems where IC(0) does worse than on a Laplacian (jumps in the coefficients).
 * The choice depends on the matrix only, so the CPU and the GPU make the same one.
 */
#define AUTO_AMG_MIN_ROWS 30000
#define AUTO_AMG_MAX_ROW_MEAN 6.0

typedef struct auto_try {
  sps_solver_type method;
  sps_precond_type precond;
  double ilut_fill, ilut_drop; /* ILUT's parameters for this try (when precond is ILUT) */
  int restart;                 /* 0: the solver's */
} auto_try;

typedef struct auto_state {
  auto_try tries[AUTO_MAX_TRIES];
  int count;
  int current;       /* the try set up now */
  int user_restart;  /* the restart the user set */
  int setup_attempts; /* entries of s->attempts made by the setup (failed tries) */
  double *xsave;     /* n: the iterate before a try, to undo it */
} auto_state;

static void add_try(auto_state *st, sps_solver_type method, sps_precond_type pc, double fill,
                    double drop, int restart)
{
  if (st->count >= AUTO_MAX_TRIES) return;
  auto_try *t = &st->tries[st->count++];
  t->method = method;
  t->precond = pc;
  t->ilut_fill = fill;
  t->ilut_drop = drop;
  t->restart = restart;
}

int sps_solver_diagonal_sign(const sps_matrix *A)
{
  int pos = 1, neg = 1;
  /* a distributed matrix's diagonal lies in its diagonal blocks, whose local columns number
   * the rows as the rows themselves */
  for (int64_t i = 0; i < A->nrows && (pos || neg); i++) {
    double d = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) d = A->values[k];
    if (!(d > 0.0)) pos = 0;
    if (!(d < 0.0)) neg = 0;
  }
  const int sign = pos ? 1 : neg ? -1 : 0;
#ifdef SPS_HAVE_MPI
  if (A->dist) return sps_dist_diagonal_sign(A, sign);
#endif
  return sign;
}

/* Whether A equals its transpose (over the ranks for a distributed matrix). */
static sps_status matrix_symmetric(const sps_matrix *A, int *sym)
{
#ifdef SPS_HAVE_MPI
  if (A->dist) return sps_dist_is_symmetric(A, sym);
#endif
  *sym = sps_matrix_block_is_symmetric(A);
  return SPS_SUCCESS;
}

/* A short text for a try: "gmres+ilut(10,0.0001)". */
static void try_name(const auto_try *t, char *buf, size_t len)
{
  if (t->precond == SPS_PRECOND_ILUT)
    snprintf(buf, len, "%s+ilut(%g,%g)", sps_solver_type_name(t->method), t->ilut_fill,
             t->ilut_drop);
  else
    snprintf(buf, len, "%s+%s", sps_solver_type_name(t->method), sps_precond_type_name(t->precond));
}

/* Build the chain from the matrix and the user's settings. */
static sps_status build_chain(sps_solver *s, auto_state *st, int *sign)
{
  const sps_matrix *A = s->A;
  int sym = A->symmetry == SPS_SYMMETRY_SYMMETRIC;
  if (!sym && A->symmetry != SPS_SYMMETRY_SKEW) SPS_CHECK(matrix_symmetric(A, &sym));
  const int dsign = sps_solver_diagonal_sign(A);
  const int spd_like = sym && dsign != 0;
  *sign = spd_like && dsign < 0 ? -1 : 1;
  const sps_solver_type user_method = s->requested;
  const sps_precond_params *p = &s->precond_params;
  if (s->precond_type != SPS_PRECOND_AUTO) {
    /* The user named the preconditioner: only the method is chosen. */
    const sps_solver_type m = user_method != SPS_SOLVER_AUTO ? user_method
                              : spd_like && s->precond_type != SPS_PRECOND_ILU0 &&
                                        s->precond_type != SPS_PRECOND_ILUT
                                  ? SPS_SOLVER_CG
                                  : SPS_SOLVER_GMRES;
    add_try(st, m, s->precond_type, p->ilut_fill, p->ilut_drop, 0);
    return SPS_SUCCESS;
  }
  const sps_solver_type nonsym = user_method != SPS_SOLVER_AUTO ? user_method : SPS_SOLVER_GMRES;
  const sps_solver_type spd_method = user_method != SPS_SOLVER_AUTO ? user_method : SPS_SOLVER_CG;
  if (spd_like && A->nrows >= AUTO_AMG_MIN_ROWS &&
      (double)A->nnz <= AUTO_AMG_MAX_ROW_MEAN * (double)A->nrows)
    add_try(st, spd_method, SPS_PRECOND_AMG, p->ilut_fill, p->ilut_drop, 0);
  if (spd_like) add_try(st, spd_method, SPS_PRECOND_IC0, p->ilut_fill, p->ilut_drop, 0);
  add_try(st, nonsym, SPS_PRECOND_ILU0, p->ilut_fill, p->ilut_drop, 0);
  add_try(st, nonsym, SPS_PRECOND_ILUT, 10.0, 1e-4, 0);
  add_try(st, nonsym, SPS_PRECOND_ILUT, 30.0, 1e-6, 0);
  add_try(st, nonsym, SPS_PRECOND_NONE, 0.0, 0.0,
          nonsym == SPS_SOLVER_GMRES && s->restart < AUTO_LAST_RESTART ? AUTO_LAST_RESTART : 0);
  return SPS_SUCCESS;
}

/* ||M^-1 v|| ||A v|| / ||v||^2 from the preconditioner's growth and one SpMV: dimensionless. */
static sps_status scaled_growth(sps_solver *s, double *g)
{
  *g = s->pc->info.growth;
  if (!isfinite(*g) || sps_precond_is_identity(s->pc)) return SPS_SUCCESS;
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  /* ||A 1|| / ||1||: a scale of A (ones are as good a probe as any for this purpose). */
  double na;
  SPS_CHECK(be->fill(ctx, s->n, 1.0, s->r));
  SPS_CHECK(sps_spmv_apply_raw(s->plan, 1.0, s->r, 0.0, ((auto_state *)s->auto_state)->xsave));
  SPS_CHECK(be->nrm2(ctx, s->n, ((auto_state *)s->auto_state)->xsave, &na));
  const double scale = s->n_global > 0 ? na / sqrt((double)s->n_global) : 0.0;
  if (scale > 0.0) *g *= scale;
  return SPS_SUCCESS;
}

/*
 * Set up try k; on failure (or unstable factors) record why and return 0 so the caller
 * moves on; 1 when the try is ready. A failure that is not about the matrix (memory, CUDA)
 * is returned as a status.
 */
static sps_status setup_try(sps_solver *s, int k, int *ready)
{
  auto_state *st = s->auto_state;
  const auto_try *t = &st->tries[k];
  sps_context *ctx = s->ctx;
  char name[64];
  try_name(t, name, sizeof name);
  *ready = 0;
  sps_precond_params p = s->precond_params;
  if (t->precond == SPS_PRECOND_ILUT) {
    p.ilut_fill = t->ilut_fill;
    p.ilut_drop = t->ilut_drop;
  }
  s->restart = t->restart > 0 ? t->restart : st->user_restart;
  sps_status rc = sps_solver_use(s, t->method, t->precond, &p, s->sign);
  if (rc == SPS_ERR_HOST_MEMORY || rc == SPS_ERR_DEVICE_MEMORY || rc == SPS_ERR_CUDA ||
      rc == SPS_ERR_CUSPARSE)
    return rc;
  if (rc) {
    sps_solver_add_attempt(s, t->method, t->precond, "%s: setup failed: %s", name,
                           sps_context_last_error(ctx));
    return SPS_SUCCESS;
  }
  double g;
  SPS_CHECK(scaled_growth(s, &g));
  if (!(g <= AUTO_GROWTH_MAX)) {
    sps_solver_add_attempt(s, t->method, t->precond,
                           "%s: unstable factors: ||M^-1 v|| ||A v|| / ||v||^2 = %.3g > %.0e",
                           name, g, AUTO_GROWTH_MAX);
    return SPS_SUCCESS;
  }
  st->current = k;
  *ready = 1;
  return SPS_SUCCESS;
}

/* Set up tries from k on until one is ready; *found 0 when none is. */
static sps_status setup_from(sps_solver *s, int k, int *found)
{
  auto_state *st = s->auto_state;
  *found = 0;
  for (; k < st->count; k++) {
    SPS_CHECK(setup_try(s, k, found));
    if (*found) return SPS_SUCCESS;
  }
  return SPS_SUCCESS;
}

void sps_solver_auto_destroy(sps_solver *s)
{
  auto_state *st = s->auto_state;
  if (!st) return;
  if (st->xsave) s->ctx->be->free(s->ctx, st->xsave);
  if (st->user_restart > 0) s->restart = st->user_restart;
  sps_host_free(st);
  s->auto_state = NULL;
}

sps_status sps_solver_auto_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  auto_state *st;
  sps_status rc = sps_host_calloc(ctx, (void **)&st, 1, sizeof *st, "automatic choice");
  if (!rc) {
    s->auto_state = st;
    st->user_restart = s->restart;
    rc = sps_solver_vec_alloc(s, &st->xsave, "automatic choice saved iterate");
  }
  SPS_CHECK(sps_comm_agree(ctx, rc));
  int sign;
  SPS_CHECK(build_chain(s, st, &sign));
  s->sign = sign;
  if (s->precond_type != SPS_PRECOND_AUTO) {
    /* A preconditioner the user named is not replaced: its failure is the setup's. */
    const auto_try *t = &st->tries[0];
    rc = sps_solver_use(s, t->method, t->precond, &s->precond_params, s->sign);
    if (rc) {
      sps_solver_add_attempt(s, t->method, t->precond, "%s", sps_context_last_error(ctx));
      return rc;
    }
    st->current = 0;
    st->setup_attempts = s->attempt_count;
    return SPS_SUCCESS;
  }
  int found;
  SPS_CHECK(setup_from(s, 0, &found));
  if (!found) {
    /* Nothing built: the last resort is the method without a preconditioner. */
    const sps_solver_type m = st->tries[st->count - 1].method;
    SPS_CHECK(sps_solver_use(s, m, SPS_PRECOND_NONE, &s->precond_params, s->sign));
    add_try(st, m, SPS_PRECOND_NONE, 0.0, 0.0, 0);
    st->current = st->count - 1;
  }
  st->setup_attempts = s->attempt_count;
  return SPS_SUCCESS;
}

/* The note of a finished try. */
static void note_try(sps_solver *s, const auto_try *t, int its, double rel, int accepted,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static void note_try(sps_solver *s, const auto_try *t, int its, double rel, int accepted,
                     const char *fmt, ...)
{
  char name[64], what[200];
  try_name(t, name, sizeof name);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  sps_solver_attempt *a = sps_solver_add_attempt(s, t->method, t->precond, "%s: %s", name, what);
  a->iterations = its;
  a->residual_rel = rel;
  a->accepted = accepted;
}

sps_status sps_solver_auto_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  auto_state *st = s->auto_state;
  const int maxit = s->maxit;
  int used = 0;
  double rnorm = rnorm0;
  /* The tries recorded at setup stay; the solve's tries follow them. */
  s->attempt_count = st->setup_attempts;
  s->reason = SPS_REASON_NONE;
  for (;;) {
    const auto_try *t = &st->tries[st->current];
    const int last = st->current == st->count - 1;
    const int probe = t->method == SPS_SOLVER_CG ? AUTO_PROBE_CG : AUTO_PROBE_GMRES;
    int chunk = probe, its_try = 0;
    SPS_CHECK(be->copy(ctx, s->n, x, st->xsave));
    const double rstart = rnorm;
    for (;;) {
      /* A chunk of iterations (all that remain for the last try), then a look at the rate. */
      int budget = maxit - used;
      if (!last && budget > chunk) budget = chunk;
      const double rchunk = rnorm;
      s->maxit = budget;
      s->it_offset = used;
      s->res_known = 0;
      const sps_status rc = s->method->solve(s, b, x, rnorm);
      s->maxit = maxit;
      SPS_CHECK(rc);
      used += s->iterations;
      its_try += s->iterations;
      /* The true residual of the iterate the try left (the methods leave r consistent only
       * at their own confirmations). */
      SPS_CHECK(sps_solver_residual(s, b, x, s->r, &rnorm));
      if (s->reason > 0 || last || used >= maxit) break;
      if (s->reason != SPS_DIVERGED_MAX_ITERATIONS) break; /* breakdown, indefinite, NaN, stop */
      /* Continue while the last chunk's rate reaches tol within what is left and within
       * AUTO_STAGE_MAX iterations of this try; chunks double, so a try that works restarts
       * only a few times. */
      const double rate = sps_solver_batch_rate(rchunk, rnorm, s->iterations);
      const double need = rate > 0.0 && rate < 1.0 ? log(s->tol / rnorm) / log(rate) : INFINITY;
      if (!(need <= (double)(maxit - used)) || !(need + its_try <= AUTO_STAGE_MAX)) {
        s->reason = SPS_REASON_NONE;
        break;
      }
      chunk *= 2;
    }
    const double rel = s->bnorm > 0.0 ? rnorm / s->bnorm : 0.0;
    if (s->reason > 0 || last || used >= maxit || s->reason == SPS_INTERRUPTED) {
      s->res_abs = rnorm;
      s->res_known = 1;
      if (s->reason <= 0 && s->reason != SPS_DIVERGED_NAN && !(rnorm <= rstart)) {
        /* The last try made things worse: keep the better iterate. */
        SPS_CHECK(be->copy(ctx, s->n, st->xsave, x));
        s->res_abs = rstart;
      }
      if (s->reason == SPS_REASON_NONE) s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      note_try(s, t, its_try, rel, 1, "%s", sps_reason_string(s->reason));
      break;
    }
    /* Move on: undo a try that made the residual larger (or NaN). */
    const char *why = s->reason == SPS_REASON_NONE ? "stagnated" : sps_reason_string(s->reason);
    if (!(rnorm <= rstart)) {
      SPS_CHECK(be->copy(ctx, s->n, st->xsave, x));
      SPS_CHECK(sps_solver_residual(s, b, x, s->r, &rnorm));
      note_try(s, t, its_try, rel, 0, "%s (residual grew from %.3g to %.3g: undone)", why,
               rstart / s->bnorm, rel);
    } else {
      note_try(s, t, its_try, rel, 0, "%s: relative residual %.3g after %d iterations", why, rel,
               its_try);
    }
    s->reason = SPS_REASON_NONE;
    int found;
    SPS_CHECK(setup_from(s, st->current + 1, &found));
    if (!found) {
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    }
    /* The setup used r as scratch (the growth estimate): the true residual again. */
    SPS_CHECK(sps_solver_residual(s, b, x, s->r, &rnorm));
  }
  s->iterations = used;
  s->it_offset = 0;
  return SPS_SUCCESS;
}
