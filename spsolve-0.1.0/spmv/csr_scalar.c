/* csr_scalar.c: the csr-scalar SpMV variant: plain CSR, one row per thread; needs no format of its own. */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

static sps_status csr_scalar_setup(sps_spmv_plan *plan)
{
  plan->threads_per_row = 1;
  return SPS_SUCCESS;
}

static sps_status csr_scalar_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                                   double *y)
{
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_csr_scalar(sps_cuda(plan->ctx)->stream, A->nrows,
                                                   A->d_rowptr, A->d_rowptr32, A->d_colind,
                                                   A->d_values, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_csr_scalar(A->nrows, A->rowptr, A->colind, A->values, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void csr_scalar_destroy(sps_spmv_plan *plan)
{
  (void)plan;
}

const sps_spmv_variant sps_spmv_variant_csr_scalar = {
    .kind = SPS_SPMV_CSR_SCALAR,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = csr_scalar_setup,
    .apply = csr_scalar_apply,
    .destroy = csr_scalar_destroy,
};
