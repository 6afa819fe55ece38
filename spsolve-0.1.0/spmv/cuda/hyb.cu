/* hyb.cu: the hyb SpMV launcher: the ELL kernel for the first K entries of every row, then the COO kernel for the excess.
 *
 * Thread-to-data map: as ell.cu (one thread per row over the K-wide ELL part) followed by
 * coo.cu (warps over equal chunks of the excess triplets), on the same stream; the ELL pass
 * applies beta, the COO pass adds to y with beta = 1 (no scaling pass).
 * Memory access: the ELL part is read fully coalesced; the COO part coalesced with atomic
 * updates of y.
 * Wins on matrices with a typical row length and a few long rows (circuits, power networks):
 * ELL speed on the bulk, no padding for the outliers. Loses to csr-vector on perfectly
 * regular matrices (two launches) and on matrices whose row lengths have no typical value.
 * Order: the ELL pass's row sums are compensated, but the COO excess is added with atomics
 * in an order that varies from run to run, so hyb's result (like coo's and cusparse's)
 * depends on that order and matches the compensated variants only to rounding; AUTO never
 * chooses it.
 */
#include <cstdint>

#include <cuda_runtime.h>

#include "launchers.h"

extern "C" cudaError_t sps_cuda_hyb(cudaStream_t stream, int sm_count, int64_t nrows, int64_t ld,
                                    int64_t width, const int32_t *ell_colind,
                                    const double *ell_values, int64_t coo_nnz,
                                    const int32_t *coo_rowind, const int32_t *coo_colind,
                                    const double *coo_values, double alpha, const double *x,
                                    double beta, double *y)
{
  cudaError_t e = sps_cuda_ell(stream, nrows, ld, width, ell_colind, ell_values, alpha, x, beta, y);
  if (e != cudaSuccess) return e;
  return sps_cuda_coo(stream, sm_count, nrows, coo_nnz, coo_rowind, coo_colind, coo_values, alpha,
                      x, 1.0, y);
}
