/* csr_vector.c: CPU reference of the csr-vector variant, summing each row in the order of tpr GPU lanes and their shuffle tree.
 *
 * Lane l of the group owns entries rowptr[i] + l, + l + tpr, ...; its partial sum p_l is
 * accumulated in that order; then for d = tpr/2, ..., 1: p_l <- p_l + p_{l+d}, so y_i gets
 * alpha * p_0 + beta * y_i exactly as the CUDA kernel's __shfl_down_sync tree combines it.
 * Rows are independent, so OpenMP shares them out.
 */
#include "kernels.h"

void sps_ref_csr_vector(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, int tpr, double alpha, const double *x, double beta,
                        double *y)
{
#pragma omp parallel for schedule(dynamic, 256) if (nrows > 4096)
  for (int64_t i = 0; i < nrows; i++) {
    double p[32];
    for (int l = 0; l < tpr; l++) {
      double s = 0.0;
      for (int64_t k = rowptr[i] + l; k < rowptr[i + 1]; k += tpr) s += values[k] * x[colind[k]];
      p[l] = s;
    }
    for (int d = tpr / 2; d > 0; d /= 2)
      for (int l = 0; l < d; l++) p[l] += p[l + d];
    y[i] = beta == 0.0 ? alpha * p[0] : alpha * p[0] + beta * y[i];
  }
}
