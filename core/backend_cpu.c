/* backend_cpu.c: the CPU implementation of the backend ops table (host memory, OpenMP loops and the vector kernels of the widest instruction set the processor runs). */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "comm.h"
#include "block_ops.h"
#include "compensated_sum.h"
#include "cpu_simd.h"
#include "internal.h"
#include "nrm2_scale.h"
#include "omp_csum.h"

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
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t i = 0; i < n; i++) y[i] = a;);
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
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t i = 0; i < n; i++) y[i] *= a;);
  return SPS_SUCCESS;
}

static sps_status cpu_axpy(sps_context *ctx, int64_t n, double a, const double *x, double *y)
{
  (void)ctx;
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];);
  return SPS_SUCCESS;
}

static sps_status cpu_axpby(sps_context *ctx, int64_t n, double a, const double *x, double b,
                            double *y)
{
  (void)ctx;
  /* beta = 0 must not propagate NaN or Inf already in y: the kernel does not read y then. */
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
  {
    int64_t lo, hi;
    sps_omp_part(n, &lo, &hi);
    K->axpby(hi - lo, a, x + lo, b, y + lo);
  });
  return SPS_SUCCESS;
}

static sps_status cpu_pointwise_mult(sps_context *ctx, int64_t n, const double *w,
                                     const double *x, double *y)
{
  (void)ctx;
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t i = 0; i < n; i++) y[i] = w[i] * x[i];);
  return SPS_SUCCESS;
}

/* y[k] <- x[idx[k]]: the halo entries of x packed for a distributed product. */
static sps_status cpu_gather(sps_context *ctx, int64_t n, const int32_t *idx, const double *x,
                             double *y)
{
  (void)ctx;
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t k = 0; k < n; k++) y[k] = x[idx[k]];);
  return SPS_SUCCESS;
}

static sps_status cpu_dot(sps_context *ctx, int64_t n, const double *x, const double *y,
                          double *result)
{
  sps_csum s = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : s)",
  for (int64_t i = 0; i < n; i++) sps_csum_add(&s, x[i] * y[i]););
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  *result = sps_csum_value(s);
  return SPS_SUCCESS;
}

static sps_status cpu_dot_store(sps_context *ctx, int64_t n, const double *x, const double *y,
                                double *out)
{
  return cpu_dot(ctx, n, x, y, out);
}

/* nrm2's first pass: *ss <- the compensated sum of x_i^2, mx <- (max |x_i|, 1 when some x_i
 * is NaN, else 0), over the ranks (they ride with the sum). */
static sps_status cpu_sumsq_pass(sps_context *ctx, int64_t n, const double *x, sps_csum *ss,
                                 double mx[2])
{
  sps_csum s = sps_csum_zero();
  double amax = 0.0;
  int nan = 0;
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : s) reduction(max : amax) reduction(|| : nan)",
  for (int64_t i = 0; i < n; i++) {
    const double a = fabs(x[i]);
    sps_csum_add(&s, x[i] * x[i]);
    if (a > amax) amax = a;
    if (a != a) nan = 1;
  });
  mx[0] = amax;
  mx[1] = nan ? 1.0 : 0.0;
  *ss = s;
  return sps_comm_sum(ctx, ss, 1, mx, 2);
}

/* out[0] <- the rounded compensated sum of x_i^2, out[1] <- max |x_i| (NaN when some x_i is
 * NaN): cpu_nrm2's first pass. */
static sps_status cpu_sumsq_store(sps_context *ctx, int64_t n, const double *x, double *out)
{
  sps_csum ss;
  double mx[2];
  SPS_CHECK(cpu_sumsq_pass(ctx, n, x, &ss, mx));
  out[0] = sps_csum_value(ss);
  out[1] = mx[1] != 0.0 ? NAN : mx[0];
  return SPS_SUCCESS;
}

/*
 * ||x||: the compensated sum of the squares and max |x_i| in one pass; a second pass sums
 * (x_i 2^-e)^2 when max |x_i| is too large or too small for the squares (core/nrm2_scale.h).
 * The CUDA backend makes the same passes and rounds them alike.
 */
