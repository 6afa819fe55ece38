/* backend_cpu_block.c: the CPU implementation of the block ops table (core/block_ops.h): per-column vector operations and fused Krylov steps on row-major blocks, with OpenMP over rows. */
#include <math.h>
#include <string.h>

#include "block_ops.h"
#include "compensated_sum.h"
#include "csum_lanes.h"
#include "internal.h"
#include "nrm2_scale.h"

/*
 * Thread-to-data map: OpenMP threads take static chunks of rows; within a row the columns of
 * the block are consecutive doubles, visited in order. Each thread keeps one compensated sum
 * per column and quantity, and merges it into the total under a critical section, as the
 * OpenMP reduction of cpu_dot merges its threads' partial sums: per column the same rounded
 * products go into a compensated sum, so every column has the single-vector step's bits
 * (core/compensated_sum.h: the value does not depend on the order of the terms, bar rare
 * ties). Elementwise updates are the single-vector expressions, rounded alike
 * (-ffp-contract=off).
 */

/* Blocks with fewer entries than this run on one thread. */
#define SPS_BLOCK_OMP_MIN 8192

#define MAXC SPS_BLOCK_MAX_COLS

static int bit(uint64_t mask, int c)
{
  return (int)((mask >> c) & 1u);
}

static uint64_t cg_running(const sps_cg_state *S, int w)
{
  uint64_t m = 0;
  for (int c = 0; c < w; c++)
    if (S[c].status == SPS_CG_RUNNING) m |= (uint64_t)1 << c;
  return m;
}

static uint64_t bicgstab_running(const sps_bicgstab_state *S, int w)
{
  uint64_t m = 0;
  for (int c = 0; c < w; c++)
    if (S[c].status == SPS_BICGSTAB_RUNNING) m |= (uint64_t)1 << c;
  return m;
}

static uint64_t gmres_running(const sps_gmres_state *S, int w)
{
  uint64_t m = 0;
  for (int c = 0; c < w; c++)
    if (S[c].status == SPS_GMRES_RUNNING) m |= (uint64_t)1 << c;
  return m;
}

/* Zero sums for the columns of a block. */
static void csum_clear(sps_csum *s, int w)
{
  for (int c = 0; c < w; c++)
    s[c] = sps_csum_zero();
}

/* The CPU keeps its partial sums on the threads' stacks; the work space holds the Gram-Schmidt
 * coefficients of a GMRES step, m + 2 per column. */
static size_t cpu_block_workspace(sps_context *ctx, int64_t n, int w, int m)
{
  (void)ctx;
  (void)n;
  (void)w;
  return (size_t)(m + 2) * MAXC;
}

static sps_status cpu_copy_cols(sps_context *ctx, int64_t n, int w, const double *src, int64_t lds,
                                const int *scols, double *dst, int64_t ldd, const int *dcols)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++)
      dst[i * ldd + dcols[c]] = src[i * lds + scols[c]];
  return SPS_SUCCESS;
}

static sps_status cpu_block_fill(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                 double a, double *Y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++)
      if (bit(mask, c)) Y[i * ld + c] = a;
  return SPS_SUCCESS;
}

static sps_status cpu_block_scale(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                  const double *f, double *Y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++)
      if (bit(mask, c)) Y[i * ld + c] *= f[c];
  return SPS_SUCCESS;
}

/* Y(:, c) <- a[c] X(:, c) + b[c] Y(:, c), as cpu_axpby: Y is not read where b[c] = 0. */
static sps_status cpu_block_axpby(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                  const double *a, const double *X, const double *b, double *Y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(mask, c)) continue;
      const int64_t e = i * ld + c;
      Y[e] = b[c] == 0.0 ? a[c] * X[e] : a[c] * X[e] + b[c] * Y[e];
    }
  return SPS_SUCCESS;
}

static sps_status cpu_block_pointwise(sps_context *ctx, int64_t n, int w, int64_t ld,
                                      uint64_t mask, const double *d, const double *X, double *Y)
{
  (void)ctx;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++)
      if (bit(mask, c)) Y[i * ld + c] = d[i] * X[i * ld + c];
  return SPS_SUCCESS;
}

/* out[c] <- X(:, c) . Y(:, c) for the columns of mask (compensated, cpu_dot's terms). */
static void cpu_block_dot_sums(int64_t n, int w, int64_t ld, uint64_t mask, const double *X,
                               const double *Y, double *out)
{
  sps_csum tot[MAXC];
  csum_clear(tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum s[MAXC];
    csum_clear(s, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++)
        if (bit(mask, c)) sps_csum_add(&s[c], X[i * ld + c] * Y[i * ld + c]);
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++)
      sps_csum_merge(&tot[c], s[c]);
  }
  for (int c = 0; c < w; c++)
    if (bit(mask, c)) out[c] = sps_csum_value(tot[c]);
}

