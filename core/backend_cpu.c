/* backend_cpu.c: the CPU implementation of the backend ops table (host memory, OpenMP vector loops). */
#include <math.h>
#include <string.h>

#include "internal.h"

/* Loops shorter than this run on one thread: the fork costs more than the work. */
#define SPS_OMP_MIN 8192

static sps_status cpu_malloc(sps_context *ctx, void **p, size_t bytes, const char *what)
{
  return sps_host_alloc(ctx, p, bytes, 1, what);
}

static void cpu_free(sps_context *ctx, void *p)
{
  (void)ctx;
  sps_host_free(p);
}

static sps_status cpu_memcpy(sps_context *ctx, void *dst, const void *src, size_t bytes)
{
  (void)ctx;
  if (bytes) memmove(dst, src, bytes);
  return SPS_SUCCESS;
}

static sps_status cpu_synchronize(sps_context *ctx)
{
  (void)ctx;
  return SPS_SUCCESS;
}

static sps_status cpu_fill(sps_context *ctx, int64_t n, double a, double *y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) y[i] = a;
  return SPS_SUCCESS;
}

static sps_status cpu_copy(sps_context *ctx, int64_t n, const double *x, double *y)
{
  (void)ctx;
  if (n > 0 && x != y) memcpy(y, x, (size_t)n * sizeof(double));
  return SPS_SUCCESS;
}

static sps_status cpu_scal(sps_context *ctx, int64_t n, double a, double *y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) y[i] *= a;
  return SPS_SUCCESS;
}

static sps_status cpu_axpy(sps_context *ctx, int64_t n, double a, const double *x, double *y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
  return SPS_SUCCESS;
}

static sps_status cpu_axpby(sps_context *ctx, int64_t n, double a, const double *x, double b,
                            double *y)
{
  (void)ctx;
  /* beta = 0 must not propagate NaN or Inf already in y. */
  if (b == 0.0) {
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
    for (int64_t i = 0; i < n; i++) y[i] = a * x[i];
  } else {
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
    for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
  }
  return SPS_SUCCESS;
}

static sps_status cpu_pointwise_mult(sps_context *ctx, int64_t n, const double *w,
                                     const double *x, double *y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) y[i] = w[i] * x[i];
  return SPS_SUCCESS;
}

static sps_status cpu_dot(sps_context *ctx, int64_t n, const double *x, const double *y,
                          double *result)
{
  (void)ctx;
  double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  *result = s;
  return SPS_SUCCESS;
}

static sps_status cpu_nrm2(sps_context *ctx, int64_t n, const double *x, double *result)
{
  double s;
  sps_status st = cpu_dot(ctx, n, x, x, &s);
  *result = sqrt(s);
  return st;
}

/* h[j] <- sum_i V[i + j*ldv] * x[i], j < k: one pass over x per column. */
static sps_status cpu_gemv_t(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                             const double *x, double *h)
{
  for (int j = 0; j < k; j++) cpu_dot(ctx, n, V + (int64_t)j * ldv, x, &h[j]);
  return SPS_SUCCESS;
}

/* y[i] <- y[i] + alpha * sum_j V[i + j*ldv] * h[j]: rows split among threads, one pass over y. */
static sps_status cpu_gemv_n(sps_context *ctx, int64_t n, int k, double alpha, const double *V,
                             int64_t ldv, const double *h, double *y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < k; j++) s += V[i + (int64_t)j * ldv] * h[j];
    y[i] += alpha * s;
  }
  return SPS_SUCCESS;
}

/* S->pq <- p.q; alpha <- rz/pq, or a stop: pq <= 0 (indefinite) or not finite. */
static sps_status cpu_cg_alpha(sps_context *ctx, int64_t n, const double *p, const double *q,
                               sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  double pq;
  cpu_dot(ctx, n, p, q, &pq);
  S->pq = pq;
  if (!isfinite(pq)) S->status = SPS_CG_NAN;
  else if (pq <= 0.0) S->status = SPS_CG_INDEFINITE_MATRIX;
  else S->alpha = S->rz / pq;
  return SPS_SUCCESS;
}

/* x += alpha p; r -= alpha q; z <- dinv .* r; rz, rr, beta, the count and the stopping test. */
static sps_status cpu_cg_update(sps_context *ctx, int64_t n, const double *p, const double *q,
                                const double *dinv, double *x, double *r, double *z,
                                sps_cg_state *S)
{
  (void)ctx;
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  const double alpha = S->alpha;
  double rr = 0.0, rz = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rr, rz) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    x[i] += alpha * p[i];
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr += ri * ri;
    if (dinv) {
      z[i] = dinv[i] * ri;
      rz += ri * z[i];
    }
  }
  if (!dinv) rz = rr;
  int it = ++S->it;
  S->rr = rr;
  if (S->history) S->history[it] = sqrt(rr);
  if (!isfinite(rr) || !isfinite(rz)) {
    S->status = SPS_CG_NAN;
  } else if (rr <= S->tol2) {
    S->status = SPS_CG_CONVERGED;
  } else if (rz < 0.0) {
    S->status = SPS_CG_INDEFINITE_PRECOND;
  } else {
    S->beta = rz / S->rz;
    S->rz = rz;
    if (it >= S->maxit) S->status = SPS_CG_MAX_ITERATIONS;
  }
  return SPS_SUCCESS;
}

/* p <- z + beta p */
static sps_status cpu_cg_direction(sps_context *ctx, int64_t n, const double *z, double *p,
                                   const sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  return cpu_axpby(ctx, n, 1.0, z, S->beta, p);
}

const sps_backend sps_backend_cpu = {
    .name = "cpu",
    .malloc = cpu_malloc,
    .free = cpu_free,
    .upload = cpu_memcpy,
    .download = cpu_memcpy,
    .copy_bytes = cpu_memcpy,
    .synchronize = cpu_synchronize,
    .fill = cpu_fill,
    .copy = cpu_copy,
    .scal = cpu_scal,
    .axpy = cpu_axpy,
    .axpby = cpu_axpby,
    .pointwise_mult = cpu_pointwise_mult,
    .dot = cpu_dot,
    .nrm2 = cpu_nrm2,
    .gemv_t = cpu_gemv_t,
    .gemv_n = cpu_gemv_n,
    .cg_alpha = cpu_cg_alpha,
    .cg_update = cpu_cg_update,
    .cg_direction = cpu_cg_direction,
};
