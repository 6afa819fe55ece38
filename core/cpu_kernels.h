/* cpu_kernels.h: the CPU backend's vector kernels (core/cpu_simd.h) written once over a vector of SPS_KW doubles; cpu_kernels_generic.c, cpu_kernels_avx2.c and cpu_kernels_avx512.c include it once each to make their table. */
/*
 * The including file defines SPS_KW (doubles per vector: 1, 2, 4 or 8), SPS_KU (vectors of rows
 * gemv_n keeps in flight), SPS_KB (columns of V^T x per pass over x, generic dot_cols) and
 * SPS_KTABLE / SPS_KNAME (the table to define and its name), and compiles the file for the
 * instruction set of that width (a target pragma); a file may define its own k_dot_cols first
 * (SPS_K_DOT_COLS). Vectors are the GCC/Clang vector extension; W = 1 plain doubles.
 *
 * Thread-to-data map within one thread's range (core/cpu_simd.h says why the bits hold):
 *   - gemv_n: a vector holds SPS_KW consecutive rows, SPS_KU vectors side by side; each lane
 *     runs its row's plain sum over j = 0, 1, ... from 0.0, then y + alpha*s; with yy, the new
 *     y_i^2 are added to one compensated sum in the order i;
 *   - dot_cols (generic): a vector holds SPS_KW columns of one row i, SPS_KB columns per pass
 *     over x, the rows in order;
 *   - axpby, scale_into_two, bicgstab_direction: SPS_KW consecutive elements per vector.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "compensated_sum.h"
#include "cpu_simd.h"

/* The loops over the SPS_KU accumulators and the SPS_KB columns are unrolled so that their
 * vectors stay in registers (GCC and Clang read this pragma). */
#define KUNROLL _Pragma("GCC unroll 16")

#if SPS_KW == 1
typedef double kv;
#else
typedef double kv __attribute__((vector_size(SPS_KW * sizeof(double))));
#endif

static inline kv kload(const double *p)
{
  kv v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void kstore(double *p, kv v)
{
  memcpy(p, &v, sizeof v);
}

static inline kv kzero(void)
{
  kv v;
  memset(&v, 0, sizeof v);
  return v;
}

/* (hi, lo) <- (hi, lo) + t in every lane: the operations of sps_csum_add, in its order. */
static inline void kadd(kv *hi, kv *lo, kv t)
{
  const kv sum = *hi + t;
  const kv t_in = sum - *hi;
  const kv hi_in = sum - t_in;
  *lo += (*hi - hi_in) + (t - t_in);
  *hi = sum;
}

#ifndef SPS_K_DOT_COLS
/*
 * (hi[j], lo[j]) continued over rows [0, n): x.x first when with_xx, then V(:, q).x; SPS_KB
 * columns per pass over x, the lanes of a vector holding SPS_KW columns, each lane adding its
 * column's products in the order i = 0, 1, ... (the bits of one column at a time). The x86
 * files define their own, on the same map, with the rows of each column tile transposed into
 * the lanes.
 */
static void k_dot_cols(int64_t n, int k, const double *V, int64_t ldv, const double *x, int with_xx,
                       double *hi_out, double *lo_out)
{
  const int total = k + with_xx;
  for (int c0 = 0; c0 < total; c0 += SPS_KB) {
    const int nb = total - c0 < SPS_KB ? total - c0 : SPS_KB;
    const double *col[SPS_KB];
    for (int b = 0; b < SPS_KB; b++) {
      /* columns past the end repeat the first of the group (their sums are not kept) */
      const int c = c0 + (b < nb ? b : 0);
      col[b] = with_xx && c == 0 ? x : V + (int64_t)(c - with_xx) * ldv;
    }
    kv hi[SPS_KB / SPS_KW], lo[SPS_KB / SPS_KW];
    KUNROLL
    for (int g = 0; g < SPS_KB / SPS_KW; g++) {
      hi[g] = kload(hi_out + c0 + g * SPS_KW);
      lo[g] = kload(lo_out + c0 + g * SPS_KW);
    }
    for (int64_t i = 0; i < n; i++) {
      const double xi = x[i];
      KUNROLL
      for (int g = 0; g < SPS_KB / SPS_KW; g++) {
#if SPS_KW == 1
        const kv a = col[g][i];
#elif SPS_KW == 2
        const kv a = {col[2 * g][i], col[2 * g + 1][i]};
#else
#error "the generic k_dot_cols takes SPS_KW 1 or 2"
#endif
        kadd(&hi[g], &lo[g], a * xi);
      }
    }
    /* the lanes past nb hold the repeated column's sums: write only the columns' own */
    double hs[SPS_KB], ls[SPS_KB];
    for (int g = 0; g < SPS_KB / SPS_KW; g++) {
      kstore(hs + g * SPS_KW, hi[g]);
      kstore(ls + g * SPS_KW, lo[g]);
    }
    for (int b = 0; b < nb; b++) {
      hi_out[c0 + b] = hs[b];
      lo_out[c0 + b] = ls[b];
    }
  }
}
#endif

/* y_i <- y_i + alpha * sum_{j<k} V(i, j) h_j (j in order), then *yy += y_i^2 of the new y_i in
 * the order i = 0, 1, ... (one compensated sum, as cpu_dot adds them). */
static void k_gemv_n(int64_t n, int k, double alpha, const double *V, int64_t ldv, const double *h,
                     double *y, sps_csum *yy)
{
  int64_t i = 0;
  for (; i + SPS_KU * SPS_KW <= n; i += SPS_KU * SPS_KW) {
    kv s[SPS_KU];
    KUNROLL
    for (int u = 0; u < SPS_KU; u++)
      s[u] = kzero();
    for (int j = 0; j < k; j++) {
      const double *v = V + i + (int64_t)j * ldv;
      const double hj = h[j];
      KUNROLL
      for (int u = 0; u < SPS_KU; u++)
        s[u] += kload(v + u * SPS_KW) * hj;
    }
    KUNROLL
    for (int u = 0; u < SPS_KU; u++)
      kstore(y + i + u * SPS_KW, kload(y + i + u * SPS_KW) + alpha * s[u]);
    if (yy)
      for (int l = 0; l < SPS_KU * SPS_KW; l++)
        sps_csum_add(yy, y[i + l] * y[i + l]);
  }
  for (; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < k; j++)
      s += V[i + (int64_t)j * ldv] * h[j];
    y[i] += alpha * s;
    if (yy) sps_csum_add(yy, y[i] * y[i]);
  }
}