static sps_status cpu_block_dot(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                const double *X, const double *Y, double *out, double *ws)
{
  (void)ctx;
  (void)ws;
  cpu_block_dot_sums(n, w, ld, mask, X, Y, out);
  return SPS_SUCCESS;
}

/*
 * ||X(:, c)||: the sum of the squares and max |x_i| in one pass, then, for the columns whose
 * max lies outside the safe range, a second pass of (x_i 2^-e)^2 (cpu_nrm2's passes).
 */
static sps_status cpu_block_nrm2(sps_context *ctx, int64_t n, int w, int64_t ld, uint64_t mask,
                                 const double *X, double *out, double *ws)
{
  (void)ctx;
  (void)ws;
  sps_csum tot[MAXC];
  double amax[MAXC];
  int nan[MAXC];
  csum_clear(tot, w);
  for (int c = 0; c < w; c++) {
    amax[c] = 0.0;
    nan[c] = 0;
  }
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum s[MAXC];
    double m[MAXC];
    int bad[MAXC];
    csum_clear(s, w);
    for (int c = 0; c < w; c++) {
      m[c] = 0.0;
      bad[c] = 0;
    }
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        if (!bit(mask, c)) continue;
        const double x = X[i * ld + c], a = fabs(x);
        sps_csum_add(&s[c], x * x);
        if (a > m[c]) m[c] = a;
        if (a != a) bad[c] = 1;
      }
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++) {
      sps_csum_merge(&tot[c], s[c]);
      if (m[c] > amax[c]) amax[c] = m[c];
      nan[c] |= bad[c];
    }
  }
  uint64_t again = 0;
  double scale[MAXC];
  int exps[MAXC];
  for (int c = 0; c < w; c++) {
    if (!bit(mask, c)) continue;
    exps[c] = nan[c] ? 0 : sps_nrm2_scale_exponent(amax[c]);
    if (exps[c] == 0) {
      out[c] = sqrt(sps_csum_value(tot[c]));
    } else {
      again |= (uint64_t)1 << c;
      scale[c] = ldexp(1.0, -exps[c]);
    }
  }
  if (!again) return SPS_SUCCESS;
  /* ||x|| = 2^e ||2^-e x||, the scaling exact */
  csum_clear(tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum s[MAXC];
    csum_clear(s, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        if (!bit(again, c)) continue;
        const double xi = X[i * ld + c] * scale[c];
        sps_csum_add(&s[c], xi * xi);
      }
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++)
      sps_csum_merge(&tot[c], s[c]);
  }
  for (int c = 0; c < w; c++)
    if (bit(again, c)) out[c] = ldexp(sqrt(sps_csum_value(tot[c])), exps[c]);
  return SPS_SUCCESS;
}

/* CG: pq <- p.q per running column; alpha <- rz/pq, or a stop (cpu_cg_alpha per column). */
static sps_status cpu_block_cg_alpha(sps_context *ctx, int64_t n, int w, int64_t ld,
                                     const double *P, const double *Q, sps_cg_state *S,
                                     double *ws)
{
  (void)ctx;
  (void)ws;
  const uint64_t run = cg_running(S, w);
  if (!run) return SPS_SUCCESS;
  double pq[MAXC];
  cpu_block_dot_sums(n, w, ld, run, P, Q, pq);
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    S[c].pq = pq[c];
    if (!isfinite(pq[c])) S[c].status = SPS_CG_NAN;
    else if (pq[c] <= 0.0) S[c].status = SPS_CG_INDEFINITE_MATRIX;
    else S[c].alpha = S[c].rz / pq[c];
  }
  return SPS_SUCCESS;
}

/* CG: x += alpha p; r -= alpha q; z <- dinv .* r; rr, rz and sps_cg_close_update per column
 * (cpu_cg_update per column; deferred columns leave z and rz out). */