static sps_status cpu_nrm2(sps_context *ctx, int64_t n, const double *x, double *result)
{
  sps_csum ss;
  double mx[2];
  SPS_CHECK(cpu_sumsq_pass(ctx, n, x, &ss, mx));
  const int e = mx[1] != 0.0 ? 0 : sps_nrm2_scale_exponent(mx[0]);
  if (e == 0) {
    *result = sqrt(sps_csum_value(ss));
    return SPS_SUCCESS;
  }
  /* ||x|| = 2^e ||2^-e x||, the scaling exact */
  const double scale = ldexp(1.0, -e);
  sps_csum s2 = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : s2)",
  for (int64_t i = 0; i < n; i++) {
    const double xi = x[i] * scale;
    sps_csum_add(&s2, xi * xi);
  });
  SPS_CHECK(sps_comm_sum(ctx, &s2, 1, NULL, 0));
  *result = ldexp(sqrt(sps_csum_value(s2)), e);
  return SPS_SUCCESS;
}

/* Columns of V^T x summed per parallel region (their partial sums live on the stack); on a
 * distributed context they cross the ranks in one exchange. */
#define SPS_CPU_DOT_COLS 64
#if SPS_CPU_DOT_COLS > SPS_COMM_MAX_SUMS
#error "the columns of one pass must fit one exchange of sums"
#endif

/* The rows of one tile for k columns: V^T x and V h sweep the rows tile by tile, all the
 * columns of a tile before the next, so that x (and the tile of V, for the second product of
 * cpu_gemv_n_t) is read from memory once: 512 KB of V per tile (half of a 1 MB L2), 512 to
 * 4096 rows, a multiple of 64. */
static int64_t cpu_tile(int k)
{
  int64_t t = (int64_t)65536 / (k > 0 ? k : 1);
  t = t < 512 ? 512 : t > 4096 ? 4096 : t;
  return t / 64 * 64;
}

/* The thread's compensated partial sums (hi, lo) as sps_csum, merged into s[0..nj). */
static void cpu_cols_merge(int nj, const double *hi, const double *lo, sps_csum *s)
{
  for (int j = 0; j < nj; j++) {
    sps_csum p;
    p.hi = hi[j];
    p.lo = lo[j];
    sps_csum_merge(&s[j], p);
  }
}

/*
 * h[j] <- x.x when with_xx (j = 0) and then V(:, q).x for q < k (j = q + with_xx). Each h[j] is
 * the compensated sum that cpu_dot forms: the same products added in the same order over the
 * same static partition of i among the threads, each thread's partial merged into a zero sum
 * as the OpenMP reduction of cpu_dot merges it; so each h[j] has cpu_dot's bits. The kernel
 * (core/cpu_simd.h) runs the columns side by side as the lanes of its vectors. On a
 * distributed context the sums of each pass cross the ranks (sps_comm_sum) before they are
 * rounded.
 */
static sps_status cpu_gemv_t_cols(sps_context *ctx, int64_t n, int with_xx, int k,
                                  const double *V, int64_t ldv, const double *x, double *h)
{
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  const int total = k + with_xx;
  for (int j0 = 0; j0 < total; j0 += SPS_CPU_DOT_COLS) {
    const int nj = total - j0 < SPS_CPU_DOT_COLS ? total - j0 : SPS_CPU_DOT_COLS;
    /* columns j0 .. j0+nj-1, x itself first when with_xx and j0 = 0 */
    const int xx = with_xx && j0 == 0;
    const double *V0 = V + (int64_t)(j0 + xx - with_xx) * ldv;
    sps_csum s[SPS_CPU_DOT_COLS];
    for (int j = 0; j < nj; j++) s[j] = sps_csum_zero();
    SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
    {
      int64_t lo, hi;
      sps_omp_part(n, &lo, &hi);
      double sh[SPS_CPU_DOT_COLS + 16] = {0}, sl[SPS_CPU_DOT_COLS + 16] = {0};
      const int64_t tile = cpu_tile(nj);
      for (int64_t t0 = lo; t0 < hi; t0 += tile) {
        const int64_t t1 = hi - t0 < tile ? hi : t0 + tile;
        K->dot_cols(t1 - t0, nj - xx, V0 + t0, ldv, x + t0, xx, sh, sl);
      }
      _Pragma("omp critical(sps_cpu_dot_cols)")
      cpu_cols_merge(nj, sh, sl, s);
    });
    SPS_CHECK(sps_comm_sum(ctx, s, nj, NULL, 0));
    for (int j = 0; j < nj; j++) h[j0 + j] = sps_csum_value(s[j]);
  }
  return SPS_SUCCESS;
}

