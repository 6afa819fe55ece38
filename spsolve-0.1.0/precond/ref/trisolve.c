/* trisolve.c: the CPU reference of the sparse triangular solve (forward or backward substitution with compensated row sums). */
#include "kernels.h"
#include "../../core/compensated_sum.h"

/*
 * Rows in dependency order; row i: s = b_i - sum_j t_ij x_j as a compensated sum of the
 * rounded products (b_i first, then the terms in column order), x_i = fl(s) * dinv_i.
 */
void sps_ref_trisolve(int64_t n, int upper, const int64_t *rowptr, const int64_t *diag,
                      const int32_t *colind, const double *values, const double *dinv,
                      const double *b, const int32_t *in_perm, const double *in_scale, double *x,
                      double *out, const int32_t *out_perm, const double *out_scale)
{
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = upper ? n - 1 - s : s;
    const int64_t src = in_perm ? in_perm[i] : i;
    double bi = b[src];
    if (in_scale) bi = in_scale[i] * bi;
    sps_csum acc = sps_csum_zero();
    sps_csum_add(&acc, bi);
    const int64_t kb = upper ? diag[i] + 1 : rowptr[i];
    const int64_t ke = upper ? rowptr[i + 1] : diag[i];
    for (int64_t k = kb; k < ke; k++) sps_csum_add(&acc, -(values[k] * x[colind[k]]));
    double xi = sps_csum_value(acc);
    if (dinv) xi = xi * dinv[i];
    x[i] = xi;
    if (out) {
      const int64_t dst = out_perm ? out_perm[i] : i;
      out[dst] = out_scale ? out_scale[i] * xi : xi;
    }
  }
}
