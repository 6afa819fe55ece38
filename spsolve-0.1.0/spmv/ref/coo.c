/* coo.c: CPU reference of the coo variant, one pass over the triplets in order (serial, so deterministic).
 *
 * y <- beta*y (y <- 0 when beta = 0, y not read), then for each triplet (r, c, a):
 * y_r <- y_r + alpha * a * x_c, a plain sum. The GPU kernel adds with atomics in an order
 * that varies from run to run, so coo (with hyb and cusparse) is one of the variants whose
 * results agree with the compensated ones only to rounding; AUTO never chooses it.
 */
#include "kernels.h"

void sps_ref_coo(int64_t nrows, int64_t nnz, const int32_t *rowind, const int32_t *colind,
                 const double *values, double alpha, const double *x, double beta, double *y)
{
  if (beta == 0.0)
    for (int64_t i = 0; i < nrows; i++) y[i] = 0.0;
  else if (beta != 1.0)
    for (int64_t i = 0; i < nrows; i++) y[i] *= beta;
  for (int64_t k = 0; k < nnz; k++) y[rowind[k]] += alpha * (values[k] * x[colind[k]]);
}
