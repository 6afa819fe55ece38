/* spmv_large.c: every SpMV variant on the large shared matrices (G3_circuit, laplacian7pt_100), each read once; CPU references, or GPU kernels with SPS_TEST_GPU.
 *
 * The same checks as the per-variant programs (spmv_check.h), for all variants in one
 * program so that each large matrix is read only once. Skips (77) without $SPS_MATRICES.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each variant on each matrix is a case (every shard
 * reads both matrices).
 */
#include <limits.h>

#include "spmv_check.h"

static void check_all_variants(sps_context *cpu, const sps_matrix *A, const char *name, void *arg)
{
  sps_context *gpu = (sps_context *)arg;
  for (int k = 0; k < SPS_SPMV_KIND_COUNT; k++) {
    if (!sps_spmv_kind_available((sps_spmv_kind)k, gpu ? SPS_DEVICE_CUDA : SPS_DEVICE_CPU))
      continue;
    if (!sps_case()) continue;
    spmv_check_matrix(cpu, gpu, A, name, (sps_spmv_kind)k, 0);
  }
}

int main(void)
{
  sps_context *cpu = NULL, *gpu = NULL;
  if (!sps_test_matrices_dir()) sps_skip_all("SPS_MATRICES is not set");
#ifdef SPS_TEST_GPU
  gpu = sps_test_cuda_context_or_skip();
#endif
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  /* spmv_case_per_matrix left 0: the cases are the variants, in check_all_variants */
  spmv_for_each_matrix(cpu, 0, 0, SPS_SPMV_SMALL_NNZ + 1, LLONG_MAX, check_all_variants, gpu);
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}
