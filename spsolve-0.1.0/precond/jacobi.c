/* jacobi.c: the Jacobi (diagonal) preconditioner, z = D^-1 r with D the diagonal of A. */
#include <math.h>

#include "precond.h"

/*
 * Setup finds a_ii in each row of the host CSR arrays, stores 1/(sign a_ii) on the host (sign:
 * the operator is sign*A) and uploads
 * it once; apply is one pointwise product on the context's device. A row whose diagonal
 * entry is missing, zero, NaN or Inf has no inverse: setup refuses the matrix with
 * SPS_ERR_UNSUPPORTED and names the row (1-based, as in the Matrix Market file).
 */
static sps_status jacobi_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  sps_status st = SPS_SUCCESS;
  const int64_t n = A->nrows;
  double *inv = NULL;
  double *d_inv = NULL;
  SPS_TRY(sps_host_alloc(ctx, (void **)&inv, (size_t)n, sizeof(double),
                         "Jacobi inverse diagonal (host)"));
  for (int64_t i = 0; i < n; i++) {
    double d = 0.0;
    int found = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) {
        d = A->values[k];
        found = 1;
        break;
      }
    if (!found)
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "Jacobi preconditioner: row %lld has no diagonal entry", (long long)(i + 1));
    if (d == 0.0 || !isfinite(d))
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "Jacobi preconditioner: diagonal entry of row %lld is %g, which has no inverse",
                   (long long)(i + 1), d);
    inv[i] = 1.0 / (pc->sign * d);
  }
  SPS_TRY(
      ctx->be->malloc(ctx, (void **)&d_inv, (size_t)n * sizeof(double), "Jacobi inverse diagonal"));
  SPS_TRY(ctx->be->upload(ctx, d_inv, inv, (size_t)n * sizeof(double)));
  pc->data = d_inv;
  d_inv = NULL;
cleanup:
  if (d_inv) ctx->be->free(ctx, d_inv);
  sps_host_free(inv);
  return st;
}

/* z <- D^-1 r, entry by entry. */
static sps_status jacobi_apply(sps_precond *pc, const double *r, double *z)
{
  return pc->ctx->be->pointwise_mult(pc->ctx, pc->n, (const double *)pc->data, r, z);
}

static void jacobi_destroy(sps_precond *pc)
{
  if (pc->data) pc->ctx->be->free(pc->ctx, pc->data);
  pc->data = NULL;
}

static const double *jacobi_diagonal_inverse(const sps_precond *pc)
{
  return (const double *)pc->data;
}

const sps_precond_ops sps_precond_ops_jacobi = {
    .type = SPS_PRECOND_JACOBI,
    .name = "jacobi",
    .in_place = 1,
    .symmetric = 1,
    .setup = jacobi_setup,
    .apply = jacobi_apply,
    .destroy = jacobi_destroy,
    .diagonal_inverse = jacobi_diagonal_inverse,
};
