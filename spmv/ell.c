/* ell.c: the ell SpMV variant: padded column-major ELLPACK of width max row length, refused when the padding is too large. */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/* ELL is refused when width * nrows exceeds SPS_ELL_MAX_PADDING times nnz (spmv_internal.h). */

typedef struct ell_data {
  int64_t ld, width;
  int32_t *colind; /* width * ld, in the context's memory */
  double *values;
} ell_data;

sps_status sps_spmv_ell_build(sps_context *ctx, const sps_matrix *A, int64_t width, int64_t *ld,
                              int32_t **colind, double **values)
{
  const int64_t m = A->nrows;
  const int64_t lda = (m + 31) / 32 * 32;
  *colind = NULL;
  *values = NULL;
  *ld = lda;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_alloc(ctx, (void **)colind, (size_t)(width * lda), sizeof **colind,
                         "ELL column indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)values, (size_t)(width * lda), sizeof **values,
                         "ELL values"));
#pragma omp parallel for schedule(static) if (m > 4096)
  for (int64_t i = 0; i < lda; i++) {
    const int64_t len = i < m ? A->rowptr[i + 1] - A->rowptr[i] : 0;
    const int64_t n = len < width ? len : width;
    for (int64_t k = 0; k < n; k++) {
      (*colind)[k * lda + i] = A->colind[A->rowptr[i] + k];
      (*values)[k * lda + i] = A->values[A->rowptr[i] + k];
    }
    for (int64_t k = n; k < width; k++) {
      (*colind)[k * lda + i] = -1;
      (*values)[k * lda + i] = 0.0;
    }
  }
  return SPS_SUCCESS;
cleanup:
  sps_host_free(*colind);
  sps_host_free(*values);
  *colind = NULL;
  *values = NULL;
  return st;
}

sps_status sps_spmv_ell_build_device(sps_context *ctx, const sps_matrix *A, int64_t width,
                                     int64_t *ld, int32_t **colind, double **values)
{
  *colind = NULL;
  *values = NULL;
  *ld = (A->nrows + 31) / 32 * 32;
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    const size_t slots = (size_t)(width * *ld);
    sps_status st = SPS_SUCCESS;
    SPS_TRY(ctx->be->malloc(ctx, (void **)colind, (slots ? slots : 1) * sizeof(int32_t),
                            "ELL column indices"));
    SPS_TRY(ctx->be->malloc(ctx, (void **)values, (slots ? slots : 1) * sizeof(double),
                            "ELL values"));
    SPS_CUDA_LAUNCH(ctx, sps_cuda_ell_build(sps_cuda(ctx)->stream, A->nrows, *ld, width,
                                            sps_matrix_dev_rowptr(A), A->d_colind, A->d_values,
                                            *colind, *values));
    return SPS_SUCCESS;
  cleanup:
    if (*colind) ctx->be->free(ctx, *colind);
    if (*values) ctx->be->free(ctx, *values);
    *colind = NULL;
    *values = NULL;
    return st;
  }
#endif
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "sps_spmv_ell_build_device: not a CUDA context");
}

/* The ELL arrays in the context's memory: built on the GPU from the device CSR arrays (no
 * host pass, no upload of the padded slots), on the host for the CPU. */
static sps_status ell_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  sps_spmv_row_stats rs;
  sps_spmv_row_stats_compute(A, &rs);
  const int64_t padded = rs.max_len * A->nrows;
  if (padded > SPS_ELL_MAX_PADDING * A->nnz)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "SpMV variant 'ell' refuses this matrix: its padded size %lld (width %lld = longest "
             "row, times %lld rows) exceeds %d x nnz = %lld; use 'hyb' or 'csr-vector'",
             (long long)padded, (long long)rs.max_len, (long long)A->nrows, SPS_ELL_MAX_PADDING,
             (long long)(SPS_ELL_MAX_PADDING * A->nnz));
  ell_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "ELL plan data"));
  plan->data = d;
  d->width = rs.max_len;
  if (ctx->kind == SPS_DEVICE_CUDA)
    return sps_spmv_ell_build_device(ctx, A, d->width, &d->ld, &d->colind, &d->values);
  int32_t *col = NULL;
  double *val = NULL;
  SPS_CHECK(sps_spmv_ell_build(ctx, A, d->width, &d->ld, &col, &val));
  const size_t slots = (size_t)(d->width * d->ld);
  sps_status st = sps_spmv_to_device(ctx, (void **)&col, (void **)&d->colind,
                                     slots * sizeof(int32_t), "ELL column indices");
  if (st != SPS_SUCCESS) {
    sps_host_free(val);
    return st;
  }
  return sps_spmv_to_device(ctx, (void **)&val, (void **)&d->values, slots * sizeof(double),
                            "ELL values");
}

static sps_status ell_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                            double *y)
{
  const ell_data *d = plan->data;
  const int64_t m = plan->A->nrows;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx, sps_cuda_ell(sps_cuda(plan->ctx)->stream, m, d->ld, d->width,
                                            d->colind, d->values, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_ell(m, d->ld, d->width, d->colind, d->values, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void ell_destroy(sps_spmv_plan *plan)
{
  ell_data *d = plan->data;
  if (!d) return;
  plan->ctx->be->free(plan->ctx, d->colind);
  plan->ctx->be->free(plan->ctx, d->values);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_ell = {
    .kind = SPS_SPMV_ELL,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 1,
    .setup = ell_setup,
    .apply = ell_apply,
    .destroy = ell_destroy,
};
