/* ilu0.c: the ILU(0) preconditioner: optional matching and scaling, incomplete LU with the pattern of A on the context's device, two triangular solves per apply. */
#include <math.h>

#include "ilu0.h"
#include "precond.h"
#include "ref/kernels.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

/*
 * ILU(0) (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., 10.3.2): L unit lower
 * and U upper with the sparsity of A, such that (LU)_ij = a_ij wherever a_ij is stored.
 * Before factoring, when the diagonal is weak (a row without a nonzero diagonal entry; see
 * sps_reorder_diagonal_is_weak) or when asked ("matching", "scaling"), A is replaced by
 * B = Dr P A Dc (precond/reorder.h), so M^-1 = Dc (LU)^-1 Dr P. Pivots below pivot.tol times
 * the row's largest entry are replaced by that value with their sign and counted
 * (sps_precond_info.replaced_pivots), so no division by zero can occur; a matrix that is
 * structurally singular is refused, naming the count of rows that cannot be matched.
 */

typedef struct ilu0_data {
  sps_lu_factors f;
} ilu0_data;

/* max_j |b_ij| of every row, for the pivot rule. */
static sps_status row_max(sps_context *ctx, const sps_host_csr *B, double **out)
{
  double *m;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&m, B->n > 0 ? (size_t)B->n : 1, sizeof(double),
                           "factor row maxima"));
  for (int64_t i = 0; i < B->n; i++) {
    double v = 0.0;
    for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++)
      if (fabs(B->values[k]) > v) v = fabs(B->values[k]);
    m[i] = v;
  }
  *out = m;
  return SPS_SUCCESS;
}

sps_status sps_ilu0_factor(sps_lu_factors *f, const sps_host_csr *B, double pivot_tol, int spd,
                           int64_t *replaced, int64_t *breakdowns)
{
  sps_context *ctx = f->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = f->n;
  sps_status st = SPS_SUCCESS;
  double *hmax = NULL, *dmax = NULL;
  unsigned *flags = NULL;
  void *ctrl = NULL;
  *replaced = 0;
  *breakdowns = 0;
  SPS_TRY(row_max(ctx, B, &hmax));
  SPS_TRY(be->upload(ctx, f->values, B->values, (size_t)f->nnz * sizeof(double)));
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    struct sps_cuda_state *cs = sps_cuda(ctx);
    const size_t nn = n > 0 ? (size_t)n : 1;
    SPS_TRY(be->malloc(ctx, (void **)&dmax, nn * sizeof(double), "ILU(0) row maxima"));
    SPS_TRY(be->upload(ctx, dmax, hmax, (size_t)n * sizeof(double)));
    SPS_TRY(be->malloc(ctx, (void **)&flags, nn * sizeof(unsigned), "ILU(0) row flags"));
    SPS_TRY(be->malloc(ctx, &ctrl, sizeof(sps_cuda_sync_ctrl), "ILU(0) control"));
    if (cudaMemsetAsync(flags, 0, nn * sizeof(unsigned), cs->stream) != cudaSuccess ||
        cudaMemsetAsync(ctrl, 0, sizeof(sps_cuda_sync_ctrl), cs->stream) != cudaSuccess)
      SPS_TRY_FAIL(ctx, SPS_ERR_CUDA, "ILU(0): cannot clear the row flags");
    const cudaError_t e = sps_cuda_ilu0_factor(cs->stream, n, sps_trisolve_order(f->lower),
                                               f->rowptr, f->diag, f->colind, f->values, dmax,
                                               pivot_tol, spd, f->dinv, flags,
                                               (sps_cuda_sync_ctrl *)ctrl);
    if (e != cudaSuccess)
      SPS_TRY_FAIL(ctx, SPS_ERR_CUDA, "ILU(0) factorisation kernel: %s", cudaGetErrorString(e));
    sps_cuda_sync_ctrl h;
    SPS_TRY(be->download(ctx, &h, ctrl, sizeof h));
    *replaced = (int64_t)h.replaced;
    *breakdowns = (int64_t)h.breakdowns;
  } else
#endif
  {
    sps_ref_ilu0_factor(n, f->rowptr, f->diag, f->colind, f->values, hmax, pivot_tol, spd,
                        f->dinv, replaced, breakdowns);
  }
  SPS_TRY(sps_lu_factors_refresh(f));
cleanup:
  if (dmax) be->free(ctx, dmax);
  if (flags) be->free(ctx, flags);
  if (ctrl) be->free(ctx, ctrl);
  sps_host_free(hmax);
  return st;
}

static void ilu0_destroy(sps_precond *pc)
{
  ilu0_data *d = pc->data;
  if (!d) return;
  sps_lu_factors_destroy(&d->f);
  sps_host_free(d);
  pc->data = NULL;
}

static sps_status ilu0_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  sps_status st = SPS_SUCCESS;
  sps_host_csr B = {0};
  sps_reorder r = {0};
  ilu0_data *d = NULL;
  SPS_TRY(sps_lu_factors_prepare(pc, A, 0, 0, &B, &r));
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "ILU(0) data"));
  pc->data = d;
  SPS_TRY(sps_lu_factors_create(ctx, &d->f, &B, &r, NULL));
  int64_t breakdowns;
  SPS_TRY(sps_ilu0_factor(&d->f, &B, pc->params.pivot_tol, 0, &pc->info.replaced_pivots,
                          &breakdowns));
  pc->info.nnz_factors = d->f.nnz;
  pc->info.levels_lower = sps_trisolve_levels(d->f.lower);
  pc->info.levels_upper = sps_trisolve_levels(d->f.upper);
cleanup:
  if (st) ilu0_destroy(pc);
  sps_reorder_free(&r);
  sps_host_csr_free(&B);
  return st;
}

static sps_status ilu0_apply(sps_precond *pc, const double *r, double *z)
{
  ilu0_data *d = pc->data;
  return sps_lu_factors_apply(&d->f, r, z);
}

const sps_precond_ops sps_precond_ops_ilu0 = {
    .type = SPS_PRECOND_ILU0,
    .name = "ilu0",
    .in_place = 1,
    .symmetric = 0,
    .setup = ilu0_setup,
    .apply = ilu0_apply,
    .destroy = ilu0_destroy,
};
