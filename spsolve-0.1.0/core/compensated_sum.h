/* compensated_sum.h: sums carried in two doubles (Knuth's TwoSum), shared by C and CUDA code, so that every reduction of the library rounds to the same double whatever the order of its terms. */
#ifndef SPS_CORE_COMPENSATED_SUM_H
#define SPS_CORE_COMPENSATED_SUM_H

#include <math.h>

#ifdef __CUDACC__
#define SPS_CSUM_FN static inline __host__ __device__
#else
#define SPS_CSUM_FN static inline
#endif

/*
 * Why: the CPU backend adds a dot product's terms in OpenMP chunks, a GPU kernel in warps,
 * blocks and a last-block pass, and the SpMV variants add a row's terms in different orders
 * (csr-scalar left to right, csr-vector and blockwise by lanes and trees). Plain sums in
 * different orders round differently, and on ill-conditioned systems the difference grows
 * into different Krylov iterates and iteration counts. Summed this way, the result is the
 * correctly rounded sum of the terms except when that sum lies within about n^2 u^2 sum|t_k|
 * of a rounding boundary, so the CPU and the GPU, and every SpMV variant, agree to the bit
 * in all but rare cases.
 *
 * The math: TwoSum(a, b) gives s = fl(a + b) and e = (a + b) - s exactly, with six rounded
 * additions and no branch (Knuth, TAOCP vol. 2, 4.2.2); Fast2Sum gives the same e in three
 * once |a| >= |b| (Dekker 1971). A sum keeps hi, the plain rounded
 * running sum, and lo, the sum of the exact errors of its additions. After n terms
 * |fl(hi + lo) - S| <= u|S| + gamma_{n-1}^2 sum|t_k| (Ogita, Rump and Oishi, SIAM J. Sci.
 * Comput. 26 (2005), Sum2): the result is as if summed in twice the working precision and
 * rounded once. Two partial sums merge by TwoSum of their hi parts and a plain sum of the lo
 * parts, so the same bound holds for any tree of merges (warps, blocks, threads).
 *
 * The terms themselves must be formed the same way everywhere: a product a*b is rounded on
 * its own, never fused with the addition (the library is compiled with -ffp-contract=off
 * and nvcc's -fmad=false for this reason).
 *
 * When a sum overflows or meets a NaN, hi (the plain sum) is the result, as a plain loop
 * would give; lo is then meaningless.
 */
typedef struct sps_csum {
  double hi; /* the plain rounded sum of the terms */
  double lo; /* the sum of the rounding errors of the additions into hi */
} sps_csum;

SPS_CSUM_FN sps_csum sps_csum_zero(void)
{
  sps_csum s;
  s.hi = 0.0;
  s.lo = 0.0;
  return s;
}

/*
 * s <- s + t: hi <- fl(hi + t), lo <- lo + the exact error of that addition (TwoSum). The
 * running hi depends on one addition per term, so chains of merges stay short.
 */
SPS_CSUM_FN void sps_csum_add(sps_csum *s, double t)
{
  const double sum = s->hi + t;
  const double t_in = sum - s->hi; /* the part of t that reached sum */
  const double hi_in = sum - t_in; /* the part of hi that reached sum */
  s->lo += (s->hi - hi_in) + (t - t_in);
  s->hi = sum;
}

/*
 * The same as sps_csum_add, bit for bit, by Fast2Sum after ordering the two by magnitude
 * (Dekker: with |a| >= |b|, b - (fl(a + b) - a) is the exact error): three additions
 * instead of six, for loops bound by FP64 throughput rather than by latency (the csr-scalar
 * SpMV kernel); the comparison lengthens the chain through hi.
 */
SPS_CSUM_FN void sps_csum_add_ordered(sps_csum *s, double t)
{
  const int hi_big = fabs(s->hi) >= fabs(t);
  const double a = hi_big ? s->hi : t, b = hi_big ? t : s->hi;
  const double sum = a + b;
  s->lo += b - (sum - a);
  s->hi = sum;
}

/* s <- s + o, for partial sums of disjoint sets of terms: the lo parts are added first, beside
 * the TwoSum of the hi parts, so a tree of merges waits on one addition less per level. */
SPS_CSUM_FN void sps_csum_merge(sps_csum *s, sps_csum o)
{
  s->lo += o.lo;
  sps_csum_add(s, o.hi);
}

/* The sum rounded to one double: fl(hi + lo), or hi once it is not finite. */
SPS_CSUM_FN double sps_csum_value(sps_csum s)
{
  return isfinite(s.hi) ? s.hi + s.lo : s.hi;
}

#endif /* SPS_CORE_COMPENSATED_SUM_H */
