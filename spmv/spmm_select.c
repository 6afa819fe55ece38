/* spmm_select.c: AUTO's choice of an SpMM variant from the row statistics of A and k, a
 * hand-written rule from seeds 003 and 004 to be replaced by one trained on spmm-bench's results.
 *
 * The rule, on either device:
 *   - k = 1: spmm-spmv, the SpMV layer's own choice (its trained model on GPUs that have one),
 *     which an SpMM kernel built for many columns does not beat on one.
 * Then on a GPU:
 *   - no entries: spmm-csr (there is nothing to balance or align);
 *   - uneven rows: max_len > 8*mean + 8*SPS_SPMM_UNIT_NNZ, or cv_len > 1 with
 *     max_len > 2*SPS_SPMM_UNIT_NNZ: spmm-balanced. Sputnik gives a row to one subwarp, so a row
 *     of L entries costs L/strip serial steps while the typical row costs mean/strip; past these
 *     bounds the longest rows would keep a few subwarps busy long after the rest of the grid
 *     (seed 004's arxiv, youtube and am: 2 to 8 times faster split into 128-entry units);
 *   - otherwise sputnik: rows of similar length are what its swizzle, subwarps and vector loads
 *     are built for (seed 003), and k only sets its subwarp width.
 * On the CPU every variant runs its reference and spmm-csr's (the library's reference, eight
 * column sums side by side) is the fastest: spmm-csr.
 * The bounds are the seeds' and have not been measured on spsolve's kernels yet: spmm-bench
 * times every variant for k = 1 .. 64, from which a rule or a tree (as spmv/select.c's model
 * for sm_90) is to be trained.
 */
#include <math.h>
#include <stdio.h>

#include "ref/spmm_kernels.h"
#include "spmm_internal.h"

sps_spmm_kind sps_spmm_select(const sps_matrix *A, int64_t k, sps_device_kind device, char *why,
                              size_t whylen)
{
  const int64_t m = A->nrows;
  double sum2 = 0.0;
  int64_t max_len = 0;
  const double mean = m > 0 ? (double)A->nnz / (double)m : 0.0;
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > max_len) max_len = len;
    const double d = (double)len - mean;
    sum2 += d * d;
  }
  const double cv = m > 0 && mean > 0.0 ? sqrt(sum2 / (double)m) / mean : 0.0;
  if (k == 1) {
    snprintf(why, whylen, "rule: k = 1 -> spmm-spmv");
    return SPS_SPMM_SPMV;
  }
  if (device != SPS_DEVICE_CUDA) {
    snprintf(why, whylen, "rule: CPU -> spmm-csr (k = %lld)", (long long)k);
    return SPS_SPMM_CSR;
  }
  if (A->nnz == 0) {
    snprintf(why, whylen, "rule: nnz = 0 -> spmm-csr");
    return SPS_SPMM_CSR;
  }
  const double u = SPS_SPMM_UNIT_NNZ;
  if ((double)max_len > 8.0 * mean + 8.0 * u || (cv > 1.0 && (double)max_len > 2.0 * u)) {
    snprintf(why, whylen,
             "rule: uneven rows (mean_len %.2f, max_len %lld, cv_len %.2f: max_len > 8*mean + %d "
             "or cv > 1 with max_len > %d) -> spmm-balanced (k = %lld)",
             mean, (long long)max_len, cv, 8 * SPS_SPMM_UNIT_NNZ, 2 * SPS_SPMM_UNIT_NNZ,
             (long long)k);
    return SPS_SPMM_BALANCED;
  }
  snprintf(why, whylen,
           "rule: even rows (mean_len %.2f, max_len %lld, cv_len %.2f) -> sputnik (k = %lld)", mean,
           (long long)max_len, cv, (long long)k);
  return SPS_SPMM_SPUTNIK;
}
