/* hyb.c: the hyb SpMV variant: ELL of width K for the bulk of every row plus COO for the entries beyond K. */
#include "spmv_internal.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * Bytes per ELL slot (value + column) and per COO entry (value, column, row, and its share of
 * the atomic update of y).
 */
#define SPS_HYB_ELL_SLOT_BYTES 12
#define SPS_HYB_COO_ENTRY_BYTES 24

typedef struct hyb_data {
  int64_t ld, width, coo_nnz;
  int32_t *ell_colind; /* width * ld */
  double *ell_values;
  int32_t *coo_rowind; /* coo_nnz */
  int32_t *coo_colind;
  double *coo_values;
} hyb_data;

/*
 * The ELL width K: the one minimising the estimated bytes read,
 *   12 * K * nrows + 24 * excess(K),  excess(K) = sum_i max(len_i - K, 0),
 * from the histogram of row lengths (ties go to the smaller K). excess(K) = excess(K-1) -
 * #{rows with len >= K}, so one pass over the histogram finds it.
 */
static sps_status hyb_choose_width(sps_context *ctx, const sps_matrix *A, int64_t max_len,
                                   int64_t *width)
{
  int64_t *ge;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&ge, (size_t)max_len + 2, sizeof *ge,
                            "hyb row-length histogram"));
  for (int64_t i = 0; i < A->nrows; i++) ge[A->rowptr[i + 1] - A->rowptr[i]]++;
  /* ge[L] <- number of rows with length >= L. */
  for (int64_t L = max_len - 1; L >= 0; L--) ge[L] += ge[L + 1];
  int64_t excess = A->nnz, best_k = 0;
  double best = (double)SPS_HYB_COO_ENTRY_BYTES * (double)excess;
  for (int64_t K = 1; K <= max_len; K++) {
    excess -= ge[K];
    double bytes = (double)SPS_HYB_ELL_SLOT_BYTES * (double)K * (double)A->nrows +
                   (double)SPS_HYB_COO_ENTRY_BYTES * (double)excess;
    if (bytes < best) {
      best = bytes;
      best_k = K;
    }
  }
  sps_host_free(ge);
  *width = best_k;
  return SPS_SUCCESS;
}

static sps_status hyb_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  sps_spmv_row_stats rs;
  sps_spmv_row_stats_compute(A, &rs);
  hyb_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "hyb plan data"));
  plan->data = d;
  SPS_CHECK(hyb_choose_width(ctx, A, rs.max_len, &d->width));
  const int64_t K = d->width;

  int32_t *ecol = NULL, *crow = NULL, *ccol = NULL;
  double *eval = NULL, *cval = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_spmv_ell_build(ctx, A, K, &d->ld, &ecol, &eval));
  int64_t excess = 0;
  for (int64_t i = 0; i < A->nrows; i++) {
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > K) excess += len - K;
  }
  d->coo_nnz = excess;
  SPS_TRY(sps_host_alloc(ctx, (void **)&crow, (size_t)excess, sizeof *crow, "hyb COO rows"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&ccol, (size_t)excess, sizeof *ccol, "hyb COO columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&cval, (size_t)excess, sizeof *cval, "hyb COO values"));
  int64_t n = 0;
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i] + K; k < A->rowptr[i + 1]; k++, n++) {
      crow[n] = (int32_t)i;
      ccol[n] = A->colind[k];
      cval[n] = A->values[k];
    }
  const size_t slots = (size_t)(K * d->ld);
  SPS_TRY(sps_spmv_to_device(ctx, (void **)&ecol, (void **)&d->ell_colind,
                             slots * sizeof(int32_t), "hyb ELL column indices"));
  SPS_TRY(sps_spmv_to_device(ctx, (void **)&eval, (void **)&d->ell_values, slots * sizeof(double),
                             "hyb ELL values"));
  SPS_TRY(sps_spmv_to_device(ctx, (void **)&crow, (void **)&d->coo_rowind,
                             (size_t)excess * sizeof(int32_t), "hyb COO rows"));
  SPS_TRY(sps_spmv_to_device(ctx, (void **)&ccol, (void **)&d->coo_colind,
                             (size_t)excess * sizeof(int32_t), "hyb COO columns"));
  SPS_TRY(sps_spmv_to_device(ctx, (void **)&cval, (void **)&d->coo_values,
                             (size_t)excess * sizeof(double), "hyb COO values"));
  return SPS_SUCCESS;
cleanup:
  sps_host_free(ecol);
  sps_host_free(eval);
  sps_host_free(crow);
  sps_host_free(ccol);
  sps_host_free(cval);
  return st;
}

static sps_status hyb_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                            double *y)
{
  const hyb_data *d = plan->data;
  const int64_t m = plan->A->nrows;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    const struct sps_cuda_state *cs = sps_cuda(plan->ctx);
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_hyb(cs->stream, cs->sm_count, m, d->ld, d->width, d->ell_colind,
                                 d->ell_values, d->coo_nnz, d->coo_rowind, d->coo_colind,
                                 d->coo_values, alpha, x, beta, y));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_hyb(m, d->ld, d->width, d->ell_colind, d->ell_values, d->coo_nnz, d->coo_rowind,
              d->coo_colind, d->coo_values, alpha, x, beta, y);
  return SPS_SUCCESS;
}

static void hyb_destroy(sps_spmv_plan *plan)
{
  hyb_data *d = plan->data;
  if (!d) return;
  sps_context *ctx = plan->ctx;
  ctx->be->free(ctx, d->ell_colind);
  ctx->be->free(ctx, d->ell_values);
  ctx->be->free(ctx, d->coo_rowind);
  ctx->be->free(ctx, d->coo_colind);
  ctx->be->free(ctx, d->coo_values);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmv_variant sps_spmv_variant_hyb = {
    .kind = SPS_SPMV_HYB,
    .on_cpu = 1,
    .on_cuda = 1,
    .rounds_like_csr = 0,
    .setup = hyb_setup,
    .apply = hyb_apply,
    .destroy = hyb_destroy,
};
