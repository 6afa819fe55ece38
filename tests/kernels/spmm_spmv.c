/* spmm_spmv.c: tests of the spmm-spmv SpMM variant: for k = 1 the SpMV layer's choice must give the reference SpMM's column bit for bit (CPU; built with SPS_TEST_GPU, on the GPU against the CPU), and setup must refuse every other k.
 *
 * Every matrix of spmv_check.h's list, (alpha, beta) = (1, 0) with NaN in Y and (2.5, -0.75).
 */
#include "spmm_check.h"

int main(void)
{
  return spmm_variant_main(SPS_SPMM_SPMV);
}