static sps_status cpu_block_cg_update(sps_context *ctx, int64_t n, int w, int64_t ld,
                                      const double *P, const double *Q, const double *dinv,
                                      double *X, double *R, double *Z, sps_cg_state *S,
                                      double *ws)
{
  (void)ctx;
  (void)ws;
  const uint64_t run = cg_running(S, w);
  if (!run) return SPS_SUCCESS;
  double alpha[MAXC];
  uint64_t with_z = 0;
  for (int c = 0; c < w; c++) {
    alpha[c] = S[c].alpha;
    if (bit(run, c) && dinv && !S[c].deferred) with_z |= (uint64_t)1 << c;
  }
  sps_csum rr_tot[MAXC], rz_tot[MAXC];
  csum_clear(rr_tot, w);
  csum_clear(rz_tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum rr[MAXC], rz[MAXC];
    csum_clear(rr, w);
    csum_clear(rz, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        if (!bit(run, c)) continue;
        const int64_t e = i * ld + c;
        X[e] += alpha[c] * P[e];
        double ri = R[e] - alpha[c] * Q[e];
        R[e] = ri;
        sps_csum_add(&rr[c], ri * ri);
        if (bit(with_z, c)) {
          Z[e] = dinv[i] * ri;
          sps_csum_add(&rz[c], ri * Z[e]);
        }
      }
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++) {
      sps_csum_merge(&rr_tot[c], rr[c]);
      sps_csum_merge(&rz_tot[c], rz[c]);
    }
  }
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    const double rrv = sps_csum_value(rr_tot[c]);
    sps_cg_close_update(&S[c], rrv, bit(with_z, c) ? sps_csum_value(rz_tot[c]) : rrv);
  }
  return SPS_SUCCESS;
}

/* CG, deferred mode: rz <- r.z, beta, the indefiniteness test (cpu_cg_rz per column). */
static sps_status cpu_block_cg_rz(sps_context *ctx, int64_t n, int w, int64_t ld,
                                  const double *R, const double *Z, sps_cg_state *S, double *ws)
{
  (void)ctx;
  (void)ws;
  const uint64_t run = cg_running(S, w);
  if (!run) return SPS_SUCCESS;
  double rz[MAXC];
  cpu_block_dot_sums(n, w, ld, run, R, Z, rz);
  for (int c = 0; c < w; c++)
    if (bit(run, c)) sps_cg_close_rz(&S[c], rz[c]);
  return SPS_SUCCESS;
}

/* CG: p <- z + beta p per running column (cpu_axpby's expression). */
static sps_status cpu_block_cg_direction(sps_context *ctx, int64_t n, int w, int64_t ld,
                                         const double *Z, double *P, const sps_cg_state *S)
{
  (void)ctx;
  const uint64_t run = cg_running(S, w);
  if (!run) return SPS_SUCCESS;
  double beta[MAXC];
  for (int c = 0; c < w; c++)
    beta[c] = S[c].beta;
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(run, c)) continue;
      const int64_t e = i * ld + c;
      P[e] = beta[c] == 0.0 ? 1.0 * Z[e] : 1.0 * Z[e] + beta[c] * P[e];
    }
  return SPS_SUCCESS;
}

/* BiCGSTAB step A per running column (cpu_bicgstab_step_a): sigma, alpha, s, ss, half. */
static sps_status cpu_block_bicgstab_step_a(sps_context *ctx, int64_t n, int w, int64_t ld,
                                            const double *RHAT, const double *V, const double *R,
                                            double *SV, sps_bicgstab_state *S, double *ws)
{
  (void)ctx;
  (void)ws;
  uint64_t run = bicgstab_running(S, w);
  if (!run) return SPS_SUCCESS;
  double sigma[MAXC], alpha[MAXC];
  cpu_block_dot_sums(n, w, ld, run, RHAT, V, sigma);
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    S[c].sigma = sigma[c];
    if (!isfinite(sigma[c])) {
      S[c].status = SPS_BICGSTAB_NAN;
    } else if (sigma[c] == 0.0) {
      S[c].status = SPS_BICGSTAB_BREAKDOWN;
    } else {
      alpha[c] = S[c].rho / sigma[c];
      S[c].alpha = alpha[c];
      if (!isfinite(alpha[c])) S[c].status = SPS_BICGSTAB_NAN;
    }
    if (S[c].status != SPS_BICGSTAB_RUNNING) run &= ~((uint64_t)1 << c);
  }
  if (!run) return SPS_SUCCESS;
  sps_csum ss_tot[MAXC];
  csum_clear(ss_tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum ss[MAXC];
    csum_clear(ss, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        if (!bit(run, c)) continue;
        const int64_t e = i * ld + c;
        double si = R[e] - alpha[c] * V[e];
        SV[e] = si;
        sps_csum_add(&ss[c], si * si);
      }
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++)
      sps_csum_merge(&ss_tot[c], ss[c]);
  }
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    const double ssv = sps_csum_value(ss_tot[c]);
    S[c].ss = ssv;
    if (!isfinite(ssv)) S[c].status = SPS_BICGSTAB_NAN;
    else if (ssv <= S[c].tol2) S[c].half = 1;
  }
  return SPS_SUCCESS;
}

