/* gmres.c: restarted GMRES(m), right preconditioned or flexible; device CGS2, host MGS. */
#include <math.h>
#include <string.h>

#include "solver_internal.h"

/*
 * GMRES(m) (Saad and Schultz 1986; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
 * Algorithms 6.9 and 9.5), right preconditioned: solve A M^-1 u = b, x = M^-1 u, so the
 * residual the method minimises is the true, unpreconditioned b - Ax. One cycle from x_0:
 *
 *   r_0 = b - A x_0,  beta = ||r_0||,  v_1 = r_0 / beta,  g = beta e_1
 *   for j = 1, ..., m
 *     w = A M^-1 v_j
 *     h_{ij} = (v_i, w), w <- w - sum_i h_{ij} v_i        i = 1..j   (Arnoldi)
 *     h_{j+1,j} = ||w||,  v_{j+1} = w / h_{j+1,j}
 *     apply the rotations G_1..G_{j-1} to column j of H, build G_j to zero h_{j+1,j},
 *     apply it to g: |g_{j+1}| = ||b - A x_j|| (in exact arithmetic)
 *   x = x_0 + M^-1 V_k y,  y = argmin ||beta e_1 - H_k y|| = R_k^-1 g_{1:k}
 *
 * Flexible GMRES (Saad 1993, "A flexible inner-outer preconditioned GMRES algorithm", SIAM J.
 * Sci. Comput. 14): the preconditioner may change from one inner iteration to the next,
 * z_j = M_j^-1 v_j. The cycle keeps every z_j in a second basis Z (n x m), so the Arnoldi
 * relation becomes A Z_k = V_{k+1} H_k, and the update is x = x_0 + Z_k y with the same y:
 * no preconditioner apply at the end of the cycle. With a fixed M, Z_k = M^-1 V_k and the
 * iterates are those of GMRES in exact arithmetic. Without a preconditioner Z = V, so the
 * flag is ignored then (no second basis is allocated).
 *
 * Orthogonalisation: classical Gram-Schmidt twice, CGS2 (Giraud et al. 2005: two passes of
 * h = V^T w, w <- w - V h; two block reductions, as orthogonal as MGS in practice; the
 * default, because V^T w is one reduction on a GPU), or modified Gram-Schmidt (one inner
 * product and one update per basis vector, j+1 reductions in sequence).
 *
 * Stopping test: |g_{j+1}| <= max(rtol*||b||, atol). Iterations count inner steps. When the
 * estimate claims convergence (or the cycle ends) x is updated and the true residual
 * b - Ax recomputed; if it does not pass, the next cycle starts from it.
 *
 * Happy breakdown: h_{j+1,j} ~ 0 (below 1e-14 ||A M^-1 v_j||) means the Krylov space is
 * invariant and x_j is the solution: the cycle stops cleanly and x is updated; if the true
 * residual does not pass (rounding), the next cycle starts from it. A zero diagonal in the
 * rotated H (A M^-1 singular on the space) is SPS_DIVERGED_BREAKDOWN unless the true residual
 * already passes. NaN or Inf in a cycle leaves x at the cycle's start: SPS_DIVERGED_NAN when
 * its true residual is NaN or Inf, else SPS_DIVERGED_BREAKDOWN (M^-1 or the scalars overflowed).
 *
 * Restart: m is capped at n (sps_solver_get_restart tells the m in use): in exact arithmetic
 * GMRES ends within n steps, and a longer basis would only hold rounding.
 *
 * Divergence: the estimate |g_{j+1}| never grows within a cycle, but x += M^-1 V_k y can make
 * the true residual grow when M^-1 is unstable: when ||b - Ax|| > dtol*max(||b||, ||r_0||) at
 * every cycle end for SPS_DTOL_ITERATIONS iterations (as CG and BiCGSTAB test it on their
 * recurrence) the solve stops with SPS_DIVERGED_DTOL.
 *
 * Execution. With CGS2, on a backend with the GMRES steps (core/krylov_state.h), the cycle runs on
 * the device: H, the rotations, g and the status stay in the backend's memory, one inner iteration
 * is z <- M^-1 vcur (flexible: gmres_store_z copies z into Z(:, j)), w <- A z and gmres_arnoldi,
 * which reads the column index from the state, so one inner iteration, and a group of four, are
 * captured as graphs at setup (where the backend records graphs) and replayed. The host issues a
 * batch of inner iterations without waiting (to the end of the cycle at most; its length adapts to
 * the observed rate of decrease, or stops at the next multiple of the monitor interval) and reads
 * the state once per batch; a step that finds the state stopped does nothing, so the count is
 * exact. At the end of a cycle gmres_update forms u = V_k y, x += M^-1 u (flexible:
 * u = Z_k y, x += u), the true residual decides, and gmres_start opens the next cycle. The
 * residual history is written on the device and downloaded at the end. When asked
 * (sps_solver_set_gmres_fused), without a preconditioner, where the backend has gmres_fused for this matrix (the CUDA backend: one thread-block cluster,
 * small n) and the SpMV variant rounds like csr-scalar, a whole batch is one gmres_fused call
 * that forms w = A v_j itself with the same bits, so no graph is captured. The host-driven loop below
 * (scalars on the host, one reduction read back per Gram-Schmidt pass) is kept only as the
 * fallback: for MGS, whose j+1 sequential reductions the device steps do not implement, for a
 * backend without the GMRES steps (or, flexible, without gmres_store_z), and for a restart the
 * backend's steps refuse (above SPS_GMRES_STEPS_MAX_M on the GPU).
 */

