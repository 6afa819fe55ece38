/* spmm_cusparse.c: the cusparse-spmm SpMM variant: cusparseSpMM on CSR with row-major dense blocks,
 * the reference our SpMM kernels are measured against (CUDA only).
 *
 * Setup creates the CSR descriptor (the matrix's int32 row offsets when nnz fits, else an int64
 * copy of the column indices, as the cusparse SpMV variant does), row-major descriptors of X and
 * Y with the leading dimension of the multivectors made by sps_multivector_create(), sizes and
 * allocates the work buffer and runs cusparseSpMM_preprocess. The algorithm is
 * CUSPARSE_SPMM_CSR_ALG<plan->cusparse_alg> when set (spmm-bench times 1, 2 and 3), else the
 * first of ALG2, ALG3, ALG1 that cuSPARSE accepts for the shape (ALG2 and ALG3 are its row-major
 * algorithms). Apply points the descriptors at X and Y; a wrapped block of another leading
 * dimension has its descriptors rebuilt there (cuSPARSE allocates host memory for them), and one
 * whose buffer would exceed setup's is refused. Its sums are cuSPARSE's (fused multiply-adds in
 * the library's order): it agrees with the compensated variants to rounding only.
 */
#include <stdint.h>

#include "cusparse_csr.h"
#include "spmm_internal.h"

typedef struct spmm_cusparse_data {
  cusparseSpMatDescr_t mat;
  cusparseDnMatDescr_t mx, my;
  int64_t ldx, ldy; /* the leading dimensions the descriptors were made for */
  cusparseSpMMAlg_t alg;
  void *buffer;
  size_t buffer_bytes;
  void *index_copy; /* int64 column indices when nnz exceeds int32 */
} spmm_cusparse_data;

static const cusparseSpMMAlg_t spmm_algs[4] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1,
                                               CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3};

/* (Re)make the dense descriptors for leading dimensions ldx, ldy over X, Y. */
static cusparseStatus_t dense_descriptors(spmm_cusparse_data *d, const sps_matrix *A, int64_t k,
                                          const double *X, int64_t ldx, double *Y, int64_t ldy)
{
  if (d->mx) cusparseDestroyDnMat(d->mx);
  if (d->my) cusparseDestroyDnMat(d->my);
  d->mx = d->my = NULL;
  cusparseStatus_t s =
      cusparseCreateDnMat(&d->mx, A->ncols, k, ldx, (void *)X, CUDA_R_64F, CUSPARSE_ORDER_ROW);
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseCreateDnMat(&d->my, A->nrows, k, ldy, Y, CUDA_R_64F, CUSPARSE_ORDER_ROW);
  d->ldx = ldx;
  d->ldy = ldy;
  return s;
}

static sps_status spmm_cusparse_setup(sps_spmm_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  struct sps_cuda_state *cs = sps_cuda(ctx);
  spmm_cusparse_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "cuSPARSE SpMM plan data"));
  plan->data = d;
  /* An empty product is Y <- beta*Y: apply does it without cuSPARSE. */
  if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0) return SPS_SUCCESS;
  SPS_CHECK(sps_cusparse_csr(ctx, A, &d->mat, &d->index_copy));
  const int64_t ld = plan->k == 1 ? 1 : (plan->k + 1) / 2 * 2; /* sps_multivector_create's */
  double *tx = NULL, *ty = NULL;
  sps_status st = SPS_SUCCESS;
  const double one = 1.0, zero = 0.0;
  SPS_TRY(ctx->be->malloc(ctx, (void **)&tx, (size_t)(A->ncols * ld) * sizeof(double),
                          "cuSPARSE SpMM X"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&ty, (size_t)(A->nrows * ld) * sizeof(double),
                          "cuSPARSE SpMM Y"));
  SPS_TRY(ctx->be->fill(ctx, A->ncols * ld, 0.0, tx));
  if (dense_descriptors(d, A, plan->k, tx, ld, ty, ld) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSetPointerMode(cs->cusparse, CUSPARSE_POINTER_MODE_HOST) != CUSPARSE_STATUS_SUCCESS)
    SPS_TRY_FAIL(ctx, SPS_ERR_CUSPARSE, "cuSPARSE SpMM setup: dense descriptors failed");
  static const int order[3] = {2, 3, 1};
  cusparseStatus_t cst = CUSPARSE_STATUS_NOT_SUPPORTED;
  for (int t = 0; t < 3 && cst != CUSPARSE_STATUS_SUCCESS; t++) {
    const int a = plan->cusparse_alg ? plan->cusparse_alg : order[t];
    d->alg = spmm_algs[a];
    cst = cusparseSpMM_bufferSize(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->mx, &zero,
                                  d->my, CUDA_R_64F, d->alg, &d->buffer_bytes);
    if (plan->cusparse_alg) break;
  }
  if (cst != CUSPARSE_STATUS_SUCCESS)
    SPS_TRY_FAIL(ctx, cst == CUSPARSE_STATUS_NOT_SUPPORTED ? SPS_ERR_UNSUPPORTED : SPS_ERR_CUSPARSE,
                 "cusparseSpMM_bufferSize: %s (algorithm %d)", cusparseGetErrorString(cst),
                 plan->cusparse_alg);
  SPS_TRY(ctx->be->malloc(ctx, &d->buffer, d->buffer_bytes ? d->buffer_bytes : 1,
                          "cuSPARSE SpMM buffer"));
  if (d->alg == CUSPARSE_SPMM_CSR_ALG1 || d->alg == CUSPARSE_SPMM_CSR_ALG3) {
    cst = cusparseSpMM_preprocess(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->mx, &zero,
                                  d->my, CUDA_R_64F, d->alg, d->buffer);
    if (cst != CUSPARSE_STATUS_SUCCESS)
      SPS_TRY_FAIL(ctx, SPS_ERR_CUSPARSE, "cusparseSpMM_preprocess: %s",
                   cusparseGetErrorString(cst));
  }
  SPS_TRY(ctx->be->synchronize(ctx));
