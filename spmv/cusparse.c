/* cusparse.c: the cusparse SpMV variant: cusparseSpMV on CSR with ALG1, the reference every variant is measured against (CUDA only).
 *
 * Setup creates the descriptors, sizes and allocates the work buffer and runs
 * cusparseSpMV_preprocess; apply only points the vector descriptors at x and y and calls
 * cusparseSpMV with host scalars. cusparseCreateCsr takes one index type for row offsets and
 * columns, while the matrix has int64 offsets and int32 columns: when nnz fits in int32 (always
 * in practice) an int32 copy of the row offsets is made at setup, 4*(nrows+1) bytes, so
 * cuSPARSE reads the same 4-byte offsets the byte model of a CSR SpMV counts; otherwise an
 * int64 copy of the column indices is made.
 * Its row sums are cuSPARSE's, in the library's order and with its own rounding: like coo and
 * hyb (atomics) it matches the compensated variants (csr-scalar, csr-vector, ell, merge,
 * blockwise, binned) only to rounding, so AUTO never chooses it.
 */
#include <stdint.h>

#include "cusparse_csr.h"

typedef struct cusparse_data {
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  void *buffer;
  void *index_copy; /* int64 column indices when A has no int32 offsets (sps_cusparse_csr) */
} cusparse_data;

sps_status sps_cusparse_csr(sps_context *ctx, const sps_matrix *A, cusparseSpMatDescr_t *mat,
                            void **index_copy)
{
  const void *rowptr, *colind;
  cusparseIndexType_t itype;
  if (A->d_rowptr32) {
    /* The matrix's own int32 copy of the row offsets: 4-byte offsets, as GPU.md's count assumes. */
    rowptr = A->d_rowptr32;
    colind = A->d_colind;
    itype = CUSPARSE_INDEX_32I;
  } else {
    int64_t *ci64;
    SPS_CHECK(sps_host_alloc(ctx, (void **)&ci64, (size_t)A->nnz, sizeof *ci64,
                             "cuSPARSE int64 column indices"));
    for (int64_t k = 0; k < A->nnz; k++) ci64[k] = A->colind[k];
    SPS_CHECK(sps_spmv_to_device(ctx, (void **)&ci64, index_copy,
                                 (size_t)A->nnz * sizeof(int64_t),
                                 "cuSPARSE int64 column indices"));
    rowptr = A->d_rowptr;
    colind = *index_copy;
    itype = CUSPARSE_INDEX_64I;
  }
  SPS_CUSPARSE(ctx, cusparseCreateCsr(mat, A->nrows, A->ncols, A->nnz, (void *)rowptr,
                                      (void *)colind, A->d_values, itype, itype,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return SPS_SUCCESS;
}

static sps_status cusparse_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  struct sps_cuda_state *cs = sps_cuda(ctx);
  cusparse_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "cuSPARSE plan data"));
  plan->data = d;
  plan->threads_per_row = 0;
  /* An empty product is only y <- beta*y: apply does it without cuSPARSE. */
  if (A->nrows == 0 || A->nnz == 0) return SPS_SUCCESS;

  SPS_CHECK(sps_cusparse_csr(ctx, A, &d->mat, &d->index_copy));

  /* Vectors for the analysis; apply points the descriptors at its own x and y. */
  double *tx = NULL, *ty = NULL;
  sps_status st = SPS_SUCCESS;
  const double one = 1.0, zero = 0.0;
  size_t bytes = 0;
  SPS_TRY(ctx->be->malloc(ctx, (void **)&tx, (size_t)A->ncols * sizeof(double), "cuSPARSE x"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&ty, (size_t)A->nrows * sizeof(double), "cuSPARSE y"));
  SPS_TRY(ctx->be->fill(ctx, A->ncols, 0.0, tx));
  if (cusparseCreateDnVec(&d->vx, A->ncols, tx, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateDnVec(&d->vy, A->nrows, ty, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSetPointerMode(cs->cusparse, CUSPARSE_POINTER_MODE_HOST) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSpMV_bufferSize(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->vx,
                              &zero, d->vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                              &bytes) != CUSPARSE_STATUS_SUCCESS)
    SPS_TRY_FAIL(ctx, SPS_ERR_CUSPARSE, "cuSPARSE SpMV setup (descriptors, buffer size) failed");
  SPS_TRY(ctx->be->malloc(ctx, &d->buffer, bytes, "cuSPARSE SpMV buffer"));
  if (cusparseSpMV_preprocess(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->vx,
                              &zero, d->vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                              d->buffer) != CUSPARSE_STATUS_SUCCESS)
    SPS_TRY_FAIL(ctx, SPS_ERR_CUSPARSE, "cusparseSpMV_preprocess failed");
  /* The analysis vectors are freed below: wait for the work queued on them. */
  SPS_TRY(ctx->be->synchronize(ctx));
cleanup:
  ctx->be->free(ctx, tx);
  ctx->be->free(ctx, ty);
  return st;
}

static sps_status cusparse_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                                 double *y)
{
  sps_context *ctx = plan->ctx;
  const cusparse_data *d = plan->data;
  const sps_matrix *A = plan->A;
  if (A->nrows == 0) return SPS_SUCCESS;
  if (A->nnz == 0)
    return beta == 0.0 ? ctx->be->fill(ctx, A->nrows, 0.0, y)
                       : ctx->be->scal(ctx, A->nrows, beta, y);
  struct sps_cuda_state *cs = sps_cuda(ctx);
  SPS_CUSPARSE(ctx, cusparseDnVecSetValues(d->vx, (void *)x));
  SPS_CUSPARSE(ctx, cusparseDnVecSetValues(d->vy, y));
  SPS_CUSPARSE(ctx, cusparseSetPointerMode(cs->cusparse, CUSPARSE_POINTER_MODE_HOST));
  SPS_CUSPARSE(ctx, cusparseSpMV(cs->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d->mat,
                                 d->vx, &beta, d->vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                 d->buffer));
  return SPS_SUCCESS;
}

static void cusparse_destroy(sps_spmv_plan *plan)
{
  cusparse_data *d = plan->data;
  if (!d) return;
  if (d->vx) cusparseDestroyDnVec(d->vx);
  if (d->vy) cusparseDestroyDnVec(d->vy);
  if (d->mat) cusparseDestroySpMat(d->mat);
  plan->ctx->be->free(plan->ctx, d->buffer);
  plan->ctx->be->free(plan->ctx, d->index_copy);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_cusparse = {
    .kind = SPS_SPMV_CUSPARSE,
    .on_cpu = 0,
    .on_cuda = 1,
    .rounds_like_csr = 0,
    .setup = cusparse_setup,
    .apply = cusparse_apply,
    .destroy = cusparse_destroy,
};
