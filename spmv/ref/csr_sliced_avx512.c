/* csr_sliced_avx512.c: the sliced csr-scalar kernel on 64-byte vectors (AVX-512F; run only where cpu_simd.c finds it): the 8 rows of a slice in the 8 lanes.
 *
 * Per step d of a slice: the 8 values and the 8 columns of entry d of the 8 rows are two
 * whole loads, x[col] is gathered by 8 scalar loads (on the processors measured, faster than
 * the gather instruction), and the rounded products are added by TwoSum into the lanes' sums
 * (hi, lo), the operations of sps_csum_add in each lane. Steps past the slice's shortest row
 * add only in the lanes whose row is still running (a mask from the row lengths), so every
 * row adds exactly its own products, in entry order: the bits of sps_ref_csr_scalar. Then
 * y_i <- alpha*fl(hi + lo) + beta*y_i (hi when hi is not finite), as csr_scalar.c writes it,
 * i the lane's row (perm[8s + l] where the rows are sorted, else 8s + l).
 */
#include "kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC target("avx512f")
#endif
#include <immintrin.h>

static inline void zadd(__m512d *hi, __m512d *lo, __m512d t)
{
  const __m512d sum = _mm512_add_pd(*hi, t);
  const __m512d t_in = _mm512_sub_pd(sum, *hi);
  const __m512d hi_in = _mm512_sub_pd(sum, t_in);
  *lo = _mm512_add_pd(*lo, _mm512_add_pd(_mm512_sub_pd(*hi, hi_in), _mm512_sub_pd(t, t_in)));
  *hi = sum;
}

/* The same in the lanes of m only; the others keep (hi, lo). */
static inline void zadd_mask(__m512d *hi, __m512d *lo, __m512d t, __mmask8 m)
{
  const __m512d sum = _mm512_add_pd(*hi, t);
  const __m512d t_in = _mm512_sub_pd(sum, *hi);
  const __m512d hi_in = _mm512_sub_pd(sum, t_in);
  *lo = _mm512_mask_add_pd(*lo, m, *lo,
                           _mm512_add_pd(_mm512_sub_pd(*hi, hi_in), _mm512_sub_pd(t, t_in)));
  *hi = _mm512_mask_mov_pd(*hi, m, sum);
}

/* x at the 8 columns c[0..7] */
static inline __m512d xgather(const double *x, const int32_t *c)
{
  return _mm512_set_pd(x[c[7]], x[c[6]], x[c[5]], x[c[4]], x[c[3]], x[c[2]], x[c[1]], x[c[0]]);
}

void sps_ref_csr_sliced_avx512(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                               const double *x, double beta, double *y)
{
  for (int64_t s = s0; s < s1; s++) {
    const double *v = S->values + S->offset[s];
    const int32_t *c = S->colind + S->offset[s];
    const int32_t w = S->width[s], common = S->common[s];
    const int32_t *len = S->len + SPS_SLICE * s;
    __m512d hi = _mm512_setzero_pd(), lo = hi;
    int32_t d = 0;
    for (; d < common; d++)
      zadd(&hi, &lo, _mm512_mul_pd(_mm512_load_pd(v + 8 * d), xgather(x, c + 8 * d)));
    if (d < w) {
      const __m512i lens = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)len));
      for (; d < w; d++) {
        const __mmask8 m = _mm512_cmpgt_epi64_mask(lens, _mm512_set1_epi64(d));
        zadd_mask(&hi, &lo, _mm512_mul_pd(_mm512_load_pd(v + 8 * d), xgather(x, c + 8 * d)), m);
      }
    }
    const int64_t i0 = SPS_SLICE * s;
    const int nl = S->nrows - i0 < SPS_SLICE ? (int)(S->nrows - i0) : SPS_SLICE;
    const int32_t *rows = S->perm ? S->perm + i0 : NULL;
    /* fl(hi + lo) where hi is finite (hi - hi == 0), else hi: sps_csum_value in each lane */
    const __mmask8 fin = _mm512_cmp_pd_mask(_mm512_sub_pd(hi, hi), _mm512_setzero_pd(), _CMP_EQ_OQ);
    const __m512d sum = _mm512_mask_add_pd(hi, fin, hi, lo);
    __m512d out = _mm512_mul_pd(_mm512_set1_pd(alpha), sum);
    if (nl == SPS_SLICE && !rows) {
      if (beta != 0.0)
        out = _mm512_add_pd(out, _mm512_mul_pd(_mm512_set1_pd(beta), _mm512_loadu_pd(y + i0)));
      _mm512_storeu_pd(y + i0, out);
    } else {
      double os[8];
      _mm512_storeu_pd(os, out);
      for (int l = 0; l < nl; l++) {
        const int64_t i = rows ? rows[l] : i0 + l;
        y[i] = beta == 0.0 ? os[l] : os[l] + beta * y[i];
      }
    }
  }
}
#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
/* Not x86-64: never called (cpu_simd.c offers no AVX-512 there). */
void sps_ref_csr_sliced_avx512(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                               const double *x, double beta, double *y)
{
  (void)S, (void)s0, (void)s1, (void)alpha, (void)x, (void)beta, (void)y;
}
#endif