#define GMRES_HAPPY_TOL 1e-14

/* The shortest, the first and the longest batch of inner iterations between two reads of the state. */
#define GMRES_MIN_BATCH 4
#define GMRES_FIRST_BATCH 8
#define GMRES_MAX_BATCH 1024
/* Inner iterations in the longer captured graph (fewer graph launches per batch). */
#define GMRES_GRAPH_ITERATIONS 4

typedef struct gmres_work {
  int m;
  int device; /* 1: the device-driven CGS2 cycle; 0: the host-driven fallback */
  int fused;  /* device-driven with gmres_fused: the SpMV inside the backend's steps */
  double *V;  /* n x (m+1), column-major with leading dimension n: the Krylov basis */
  double *Z;  /* n x m, leading dimension n: z_j = M_j^-1 v_j (flexible with a preconditioner) */
  double *z;  /* M^-1 v, then M^-1 u (NULL without preconditioner; host path: NULL when flexible) */
  double *u;  /* V y or Z y (host path: NULL without preconditioner or when flexible) */
  /* The device-driven cycle. */
  double *vcur;         /* the newest basis vector (fixed address for the graph) */
  double *w;            /* A M^-1 vcur, orthogonalised in place by gmres_arnoldi */
  double *dense;        /* H, R, cs, sn, g, y, the steps' workspace, the history: backend memory */
  sps_gmres_state init; /* the state with its pointers set, uploaded at each solve */
  sps_gmres_state *S;   /* the state in the backend's memory */
  void *graph;          /* one inner iteration, or NULL */
  void *graph4;         /* GMRES_GRAPH_ITERATIONS inner iterations, or NULL */
  int above_since;      /* the first iteration of the solve's run of cycle ends above the
                           divergence bound, or -1 */
  /* The host-driven fallback. */
  double *H;       /* (m+1) x m on the host, column-major: the rotated Hessenberg matrix */
  double *h2;      /* m+1 on the host: the second CGS pass */
  double *cs, *sn; /* m Givens rotations */
  double *g;       /* m+1: the rotated right-hand side beta e_1 */
  double *y;       /* m: the least-squares solution */
} gmres_work;