/*
 * The middle of a CGS2 step in one pass over V and w: w <- w - V h, then h2 <- V^T w of the new
 * w, tile by tile (a tile's rows of w are final once its V h is added, and its tile of V is
 * still in cache for the second product), as the CUDA backend's correct_dots kernel fuses
 * them. The bits of cpu_gemv_n followed by cpu_gemv_t: each row of w the same plain sum, each
 * h2[j] the same TwoSums in the same order over the same thread parts, across the ranks on a
 * distributed context. k <= SPS_CPU_DOT_COLS.
 */
static sps_status cpu_gemv_n_t(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                               const double *h, double *w, double *h2)
{
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  sps_csum s[SPS_CPU_DOT_COLS];
  for (int j = 0; j < k; j++) s[j] = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
  {
    int64_t lo, hi;
    sps_omp_part(n, &lo, &hi);
    double sh[SPS_CPU_DOT_COLS + 16] = {0}, sl[SPS_CPU_DOT_COLS + 16] = {0};
    const int64_t tile = cpu_tile(k);
    for (int64_t t0 = lo; t0 < hi; t0 += tile) {
      const int64_t t1 = hi - t0 < tile ? hi : t0 + tile;
      K->gemv_n(t1 - t0, k, -1.0, V + t0, ldv, h, w + t0, NULL);
      K->dot_cols(t1 - t0, k, V + t0, ldv, w + t0, 0, sh, sl);
    }
    _Pragma("omp critical(sps_cpu_dot_cols)")
    cpu_cols_merge(k, sh, sl, s);
  });
  SPS_CHECK(sps_comm_sum(ctx, s, k, NULL, 0));
  for (int j = 0; j < k; j++) h2[j] = sps_csum_value(s[j]);
  return SPS_SUCCESS;
}

/* h[j] <- sum_i V[i + j*ldv] * x[i], j < k: each h[j] the bits of cpu_dot. */
static sps_status cpu_gemv_t(sps_context *ctx, int64_t n, int k, const double *V, int64_t ldv,
                             const double *x, double *h)
{
  return cpu_gemv_t_cols(ctx, n, 0, k, V, ldv, x, h);
}

/*
 * y[i] <- y[i] + alpha * sum_j V[i + j*ldv] * h[j], then, when yy is not NULL, *yy <- y.y of the
 * new y with cpu_dot's bits (each thread sums its static part in order i, the parts merged as
 * cpu_dot's reduction merges them, then across the ranks on a distributed context). Rows split
 * among threads, one pass over y. The inner sum runs j = 0, 1, ... in plain arithmetic, in
 * chunks of SPS_GEMV_CHUNK columns, exactly as the CUDA backend's kernel does; the kernel's
 * vectors hold consecutive rows, each lane doing its row's operations in the row's order, so the
 * bits are those of one row at a time.
 */
static sps_status cpu_gemv_n_yy(sps_context *ctx, int64_t n, int k, double alpha, const double *V,
                                int64_t ldv, const double *h, double *y, double *yy)
{
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  if (k <= 0 && yy) return cpu_dot(ctx, n, y, y, yy);
  for (int j0 = 0; j0 < k; j0 += SPS_GEMV_CHUNK) {
    const int j1 = k - j0 < SPS_GEMV_CHUNK ? k : j0 + SPS_GEMV_CHUNK;
    const int with_yy = yy && j1 >= k;
    sps_csum s = sps_csum_zero();
    SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
    {
      int64_t lo, hi;
      sps_omp_part(n, &lo, &hi);
      sps_csum p = sps_csum_zero();
      K->gemv_n(hi - lo, j1 - j0, alpha, V + lo + (int64_t)j0 * ldv, ldv, h + j0, y + lo,
                with_yy ? &p : NULL);
      if (with_yy) {
        _Pragma("omp critical(sps_cpu_gemv_n)")
        sps_csum_merge(&s, p);
      }
    });
    if (with_yy) {
      SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
      *yy = sps_csum_value(s);
    }
  }
  return SPS_SUCCESS;
}

