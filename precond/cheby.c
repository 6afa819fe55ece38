/* cheby.c: the Chebyshev polynomial preconditioner for symmetric positive definite A: d steps of the Chebyshev iteration on D^-1 A, with eigenvalue bounds from Lanczos at setup. */
#include <math.h>
#include <string.h>

#include "../core/splitmix64.h"
#include "precond.h"
#include "tridiag_eig.h"

/*
 * M^-1 r = p(D^-1 A) D^-1 r, D = diag(A) > 0, p the polynomial of d steps of the Chebyshev
 * iteration (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Algorithm 12.1) for
 * D^-1 A z = D^-1 r from z = 0 on the interval [a, b]:
 *
 *   theta = (b + a)/2, delta = (b - a)/2, sigma = theta/delta, rho_0 = 1/sigma
 *   s = D^-1 r,  e = s / theta,  z = e
 *   for k = 1 .. d-1:  s <- s - D^-1 A e,  rho_k = 1/(2 sigma - rho_{k-1}),
 *                      e <- rho_k rho_{k-1} e + (2 rho_k / delta) s,  z <- z + e
 *
 * Its residual polynomial q(l) = 1 - l p(l) is bounded by 1/T_d(sigma) on [a, b] and lies in
 * (0, 1) on (0, a), so p > 0 on (0, b]: with b above the largest eigenvalue of D^-1 A, M is
 * symmetric positive definite (M^-1 = D^-1/2 p(S) D^-1/2, S = D^-1/2 A D^-1/2) and CG may
 * use it. Cost: d - 1 SpMVs and vector updates through the backend ops, so the apply runs at
 * SpMV speed on either device and rounds alike on both.
 *
 * The interval, at setup: "cheby.lanczos" steps of Lanczos on S (no reorthogonalisation;
 * from a fixed pseudo-random start, the same on every backend), the extreme eigenvalues
 * theta_min, theta_max of the tridiagonal matrix by bisection on Sturm counts, then
 * b = 1.1 theta_max (Ritz values approach the top of the spectrum from below: the margin
 * keeps p positive) and a = max(theta_min, b / CHEBY_MAX_RATIO). theta_min overestimates the
 * smallest eigenvalue, which only leaves the lowest modes less damped (q stays in (0, 1)
 * there); the ratio bounds the interval for very ill-conditioned D^-1 A, where a few Lanczos
 * steps cannot resolve the bottom anyway.
 */

#define CHEBY_UPPER_MARGIN 1.1
#define CHEBY_MAX_RATIO 1.0e4

typedef struct cheby_data {
  double *dinv;        /* n: 1 / a_ii of sign*A */
  double *s, *e, *t;   /* n each: residual, step, A e */
  double a, b;
  int degree;
} cheby_data;

static void cheby_destroy(sps_precond *pc)
{
  cheby_data *d = pc->data;
  if (!d) return;
  double *v[] = {d->dinv, d->s, d->e, d->t};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (v[k]) pc->ctx->be->free(pc->ctx, v[k]);
  sps_host_free(d);
  pc->data = NULL;
}

/*
 * Lanczos on S = D^-1/2 (sign A) D^-1/2 for k steps (fewer on breakdown): the extreme Ritz
 * values. dsq = D^-1/2; v, vold, w, y are n-vectors of scratch.
 */
static sps_status lanczos(sps_precond *pc, const double *dsq, double *v, double *vold, double *w,
                          double *y, int k, double *tmin, double *tmax)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = pc->n;
  sps_status st = SPS_SUCCESS;
  double *alpha = NULL, *beta = NULL, *h = NULL;
  SPS_TRY(sps_host_calloc(ctx, (void **)&alpha, (size_t)k + 1, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&beta, (size_t)k + 2, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&h, (size_t)n, sizeof(double), "Lanczos start"));
  /* the Lanczos start: uniform in [-1, 1) from a fixed seed, the same on every backend */
  uint64_t seed = 20261124u;
  for (int64_t i = 0; i < n; i++) h[i] = sps_splitmix64_sym(&seed);
  SPS_TRY(be->upload(ctx, v, h, (size_t)n * sizeof(double)));
  double nv;
  SPS_TRY(be->nrm2(ctx, n, v, &nv));
  SPS_TRY(be->scal(ctx, n, 1.0 / nv, v));
  SPS_TRY(be->fill(ctx, n, 0.0, vold));
  int steps = 0;
  for (int j = 0; j < k; j++) {
    /* w = S v - beta_j v_old */
    SPS_TRY(be->pointwise_mult(ctx, n, dsq, v, y));
    SPS_TRY(sps_spmv_apply_raw(pc->plan, pc->sign, y, 0.0, w));
    SPS_TRY(be->pointwise_mult(ctx, n, dsq, w, w));
    SPS_TRY(be->axpy(ctx, n, -beta[j], vold, w));
    double a;
    SPS_TRY(be->dot(ctx, n, w, v, &a));
    alpha[j] = a;
    SPS_TRY(be->axpy(ctx, n, -a, v, w));
    double b;
    SPS_TRY(be->nrm2(ctx, n, w, &b));
    steps = j + 1;
    if (!(b > 1e-12 * fabs(a)) || !isfinite(b)) break;
    beta[j + 1] = b;
    /* v_old <- v, v <- w / b */
    SPS_TRY(be->copy(ctx, n, v, vold));
    SPS_TRY(be->axpby(ctx, n, 1.0 / b, w, 0.0, v));
  }
  sps_tridiag_eig_extremes(alpha, beta, steps, tmin, tmax);
