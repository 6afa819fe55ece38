/* spmm_sputnik.c: CPU reference of the sputnik SpMM variant, walking the GPU kernel's slots, column
 * tiles and aligned strips one after another.
 *
 * Slot s serves row perm[s] (rows in order of decreasing length, built at setup); its subwarp of
 * S = sps_spmm_sputnik_lanes(k, xv) lanes covers a tile of S*xv columns, lane l the xv columns
 * from tile + l*xv. The row's entries are read in strips of avec*S entries from the row's start
 * rounded down to a multiple of avec (reverse-offset alignment, Sputnik's ROMA): the entries of
 * a strip before the row's start or past its end are masked, so each lane adds exactly the
 * row's products, in entry order, into its compensated sums, and y_ij equals the reference
 * SpMM's (spmm_csr.c) bit for bit. Walking the same strips and masks as the kernel lets the
 * CPU tests exercise the kernel's index arithmetic (alignment, masks, tiles, the permutation).
 */
#include "spmm_kernels.h"

int sps_spmm_sputnik_lanes(int64_t k, int v)
{
  const int64_t cols = (k + v - 1) / v;
  int s = 1;
  while (s < 32 && s < cols)
    s *= 2;
  return s;
}

void sps_ref_spmm_sputnik(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                          const double *values, const int32_t *perm, int64_t k, int xv, int avec,
                          double alpha, const double *X, int64_t ldx, double beta, double *Y,
                          int64_t ldy)
{
  const int S = sps_spmm_sputnik_lanes(k, xv);
  const int64_t tile = (int64_t)S * xv, strip = (int64_t)S * avec;
#pragma omp parallel for schedule(dynamic, 64) if (nrows * k > 16384)
  for (int64_t s = 0; s < nrows; s++) {
    const int64_t row = perm[s];
    const int64_t begin = rowptr[row], end = rowptr[row + 1];
    /* ROMA: the first strip starts at the aligned entry at or before the row's start. */
    const int64_t start = avec == 2 ? begin & ~(int64_t)1 : begin;
    for (int64_t t0 = 0; t0 < k; t0 += tile)
      for (int l = 0; l < S; l++) {
        const int64_t c0 = t0 + (int64_t)l * xv;
        if (c0 >= k) continue;
        sps_csum acc[2] = {sps_csum_zero(), sps_csum_zero()};
        for (int64_t base = start; base < end; base += strip)
          for (int64_t t = 0; t < strip; t++) {
            const int64_t e = base + t;
            if (e < begin || e >= end) continue; /* masked: the previous or the next row */
            const double a = values[e];
            const double *x = X + (int64_t)colind[e] * ldx + c0;
            for (int c = 0; c < xv; c++)
              if (c0 + c < k) sps_csum_add(&acc[c], a * x[c]);
          }
        double *y = Y + row * ldy + c0;
        for (int c = 0; c < xv && c0 + c < k; c++) {
          const double v = sps_csum_value(acc[c]);
          y[c] = beta == 0.0 ? alpha * v : alpha * v + beta * y[c];
        }
      }
  }
}
