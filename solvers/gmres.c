/* gmres.c: restarted GMRES(m), right preconditioned, Givens rotations, MGS or CGS2. */
#include <math.h>

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
 * Orthogonalisation: modified Gram-Schmidt (one inner product and one update per basis
 * vector, j+1 reductions in sequence) or classical Gram-Schmidt twice, CGS2 (Giraud et al.
 * 2005: two passes of h = V^T w, w <- w - V h; two block reductions, as orthogonal as MGS in
 * practice; the default, because gemv_t is one reduction on a GPU).
 *
 * Stopping test: |g_{j+1}| <= max(rtol*||b||, atol). Iterations count inner steps. When the
 * estimate claims convergence (or the cycle ends) x is updated and the true residual
 * b - Ax recomputed; if it does not pass, the next cycle starts from it.
 *
 * Happy breakdown: h_{j+1,j} ~ 0 (below 1e-14 ||A M^-1 v_j||) means the Krylov space is
 * invariant and x_j is the solution: the cycle stops cleanly and x is updated. A zero
 * diagonal in the rotated H (A M^-1 singular on the space) is SPS_DIVERGED_BREAKDOWN unless
 * the true residual already passes.
 */

#define GMRES_HAPPY_TOL 1e-14

typedef struct gmres_work {
  int m;
  double *V;       /* n x (m+1), column-major with leading dimension n: the Krylov basis */
  double *zv;      /* M^-1 v (unused without preconditioner) */
  double *u;       /* V y before the preconditioner (unused without preconditioner) */
  double *H;       /* (m+1) x m on the host, column-major: the rotated Hessenberg matrix */
  double *h2;      /* m+1 on the host: the second CGS pass */
  double *cs, *sn; /* m Givens rotations */
  double *g;       /* m+1: the rotated right-hand side beta e_1 */
  double *y;       /* m: the least-squares solution */
} gmres_work;

static void gmres_destroy(sps_solver *s)
{
  gmres_work *w = s->work;
  if (!w) return;
  sps_solver_vec_free(s, &w->zv);
  sps_solver_vec_free(s, &w->u);
  if (w->V) s->ctx->be->free(s->ctx, w->V);
  sps_host_free(w->H);
  sps_host_free(w->h2);
  sps_host_free(w->cs);
  sps_host_free(w->sn);
  sps_host_free(w->g);
  sps_host_free(w->y);
  sps_host_free(w);
  s->work = NULL;
}

static sps_status gmres_setup(sps_solver *s)
{
  sps_context *ctx = s->ctx;
  sps_status st = SPS_SUCCESS;
  gmres_work *w;
  const size_t m = (size_t)s->restart;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "GMRES work space"));
  s->work = w;
  w->m = s->restart;
  if ((size_t)s->n > 0 && m + 1 > SIZE_MAX / sizeof(double) / (size_t)s->n)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "GMRES basis: %zu vectors of length %lld overflow size_t",
                 m + 1, (long long)s->n);
  SPS_TRY(ctx->be->malloc(ctx, (void **)&w->V, (m + 1) * (size_t)s->n * sizeof(double),
                          "GMRES Krylov basis"));
  if (!sps_precond_is_identity(s->pc)) {
    SPS_TRY(sps_solver_vec_alloc(s, &w->zv, "GMRES M^-1 v"));
    SPS_TRY(sps_solver_vec_alloc(s, &w->u, "GMRES V y"));
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->H, (m + 1) * m, sizeof(double), "GMRES Hessenberg"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->h2, m + 1, sizeof(double), "GMRES CGS2 pass"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->cs, m, sizeof(double), "GMRES rotations"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->sn, m, sizeof(double), "GMRES rotations"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->g, m + 1, sizeof(double), "GMRES rhs"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&w->y, m, sizeof(double), "GMRES y"));
cleanup:
  if (st) gmres_destroy(s);
  return st;
}

/* Orthogonalise w against the columns V_0..V_j; h[0..j] <- the projections. */
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

static sps_status gmres_solve(sps_solver *s, const double *b, double *x, double rnorm0)
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
    int k = 0, singular = 0;
    /* v_0 <- r / beta, g <- beta e_1 */
    SPS_CHECK(be->axpby(ctx, n, 1.0 / beta, r, 0.0, gw->V));
    g[0] = beta;
    for (int j = 0; j < m && it < s->maxit; j++) {
      const double *vj = gw->V + (int64_t)j * n;
      double *w = gw->V + (int64_t)(j + 1) * n;
      double *col = H + (int64_t)j * ldh;
      /* w <- A M^-1 v_j */
      const double *zj = vj;
      if (!identity) {
        SPS_CHECK(sps_precond_apply(s->pc, vj, gw->zv));
        zj = gw->zv;
      }
      SPS_CHECK(sps_spmv_apply_raw(s->plan, 1.0, zj, 0.0, w));
      SPS_CHECK(gmres_orthogonalize(s, gw, j, w, col));
      double hn, wnorm2 = 0.0;
      SPS_CHECK(be->nrm2(ctx, n, w, &hn));
      /* ||A M^-1 v_j||^2 = sum_i h_ij^2 + h_{j+1,j}^2 (Pythagoras), without another reduction */
      for (int i = 0; i <= j; i++)
        wnorm2 += col[i] * col[i];
      wnorm2 += hn * hn;
      col[j + 1] = hn;
      if (sps_solver_bad(wnorm2)) {
        it++;
        sps_solver_record(s, it, NAN);
        s->reason = SPS_DIVERGED_NAN;
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
    }
    /* y <- R_k^-1 g (back substitution), x <- x + M^-1 V_k y */
    if (k > 0) {
      for (int i = k - 1; i >= 0; i--) {
        double t = g[i];
        for (int l = i + 1; l < k; l++)
          t -= H[i + (int64_t)l * ldh] * y[l];
        y[i] = t / H[i + (int64_t)i * ldh];
      }
      if (identity) {
        SPS_CHECK(be->gemv_n(ctx, n, k, 1.0, gw->V, n, y, x));
      } else {
        SPS_CHECK(be->fill(ctx, n, 0.0, gw->u));
        SPS_CHECK(be->gemv_n(ctx, n, k, 1.0, gw->V, n, y, gw->u));
        SPS_CHECK(sps_precond_apply(s->pc, gw->u, gw->zv));
        SPS_CHECK(be->axpy(ctx, n, 1.0, gw->zv, x));
      }
    }
    /* The true residual starts the next cycle or confirms convergence. */
    sps_reason reason;
    SPS_CHECK(sps_solver_confirm(s, b, x, r, &beta, &reason));
    if (reason != SPS_REASON_NONE) {
      s->reason = reason;
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

const sps_solver_method sps_solver_method_gmres = {
    .type = SPS_SOLVER_GMRES,
    .name = "gmres",
    .setup = gmres_setup,
    .solve = gmres_solve,
    .destroy = gmres_destroy,
};