/* BiCGSTAB step B per running column (cpu_bicgstab_step_b): omega, x, r, rho, rr, the test. */
static sps_status cpu_block_bicgstab_step_b(sps_context *ctx, int64_t n, int w, int64_t ld,
                                            const double *T, const double *SV, const double *PHAT,
                                            const double *SHAT, const double *RHAT, double *X,
                                            double *R, sps_bicgstab_state *S, double *ws)
{
  (void)ctx;
  (void)ws;
  const uint64_t run = bicgstab_running(S, w);
  if (!run) return SPS_SUCCESS;
  uint64_t half = 0, full = 0;
  for (int c = 0; c < w; c++)
    if (bit(run, c)) {
      if (S[c].half)
        half |= (uint64_t)1 << c;
      else
        full |= (uint64_t)1 << c;
    }
  double alpha[MAXC], omega[MAXC];
  for (int c = 0; c < w; c++) {
    alpha[c] = S[c].alpha;
    omega[c] = 0.0;
  }
  if (full) {
    sps_csum ts_tot[MAXC], tt_tot[MAXC];
    csum_clear(ts_tot, w);
    csum_clear(tt_tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
    {
      sps_csum ts[MAXC], tt[MAXC];
      csum_clear(ts, w);
      csum_clear(tt, w);
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < w; c++) {
          if (!bit(full, c)) continue;
          const int64_t e = i * ld + c;
          sps_csum_add(&ts[c], T[e] * SV[e]);
          sps_csum_add(&tt[c], T[e] * T[e]);
        }
#pragma omp critical(sps_cpu_block_sums)
      for (int c = 0; c < w; c++) {
        sps_csum_merge(&ts_tot[c], ts[c]);
        sps_csum_merge(&tt_tot[c], tt[c]);
      }
    }
    for (int c = 0; c < w; c++) {
      if (!bit(full, c)) continue;
      const double tsv = sps_csum_value(ts_tot[c]), ttv = sps_csum_value(tt_tot[c]);
      S[c].ts = tsv;
      S[c].tt = ttv;
      omega[c] = ttv != 0.0 ? tsv / ttv : 0.0;
      S[c].omega = omega[c];
      if (!isfinite(omega[c])) {
        S[c].status = SPS_BICGSTAB_NAN;
        full &= ~((uint64_t)1 << c);
      }
    }
  }
  sps_csum rho_tot[MAXC], rr_tot[MAXC];
  csum_clear(rho_tot, w);
  csum_clear(rr_tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum rho[MAXC], rr[MAXC];
    csum_clear(rho, w);
    csum_clear(rr, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        const int64_t e = i * ld + c;
        if (bit(half, c)) {
          /* ||s|| passed: x += alpha phat, r <- s */
          X[e] += alpha[c] * PHAT[e];
          R[e] = SV[e];
        } else if (bit(full, c)) {
          X[e] += alpha[c] * PHAT[e] + omega[c] * SHAT[e];
          double ri = SV[e] - omega[c] * T[e];
          R[e] = ri;
          sps_csum_add(&rho[c], RHAT[e] * ri);
          sps_csum_add(&rr[c], ri * ri);
        }
      }
#pragma omp critical(sps_cpu_block_sums)
    for (int c = 0; c < w; c++) {
      sps_csum_merge(&rho_tot[c], rho[c]);
      sps_csum_merge(&rr_tot[c], rr[c]);
    }
  }
  for (int c = 0; c < w; c++) {
    if (bit(half, c))
      sps_bicgstab_close_step(&S[c], S[c].ss, S[c].rho);
    else if (bit(full, c))
      sps_bicgstab_close_step(&S[c], sps_csum_value(rr_tot[c]), sps_csum_value(rho_tot[c]));
  }
  return SPS_SUCCESS;
}

/* BiCGSTAB: p <- r + beta (p - omega v) per running column. */
static sps_status cpu_block_bicgstab_direction(sps_context *ctx, int64_t n, int w, int64_t ld,
                                               const double *R, const double *V, double *P,
                                               const sps_bicgstab_state *S)
{
  (void)ctx;
  const uint64_t run = bicgstab_running(S, w);
  if (!run) return SPS_SUCCESS;
  double beta[MAXC], omega[MAXC];
  for (int c = 0; c < w; c++) {
    beta[c] = S[c].beta;
    omega[c] = S[c].omega;
  }
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(run, c)) continue;
      const int64_t e = i * ld + c;
      P[e] = R[e] + beta[c] * (P[e] - omega[c] * V[e]);
    }
  return SPS_SUCCESS;
}

/* GMRES: beta <- sqrt(r.r), the cycle opened, v_0 = r/beta into block 0 and VCUR (as
 * cpu_gmres_start per column of mask). */