cleanup:
  sps_host_free(alpha);
  sps_host_free(beta);
  sps_host_free(h);
  return st;
}

static sps_status cheby_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = A->nrows;
  sps_status st = SPS_SUCCESS;
  double *hd = NULL, *dsq = NULL, *w = NULL;
  cheby_data *d = NULL;
  if (!pc->plan)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "cheby: the preconditioner needs the solver's SpMV plan");
  SPS_TRY(sps_host_alloc(ctx, (void **)&hd, n > 0 ? (size_t)n : 1, sizeof(double),
                         "Chebyshev diagonal (host)"));
  for (int64_t i = 0; i < n; i++) {
    double a = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) a = pc->sign * A->values[k];
    if (!(a > 0.0) || !isfinite(a))
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "cheby: the diagonal entry of row %lld is %g: the Chebyshev preconditioner "
                   "needs a positive diagonal (A symmetric positive definite)",
                   (long long)(i + 1), pc->sign * a);
    hd[i] = 1.0 / a;
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "Chebyshev data"));
  pc->data = d;
  const size_t bytes = (n > 0 ? (size_t)n : 1) * sizeof(double);
  SPS_TRY(be->malloc(ctx, (void **)&d->dinv, bytes, "Chebyshev inverse diagonal"));
  SPS_TRY(be->malloc(ctx, (void **)&d->s, bytes, "Chebyshev residual"));
  SPS_TRY(be->malloc(ctx, (void **)&d->e, bytes, "Chebyshev step"));
  SPS_TRY(be->malloc(ctx, (void **)&d->t, bytes, "Chebyshev A e"));
  SPS_TRY(be->upload(ctx, d->dinv, hd, (size_t)n * sizeof(double)));
  d->degree = pc->params.cheby_degree;
  if (n > 0) {
    /* D^-1/2 and two more scratch vectors for the estimate, freed at its end. */
    for (int64_t i = 0; i < n; i++) hd[i] = sqrt(hd[i]);
    SPS_TRY(be->malloc(ctx, (void **)&dsq, bytes, "Chebyshev D^-1/2"));
    SPS_TRY(be->malloc(ctx, (void **)&w, bytes, "Lanczos vector"));
    SPS_TRY(be->upload(ctx, dsq, hd, (size_t)n * sizeof(double)));
    double tmin, tmax;
    SPS_TRY(lanczos(pc, dsq, d->s, d->t, w, d->e, pc->params.cheby_lanczos, &tmin, &tmax));
    d->b = CHEBY_UPPER_MARGIN * tmax;
    d->a = fmax(tmin, d->b / CHEBY_MAX_RATIO);
    if (!(d->b > 0.0) || !(d->a > 0.0) || !(d->a < d->b) || !isfinite(d->b))
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "cheby: the eigenvalue estimate of D^-1 A gave [%g, %g]: A does not look "
                   "positive definite",
                   tmin, tmax);
  }
  pc->info.degree = d->degree;
  pc->info.eig_min = d->a;
  pc->info.eig_max = d->b;
cleanup:
  if (st) cheby_destroy(pc);
  if (dsq) be->free(ctx, dsq);
  if (w) be->free(ctx, w);
  sps_host_free(hd);
  return st;
}

static sps_status cheby_apply(sps_precond *pc, const double *r, double *z)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  cheby_data *d = pc->data;
  const int64_t n = pc->n;
  const double theta = 0.5 * (d->b + d->a), delta = 0.5 * (d->b - d->a);
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  /* s = D^-1 r, e = s / theta, z = e */
  SPS_CHECK(be->pointwise_mult(ctx, n, d->dinv, r, d->s));
  SPS_CHECK(be->axpby(ctx, n, 1.0 / theta, d->s, 0.0, d->e));
  SPS_CHECK(be->copy(ctx, n, d->e, z));
  for (int k = 1; k < d->degree; k++) {
    /* s <- s - D^-1 A e */
    SPS_CHECK(sps_spmv_apply_raw(pc->plan, pc->sign, d->e, 0.0, d->t));
    SPS_CHECK(be->pointwise_mult(ctx, n, d->dinv, d->t, d->t));
    SPS_CHECK(be->axpy(ctx, n, -1.0, d->t, d->s));
    /* e <- rho_k rho_{k-1} e + (2 rho_k / delta) s, z <- z + e */
    const double rho_next = 1.0 / (2.0 * sigma - rho);
    SPS_CHECK(be->axpby(ctx, n, 2.0 * rho_next / delta, d->s, rho_next * rho, d->e));
    SPS_CHECK(be->axpy(ctx, n, 1.0, d->e, z));
    rho = rho_next;
  }
  return SPS_SUCCESS;
}

const sps_precond_ops sps_precond_ops_cheby = {
    .type = SPS_PRECOND_CHEBY,
    .name = "cheby",
    .in_place = 0,
    .symmetric = 1,
    .setup = cheby_setup,
    .apply = cheby_apply,
    .destroy = cheby_destroy,
};
