/* csr_vector.c: CPU reference of the csr-vector variant, summing each row in the order of tpr GPU lanes and their shuffle tree.
 *
 * Lane l of the group owns entries rowptr[i] + l, + l + tpr, ...; it adds their rounded
 * products in that order into a compensated sum p_l (core/compensated_sum.h); then for
 * d = tpr/2, ..., 1: p_l <- merge(p_l, p_{l+d}), so y_i gets alpha * fl(p_0.hi + p_0.lo) +
 * beta * y_i exactly as the CUDA kernel's __shfl_down_sync tree (reduce.cuh) combines it.
 * Rows are independent, so OpenMP shares them out.
 */
#include "kernels.h"

void sps_ref_csr_vector(int64_t nrows, const int64_t *rowptr, const int32_t *colind,
                        const double *values, int tpr, double alpha, const double *x, double beta,
                        double *y)
{
#pragma omp parallel for schedule(dynamic, 256) if (nrows > 4096)
  for (int64_t i = 0; i < nrows; i++) {
    sps_csum p[32];
    for (int l = 0; l < tpr; l++) {
      p[l] = sps_csum_zero();
      for (int64_t k = rowptr[i] + l; k < rowptr[i + 1]; k += tpr)
        sps_csum_add(&p[l], values[k] * x[colind[k]]);
    }
    for (int d = tpr / 2; d > 0; d /= 2)
      for (int l = 0; l < d; l++) sps_csum_merge(&p[l], p[l + d]);
    const double s = sps_csum_value(p[0]);
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}
