/* cpu_kernels_avx512.c: the CPU kernels on 64-byte vectors, for x86-64 processors with AVX-512F (chosen at run time by cpu_simd.c; this file is compiled for AVX-512F whatever the build's flags). */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC target("avx512f")
#endif
#include <immintrin.h>
#include <stdint.h>

/* (hi, lo) <- (hi, lo) + t in each of the 8 lanes, the operations of sps_csum_add. */
static inline void zadd(__m512d *hi, __m512d *lo, __m512d t)
{
  const __m512d sum = _mm512_add_pd(*hi, t);
  const __m512d t_in = _mm512_sub_pd(sum, *hi);
  const __m512d hi_in = _mm512_sub_pd(sum, t_in);
  *lo = _mm512_add_pd(*lo, _mm512_add_pd(_mm512_sub_pd(*hi, hi_in), _mm512_sub_pd(t, t_in)));
  *hi = sum;
}

/* r[b] holds rows i..i+7 of column b; afterwards r[q] holds row i+q of columns 0..7. */
static inline void transpose8(__m512d r[8])
{
  const __m512d t0 = _mm512_unpacklo_pd(r[0], r[1]), t1 = _mm512_unpackhi_pd(r[0], r[1]);
  const __m512d t2 = _mm512_unpacklo_pd(r[2], r[3]), t3 = _mm512_unpackhi_pd(r[2], r[3]);
  const __m512d t4 = _mm512_unpacklo_pd(r[4], r[5]), t5 = _mm512_unpackhi_pd(r[4], r[5]);
  const __m512d t6 = _mm512_unpacklo_pd(r[6], r[7]), t7 = _mm512_unpackhi_pd(r[6], r[7]);
  const __m512d u0 = _mm512_shuffle_f64x2(t0, t2, 0x88), u1 = _mm512_shuffle_f64x2(t1, t3, 0x88);
  const __m512d u2 = _mm512_shuffle_f64x2(t0, t2, 0xdd), u3 = _mm512_shuffle_f64x2(t1, t3, 0xdd);
  const __m512d u4 = _mm512_shuffle_f64x2(t4, t6, 0x88), u5 = _mm512_shuffle_f64x2(t5, t7, 0x88);
  const __m512d u6 = _mm512_shuffle_f64x2(t4, t6, 0xdd), u7 = _mm512_shuffle_f64x2(t5, t7, 0xdd);
  r[0] = _mm512_shuffle_f64x2(u0, u4, 0x88);
  r[1] = _mm512_shuffle_f64x2(u1, u5, 0x88);
  r[2] = _mm512_shuffle_f64x2(u2, u6, 0x88);
  r[3] = _mm512_shuffle_f64x2(u3, u7, 0x88);
  r[4] = _mm512_shuffle_f64x2(u0, u4, 0xdd);
  r[5] = _mm512_shuffle_f64x2(u1, u5, 0xdd);
  r[6] = _mm512_shuffle_f64x2(u2, u6, 0xdd);
  r[7] = _mm512_shuffle_f64x2(u3, u7, 0xdd);
}

/* Rows [i, i+8) of the 8 columns col[0..7] into the lanes' sums (row order kept). */
static inline void tile8(const double *const *col, const double *x, int64_t i, __m512d *hi,
                         __m512d *lo)
{
  __m512d t[8];
  for (int b = 0; b < 8; b++)
    t[b] = _mm512_loadu_pd(col[b] + i);
  transpose8(t);
  for (int q = 0; q < 8; q++)
    zadd(hi, lo, _mm512_mul_pd(t[q], _mm512_set1_pd(x[i + q])));
}

/* Row i of the 8 columns, alone (the rows past the last full tile). */
static inline void row8(const double *const *col, const double *x, int64_t i, __m512d *hi,
                        __m512d *lo)
{
  const __m512d a = _mm512_set_pd(col[7][i], col[6][i], col[5][i], col[4][i], col[3][i], col[2][i],
                                  col[1][i], col[0][i]);
  zadd(hi, lo, _mm512_mul_pd(a, _mm512_set1_pd(x[i])));
}

/* The same on 4 columns (a 4 x 4 tile in 32-byte vectors), for a last group of at most 4
 * columns, whose 8-lane pass would be more than half padding. */
static inline void yadd(__m256d *hi, __m256d *lo, __m256d t)
{
  const __m256d sum = _mm256_add_pd(*hi, t);
  const __m256d t_in = _mm256_sub_pd(sum, *hi);
  const __m256d hi_in = _mm256_sub_pd(sum, t_in);
  *lo = _mm256_add_pd(*lo, _mm256_add_pd(_mm256_sub_pd(*hi, hi_in), _mm256_sub_pd(t, t_in)));
  *hi = sum;
}