cleanup:
  ctx->be->free(ctx, tx);
  ctx->be->free(ctx, ty);
  return st;
}

static sps_status spmm_cusparse_apply(sps_spmm_plan *plan, double alpha, const double *X,
                                      int64_t ldx, double beta, double *Y, int64_t ldy)
{
  sps_context *ctx = plan->ctx;
  spmm_cusparse_data *d = plan->data;
  const sps_matrix *A = plan->A;
  if (A->nrows == 0) return SPS_SUCCESS;
  if (A->ncols == 0 || A->nnz == 0) {
    /* Y <- beta*Y (0 when beta = 0), the padding of a wrapped block left alone when ld > k. */
    if (ldy == plan->k)
      return beta == 0.0 ? ctx->be->fill(ctx, A->nrows * ldy, 0.0, Y)
                         : ctx->be->scal(ctx, A->nrows * ldy, beta, Y);
    for (int64_t i = 0; i < A->nrows; i++)
      SPS_CHECK(beta == 0.0 ? ctx->be->fill(ctx, plan->k, 0.0, Y + i * ldy)
                            : ctx->be->scal(ctx, plan->k, beta, Y + i * ldy));
    return SPS_SUCCESS;
  }
  struct sps_cuda_state *cs = sps_cuda(ctx);
  if (ldx != d->ldx || ldy != d->ldy) {
    SPS_CUSPARSE(ctx, dense_descriptors(d, A, plan->k, X, ldx, Y, ldy));
    size_t bytes = 0;
    const double one = 1.0, zero = 0.0;
    SPS_CUSPARSE(ctx, cusparseSpMM_bufferSize(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->mx,
                                              &zero, d->my, CUDA_R_64F, d->alg, &bytes));
    if (bytes > d->buffer_bytes)
      SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
               "cusparse-spmm: leading dimensions %lld, %lld need a buffer of %zu bytes, setup "
               "made %zu",
               (long long)ldx, (long long)ldy, bytes, d->buffer_bytes);
  }
  SPS_CUSPARSE(ctx, cusparseDnMatSetValues(d->mx, (void *)X));
  SPS_CUSPARSE(ctx, cusparseDnMatSetValues(d->my, Y));
  SPS_CUSPARSE(ctx, cusparseSetPointerMode(cs->cusparse, CUSPARSE_POINTER_MODE_HOST));
  SPS_CUSPARSE(ctx, cusparseSpMM(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d->mat, d->mx, &beta,
                                 d->my, CUDA_R_64F, d->alg, d->buffer));
  return SPS_SUCCESS;
}

static void spmm_cusparse_destroy(sps_spmm_plan *plan)
{
  spmm_cusparse_data *d = plan->data;
  if (!d) return;
  if (d->mx) cusparseDestroyDnMat(d->mx);
  if (d->my) cusparseDestroyDnMat(d->my);
  if (d->mat) cusparseDestroySpMat(d->mat);
  plan->ctx->be->free(plan->ctx, d->buffer);
  plan->ctx->be->free(plan->ctx, d->index_copy);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmm_variant sps_spmm_variant_cusparse = {
    .kind = SPS_SPMM_CUSPARSE,
    .on_cpu = 0,
    .on_cuda = 1,
    .compensated = 0,
    .setup = spmm_cusparse_setup,
    .apply = spmm_cusparse_apply,
    .destroy = spmm_cusparse_destroy,
};