static sps_status cpu_gemv_n(sps_context *ctx, int64_t n, int k, double alpha, const double *V,
                             int64_t ldv, const double *h, double *y)
{
  return cpu_gemv_n_yy(ctx, n, k, alpha, V, ldv, h, y, NULL);
}

/* S->pq <- p.q; alpha <- rz/pq, or a stop: pq <= 0 (indefinite) or not finite. */
static sps_status cpu_cg_alpha(sps_context *ctx, int64_t n, const double *p, const double *q,
                               sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  double pq;
  SPS_CHECK(cpu_dot(ctx, n, p, q, &pq));
  sps_cg_close_alpha(S, pq);
  return SPS_SUCCESS;
}

/* cg_alpha once the solver's product has summed p.q (its thread parts and merges those of
 * cpu_dot): across the ranks, then alpha. */
static sps_status cpu_cg_alpha_sum(sps_context *ctx, const sps_csum *pq, sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  sps_csum s = *pq;
  SPS_CHECK(sps_comm_sum(ctx, &s, 1, NULL, 0));
  sps_cg_close_alpha(S, sps_csum_value(s));
  return SPS_SUCCESS;
}

/* x += alpha p; r -= alpha q; z <- dinv .* r; rz, rr, beta, the count and the stopping test
 * (deferred: rr and the test only). */
static sps_status cpu_cg_update(sps_context *ctx, int64_t n, const double *p, const double *q,
                                const double *dinv, double *x, double *r, double *z,
                                sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  const double alpha = S->alpha;
  if (S->deferred) dinv = NULL;
  sps_csum sums[2] = {sps_csum_zero(), sps_csum_zero()};
  sps_csum rr_sum = sps_csum_zero(), rz_sum = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : rr_sum, rz_sum)",
  for (int64_t i = 0; i < n; i++) {
    x[i] += alpha * p[i];
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    sps_csum_add(&rr_sum, ri * ri);
    if (dinv) {
      z[i] = dinv[i] * ri;
      sps_csum_add(&rz_sum, ri * z[i]);
    }
  });
  sums[0] = rr_sum;
  sums[1] = rz_sum;
  SPS_CHECK(sps_comm_sum(ctx, sums, 2, NULL, 0));
  const double rr = sps_csum_value(sums[0]);
  sps_cg_close_update(S, rr, dinv ? sps_csum_value(sums[1]) : rr);
  return SPS_SUCCESS;
}

/* Deferred mode, after z <- M^-1 r: rz <- r.z, beta, the indefiniteness test. */
static sps_status cpu_cg_rz(sps_context *ctx, int64_t n, const double *r, const double *z,
                            sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  double rz;
  SPS_CHECK(cpu_dot(ctx, n, r, z, &rz));
  sps_cg_close_rz(S, rz);
  return SPS_SUCCESS;
}

/* p <- z + beta p */
static sps_status cpu_cg_direction(sps_context *ctx, int64_t n, const double *z, double *p,
                                   const sps_cg_state *S)
{
  if (S->status != SPS_CG_RUNNING) return SPS_SUCCESS;
  return cpu_axpby(ctx, n, 1.0, z, S->beta, p);
}

/* out[l] <- the compensated sums of x[l].y[l], l < k <= 4 (this rank's terms only). */
static sps_status cpu_dots_local(sps_context *ctx, int64_t n, int k, const double *const *x,
                                 const double *const *y, sps_csum *out)
{
  (void)ctx;
  for (int l = 0; l < k; l++) {
    sps_csum s = sps_csum_zero();
    const double *a = x[l], *b = y[l];
    SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : s)",
    for (int64_t i = 0; i < n; i++) sps_csum_add(&s, a[i] * b[i]););
    out[l] = s;
  }
  return SPS_SUCCESS;
}