static void gmres_destroy(sps_solver *s)
{
  gmres_work *gw = s->work;
  if (!gw) return;
  sps_context *ctx = s->ctx;
  if (gw->graph) ctx->be->graph_destroy(ctx, gw->graph);
  if (gw->graph4) ctx->be->graph_destroy(ctx, gw->graph4);
  sps_solver_vec_free(s, &gw->z);
  sps_solver_vec_free(s, &gw->u);
  sps_solver_vec_free(s, &gw->vcur);
  sps_solver_vec_free(s, &gw->w);
  if (gw->V) ctx->be->free(ctx, gw->V);
  if (gw->Z) ctx->be->free(ctx, gw->Z);
  if (gw->dense) ctx->be->free(ctx, gw->dense);
  if (gw->S) ctx->be->free(ctx, gw->S);
  sps_host_free(gw->H);
  sps_host_free(gw->h2);
  sps_host_free(gw->cs);
  sps_host_free(gw->sn);
  sps_host_free(gw->g);
  sps_host_free(gw->y);
  sps_host_free(gw);
  s->work = NULL;
}

/*
 * Whether the device-driven cycle can run: CGS2, the four steps present (and gmres_store_z
 * for flexible GMRES), and a restart the backend accepts (*nwork gets its workspace length). A
 * refusal only selects the fallback, so the context's last error message is left as it was.
 */
static int gmres_device_ok(sps_solver *s, const gmres_work *gw, size_t *nwork)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  if (s->orthog != SPS_ORTHOG_CGS2 || !be->gmres_workspace || !be->gmres_start ||
      !be->gmres_arnoldi || !be->gmres_update || (gw->Z && !be->gmres_store_z))
    return 0;
  char saved[SPS_ERRMSG_LEN];
  memcpy(saved, ctx->errmsg, sizeof saved);
  if (be->gmres_workspace(ctx, s->n, gw->m, nwork) == SPS_SUCCESS) return 1;
  memcpy(ctx->errmsg, saved, sizeof saved);
  return 0;
}

/*
 * One device-driven inner iteration: z <- M^-1 vcur (flexible: Z(:, j) <- z, j read from the
 * state on the device), w <- A z, then the CGS2 Arnoldi step.
 */
static sps_status gmres_issue(sps_solver *s, void *work)
{
  gmres_work *gw = work;
  sps_context *ctx = s->ctx;
  const double *zin = gw->vcur;
  if (gw->z) {
    SPS_CHECK(sps_precond_apply(s->pc, gw->vcur, gw->z));
    if (gw->Z) SPS_CHECK(ctx->be->gmres_store_z(ctx, s->n, gw->z, gw->Z, s->n, gw->S));
    zin = gw->z;
  }
  SPS_CHECK(sps_solver_operator(s, zin, gw->w));
  return ctx->be->gmres_arnoldi(ctx, s->n, gw->m, gw->V, s->n, gw->w, gw->vcur, gw->S);
}

/* One inner iteration: the captured graph of one when there is one, else issued step by step. */
static sps_status gmres_issue_one(sps_solver *s, void *work)
{
  gmres_work *gw = work;
  if (gw->graph) {
    const sps_status st = s->ctx->be->graph_launch(s->ctx, gw->graph);
    if (st != SPS_ERR_UNSUPPORTED) return st; /* else the graph does not serve now */
  }
  return gmres_issue(s, gw);
}