static inline void tile4(const double *const *col, const double *x, int64_t i, __m256d *hi,
                         __m256d *lo)
{
  const __m256d r0 = _mm256_loadu_pd(col[0] + i), r1 = _mm256_loadu_pd(col[1] + i);
  const __m256d r2 = _mm256_loadu_pd(col[2] + i), r3 = _mm256_loadu_pd(col[3] + i);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  yadd(hi, lo, _mm256_mul_pd(_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_set1_pd(x[i])));
  yadd(hi, lo, _mm256_mul_pd(_mm256_permute2f128_pd(t1, t3, 0x20), _mm256_set1_pd(x[i + 1])));
  yadd(hi, lo, _mm256_mul_pd(_mm256_permute2f128_pd(t0, t2, 0x31), _mm256_set1_pd(x[i + 2])));
  yadd(hi, lo, _mm256_mul_pd(_mm256_permute2f128_pd(t1, t3, 0x31), _mm256_set1_pd(x[i + 3])));
}

static inline void row4(const double *const *col, const double *x, int64_t i, __m256d *hi,
                        __m256d *lo)
{
  const __m256d a = _mm256_set_pd(col[3][i], col[2][i], col[1][i], col[0][i]);
  yadd(hi, lo, _mm256_mul_pd(a, _mm256_set1_pd(x[i])));
}

/* Lanes b < nb of (hi, lo) into hs[b], ls[b]. */
static inline void put8(__m512d hi, __m512d lo, int nb, double *hs, double *ls)
{
  if (nb >= 8) {
    _mm512_storeu_pd(hs, hi);
    _mm512_storeu_pd(ls, lo);
    return;
  }
  const __mmask8 m = (__mmask8)((1u << nb) - 1);
  _mm512_mask_storeu_pd(hs, m, hi);
  _mm512_mask_storeu_pd(ls, m, lo);
}

/*
 * V^T x, columns in the lanes: 8 columns per vector, two vectors (16 columns) per pass over x
 * (a last group of at most 4 columns in one 4-lane vector).
 * Each 8 x 8 tile (8 rows of 8 columns, 8 loads) is transposed so that one vector holds one
 * row's 8 columns, and the rows are added in order: every column's sum continues the sequence
 * of TwoSums of the scalar loop from (hi[j], lo[j]).
 */
#define SPS_K_DOT_COLS
static void k_dot_cols(int64_t n, int k, const double *V, int64_t ldv, const double *x, int with_xx,
                       double *hs, double *ls)
{
  const int total = k + with_xx;
  const int64_t n8 = n - n % 8;
  for (int c0 = 0; c0 < total; c0 += 16) {
    const int nb = total - c0 < 16 ? total - c0 : 16;
    const double *col[16];
    for (int b = 0; b < 16; b++) {
      /* a column past the end repeats the first of its vector (its sum is not kept) */
      const int c = c0 + (b < nb ? b : b < 8 ? 0 : 8);
      col[b] = with_xx && c == 0 ? x : V + (int64_t)(c - with_xx) * ldv;
    }
    if (nb <= 4) {
      __m256d yh = _mm256_loadu_pd(hs + c0), yl = _mm256_loadu_pd(ls + c0);
      const int64_t n4 = n - n % 4;
      for (int64_t i = 0; i < n4; i += 4)
        tile4(col, x, i, &yh, &yl);
      for (int64_t i = n4; i < n; i++)
        row4(col, x, i, &yh, &yl);
      double h4[4], l4[4];
      _mm256_storeu_pd(h4, yh);
      _mm256_storeu_pd(l4, yl);
      for (int b = 0; b < nb; b++)
        hs[c0 + b] = h4[b], ls[c0 + b] = l4[b];
      continue;
    }
    __m512d hi0 = _mm512_loadu_pd(hs + c0), lo0 = _mm512_loadu_pd(ls + c0);
    if (nb > 8) {
      __m512d hi1 = _mm512_loadu_pd(hs + c0 + 8), lo1 = _mm512_loadu_pd(ls + c0 + 8);
      for (int64_t i = 0; i < n8; i += 8) {
        tile8(col, x, i, &hi0, &lo0);
        tile8(col + 8, x, i, &hi1, &lo1);
      }
      for (int64_t i = n8; i < n; i++) {
        row8(col, x, i, &hi0, &lo0);
        row8(col + 8, x, i, &hi1, &lo1);
      }
      put8(hi0, lo0, 8, hs + c0, ls + c0);
      put8(hi1, lo1, nb - 8, hs + c0 + 8, ls + c0 + 8);
    } else {
      for (int64_t i = 0; i < n8; i += 8)
        tile8(col, x, i, &hi0, &lo0);
      for (int64_t i = n8; i < n; i++)
        row8(col, x, i, &hi0, &lo0);
      put8(hi0, lo0, nb, hs + c0, ls + c0);
    }
  }
}

#define SPS_KW 8
#define SPS_KU 4 /* gemv_n: 32 rows in flight */
#define SPS_KB 8 /* unused: this file has its own dot_cols */
#define SPS_KTABLE sps_cpu_kernels_avx512
#define SPS_KNAME "avx512"
#include "cpu_kernels.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
/* Not x86-64: no table (cpu_simd.c never asks for one). */
typedef int sps_cpu_kernels_avx512_unused;
#endif