/* The pipelined CG update (solvers/cg_pipelined.c) and the sums of the next iteration. */
static sps_status cpu_pipecg_update(sps_context *ctx, int64_t n, double alpha, double beta,
                                    const double *nv, const double *mv, double *z, double *q,
                                    double *s, double *p, double *x, double *r, double *u,
                                    double *w, sps_csum *out)
{
  (void)ctx;
  sps_csum ru = sps_csum_zero(), wu = sps_csum_zero(), rr = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : ru, wu, rr)",
  for (int64_t i = 0; i < n; i++) {
    const double zi = beta == 0.0 ? nv[i] : nv[i] + beta * z[i];
    const double qi = beta == 0.0 ? mv[i] : mv[i] + beta * q[i];
    const double si = beta == 0.0 ? w[i] : w[i] + beta * s[i];
    const double pi = beta == 0.0 ? u[i] : u[i] + beta * p[i];
    z[i] = zi;
    q[i] = qi;
    s[i] = si;
    p[i] = pi;
    x[i] += alpha * pi;
    const double ri = r[i] - alpha * si, ui = u[i] - alpha * qi, wi = w[i] - alpha * zi;
    r[i] = ri;
    u[i] = ui;
    w[i] = wi;
    sps_csum_add(&ru, ri * ui);
    sps_csum_add(&wu, wi * ui);
    sps_csum_add(&rr, ri * ri);
  });
  out[0] = ru;
  out[1] = wu;
  out[2] = rr;
  return SPS_SUCCESS;
}

/* The CPU steps need only the m+1 second-pass Gram-Schmidt coefficients in S->work. */
static sps_status cpu_gmres_workspace(sps_context *ctx, int64_t n, int m, size_t *ndoubles)
{
  SPS_CHECK_ARG(ctx, n >= 0, "n");
  SPS_CHECK_ARG(ctx, m >= 1, "m");
  SPS_CHECK_ARG(ctx, ndoubles != NULL, "ndoubles");
  *ndoubles = (size_t)m + 1;
  return SPS_SUCCESS;
}

/* a[i] = b[i] <- x[i] * inv: a new basis vector into its column of V and into vcur. */
static void cpu_scale_into_two(int64_t n, double inv, const double *x, double *a, double *b)
{
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
  {
    int64_t lo, hi;
    sps_omp_part(n, &lo, &hi);
    K->scale_into_two(hi - lo, inv, x + lo, a + lo, b + lo);
  });
}

/* beta <- ||r|| = sqrt(r.r) unscaled, as the CUDA kernel forms it (the solver keeps r in
 * range), g <- beta e_1, j <- 0, the status; v_0 = r/beta into V(:,0) and vcur. */
static sps_status cpu_gmres_start(sps_context *ctx, int64_t n, const double *r, double *V,
                                  double *vcur, sps_gmres_state *S)
{
  double rr;
  SPS_CHECK(cpu_dot(ctx, n, r, r, &rr));
  const double beta = sqrt(rr);
  sps_gmres_open_cycle(S, beta);
  if (S->status != SPS_GMRES_RUNNING) return SPS_SUCCESS;
  cpu_scale_into_two(n, 1.0 / beta, r, V, vcur);
  return SPS_SUCCESS;
}

/*
 * One CGS2 Arnoldi step on column j = S->j: h = V_j^T w, w -= V_j h, h2 = V_j^T w,
 * w -= V_j h2 (V_j = V(:, 0:j)), H(0:j, j) = h + h2, H(j+1, j) = ||w||, v_{j+1} = w/||w||,
 * then the rotations, g and the status (sps_gmres_close_column).
 */