static sps_status cpu_block_gmres_start(sps_context *ctx, int64_t n, int w, int64_t ld,
                                        uint64_t mask, const double *R, double *V, double *VCUR,
                                        sps_gmres_state *S, double *ws)
{
  (void)ctx;
  (void)ws;
  double rr[MAXC], inv[MAXC];
  cpu_block_dot_sums(n, w, ld, mask, R, R, rr);
  uint64_t run = 0;
  for (int c = 0; c < w; c++) {
    if (!bit(mask, c)) continue;
    const double beta = sqrt(rr[c]);
    sps_gmres_open_cycle(&S[c], beta);
    if (S[c].status == SPS_GMRES_RUNNING) {
      run |= (uint64_t)1 << c;
      inv[c] = 1.0 / beta;
    }
  }
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(run, c)) continue;
      const int64_t e = i * ld + c;
      const double v = R[e] * inv[c];
      V[e] = v;
      VCUR[e] = v;
    }
  return SPS_SUCCESS;
}

#define GS_GROUP 4

/* cpu_block_gs_dots when every column of the block runs at the same j = jmax (the usual case:
 * the columns start their cycles together): no per-column tests, and columns c, c+1 in the
 * two lanes of a vector (csum_lanes.h: each lane sps_csum_add's operations on its own sum). */
static void gs_dots_uniform(int64_t n, int w, int64_t ld, int jmax, const double *V,
                            int64_t vstride, const double *W, int with_ww, double *out)
{
  const int nl = jmax + 1 + with_ww;
  for (int l0 = 0; l0 < nl; l0 += GS_GROUP) {
    const int nq = nl - l0 < GS_GROUP ? nl - l0 : GS_GROUP;
    const double *B[GS_GROUP];
    for (int q = 0; q < nq; q++)
      B[q] = l0 + q <= jmax ? V + (int64_t)(l0 + q) * vstride : W;
    sps_csum tot[GS_GROUP][MAXC];
    for (int q = 0; q < nq; q++)
      csum_clear(tot[q], w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
    {
      sps_csum s[GS_GROUP][MAXC];
      for (int q = 0; q < nq; q++)
        csum_clear(s[q], w);
#ifdef SPS_CSUM_LANES
      const int wp = w & ~1;
      sps_lanes hi[GS_GROUP][MAXC / 2], lo[GS_GROUP][MAXC / 2];
      for (int q = 0; q < nq; q++)
        for (int p = 0; p < wp / 2; p++) {
          hi[q][p] = (sps_lanes){0.0, 0.0};
          lo[q][p] = (sps_lanes){0.0, 0.0};
        }
#else
      const int wp = 0;
#endif
#ifdef SPS_CSUM_LANES
      if (w == 1 && nq == GS_GROUP) {
        /* one column: basis blocks l0, l0+1 and l0+2, l0+3 in the lanes instead */
        sps_lanes h01 = {0.0, 0.0}, l01 = {0.0, 0.0}, h23 = {0.0, 0.0}, l23 = {0.0, 0.0};
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) {
          const int64_t e = i * ld;
          const sps_lanes wv = {W[e], W[e]};
          const sps_lanes v01 = {B[0][e], B[1][e]}, v23 = {B[2][e], B[3][e]};
          sps_lanes_add(&h01, &l01, v01 * wv);
          sps_lanes_add(&h23, &l23, v23 * wv);
        }
        sps_csum t[4];
        sps_lanes_store(h01, l01, t);
        sps_lanes_store(h23, l23, t + 2);
        for (int q = 0; q < GS_GROUP; q++)
          s[q][0] = t[q];
      } else
#endif
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < n; i++) {
        const double *wr = W + i * ld;
        for (int q = 0; q < nq; q++) {
          const double *vr = B[q] + i * ld;
#ifdef SPS_CSUM_LANES
          for (int c = 0; c < wp; c += 2) {
            const sps_lanes a = {vr[c], vr[c + 1]}, b = {wr[c], wr[c + 1]};
            sps_lanes_add(&hi[q][c / 2], &lo[q][c / 2], a * b);
          }
#endif
          for (int c = wp; c < w; c++)
            sps_csum_add(&s[q][c], vr[c] * wr[c]);
        }
      }
#ifdef SPS_CSUM_LANES
      for (int q = 0; q < nq; q++)
        for (int c = 0; c < wp; c += 2)
          sps_lanes_store(hi[q][c / 2], lo[q][c / 2], &s[q][c]);
#endif
#pragma omp critical(sps_cpu_block_sums)
      for (int q = 0; q < nq; q++)
        for (int c = 0; c < w; c++)
          sps_csum_merge(&tot[q][c], s[q][c]);
    }
    for (int q = 0; q < nq; q++) {
      double part[MAXC];
      for (int c = 0; c < w; c++)
        part[c] = sps_csum_value(tot[q][c]);
      for (int c = w; c < MAXC; c++)
        part[c] = 0.0;
      memcpy(out + (int64_t)(l0 + q) * MAXC, part, sizeof part);
    }
  }
}

