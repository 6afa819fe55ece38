/* spmv_merge.c: tests of the merge SpMV variant: its CPU reference against a plain CSR loop and, built with SPS_TEST_GPU, its GPU kernel against that reference.
 *
 * Every matrix of spmv_check.h's list (synthetic edge cases, bundled and shared matrices),
 * (alpha, beta) = (1, 0) with NaN in y and (2.5, -0.75), per-row tolerance
 * 2*(len_i + 2)*eps*(|alpha| sum_j |a_ij x_j| + |beta y_i|); apply before setup.
 */
#include "spmv_check.h"

int main(void)
{
  static const int tprs[] = {0};
  return spmv_variant_main(SPS_SPMV_MERGE, tprs, 1);
}
