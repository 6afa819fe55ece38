/* csr_sliced_avx2.c: the sliced csr-scalar kernel on 32-byte vectors (AVX2; run only where cpu_simd.c finds it): the 8 rows of a slice in the lanes of two vectors.
 *
 * The map of csr_sliced_avx512.c with two 4-lane vectors per slice (lanes 0..3 and 4..7: rows
 * 8s..8s+3 and 8s+4..8s+7, or their perm entries where the rows are sorted), two independent
 * chains of TwoSums; padding steps masked by blending the old
 * (hi, lo) back into the lanes whose row has ended. The bits of sps_ref_csr_scalar.
 */
#include "kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif
#include <immintrin.h>

static inline void yadd(__m256d *hi, __m256d *lo, __m256d t)
{
  const __m256d sum = _mm256_add_pd(*hi, t);
  const __m256d t_in = _mm256_sub_pd(sum, *hi);
  const __m256d hi_in = _mm256_sub_pd(sum, t_in);
  *lo = _mm256_add_pd(*lo, _mm256_add_pd(_mm256_sub_pd(*hi, hi_in), _mm256_sub_pd(t, t_in)));
  *hi = sum;
}

/* The same in the lanes where m is all ones; the others keep (hi, lo). */
static inline void yadd_mask(__m256d *hi, __m256d *lo, __m256d t, __m256d m)
{
  const __m256d sum = _mm256_add_pd(*hi, t);
  const __m256d t_in = _mm256_sub_pd(sum, *hi);
  const __m256d hi_in = _mm256_sub_pd(sum, t_in);
  const __m256d nlo =
      _mm256_add_pd(*lo, _mm256_add_pd(_mm256_sub_pd(*hi, hi_in), _mm256_sub_pd(t, t_in)));
  *lo = _mm256_blendv_pd(*lo, nlo, m);
  *hi = _mm256_blendv_pd(*hi, sum, m);
}

/* x at the 4 columns c[0..3] */
static inline __m256d xgather(const double *x, const int32_t *c)
{
  return _mm256_set_pd(x[c[3]], x[c[2]], x[c[1]], x[c[0]]);
}

/* fl(hi + lo) where hi is finite (hi - hi == 0), else hi: sps_csum_value in each lane */
static inline __m256d ysum(__m256d hi, __m256d lo)
{
  const __m256d fin = _mm256_cmp_pd(_mm256_sub_pd(hi, hi), _mm256_setzero_pd(), _CMP_EQ_OQ);
  return _mm256_blendv_pd(hi, _mm256_add_pd(hi, lo), fin);
}

void sps_ref_csr_sliced_avx2(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                             const double *x, double beta, double *y)
{
  for (int64_t s = s0; s < s1; s++) {
    const double *v = S->values + S->offset[s];
    const int32_t *c = S->colind + S->offset[s];
    const int32_t w = S->width[s], common = S->common[s];
    const int32_t *len = S->len + SPS_SLICE * s;
    __m256d hi0 = _mm256_setzero_pd(), lo0 = hi0, hi1 = hi0, lo1 = hi0;
    int32_t d = 0;
    for (; d < common; d++) {
      yadd(&hi0, &lo0, _mm256_mul_pd(_mm256_load_pd(v + 8 * d), xgather(x, c + 8 * d)));
      yadd(&hi1, &lo1, _mm256_mul_pd(_mm256_load_pd(v + 8 * d + 4), xgather(x, c + 8 * d + 4)));
    }
    if (d < w) {
      const __m256i len0 = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)len));
      const __m256i len1 = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(len + 4)));
      for (; d < w; d++) {
        const __m256i dv = _mm256_set1_epi64x(d);
        const __m256d m0 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(len0, dv));
        const __m256d m1 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(len1, dv));
        yadd_mask(&hi0, &lo0, _mm256_mul_pd(_mm256_load_pd(v + 8 * d), xgather(x, c + 8 * d)), m0);
        yadd_mask(&hi1, &lo1,
                  _mm256_mul_pd(_mm256_load_pd(v + 8 * d + 4), xgather(x, c + 8 * d + 4)), m1);
      }
    }
    const int64_t i0 = SPS_SLICE * s;
    const int nl = S->nrows - i0 < SPS_SLICE ? (int)(S->nrows - i0) : SPS_SLICE;
    const int32_t *rows = S->perm ? S->perm + i0 : NULL;
    const __m256d va = _mm256_set1_pd(alpha);
    __m256d out0 = _mm256_mul_pd(va, ysum(hi0, lo0)), out1 = _mm256_mul_pd(va, ysum(hi1, lo1));
    if (nl == SPS_SLICE && !rows) {
      if (beta != 0.0) {
        const __m256d vb = _mm256_set1_pd(beta);
        out0 = _mm256_add_pd(out0, _mm256_mul_pd(vb, _mm256_loadu_pd(y + i0)));
        out1 = _mm256_add_pd(out1, _mm256_mul_pd(vb, _mm256_loadu_pd(y + i0 + 4)));
      }
      _mm256_storeu_pd(y + i0, out0);
      _mm256_storeu_pd(y + i0 + 4, out1);
    } else {
      double os[8];
      _mm256_storeu_pd(os, out0);
      _mm256_storeu_pd(os + 4, out1);
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
/* Not x86-64: never called (cpu_simd.c offers no AVX2 there). */
void sps_ref_csr_sliced_avx2(const sps_csr_sliced *S, int64_t s0, int64_t s1, double alpha,
                             const double *x, double beta, double *y)
{
  (void)S, (void)s0, (void)s1, (void)alpha, (void)x, (void)beta, (void)y;
}
#endif
