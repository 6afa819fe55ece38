/* spmm_csr.c: the spmm-csr SpMM variant: plain CSR, a group of lanes per row and one lane per column on the GPU, the library's reference SpMM on the CPU; needs no format of its own. */
#include "ref/spmm_kernels.h"
#include "spmm_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/spmm_launchers.h"
#endif

static sps_status spmm_csr_setup(sps_spmm_plan *plan)
{
  (void)plan;
  return SPS_SUCCESS;
}

static sps_status spmm_csr_apply(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                                 double beta, double *Y, int64_t ldy)
{
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_spmm_csr(sps_cuda(plan->ctx)->stream, A->nrows, A->d_rowptr,
                                                 A->d_colind, A->d_values, plan->k, alpha, X, ldx,
                                                 beta, Y, ldy));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_spmm_csr(A->nrows, A->rowptr, A->colind, A->values, plan->k, alpha, X, ldx, beta, Y, ldy);
  return SPS_SUCCESS;
}

static void spmm_csr_destroy(sps_spmm_plan *plan)
{
  (void)plan;
}

const sps_spmm_variant sps_spmm_variant_csr = {
    .kind = SPS_SPMM_CSR,
    .on_cpu = 1,
    .on_cuda = 1,
    .compensated = 1,
    .setup = spmm_csr_setup,
    .apply = spmm_csr_apply,
    .destroy = spmm_csr_destroy,
};
