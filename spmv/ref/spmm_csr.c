/* spmm_csr.c: the library's reference SpMM and spmm-csr's CPU reference, Y <- alpha*A*X + beta*Y
 * with each y_ij a compensated sum in entry order.
 *
 * y_ij = alpha * s_ij + beta * y_ij, s_ij = fl(hi + lo) of the compensated sum (TwoSum,
 * core/compensated_sum.h) of the rounded products values[e] * X[colind[e], j] added in order
 * e = rowptr[i], ..., rowptr[i+1]-1: for every column j the very operations of the csr-scalar
 * SpMV reference on column j of X, so column j of Y is that SpMV bit for bit.
 * Thread-to-data map: OpenMP threads take rows in dynamic chunks of 64; a row's k columns go in
 * chunks of 8, whose 8 sums advance side by side over the row's entries (four 16-byte vectors
 * of two sums, core/csum_lanes.h, each lane doing exactly sps_csum_add's operations), so the
 * adders see 8 independent chains instead of one. X's row colind[e] is read 8 columns at a
 * time (contiguous, row-major); Y's row written once per chunk.
 */
#include "spmm_kernels.h"

#include "../../core/csum_lanes.h"

#define SPS_SPMM_CHUNK 8

static inline double spmm_out(double alpha, double s, double beta, const double *y)
{
  return beta == 0.0 ? alpha * s : alpha * s + beta * *y;
}

void sps_ref_spmm_csr(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                      const double *values, int64_t k, double alpha, const double *X, int64_t ldx,
                      double beta, double *Y, int64_t ldy)
{
#pragma omp parallel for schedule(dynamic, 64) if (nrows * k > 16384)
  for (int64_t i = 0; i < nrows; i++) {
    const int64_t b = rowptr[i], e = rowptr[i + 1];
    for (int64_t j0 = 0; j0 < k; j0 += SPS_SPMM_CHUNK) {
      const int64_t nc = k - j0 < SPS_SPMM_CHUNK ? k - j0 : SPS_SPMM_CHUNK;
      sps_csum acc[SPS_SPMM_CHUNK];
#ifdef SPS_CSUM_LANES
      if (nc == SPS_SPMM_CHUNK) {
        sps_lanes hi[4] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
        sps_lanes lo[4] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
        for (int64_t p = b; p < e; p++) {
          const double *x = X + (int64_t)colind[p] * ldx + j0;
          const sps_lanes a = {values[p], values[p]};
          for (int q = 0; q < 4; q++) {
            const sps_lanes xv = {x[2 * q], x[2 * q + 1]};
            sps_lanes_add(&hi[q], &lo[q], a * xv);
          }
        }
        for (int q = 0; q < 4; q++)
          sps_lanes_store(hi[q], lo[q], acc + 2 * q);
      } else
#endif
      {
        for (int64_t c = 0; c < nc; c++)
          acc[c] = sps_csum_zero();
        for (int64_t p = b; p < e; p++) {
          const double *x = X + (int64_t)colind[p] * ldx + j0;
          const double a = values[p];
          for (int64_t c = 0; c < nc; c++)
            sps_csum_add(&acc[c], a * x[c]);
        }
      }
      double *y = Y + i * ldy + j0;
      for (int64_t c = 0; c < nc; c++)
        y[c] = spmm_out(alpha, sps_csum_value(acc[c]), beta, &y[c]);
    }
  }
}