/*
 * out[l*MAXC + c] <- V_l(:, c) . W(:, c) for l <= j[c], and W(:, c) . W(:, c) at l = j[c]+1
 * when with_ww: the dots of one CGS pass (cpu_gemv_t_cols per column: cpu_dot's bits). One
 * pass over the rows per GS_GROUP basis blocks, whose sums advance side by side (independent
 * chains for the adders; each sum still takes its terms in row order); out holds
 * (jmax + 2) x MAXC doubles.
 */
static void cpu_block_gs_dots(int64_t n, int w, int64_t ld, uint64_t run, const int *j, int jmax,
                              const double *V, int64_t vstride, const double *W, int with_ww,
                              double *out)
{
  const uint64_t full = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
  int uniform = run == full;
  for (int c = 0; uniform && c < w; c++)
    uniform = j[c] == jmax;
  if (uniform) {
    gs_dots_uniform(n, w, ld, jmax, V, vstride, W, with_ww, out);
    return;
  }
  const int nl = jmax + 1 + with_ww;
  for (int l0 = 0; l0 < nl; l0 += GS_GROUP) {
    const int nq = nl - l0 < GS_GROUP ? nl - l0 : GS_GROUP;
    uint64_t cols[GS_GROUP] = {0}, any = 0;
    for (int q = 0; q < nq; q++) {
      const int l = l0 + q;
      for (int c = 0; c < w; c++)
        if (bit(run, c) && (l <= j[c] || (with_ww && l == j[c] + 1))) cols[q] |= (uint64_t)1 << c;
      any |= cols[q];
    }
    if (!any) continue;
    sps_csum tot[GS_GROUP][MAXC];
    for (int q = 0; q < nq; q++)
      csum_clear(tot[q], w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
    {
      sps_csum s[GS_GROUP][MAXC];
      for (int q = 0; q < nq; q++)
        csum_clear(s[q], w);
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < w; c++) {
          if (!bit(any, c)) continue;
          const int64_t e = i * ld + c;
          const double wi = W[e];
          for (int q = 0; q < nq; q++) {
            if (!bit(cols[q], c)) continue;
            const int l = l0 + q;
            sps_csum_add(&s[q][c], l <= j[c] ? V[(int64_t)l * vstride + e] * wi : wi * wi);
          }
        }
#pragma omp critical(sps_cpu_block_sums)
      for (int q = 0; q < nq; q++)
        for (int c = 0; c < w; c++)
          sps_csum_merge(&tot[q][c], s[q][c]);
    }
    for (int q = 0; q < nq; q++) {
      double part[MAXC];
      for (int c = 0; c < w; c++)
        part[c] = bit(cols[q], c) ? sps_csum_value(tot[q][c]) : 0.0;
      for (int c = w; c < MAXC; c++)
        part[c] = 0.0;
      memcpy(out + (int64_t)(l0 + q) * MAXC, part, sizeof part);
    }
  }
}

/* W(:, c) <- W(:, c) - V_j(c) h_c for each column of run, h_c = coef[l*MAXC + c]: the row sum
 * in plain arithmetic over l = 0..j[c] (cpu_gemv_n with alpha = -1). With ww, also the
 * compensated W(:, c).W(:, c) of the new W into ww[c]. */
static void cpu_block_gs_correct(int64_t n, int w, int64_t ld, uint64_t run, const int *j,
                                 const double *V, int64_t vstride, const double *coef, double *W,
                                 double *ww)
{
  sps_csum tot[MAXC];
  csum_clear(tot, w);
#pragma omp parallel if (n * w > SPS_BLOCK_OMP_MIN)
  {
    sps_csum s2[MAXC];
    csum_clear(s2, w);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        if (!bit(run, c)) continue;
        const int64_t e = i * ld + c;
        double s = 0.0;
        for (int l = 0; l <= j[c]; l++)
          s += V[(int64_t)l * vstride + e] * coef[(int64_t)l * MAXC + c];
        W[e] += -1.0 * s;
        if (ww) sps_csum_add(&s2[c], W[e] * W[e]);
      }
    if (ww) {
#pragma omp critical(sps_cpu_block_sums)
      for (int c = 0; c < w; c++)
        sps_csum_merge(&tot[c], s2[c]);
    }
  }
  if (ww)
    for (int c = 0; c < w; c++)
      if (bit(run, c)) ww[c] = sps_csum_value(tot[c]);
}