/* The work space of the device-driven cycle: vectors, the dense block, the state, the graph. */
static sps_status gmres_setup_device(sps_solver *s, gmres_work *gw, size_t nwork)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const size_t m = (size_t)gw->m, ldh = m + 1;
  const size_t nhist = s->history_on ? (size_t)s->maxit + 1 : 0;
  const size_t ndense = 2 * ldh * m + 2 * m + ldh + m + nwork + nhist;
  SPS_CHECK(sps_solver_vec_alloc(s, &gw->vcur, "GMRES current basis vector"));
  SPS_CHECK(sps_solver_vec_alloc(s, &gw->w, "GMRES A M^-1 v"));
  SPS_CHECK(sps_solver_vec_alloc(s, &gw->u, "GMRES V y"));
  if (!sps_precond_is_identity(s->pc)) SPS_CHECK(sps_solver_vec_alloc(s, &gw->z, "GMRES M^-1 v"));
  SPS_CHECK(be->malloc(ctx, (void **)&gw->dense, ndense * sizeof(double),
                       "GMRES Hessenberg, rotations and history"));
  /* zeroed as the host path's calloc: a cycle writes H, R, the rotations and g only as far as
   * its column j, and the distributed steps download them whole (compute-sanitizer's initcheck
   * read their unwritten tails, run 30) */
  SPS_CHECK(be->fill(ctx, (int64_t)ndense, 0.0, gw->dense));
  SPS_CHECK(be->malloc(ctx, (void **)&gw->S, sizeof *gw->S, "GMRES state"));
  sps_gmres_state *h = &gw->init;
  h->H = gw->dense;
  h->R = h->H + ldh * m;
  h->cs = h->R + ldh * m;
  h->sn = h->cs + m;
  h->g = h->sn + m;
  h->y = h->g + ldh;
  h->work = h->y + m;
  h->history = nhist ? h->work + nwork : NULL;
  h->happy_tol = GMRES_HAPPY_TOL;
  h->m = gw->m;
  /* The fused steps form A v_j themselves as csr-scalar rounds it: only where the plan's
   * variant gives the same bits, and without a preconditioner. */
  gw->fused = s->gmres_fused && !s->A->dist && sps_precond_is_identity(s->pc) && s->sign > 0.0 &&
              be->gmres_fused &&
              be->gmres_fused_fits &&
              be->gmres_fused_fits(ctx, s->A, gw->m) && sps_spmv_plan_rounds_like_csr(s->plan);
  if (gw->fused) return SPS_SUCCESS;
  /* The steps read j and the scalars from the state, so one captured iteration serves all. */
  SPS_CHECK(sps_solver_capture(s, 1, gmres_issue, gw, &gw->graph));
  return sps_solver_capture(s, GMRES_GRAPH_ITERATIONS, gmres_issue, gw, &gw->graph4);
}

/*
 * The work space of the host-driven fallback: host arrays for H, the rotations, g, y; z and u
 * for M^-1 v and V y unless flexible (which applies M^-1 into Z and updates with Z y).
 */
static sps_status gmres_setup_host(sps_solver *s, gmres_work *gw)
{
  sps_context *ctx = s->ctx;
  const size_t m = (size_t)gw->m;
  if (!gw->Z && !sps_precond_is_identity(s->pc)) {
    SPS_CHECK(sps_solver_vec_alloc(s, &gw->z, "GMRES M^-1 v"));
    SPS_CHECK(sps_solver_vec_alloc(s, &gw->u, "GMRES V y"));
  }
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw->H, (m + 1) * m, sizeof(double), "GMRES Hessenberg"));
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw->h2, m + 1, sizeof(double), "GMRES CGS2 pass"));
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw->cs, m, sizeof(double), "GMRES rotations"));
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw->sn, m, sizeof(double), "GMRES rotations"));
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw->g, m + 1, sizeof(double), "GMRES rhs"));
  return sps_host_calloc(ctx, (void **)&gw->y, m, sizeof(double), "GMRES y");
}

