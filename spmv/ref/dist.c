/* dist.c: CPU reference of the distributed product's boundary rows: each row's entries of the diagonal block (x) and of the off-diagonal block (the halo) added into one compensated sum.
 *
 * y_i = alpha * s_i + beta * y_i for rows i in [row0, nrows), s_i = fl(hi + lo) of the
 * compensated sum (core/compensated_sum.h) of the rounded products of row i of the diagonal
 * block with x, then of row i of the off-diagonal block with the halo xh. The terms of the
 * row are those of the whole matrix's row, so s_i has the serial csr-scalar product's bits
 * (bar rare ties): a product split over ranks rounds like the undivided one. y is not read
 * when beta = 0.
 *
 * Thread-to-data map: OpenMP over the rows in dynamic chunks of 256 (boundary rows are a thin
 * slice of a rank's rows; the chunks keep a few long ones from idling the other threads).
 */
#include "kernels.h"

void sps_ref_dist_rows(int64_t row0, int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                       const double *values, const int64_t *orowptr, const int32_t *ocolind,
                       const double *ovalues, double alpha, const double *x, const double *xh,
                       double beta, double *y)
{
#pragma omp parallel for schedule(dynamic, 256) if (nrows - row0 > 4096)
  for (int64_t i = row0; i < nrows; i++) {
    sps_csum acc = sps_csum_zero();
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) sps_csum_add(&acc, values[k] * x[colind[k]]);
    for (int64_t k = orowptr[i]; k < orowptr[i + 1]; k++)
      sps_csum_add(&acc, ovalues[k] * xh[ocolind[k]]);
    const double s = sps_csum_value(acc);
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
