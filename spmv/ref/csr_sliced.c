/* csr_sliced.c: the sliced (SELL-8) copy of a CSR matrix that csr-scalar runs from on AVX2 and AVX-512 processors: its fill from CSR, and the OpenMP loop over slices that calls the kernel of the instruction set in use.
 *
 * Why a copy: a row sum is one chain of dependent TwoSums, so csr-scalar gets its speed from
 * running rows side by side as the lanes of a vector (one row per lane, each lane adding its
 * row's products in entry order: the bits of one row at a time). From CSR, a vector of 8 rows'
 * next entries needs 16 scattered loads (values and columns) besides the 8 of x; from the
 * slices the values and the columns are two whole-vector loads, and only x is gathered. The
 * cost is the copy: 12 bytes a stored entry (the plan refuses it past twice the entries, where
 * padding would outweigh the gain; spmv/csr_scalar.c).
 *
 * Thread-to-data map: slices shared among the OpenMP threads in dynamic chunks of a window
 * (SPS_SLICE_WINDOW slices, 256 rows), as csr-scalar's row groups; within a slice, lane l is
 * row 8s + l, or perm[8s + l] (a row of the same window) where the rows are sorted.
 */
#include "kernels.h"

#include "../../core/cpu_simd.h"
#include "../../core/omp_csum.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Matrices of this many rows or fewer run on one thread (the fork costs more than the rows):
 * bench/cpu-omp-threshold measured 2 threads 1.3 times faster than one from 500 rows of the
 * 5-point Laplacian on the AMD EPYC of doc/performance.md (1.5 at 1000). Rows are independent,
 * so the split changes no bit. The build may override it. */
#ifndef SPS_SLICED_OMP_MIN
#define SPS_SLICED_OMP_MIN 1024
#endif

void sps_ref_csr_sliced_fill(sps_csr_sliced *S, const int64_t *rowptr, const int32_t *colind,
                             const double *values)
{
  SPS_OMP_IF(S->nrows > SPS_SLICED_OMP_MIN, "omp parallel for schedule(dynamic, 32)",
  for (int64_t s = 0; s < S->nslices; s++) {
    const int64_t base = S->offset[s];
    const int32_t w = S->width[s];
    for (int l = 0; l < SPS_SLICE; l++) {
      const int64_t i = S->perm ? S->perm[SPS_SLICE * s + l] : SPS_SLICE * s + l;
      const int32_t len = S->len[SPS_SLICE * s + l];
      const int64_t k0 = i < S->nrows ? rowptr[i] : 0;
      for (int32_t d = 0; d < w; d++) {
        const int64_t o = base + (int64_t)SPS_SLICE * d + l;
        S->values[o] = d < len ? values[k0 + d] : 0.0;
        S->colind[o] = d < len ? colind[k0 + d] : 0;
      }
    }
  });
}

/* Slices [s0, s1) with the kernel of isa. */
static void sliced_run(const sps_csr_sliced *S, int isa, int64_t s0, int64_t s1, double alpha,
                       const double *x, double beta, double *y)
{
#ifdef SPS_CPU_HAVE_X86
  if (isa == SPS_CPU_ISA_AVX512)
    sps_ref_csr_sliced_avx512(S, s0, s1, alpha, x, beta, y);
  else
    sps_ref_csr_sliced_avx2(S, s0, s1, alpha, x, beta, y);
#else
  (void)S, (void)isa, (void)s0, (void)s1, (void)alpha, (void)x, (void)beta, (void)y;
#endif
}

void sps_ref_csr_sliced(const sps_csr_sliced *S, int isa, double alpha, const double *x,
                        double beta, double *y)
{
  const int64_t chunk = SPS_SLICE_WINDOW;
  const int64_t nchunks = (S->nslices + chunk - 1) / chunk;
  /* no region at all on one thread: the dynamic schedule's bookkeeping is not free */
  int fork = S->nrows > SPS_SLICED_OMP_MIN;
#ifdef _OPENMP
  fork = fork && omp_get_max_threads() > 1;
#endif
  SPS_OMP_IF(fork, "omp parallel for schedule(dynamic, 1)",
  for (int64_t c = 0; c < nchunks; c++) {
    const int64_t s0 = c * chunk, s1 = s0 + chunk < S->nslices ? s0 + chunk : S->nslices;
    sliced_run(S, isa, s0, s1, alpha, x, beta, y);
  });
}

/* The fused dot: whole windows (runs of at most SPS_SLICE_WINDOW slices) made in one call
 * before their rows' terms are added in row order. */
void sps_ref_csr_sliced_dot(const sps_csr_sliced *S, int isa, const int64_t *rowptr,
                            const int32_t *colind, const double *values, double alpha,
                            const double *x, double *y, sps_csum *xy)
{
  const int64_t n = S->nrows;
  /* the rows a run must start at and hold whole: a slice, or with sorted rows a window (its
   * rows are spread over all its slices) */
  const int64_t g = S->perm ? (int64_t)SPS_SLICE * SPS_SLICE_WINDOW : SPS_SLICE;
  sps_csum dot = sps_csum_zero();
  SPS_OMP_IF(n > SPS_OMP_MIN, "omp parallel reduction(csum : dot)",
  {
    int64_t lo, hi;
    sps_omp_part(n, &lo, &hi);
    int64_t i = lo;
    while (i < hi) {
      const int64_t u0 = i / g * g;
      int64_t end;
      if (i == u0 && (u0 + g <= hi || hi == n)) {
        /* whole units from i: as many as [i, hi) holds, at most a run */
        const int64_t s = i / SPS_SLICE;
        int64_t s1 = hi == n ? S->nslices : hi / g * g / SPS_SLICE;
        if (s1 - s > SPS_SLICE_WINDOW) s1 = s + SPS_SLICE_WINDOW;
        sliced_run(S, isa, s, s1, alpha, x, 0.0, y);
        end = s1 * SPS_SLICE < hi ? s1 * SPS_SLICE : hi;
      } else {
        /* a unit cut by lo or hi: its rows in [i, hi) by the CSR loop (the same bits) */
        end = u0 + g < hi ? u0 + g : hi;
        sps_ref_csr_scalar(end - i, rowptr + i, colind, values, alpha, x, 0.0, y + i);
      }
      for (; i < end; i++) sps_csum_add(&dot, x[i] * y[i]);
    }
  });
  *xy = dot;
}