static sps_status gmres_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  sps_status st = SPS_SUCCESS;
  gmres_work *gw;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&gw, 1, sizeof *gw, "GMRES work space"));
  s->work = gw;
  /* m = min(restart, n): more than n basis vectors cannot be independent (n of the whole
   * matrix: every rank of a distributed one takes the same m). */
  gw->m = (int64_t)s->restart > s->n_global ? (int)(s->n_global > 0 ? s->n_global : 1) : s->restart;
  s->restart_used = gw->m;
  const size_t m = (size_t)gw->m;
  if ((size_t)s->n > 0 && m + 1 > SIZE_MAX / sizeof(double) / (size_t)s->n)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "GMRES basis: %zu vectors of length %lld overflow size_t",
                 m + 1, (long long)s->n);
  SPS_TRY(ctx->be->malloc(ctx, (void **)&gw->V, (m + 1) * (size_t)s->n * sizeof(double),
                          "GMRES Krylov basis"));
  /* Flexible GMRES keeps z_j = M_j^-1 v_j; without a preconditioner Z would equal V. */
  if (s->flexible && !sps_precond_is_identity(s->pc))
    SPS_TRY(ctx->be->malloc(ctx, (void **)&gw->Z, m * (size_t)s->n * sizeof(double),
                            "flexible GMRES preconditioned basis"));
  size_t nwork = 0;
  gw->device = gmres_device_ok(s, gw, &nwork);
  if (gw->device)
    SPS_TRY(gmres_setup_device(s, gw, nwork));
  else
    SPS_TRY(gmres_setup_host(s, gw));
cleanup:
  if (st) gmres_destroy(s);
  return st;
}

/*
 * The end of a device-driven cycle (the state h was just read, its status is not RUNNING):
 * x += M^-1 V_k y (flexible: x += Z_k y), then the true residual gives the reason or the next
 * cycle is opened. *rnorm gets ||b - Ax||.
 */
static sps_status gmres_cycle_end(sps_solver *s, gmres_work *gw, const double *b, double *x,
                                  sps_gmres_state *h, double *rnorm)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = s->n;
  if (h->status == SPS_GMRES_NAN) {
    /* x is still the cycle's start: NaN only if its true residual is. */
    SPS_CHECK(sps_solver_nan_reason(s, b, x, s->r, rnorm, &s->reason));
    s->res_abs = *rnorm;
    s->res_known = 1;
    return SPS_SUCCESS;
  }
  /* u <- V_k y (flexible: u <- Z_k y), y = R_k^-1 g_k */
  SPS_CHECK(be->gmres_update(ctx, n, gw->m, gw->Z ? gw->Z : gw->V, n, gw->S, gw->u));
  if (gw->z && !gw->Z) {
    /* x <- x + M^-1 u */
    SPS_CHECK(sps_precond_apply(s->pc, gw->u, gw->z));
    SPS_CHECK(be->axpy(ctx, n, 1.0, gw->z, x));
  } else {
    /* x <- x + u: no preconditioner, or flexible (Z already holds M_j^-1 v_j) */
    SPS_CHECK(be->axpy(ctx, n, 1.0, gw->u, x));
  }
  sps_reason reason;
  SPS_CHECK(sps_solver_confirm(s, b, x, s->r, rnorm, &reason));
  /* x changes again only in a later cycle, which ends with its own confirmation. */
  s->res_abs = *rnorm;
  s->res_known = 1;
  if (reason == SPS_REASON_NONE && sps_solver_dtol_cycle(s, *rnorm, h->it, &gw->above_since))
    reason = SPS_DIVERGED_DTOL;
  if (reason != SPS_REASON_NONE) {
    s->reason = reason;
    return SPS_SUCCESS;
  }
  switch (h->status) {
  case SPS_GMRES_BREAKDOWN:
    s->reason = SPS_DIVERGED_BREAKDOWN;
    return SPS_SUCCESS;
  case SPS_GMRES_MAX_ITERATIONS:
    s->reason = SPS_DIVERGED_MAX_ITERATIONS;
    return SPS_SUCCESS;
  case SPS_GMRES_CONVERGED:
    if (h->j == 0) {
      /* gmres_start found ||r|| <= tol where the host's norm of the same r did not: the two
       * reductions differ in the last bits, and no further step can change r. */
      s->reason = sps_solver_test(s, h->beta);
      return SPS_SUCCESS;
    }
    break;
  default: /* CYCLE_END, HAPPY_BREAKDOWN */
    break;
  }
  if (h->it >= s->maxit) {
    s->reason = SPS_DIVERGED_MAX_ITERATIONS;
    return SPS_SUCCESS;
  }
  /* The next cycle from the true residual: v_0 = r / ||r||, g = ||r|| e_1, j = 0. */
  SPS_CHECK(be->gmres_start(ctx, n, s->r, gw->V, gw->vcur, gw->S));
  h->j = 0;
  return SPS_SUCCESS;
}

