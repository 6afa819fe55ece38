/* spmm_spmv.c: the spmm-spmv SpMM variant: for one column (k = 1) the SpMV layer's automatic choice, so that a block of one vector runs the trained SpMV kernels; no kernel of its own. */
#include <stdio.h>
#include <string.h>

#include "spmm_internal.h"
#include "spmv_internal.h"
#include "ref/spmm_kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/spmm_launchers.h"
#endif

/*
 * An SpMM with k = 1 is an SpMV: setup makes an SpMV plan with SPS_SPMV_AUTO (the trained model
 * on GPUs that have one, else the rule; spmv/select.c), owned by this plan and not counted by the
 * context. AUTO only runs variants that round like csr-scalar, so y is the reference SpMM's
 * column bit for bit (setup checks it). A wrapped block whose leading dimension is not 1 is not
 * a vector: apply then runs spmm-csr's kernel (or reference) on it, with the same bits.
 */
typedef struct spmv_data {
  sps_spmv_plan *spmv;
} spmv_data;

static sps_status spmm_spmv_setup(sps_spmm_plan *plan)
{
  sps_context *ctx = plan->ctx;
  if (plan->k != 1)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "spmm-spmv serves k = 1 only (the plan has k = %lld)",
             (long long)plan->k);
  spmv_data *d;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "spmm-spmv plan data"));
  plan->data = d;
  SPS_CHECK(sps_spmv_plan_create(ctx, &d->spmv, plan->A, SPS_SPMV_AUTO));
  sps_spmv_plan_set_owned(d->spmv);
  SPS_CHECK(sps_spmv_plan_setup(d->spmv));
  if (!sps_spmv_plan_rounds_like_csr(d->spmv)) {
    sps_spmv_kind kind;
    sps_spmv_plan_get_kind(d->spmv, &kind, NULL);
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "spmm-spmv: the SpMV choice %s does not round like csr-scalar",
             sps_spmv_kind_name(kind));
  }
  snprintf(plan->why + strlen(plan->why), sizeof plan->why - strlen(plan->why), "; SpMV: %s",
           sps_spmv_kind_name(d->spmv->kind));
  return SPS_SUCCESS;
}

static sps_status spmm_spmv_apply(sps_spmm_plan *plan, double alpha, const double *X, int64_t ldx,
                                  double beta, double *Y, int64_t ldy)
{
  const spmv_data *d = plan->data;
  if (ldx == 1 && ldy == 1) return sps_spmv_apply_raw(d->spmv, alpha, X, beta, Y);
  const sps_matrix *A = plan->A;
#ifdef SPS_HAVE_CUDA
  if (plan->ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(plan->ctx,
                    sps_cuda_spmm_csr(sps_cuda(plan->ctx)->stream, A->nrows, A->d_rowptr,
                                      A->d_colind, A->d_values, 1, alpha, X, ldx, beta, Y, ldy));
    return SPS_SUCCESS;
  }
#endif
  sps_ref_spmm_csr(A->nrows, A->rowptr, A->colind, A->values, 1, alpha, X, ldx, beta, Y, ldy);
  return SPS_SUCCESS;
}

static void spmm_spmv_destroy(sps_spmm_plan *plan)
{
  spmv_data *d = plan->data;
  if (!d) return;
  sps_spmv_plan_destroy(&d->spmv);
  sps_host_free(d);
  plan->data = NULL;
}

const sps_spmm_variant sps_spmm_variant_spmv = {
    .kind = SPS_SPMM_SPMV,
    .on_cpu = 1,
    .on_cuda = 1,
    .compensated = 1,
    .setup = spmm_spmv_setup,
    .apply = spmm_spmv_apply,
    .destroy = spmm_spmv_destroy,
};
