/* spmm_csr.c: tests of the spmm-csr SpMM variant, the library's reference SpMM against the
 * csr-scalar SpMV column by column (bitwise) and the plain loop; built with SPS_TEST_GPU, the GPU
 * kernel against it (bitwise).
 *
 * Every matrix of spmv_check.h's list (synthetic edge cases: empty rows, one dense row, nnz = 0,
 * no rows, no columns, rectangular shapes, rows of 150000 entries; the bundled matrices; the
 * shared ones with SPS_MATRICES), k = 1, 2, 3, 4, 7, 8, 16, 32, 33, 64 (1, 2, 8, 33 on the
 * larger ones), (alpha, beta) = (1, 0) with NaN in Y and (2.5, -0.75), seeded random X and Y.
 */
#include "spmm_check.h"

int main(void)
{
  return spmm_variant_main(SPS_SPMM_CSR);
}