/* y <- a*x + b*y; b = 0: y <- a*x (y not read, so NaN in y does not propagate) */
static void k_axpby(int64_t n, double a, const double *x, double b, double *y)
{
  const int64_t nv = n - n % SPS_KW;
  if (b == 0.0) {
    for (int64_t i = 0; i < nv; i += SPS_KW)
      kstore(y + i, a * kload(x + i));
    for (int64_t i = nv; i < n; i++)
      y[i] = a * x[i];
  } else {
    for (int64_t i = 0; i < nv; i += SPS_KW)
      kstore(y + i, a * kload(x + i) + b * kload(y + i));
    for (int64_t i = nv; i < n; i++)
      y[i] = a * x[i] + b * y[i];
  }
}

/* a_i = b_i <- x_i * c */
static void k_scale_into_two(int64_t n, double c, const double *x, double *a, double *b)
{
  const int64_t nv = n - n % SPS_KW;
  for (int64_t i = 0; i < nv; i += SPS_KW) {
    const kv v = kload(x + i) * c;
    kstore(a + i, v);
    kstore(b + i, v);
  }
  for (int64_t i = nv; i < n; i++) {
    const double v = x[i] * c;
    a[i] = v;
    b[i] = v;
  }
}

/* p <- r + beta (p - omega v) */
static void k_bicgstab_direction(int64_t n, double beta, double omega, const double *r,
                                 const double *v, double *p)
{
  const int64_t nv = n - n % SPS_KW;
  for (int64_t i = 0; i < nv; i += SPS_KW)
    kstore(p + i, kload(r + i) + beta * (kload(p + i) - omega * kload(v + i)));
  for (int64_t i = nv; i < n; i++)
    p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

const sps_cpu_kernels SPS_KTABLE = {
    .name = SPS_KNAME,
    .lanes = SPS_KW,
    .dot_cols = k_dot_cols,
    .gemv_n = k_gemv_n,
    .axpby = k_axpby,
    .scale_into_two = k_scale_into_two,
    .bicgstab_direction = k_bicgstab_direction,
};