static sps_status cpu_gmres_arnoldi(sps_context *ctx, int64_t n, int m, double *V, int64_t ldv,
                                    double *w, double *vcur, sps_gmres_state *S)
{
  (void)m;
  if (S->status != SPS_GMRES_RUNNING) return SPS_SUCCESS;
  const int j = S->j, nc = j + 1, ldh = S->m + 1;
  double *h = S->H + (int64_t)j * ldh, *h2 = S->work, *col = S->R + (int64_t)j * ldh;
  double ww;
  /* ww = w.w and h = V_j^T w in the same passes over w, through h2 (m+1 >= nc+1 doubles) */
  SPS_CHECK(cpu_gemv_t_cols(ctx, n, 1, nc, V, ldv, w, h2));
  ww = h2[0];
  for (int i = 0; i < nc; i++) h[i] = h2[i + 1];
  S->wnorm = sqrt(ww);
  /* w <- w - V_j h and h2 = V_j^T w in one pass (row tiles); w <- w - V_j h2 and ww = w.w in
   * one more */
  if (nc <= SPS_CPU_DOT_COLS && nc <= SPS_GEMV_CHUNK) {
    SPS_CHECK(cpu_gemv_n_t(ctx, n, nc, V, ldv, h, w, h2));
  } else {
    SPS_CHECK(cpu_gemv_n(ctx, n, nc, -1.0, V, ldv, h, w));
    SPS_CHECK(cpu_gemv_t(ctx, n, nc, V, ldv, w, h2));
  }
  SPS_CHECK(cpu_gemv_n_yy(ctx, n, nc, -1.0, V, ldv, h2, w, &ww));
  for (int i = 0; i < nc; i++) h[i] += h2[i];
  S->hnext = sqrt(ww);
  h[j + 1] = S->hnext;
  for (int i = 0; i <= j + 1; i++) col[i] = h[i];
  sps_gmres_close_column(S, col, S->cs, S->sn);
  if (!S->vnext) return SPS_SUCCESS;
  S->vnext = 0;
  /* v_{j+1} = w / h_{j+1,j} into V(:, j+1) and vcur */
  cpu_scale_into_two(n, 1.0 / S->hnext, w, V + (int64_t)(j + 1) * ldv, vcur);
  return SPS_SUCCESS;
}

/* k = S->j: y <- R_k^-1 g_k by column-oriented back substitution, u <- V_k y. */
static sps_status cpu_gmres_update(sps_context *ctx, int64_t n, int m, const double *V,
                                   int64_t ldv, sps_gmres_state *S, double *u)
{
  (void)m;
  if (S->status == SPS_GMRES_NAN) return SPS_SUCCESS;
  const int k = S->j, ldh = S->m + 1;
  double *y = S->y, *t = S->work;
  for (int i = 0; i < k; i++) t[i] = S->g[i];
  /* for i = k-1 .. 0: y_i = t_i / r_ii; t_l -= r_li y_i (l < i) */
  for (int i = k - 1; i >= 0; i--) {
    const double *ri = S->R + (int64_t)i * ldh;
    double yi = t[i] / ri[i];
    y[i] = yi;
    for (int l = 0; l < i; l++) t[l] -= ri[l] * yi;
  }
  cpu_fill(ctx, n, 0.0, u);
  return cpu_gemv_n(ctx, n, k, 1.0, V, ldv, y, u);
}

/* Flexible GMRES: Z(:, j) <- z for j = S->j, while the cycle runs. */
static sps_status cpu_gmres_store_z(sps_context *ctx, int64_t n, const double *z, double *Z,
                                    int64_t ldz, const sps_gmres_state *S)
{
  (void)ctx;
  if (S->status != SPS_GMRES_RUNNING) return SPS_SUCCESS;
  double *zj = Z + (int64_t)S->j * ldz;
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
  for (int64_t i = 0; i < n; i++)
    zj[i] = z[i];);
  return SPS_SUCCESS;
}

/* sigma <- r0hat.v, alpha <- rho/sigma; s <- r - alpha v, ss <- s.s, the early-exit test. A
 * sigma or alpha that is not finite stops with NAN, sigma = 0 with BREAKDOWN. */
static sps_status cpu_bicgstab_step_a(sps_context *ctx, int64_t n, const double *r0hat,
                                      const double *v, const double *r, double *s,
                                      sps_bicgstab_state *S)
{
  if (S->status != SPS_BICGSTAB_RUNNING) return SPS_SUCCESS;
  double sigma;
  SPS_CHECK(cpu_dot(ctx, n, r0hat, v, &sigma));
  if (!sps_bicgstab_close_alpha(S, sigma)) return SPS_SUCCESS;
  const double alpha = S->alpha;
  sps_csum ss_sum = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : ss_sum)",
  for (int64_t i = 0; i < n; i++) {
    double si = r[i] - alpha * v[i];
    s[i] = si;
    sps_csum_add(&ss_sum, si * si);
  });
  SPS_CHECK(sps_comm_sum(ctx, &ss_sum, 1, NULL, 0));
  sps_bicgstab_close_s(S, sps_csum_value(ss_sum));
  return SPS_SUCCESS;
}

