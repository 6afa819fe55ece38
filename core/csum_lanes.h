/* csum_lanes.h: the TwoSum of compensated_sum.h on two independent sums at once (a 16-byte vector of the GCC and Clang extensions), for CPU loops that run several sums side by side; and one sum run as four interleaved chains (sps_csum4). */
#ifndef SPS_CORE_CSUM_LANES_H
#define SPS_CORE_CSUM_LANES_H

#include <stdint.h>

#include "compensated_sum.h"

/*
 * Each lane performs exactly the operations of sps_csum_add, in the same order, on its own sum:
 * vector additions and multiplications are the elementwise IEEE operations, rounded as the
 * scalar ones (no contraction: the library is compiled with -ffp-contract=off). A sum's bits
 * therefore do not depend on whether it ran in a lane or alone; what the lanes buy is
 * independent chains of additions, so a loop runs at the adders' throughput rather than at
 * the latency of one addition per term. 16 bytes is one SSE2 or NEON register on every
 * 64-bit target we build for, so the lanes stay in registers without -march flags (a 32-byte
 * vector is split and spilled to the stack by GCC 12 at -O2 without AVX). Compilers without
 * the extension get SPS_CSUM_LANES undefined and the callers' scalar loops.
 */
#if defined(__GNUC__)
#define SPS_CSUM_LANES 2
typedef double sps_lanes __attribute__((vector_size(2 * sizeof(double))));

/* (hi, lo) <- (hi, lo) + t on each lane, as sps_csum_add does. */
static inline void sps_lanes_add(sps_lanes *hi, sps_lanes *lo, sps_lanes t)
{
  const sps_lanes sum = *hi + t;
  const sps_lanes t_in = sum - *hi;   /* the part of t that reached sum */
  const sps_lanes hi_in = sum - t_in; /* the part of hi that reached sum */
  *lo += (*hi - hi_in) + (t - t_in);
  *hi = sum;
}

/* The two lanes' sums as sps_csum. */
static inline void sps_lanes_store(sps_lanes hi, sps_lanes lo, sps_csum *s)
{
  s[0].hi = hi[0];
  s[0].lo = lo[0];
  s[1].hi = hi[1];
  s[1].lo = lo[1];
}
#endif

/*
 * One compensated sum run as four interleaved ones: term k of a run goes to sum k mod 4 (the
 * lanes of two vectors, or four scalar sums without the extension), and the four merge at the
 * end, 0 with 1, 2 with 3, then the two. The four chains of additions are independent, so a
 * loop adds at the adders' throughput instead of one addition's latency per term. Their hi
 * and lo differ from one chain's, but not the rounded value: the bound of compensated_sum.h
 * holds for any tree of merges, so the sum rounds to the correctly rounded sum of its terms,
 * as one chain does, except within about n^2 u^2 sum |t_k| of a rounding boundary. Where the
 * terms cancel, that band is wide enough to be met (core/cpu_simd.h), so only sums of terms
 * of one sign (squares) run this way.
 */
typedef struct sps_csum4 {
#ifdef SPS_CSUM_LANES
  sps_lanes hi[2], lo[2];
#else
  sps_csum s[4];
#endif
} sps_csum4;

static inline void sps_csum4_zero(sps_csum4 *a)
{
#ifdef SPS_CSUM_LANES
  const sps_lanes z = {0.0, 0.0};
  a->hi[0] = a->hi[1] = a->lo[0] = a->lo[1] = z;
#else
  for (int l = 0; l < 4; l++) a->s[l] = sps_csum_zero();
#endif
}

/* The sums 0..3 <- themselves + t0..t3. */
static inline void sps_csum4_add(sps_csum4 *a, double t0, double t1, double t2, double t3)
{
#ifdef SPS_CSUM_LANES
  const sps_lanes u = {t0, t1}, v = {t2, t3};
  sps_lanes_add(&a->hi[0], &a->lo[0], u);
  sps_lanes_add(&a->hi[1], &a->lo[1], v);
#else
  sps_csum_add(&a->s[0], t0);
  sps_csum_add(&a->s[1], t1);
  sps_csum_add(&a->s[2], t2);
  sps_csum_add(&a->s[3], t3);
#endif
}

/* The four sums merged into one: (0 + 1) + (2 + 3). */
static inline sps_csum sps_csum4_value(const sps_csum4 *a)
{
  sps_csum s[4];
#ifdef SPS_CSUM_LANES
  sps_lanes_store(a->hi[0], a->lo[0], s);
  sps_lanes_store(a->hi[1], a->lo[1], s + 2);
#else
  for (int l = 0; l < 4; l++) s[l] = a->s[l];
#endif
  sps_csum_merge(&s[0], s[1]);
  sps_csum_merge(&s[2], s[3]);
  sps_csum_merge(&s[0], s[2]);
  return s[0];
}

/* The sum of squares of x[0..n): x_i^2 into sum i mod 4 for i < n - n % 4, merged, then the
 * last n % 4 in order. Only for sums whose terms cannot cancel (core/cpu_simd.h). */
static inline sps_csum sps_sumsq4(int64_t n, const double *x)
{
  sps_csum4 acc;
  sps_csum4_zero(&acc);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    sps_csum4_add(&acc, x[i] * x[i], x[i + 1] * x[i + 1], x[i + 2] * x[i + 2], x[i + 3] * x[i + 3]);
  sps_csum s = sps_csum4_value(&acc);
  for (; i < n; i++) sps_csum_add(&s, x[i] * x[i]);
  return s;
}

#endif /* SPS_CORE_CSUM_LANES_H */