static sps_status gmres_solve_device(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  gmres_work *gw = s->work;
  const int monitor_every = s->monitor ? s->monitor_every : 0;
  sps_gmres_state h = gw->init;
  double rnorm = rnorm0;

  h.tol = s->tol;
  h.maxit = s->maxit;
  SPS_CHECK(be->upload(ctx, gw->S, &h, sizeof h));
  SPS_CHECK(be->gmres_start(ctx, s->n, s->r, gw->V, gw->vcur, gw->S));
  s->reason = SPS_REASON_NONE;
  /* The first batch is short: a solve that converges within it wastes few launches on
   * finished steps (a whole first cycle cost watt_2 a fifth of its solve time). */
  int want = gw->m < GMRES_FIRST_BATCH ? gw->m : GMRES_FIRST_BATCH, monitored = 0;
  while (s->reason == SPS_REASON_NONE) {
    /* To the next monitor call or the adaptive length (cut to the progress interval); never
     * past the cycle or maxit. */
    int len = sps_solver_progress_cap(s, monitor_every > 0 ? monitor_every - h.it % monitor_every : want);
    if (len > gw->m - h.j) len = gw->m - h.j;
    if (len > s->maxit - h.it) len = s->maxit - h.it;
    if (len < 1) len = 1;
    const int it0 = h.it;
    const double rnorm_batch = rnorm;
    if (gw->fused)
      SPS_CHECK(be->gmres_fused(ctx, s->A, gw->m, gw->V, s->n, gw->w, gw->S, len));
    else
      SPS_CHECK(sps_solver_issue_batch(s, gw->graph4, GMRES_GRAPH_ITERATIONS, len,
                                       gmres_issue_one, gw));
    SPS_CHECK(be->download(ctx, &h, gw->S, sizeof h));
    rnorm = h.resid;
    if (monitor_every > 0 && h.it > monitored && h.it % monitor_every == 0) {
      sps_solver_monitor(s, h.it, rnorm);
      monitored = h.it;
    }
    const double rate = sps_solver_batch_rate(rnorm_batch, rnorm, h.it - it0);
    want = sps_solver_adaptive_batch(s, want, rate, rnorm, GMRES_MIN_BATCH, GMRES_MAX_BATCH);
    if (sps_solver_progress(s, h.it, rnorm) && h.status == SPS_GMRES_RUNNING) {
      /* Stop: x from the part of the cycle done (as at a cycle end), unless that converged. */
      h.status = SPS_GMRES_MAX_ITERATIONS;
      SPS_CHECK(gmres_cycle_end(s, gw, b, x, &h, &rnorm));
      if (s->reason <= 0 && s->reason != SPS_DIVERGED_DTOL) s->reason = SPS_INTERRUPTED;
      break;
    }
    if (h.status != SPS_GMRES_RUNNING) SPS_CHECK(gmres_cycle_end(s, gw, b, x, &h, &rnorm));
  }
  s->iterations = h.it;
  return sps_solver_download_history(s, h.history, h.it);
}