/*
 * One CGS2 Arnoldi step on every running column at its own j (cpu_gmres_arnoldi per column):
 * h = V_j^T w and w.w, w -= V_j h, h2 = V_j^T w, w -= V_j h2 and w.w, H(0:j, j) = h + h2,
 * H(j+1, j) = ||w||, the column closed (sps_gmres_close_column), v_{j+1} = w/||w|| into block
 * j+1 and VCUR.
 */
static sps_status cpu_block_gmres_arnoldi(sps_context *ctx, int64_t n, int w, int64_t ld, int m,
                                          double *V, int64_t vstride, double *W, double *VCUR,
                                          sps_gmres_state *S, double *ws)
{
  (void)ctx;
  (void)m;
  const uint64_t run = gmres_running(S, w);
  if (!run) return SPS_SUCCESS;
  int j[MAXC], jmax = 0;
  for (int c = 0; c < w; c++) {
    j[c] = S[c].j;
    if (bit(run, c) && j[c] > jmax) jmax = j[c];
  }
  /* The coefficients of a pass, (jmax + 2) x MAXC, in the work space (m + 2 rows). */
  double *hbuf = ws;
  /* h = V_j^T w and w.w */
  cpu_block_gs_dots(n, w, ld, run, j, jmax, V, vstride, W, 1, hbuf);
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    const int ldh = S[c].m + 1;
    double *h = S[c].H + (int64_t)j[c] * ldh;
    for (int l = 0; l <= j[c]; l++)
      h[l] = hbuf[(int64_t)l * MAXC + c];
    S[c].wnorm = sqrt(hbuf[(int64_t)(j[c] + 1) * MAXC + c]);
  }
  /* w <- w - V_j h */
  cpu_block_gs_correct(n, w, ld, run, j, V, vstride, hbuf, W, NULL);
  /* h2 = V_j^T w; w <- w - V_j h2 */
  cpu_block_gs_dots(n, w, ld, run, j, jmax, V, vstride, W, 0, hbuf);
  double ww[MAXC];
  cpu_block_gs_correct(n, w, ld, run, j, V, vstride, hbuf, W, ww);
  uint64_t vnext = 0;
  double inv[MAXC];
  for (int c = 0; c < w; c++) {
    if (!bit(run, c)) continue;
    sps_gmres_state *Sc = &S[c];
    const int ldh = Sc->m + 1, jc = j[c];
    double *h = Sc->H + (int64_t)jc * ldh, *col = Sc->R + (int64_t)jc * ldh;
    for (int l = 0; l <= jc; l++)
      h[l] += hbuf[(int64_t)l * MAXC + c];
    Sc->hnext = sqrt(ww[c]);
    h[jc + 1] = Sc->hnext;
    for (int l = 0; l <= jc + 1; l++)
      col[l] = h[l];
    sps_gmres_close_column(Sc, col, Sc->cs, Sc->sn);
    if (Sc->vnext) {
      Sc->vnext = 0;
      vnext |= (uint64_t)1 << c;
      inv[c] = 1.0 / Sc->hnext;
    }
  }
  if (!vnext) return SPS_SUCCESS;
  /* v_{j+1} = w / h_{j+1,j} into block j+1 and VCUR */
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(vnext, c)) continue;
      const int64_t e = i * ld + c;
      const double v = W[e] * inv[c];
      V[(int64_t)(j[c] + 1) * vstride + e] = v;
      VCUR[e] = v;
    }
  return SPS_SUCCESS;
}

/* GMRES: y <- R_k^-1 g_k by column-oriented back substitution, U(:, c) <- V_k y, per column
 * of mask (cpu_gmres_update per column; U is not touched for a column at NAN). */
