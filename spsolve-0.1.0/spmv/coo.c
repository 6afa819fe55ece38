/* coo.c: the coo SpMV variant: the CSR arrays plus a row index per nonzero, built at setup (coordinate format in row order). */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/* Column indices and values are the matrix's own (COO in row order shares them with CSR). */
typedef struct coo_data {
  int32_t *rowind; /* nnz, in the context's memory */
} coo_data;

static sps_status coo_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  coo_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "COO plan data"));
  plan->data = d;
  int32_t *rows;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&rows, (size_t)A->nnz, sizeof *rows, "COO row indices"));
#pragma omp parallel for schedule(dynamic, 1024) if (A->nrows > 4096)
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) rows[k] = (int32_t)i;
  return sps_spmv_to_device(ctx, (void **)&rows, (void **)&d->rowind,
                            (size_t)A->nnz * sizeof(int32_t), "COO row indices");
}

static sps_status coo_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                            double *y)
{
  const coo_data *d = plan->data;
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    const struct sps_cuda_state *cs = sps_cuda(plan->ctx);
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_coo(cs->stream, cs->sm_count, A->nrows, A->nnz, d->rowind,
                                            A->d_colind, A->d_values, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_coo(A->nrows, A->nnz, d->rowind, A->colind, A->values, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void coo_destroy(sps_spmv_plan *plan)
{
  coo_data *d = plan->data;
  if (!d) return;
  plan->ctx->be->free(plan->ctx, d->rowind);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_coo = {
    .kind = SPS_SPMV_COO,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 0,
    .setup = coo_setup,
    .apply = coo_apply,
    .destroy = coo_destroy,
};