/* Host-driven fallback: orthogonalise w against V_0..V_j; h[0..j] <- the projections. */
static sps_status gmres_orthogonalize(sps_solver *s, gmres_work *gw, int j, double *w, double *h)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = s->n;
  if (s->orthog == SPS_ORTHOG_MGS) {
    for (int i = 0; i <= j; i++) {
      const double *vi = gw->V + (int64_t)i * n;
      /* h_i <- (v_i, w), w <- w - h_i v_i */
      SPS_CHECK(be->dot(ctx, n, vi, w, &h[i]));
      SPS_CHECK(be->axpy(ctx, n, -h[i], vi, w));
    }
    return SPS_SUCCESS;
  }
  /* h <- V^T w, w <- w - V h, twice; the projections add up. */
  SPS_CHECK(be->gemv_t(ctx, n, j + 1, gw->V, n, w, h));
  SPS_CHECK(be->gemv_n(ctx, n, j + 1, -1.0, gw->V, n, h, w));
  SPS_CHECK(be->gemv_t(ctx, n, j + 1, gw->V, n, w, gw->h2));
  SPS_CHECK(be->gemv_n(ctx, n, j + 1, -1.0, gw->V, n, gw->h2, w));
  for (int i = 0; i <= j; i++)
    h[i] += gw->h2[i];
  return SPS_SUCCESS;
}