static sps_status cpu_block_gmres_update(sps_context *ctx, int64_t n, int w, int64_t ld, int m,
                                         uint64_t mask, const double *V, int64_t vstride,
                                         sps_gmres_state *S, double *U)
{
  (void)ctx;
  (void)m;
  uint64_t cols = 0;
  int k[MAXC];
  for (int c = 0; c < w; c++) {
    if (!bit(mask, c) || S[c].status == SPS_GMRES_NAN) continue;
    cols |= (uint64_t)1 << c;
    sps_gmres_state *Sc = &S[c];
    const int kc = Sc->j, ldh = Sc->m + 1;
    k[c] = kc;
    double *y = Sc->y, *t = Sc->work;
    for (int i = 0; i < kc; i++)
      t[i] = Sc->g[i];
    /* for i = k-1 .. 0: y_i = t_i / r_ii; t_l -= r_li y_i (l < i) */
    for (int i = kc - 1; i >= 0; i--) {
      const double *ri = Sc->R + (int64_t)i * ldh;
      double yi = t[i] / ri[i];
      y[i] = yi;
      for (int l = 0; l < i; l++)
        t[l] -= ri[l] * yi;
    }
  }
  if (!cols) return SPS_SUCCESS;
  /* u <- 0 + 1 * (V_k y), the row sum in plain arithmetic (cpu_fill then cpu_gemv_n) */
#pragma omp parallel for schedule(static) if (n * w > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      if (!bit(cols, c)) continue;
      const int64_t e = i * ld + c;
      const double *y = S[c].y;
      double s = 0.0;
      for (int l = 0; l < k[c]; l++)
        s += V[(int64_t)l * vstride + e] * y[l];
      U[e] = 0.0;
      U[e] += 1.0 * s;
    }
  return SPS_SUCCESS;
}

/*
 * G[p + q*a] <- X(:, p) . Y(:, q): one compensated sum per entry. Threads take static chunks of
 * rows and keep a sum per entry (a*b of them, at most 64 x 64: 64 KiB on the thread's stack),
 * adding row i's products for every entry before row i + 1, so each row of X and Y is read
 * once; the threads' sums merge as the other reductions' do.
 */
static sps_status cpu_block_gram(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X,
                                 int b, const double *Y, double *G, double *ws)
{
  (void)ctx;
  (void)ws;
  const int ab = a * b;
  sps_csum tot[MAXC * MAXC];
  csum_clear(tot, ab);
#pragma omp parallel if (n * ab > SPS_BLOCK_OMP_MIN)
  {
    sps_csum s[MAXC * MAXC];
    csum_clear(s, ab);
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; i++) {
      const double *x = X + i * ld, *y = Y + i * ld;
      for (int q = 0; q < b; q++) {
        const double yq = y[q];
        sps_csum *sq = s + (int64_t)q * a;
        for (int p = 0; p < a; p++) sps_csum_add(&sq[p], x[p] * yq);
      }
    }
#pragma omp critical(sps_cpu_block_sums)
    for (int e = 0; e < ab; e++) sps_csum_merge(&tot[e], s[e]);
  }
  for (int e = 0; e < ab; e++) G[e] = sps_csum_value(tot[e]);
  return SPS_SUCCESS;
}

/* Y(:, q) <- beta Y(:, q) + X C(:, q) for the q in mask; each sum over p in order (four
 * columns' sums side by side: independent chains, each in its own order). */
static sps_status cpu_block_gemm(sps_context *ctx, int64_t n, int64_t ld, int a, const double *X,
                                 int b, uint64_t mask, const double *C, double beta, double *Y,
                                 double *ws)
{
  (void)ctx;
  (void)ws;
#pragma omp parallel for schedule(static) if (n * b > SPS_BLOCK_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    const double *x = X + i * ld;
    for (int q0 = 0; q0 < b; q0 += 4) {
      const int nq = b - q0 < 4 ? b - q0 : 4;
      double s[4] = {0.0, 0.0, 0.0, 0.0};
      for (int p = 0; p < a; p++)
        for (int t = 0; t < nq; t++) s[t] += x[p] * C[p + (int64_t)(q0 + t) * a];
      for (int t = 0; t < nq; t++) {
        const int q = q0 + t;
        if (!bit(mask, q)) continue;
        const int64_t e = i * ld + q;
        Y[e] = beta == 0.0 ? s[t] : beta * Y[e] + s[t];
      }
    }
  }
  return SPS_SUCCESS;
}

const sps_block_backend sps_block_backend_cpu = {
    .workspace = cpu_block_workspace,
    .copy_cols = cpu_copy_cols,
    .fill = cpu_block_fill,
    .scale = cpu_block_scale,
    .axpby = cpu_block_axpby,
    .pointwise = cpu_block_pointwise,
    .dot = cpu_block_dot,
    .nrm2 = cpu_block_nrm2,
    .cg_alpha = cpu_block_cg_alpha,
    .cg_update = cpu_block_cg_update,
    .cg_rz = cpu_block_cg_rz,
    .cg_direction = cpu_block_cg_direction,
    .bicgstab_step_a = cpu_block_bicgstab_step_a,
    .bicgstab_step_b = cpu_block_bicgstab_step_b,
    .bicgstab_direction = cpu_block_bicgstab_direction,
    .gmres_start = cpu_block_gmres_start,
    .gmres_arnoldi = cpu_block_gmres_arnoldi,
    .gmres_update = cpu_block_gmres_update,
    .gram = cpu_block_gram,
    .gemm = cpu_block_gemm,
};
