/* cpu_kernels_avx2.c: the CPU kernels on 32-byte vectors, for x86-64 processors with AVX2 (chosen at run time by cpu_simd.c; this file is compiled for AVX2 whatever the build's flags). */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif
#include <immintrin.h>
#include <stdint.h>

/* (hi, lo) <- (hi, lo) + t in each of the 4 lanes, the operations of sps_csum_add. */
static inline void yadd(__m256d *hi, __m256d *lo, __m256d t)
{
  const __m256d sum = _mm256_add_pd(*hi, t);
  const __m256d t_in = _mm256_sub_pd(sum, *hi);
  const __m256d hi_in = _mm256_sub_pd(sum, t_in);
  *lo = _mm256_add_pd(*lo, _mm256_add_pd(_mm256_sub_pd(*hi, hi_in), _mm256_sub_pd(t, t_in)));
  *hi = sum;
}

/* Rows [i, i+4) of the 4 columns col[0..3] into the lanes' sums (row order kept): the 4 x 4
 * tile transposed so that one vector holds one row's 4 columns. */
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

/* Row i of the 4 columns, alone (the rows past the last full tile). */
static inline void row4(const double *const *col, const double *x, int64_t i, __m256d *hi,
                        __m256d *lo)
{
  const __m256d a = _mm256_set_pd(col[3][i], col[2][i], col[1][i], col[0][i]);
  yadd(hi, lo, _mm256_mul_pd(a, _mm256_set1_pd(x[i])));
}

/* Lanes b < nb of (hi, lo) into hs[b], ls[b]. */
static inline void put4(__m256d hi, __m256d lo, int nb, double *hs, double *ls)
{
  double h[4], l[4];
  _mm256_storeu_pd(h, hi);
  _mm256_storeu_pd(l, lo);
  for (int b = 0; b < nb; b++) {
    hs[b] = h[b];
    ls[b] = l[b];
  }
}

/*
 * V^T x, columns in the lanes: 4 columns per vector, two vectors (8 columns) per pass over x,
 * each 4 x 4 tile transposed so that the rows are added in order: every column's sum
 * continues the sequence of TwoSums of the scalar loop from (hi[j], lo[j]).
 */
#define SPS_K_DOT_COLS
static void k_dot_cols(int64_t n, int k, const double *V, int64_t ldv, const double *x, int with_xx,
                       double *hs, double *ls)
{
  const int total = k + with_xx;
  const int64_t n4 = n - n % 4;
  for (int c0 = 0; c0 < total; c0 += 8) {
    const int nb = total - c0 < 8 ? total - c0 : 8;
    const double *col[8];
    for (int b = 0; b < 8; b++) {
      /* a column past the end repeats the first of its vector (its sum is not kept) */
      const int c = c0 + (b < nb ? b : b < 4 ? 0 : 4);
      col[b] = with_xx && c == 0 ? x : V + (int64_t)(c - with_xx) * ldv;
    }
    __m256d hi0 = _mm256_loadu_pd(hs + c0), lo0 = _mm256_loadu_pd(ls + c0);
    if (nb > 4) {
      __m256d hi1 = _mm256_loadu_pd(hs + c0 + 4), lo1 = _mm256_loadu_pd(ls + c0 + 4);
      for (int64_t i = 0; i < n4; i += 4) {
        tile4(col, x, i, &hi0, &lo0);
        tile4(col + 4, x, i, &hi1, &lo1);
      }
      for (int64_t i = n4; i < n; i++) {
        row4(col, x, i, &hi0, &lo0);
        row4(col + 4, x, i, &hi1, &lo1);
      }
      put4(hi0, lo0, 4, hs + c0, ls + c0);
      put4(hi1, lo1, nb - 4, hs + c0 + 4, ls + c0 + 4);
    } else {
      for (int64_t i = 0; i < n4; i += 4)
        tile4(col, x, i, &hi0, &lo0);
      for (int64_t i = n4; i < n; i++)
        row4(col, x, i, &hi0, &lo0);
      put4(hi0, lo0, nb, hs + c0, ls + c0);
    }
  }
}

#define SPS_KW 4
#define SPS_KU 4 /* gemv_n: 16 rows in flight */
#define SPS_KB 4 /* unused: this file has its own dot_cols */
#define SPS_KTABLE sps_cpu_kernels_avx2
#define SPS_KNAME "avx2"
#include "cpu_kernels.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
/* Not x86-64: no table (cpu_simd.c never asks for one). */
typedef int sps_cpu_kernels_avx2_unused;
#endif