/* Host-driven fallback: the scalars of each cycle on the host, every inner step recorded. */
static sps_status gmres_solve_host(sps_solver *s, const double *b, double *x, double rnorm0)
{
  sps_context *ctx = s->ctx;
  const sps_backend *be = ctx->be;
  gmres_work *gw = s->work;
  const int64_t n = s->n;
  const int m = gw->m;
  const int ldh = m + 1;
  const int identity = sps_precond_is_identity(s->pc);
  double *r = s->r, *H = gw->H, *g = gw->g, *y = gw->y, *cs = gw->cs, *sn = gw->sn;
  double beta = rnorm0;
  int it = 0;

  for (;;) {
    int k = 0, singular = 0, interrupted = 0;
    /* v_0 <- r / beta, g <- beta e_1 */
    SPS_CHECK(be->axpby(ctx, n, 1.0 / beta, r, 0.0, gw->V));
    g[0] = beta;
    for (int j = 0; j < m && it < s->maxit; j++) {
      const double *vj = gw->V + (int64_t)j * n;
      double *w = gw->V + (int64_t)(j + 1) * n;
      double *col = H + (int64_t)j * ldh;
      /* w <- A z_j, z_j = M^-1 v_j (flexible: kept in Z(:, j)) */
      const double *zj = vj;
      if (gw->Z) {
        double *zcol = gw->Z + (int64_t)j * n;
        SPS_CHECK(sps_precond_apply(s->pc, vj, zcol));
        zj = zcol;
      } else if (!identity) {
        SPS_CHECK(sps_precond_apply(s->pc, vj, gw->z));
        zj = gw->z;
      }
      SPS_CHECK(sps_solver_operator(s, zj, w));
      SPS_CHECK(gmres_orthogonalize(s, gw, j, w, col));
      double hn, wnorm2 = 0.0;
      SPS_CHECK(be->nrm2(ctx, n, w, &hn));
      /* ||A M^-1 v_j||^2 = sum_i h_ij^2 + h_{j+1,j}^2 (Pythagoras), without another reduction */
      for (int i = 0; i <= j; i++)
        wnorm2 += col[i] * col[i];
      wnorm2 += hn * hn;
      col[j + 1] = hn;
      if (sps_solver_bad(wnorm2)) {
        /* x is still the cycle's start: NaN only if its true residual is. */
        it++;
        sps_solver_record(s, it, NAN);
        SPS_CHECK(sps_solver_nan_reason(s, b, x, r, &s->res_abs, &s->reason));
        s->res_known = 1;
        s->iterations = it;
        return SPS_SUCCESS;
      }
      const int happy = hn <= GMRES_HAPPY_TOL * sqrt(wnorm2);
      /* v_{j+1} <- w / h_{j+1,j} */
      if (!happy) SPS_CHECK(be->scal(ctx, n, 1.0 / hn, w));
      /* Apply G_0..G_{j-1} to column j. */
      for (int i = 0; i < j; i++) {
        const double t = cs[i] * col[i] + sn[i] * col[i + 1];
        col[i + 1] = -sn[i] * col[i] + cs[i] * col[i + 1];
        col[i] = t;
      }
      /* G_j zeroes h_{j+1,j}; g <- G_j g */
      const double d = hypot(col[j], col[j + 1]);
      it++;
      if (d == 0.0) {
        singular = 1;
        sps_solver_record(s, it, fabs(g[j]));
        break;
      }
      cs[j] = col[j] / d;
      sn[j] = col[j + 1] / d;
      col[j] = d;
      col[j + 1] = 0.0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      k = j + 1;
      const double res = fabs(g[j + 1]);
      sps_solver_record(s, it, res);
      if (happy || sps_solver_test(s, res) != SPS_REASON_NONE) break;
      if (sps_solver_progress_on(s) && sps_wtime() - s->progress_t >= s->progress_interval &&
          sps_solver_progress(s, it, res)) {
        interrupted = 1;
        break;
      }
    }
    /* y <- R_k^-1 g (back substitution), x <- x + M^-1 V_k y (flexible: x <- x + Z_k y) */
    if (k > 0) {
      for (int i = k - 1; i >= 0; i--) {
        double t = g[i];
        for (int l = i + 1; l < k; l++)
          t -= H[i + (int64_t)l * ldh] * y[l];
        y[i] = t / H[i + (int64_t)i * ldh];
      }
      if (gw->Z) {
        SPS_CHECK(be->gemv_n(ctx, n, k, 1.0, gw->Z, n, y, x));
      } else if (identity) {
        SPS_CHECK(be->gemv_n(ctx, n, k, 1.0, gw->V, n, y, x));
      } else {
        SPS_CHECK(be->fill(ctx, n, 0.0, gw->u));
        SPS_CHECK(be->gemv_n(ctx, n, k, 1.0, gw->V, n, y, gw->u));
        SPS_CHECK(sps_precond_apply(s->pc, gw->u, gw->z));
        SPS_CHECK(be->axpy(ctx, n, 1.0, gw->z, x));
      }
    }
    /* The true residual starts the next cycle or confirms convergence. */
    sps_reason reason;
    SPS_CHECK(sps_solver_confirm(s, b, x, r, &beta, &reason));
    s->res_abs = beta;
    s->res_known = 1;
    if (reason == SPS_REASON_NONE && sps_solver_dtol_cycle(s, beta, it, &gw->above_since))
      reason = SPS_DIVERGED_DTOL;
    if (reason != SPS_REASON_NONE) {
      s->reason = reason;
      break;
    }
    if (interrupted) {
      s->reason = SPS_INTERRUPTED;
      break;
    }
    if (singular) {
      s->reason = SPS_DIVERGED_BREAKDOWN;
      break;
    }
    if (it >= s->maxit) {
      s->reason = SPS_DIVERGED_MAX_ITERATIONS;
      break;
    }
  }
  s->iterations = it;
  return SPS_SUCCESS;
}

static sps_status gmres_solve(sps_solver *s, const double *b, double *x, double rnorm0)
{
  gmres_work *gw = s->work;
  gw->above_since = -1;
  return gw->device ? gmres_solve_device(s, b, x, rnorm0) : gmres_solve_host(s, b, x, rnorm0);
}

int sps_gmres_device_driven(const sps_solver *s)
{
  const gmres_work *gw = s->work;
  return s->method->type == SPS_SOLVER_GMRES && gw && gw->device;
}

const sps_solver_method sps_solver_method_gmres = {
    .type = SPS_SOLVER_GMRES,
    .name = "gmres",
    .setup = gmres_setup,
    .solve = gmres_solve,
    .destroy = gmres_destroy,
};
