/* csr_vector.c: the csr-vector SpMV variant: plain CSR with a group of 2 to 32 lanes per row; needs no format of its own. */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/* Threads per row: the one set on the plan, else seed 000's rule from the mean row length. */
static sps_status csr_vector_setup(sps_spmv_plan *plan)
{
  if (plan->threads_per_row == 0) {
    sps_spmv_row_stats rs;
    sps_spmv_row_stats_compute(plan->A, &rs);
    plan->threads_per_row = sps_spmv_tpr_from_mean(rs.mean, 2);
  }
  return SPS_SUCCESS;
}

static sps_status csr_vector_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                                   double *y)
{
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_csr_vector(sps_cuda(plan->ctx)->stream, A->nrows,
                                                   A->d_rowptr, A->d_colind, A->d_values,
                                                   plan->threads_per_row, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_csr_vector(A->nrows, A->rowptr, A->colind, A->values, plan->threads_per_row, alpha, x,
                     beta, y);
  return SPS_SUCCESS;
}

static void csr_vector_destroy(sps_spmv_plan *plan)
{
  (void)plan;
}

const sps_spmv_variant sps_spmv_variant_csr_vector = {
    .kind = SPS_SPMV_CSR_VECTOR,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = csr_vector_setup,
    .apply = csr_vector_apply,
    .destroy = csr_vector_destroy,
};
