/* spmv_ell.c: tests of the ell SpMV variant: its CPU reference against a plain CSR loop and, built
 * with SPS_TEST_GPU, its GPU kernel against that reference, and the ELL arrays built on the GPU
 * against the host build.
 *
 * Every matrix of spmv_check.h's list (synthetic edge cases, bundled and shared matrices),
 * (alpha, beta) = (1, 0) with NaN in y and (2.5, -0.75), per-row tolerance
 * 2*(len_i + 2)*eps*(|alpha| sum_j |a_ij x_j| + |beta y_i|); apply before setup.
 * Also: the refusal of matrices whose padding exceeds 3 x nnz (status and message).
 * GPU build: sps_spmv_ell_build_device's arrays equal sps_spmv_ell_build's byte for byte
 * (the padded width of the longest row, and a narrower one that cuts rows, as hyb does).
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix of each check is a case.
 */
#include "spmv_check.h"
#ifdef SPS_TEST_GPU
#include "../../spmv/spmv_internal.h"
#endif

#ifdef SPS_TEST_GPU
static void check_build(sps_context *cpu, const sps_matrix *A, const char *name, void *arg)
{
  sps_context *gpu = (sps_context *)arg;
  if (A->nrows == 0) return;
  sps_matrix *G = spmv_copy_to(gpu, A);
  int64_t width = 0;
  for (int64_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > width) width = A->rowptr[i + 1] - A->rowptr[i];
  if (width * A->nrows > 64 * (A->nnz + A->nrows)) { /* a few long rows: the narrow case only */
    sps_matrix_destroy(&G);
    return;
  }
  const int64_t widths[2] = {width, width > 1 ? width / 2 : width};
  for (int w = 0; w < 2; w++) {
    int64_t ld = 0, ldd = 0;
    int32_t *hc = NULL, *dc = NULL;
    double *hv = NULL, *dv = NULL;
    if (sps_spmv_ell_build(cpu, A, widths[w], &ld, &hc, &hv) ||
        sps_spmv_ell_build_device(gpu, G, widths[w], &ldd, &dc, &dv))
      sps_bail("%s: ELL build: %s %s", name, sps_context_last_error(cpu),
               sps_context_last_error(gpu));
    const size_t slots = (size_t)(widths[w] * ld);
    int32_t *c2 = malloc(slots * sizeof *c2 + 4);
    double *v2 = malloc(slots * sizeof *v2 + 8);
    if (!c2 || !v2) sps_bail("alloc");
    if (slots && (gpu->be->download(gpu, c2, dc, slots * sizeof *c2) ||
                  gpu->be->download(gpu, v2, dv, slots * sizeof *v2)))
      sps_bail("download");
    sps_ok(ld == ldd && (!slots || (!memcmp(c2, hc, slots * sizeof *c2) &&
                                    !memcmp(v2, hv, slots * sizeof *v2))),
           "%s: ELL of width %lld built on the GPU equals the host's (%lld slots)", name,
           (long long)widths[w], (long long)slots);
    free(c2);
    free(v2);
    sps_host_free(hc);
    sps_host_free(hv);
    gpu->be->free(gpu, dc);
    gpu->be->free(gpu, dv);
  }
  sps_matrix_destroy(&G);
}
#endif

int main(void)
{
  static const int tprs[] = {0};
#ifdef SPS_TEST_GPU
  sps_context *cpu = NULL, *gpu = sps_test_cuda_context_or_skip();
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("CPU context");
  spmv_case_per_matrix = 1;
  spmv_for_each_matrix(cpu, 1, 1, 0, SPS_SPMV_SMALL_NNZ, check_build, gpu);
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
#endif
  return spmv_variant_main(SPS_SPMV_ELL, tprs, 1);
}
