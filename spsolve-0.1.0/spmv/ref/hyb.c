/* hyb.c: CPU reference of the hyb variant: the ELL part for the first K entries of each row, then the COO excess.
 *
 * y <- alpha*A_ell*x + beta*y, then y <- y + alpha*A_coo*x, with A = A_ell + A_coo. The ELL
 * part's row sums are compensated, the COO excess is added plainly (with atomics on the GPU),
 * so hyb's result depends on the order of the atomics and agrees with the compensated
 * variants only to rounding; AUTO never chooses it.
 */
#include "kernels.h"

void sps_ref_hyb(int64_t nrows, int64_t ld, int64_t width, const int32_t *ell_colind,
                 const double *ell_values, int64_t coo_nnz, const int32_t *coo_rowind,
                 const int32_t *coo_colind, const double *coo_values, double alpha,
                 const double *x, double beta, double *y)
{
  sps_ref_ell(nrows, ld, width, ell_colind, ell_values, alpha, x, beta, y);
  sps_ref_coo(nrows, coo_nnz, coo_rowind, coo_colind, coo_values, alpha, x, 1.0, y);
}