/* omega <- t.s/t.t; x += alpha phat + omega shat; r <- s - omega t; rho, rr, beta, the test.
 * An omega that is not finite stops with NAN before x is touched. */
static sps_status cpu_bicgstab_step_b(sps_context *ctx, int64_t n, const double *t,
                                      const double *s, const double *phat, const double *shat,
                                      const double *r0hat, double *x, double *r,
                                      sps_bicgstab_state *S)
{
  if (S->status != SPS_BICGSTAB_RUNNING) return SPS_SUCCESS;
  const double alpha = S->alpha;
  if (S->half) {
    /* ||s|| passed: x += alpha phat, r <- s */
    SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static)",
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * phat[i];
      r[i] = s[i];
    });
    sps_bicgstab_close_step(S, S->ss, S->rho);
    return SPS_SUCCESS;
  }
  sps_csum ts_sum = sps_csum_zero(), tt_sum = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : ts_sum, tt_sum)",
  for (int64_t i = 0; i < n; i++) {
    sps_csum_add(&ts_sum, t[i] * s[i]);
    sps_csum_add(&tt_sum, t[i] * t[i]);
  });
  sps_csum sums[2] = {ts_sum, tt_sum};
  SPS_CHECK(sps_comm_sum(ctx, sums, 2, NULL, 0));
  if (!sps_bicgstab_close_omega(S, sps_csum_value(sums[0]), sps_csum_value(sums[1])))
    return SPS_SUCCESS;
  const double omega = S->omega;
  sps_csum rho_sum = sps_csum_zero(), rr_sum = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel for schedule(static) reduction(csum : rho_sum, rr_sum)",
  for (int64_t i = 0; i < n; i++) {
    x[i] += alpha * phat[i] + omega * shat[i];
    double ri = s[i] - omega * t[i];
    r[i] = ri;
    sps_csum_add(&rho_sum, r0hat[i] * ri);
    sps_csum_add(&rr_sum, ri * ri);
  });
  sums[0] = rr_sum;
  sums[1] = rho_sum;
  SPS_CHECK(sps_comm_sum(ctx, sums, 2, NULL, 0));
  sps_bicgstab_close_step(S, sps_csum_value(sums[0]), sps_csum_value(sums[1]));
  return SPS_SUCCESS;
}

/* p <- r + beta (p - omega v) */
static sps_status cpu_bicgstab_direction(sps_context *ctx, int64_t n, const double *r,
                                         const double *v, double *p, const sps_bicgstab_state *S)
{
  (void)ctx;
  if (S->status != SPS_BICGSTAB_RUNNING) return SPS_SUCCESS;
  const double beta = S->beta, omega = S->omega;
  const sps_cpu_kernels *K = sps_cpu_kernels_current();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel",
  {
    int64_t lo, hi;
    sps_omp_part(n, &lo, &hi);
    K->bicgstab_direction(hi - lo, beta, omega, r + lo, v + lo, p + lo);
  });
  return SPS_SUCCESS;
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
    .gather = cpu_gather,
    .dot = cpu_dot,
    .nrm2 = cpu_nrm2,
    .dot_store = cpu_dot_store,
    .sumsq_store = cpu_sumsq_store,
    .gemv_t = cpu_gemv_t,
    .gemv_n = cpu_gemv_n,
    .cg_alpha = cpu_cg_alpha,
    .cg_alpha_sum = cpu_cg_alpha_sum,
    .cg_update = cpu_cg_update,
    .cg_rz = cpu_cg_rz,
    .cg_direction = cpu_cg_direction,
    .gmres_workspace = cpu_gmres_workspace,
    .gmres_start = cpu_gmres_start,
    .gmres_arnoldi = cpu_gmres_arnoldi,
    .gmres_update = cpu_gmres_update,
    .gmres_store_z = cpu_gmres_store_z,
    .bicgstab_step_a = cpu_bicgstab_step_a,
    .bicgstab_step_b = cpu_bicgstab_step_b,
    .bicgstab_direction = cpu_bicgstab_direction,
    .dots_local = cpu_dots_local,
    .pipecg_update = cpu_pipecg_update,
    .block = &sps_block_backend_cpu,
};
