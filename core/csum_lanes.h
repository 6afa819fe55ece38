/* csum_lanes.h: the TwoSum of compensated_sum.h on two independent sums at once (a 16-byte vector of the GCC and Clang extensions), for CPU loops that run several sums side by side. */
#ifndef SPS_CORE_CSUM_LANES_H
#define SPS_CORE_CSUM_LANES_H

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

#endif /* SPS_CORE_CSUM_LANES_H */
