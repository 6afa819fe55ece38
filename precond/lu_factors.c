/* lu_factors.c: storage, triangular solve plans and apply of the incomplete factors shared by ilu0, ic0 and ilut. */
#include <string.h>

#include "coloring.h"
#include "rcm.h"
#include "lu_factors.h"

/* Hand n-entry host data to new context memory (a copy; the host array stays the caller's). */
static sps_status to_ctx(sps_context *ctx, void **dev, const void *host, size_t bytes,
                         const char *what)
{
  SPS_CHECK(ctx->be->malloc(ctx, dev, bytes ? bytes : 1, what));
  if (bytes) SPS_CHECK(ctx->be->upload(ctx, *dev, host, bytes));
  return SPS_SUCCESS;
}

sps_status sps_lu_factors_create(sps_context *ctx, sps_lu_factors *f, const sps_host_csr *F,
                                 const sps_reorder *r, const int32_t *col_perm)
{
  memset(f, 0, sizeof *f);
  f->ctx = ctx;
  const int64_t n = F->n, nnz = F->rowptr[n];
  f->n = n;
  f->nnz = nnz;
  sps_status st = SPS_SUCCESS;
  int64_t *hdiag = NULL;
  int32_t *hperm = NULL;
  double *hout = NULL;
  SPS_TRY(sps_host_alloc(ctx, (void **)&hdiag, n > 0 ? (size_t)n : 1, sizeof(int64_t),
                         "factor diagonal positions"));
  sps_host_csr_diagonal_positions(F, hdiag);
  for (int64_t i = 0; i < n; i++)
    if (hdiag[i] < 0)
      SPS_TRY_FAIL(ctx, SPS_ERR_ARGUMENT, "factors: row %lld has no diagonal slot",
                   (long long)(i + 1));
  const size_t n8 = (size_t)n * sizeof(double);
  SPS_TRY(to_ctx(ctx, (void **)&f->rowptr, F->rowptr, ((size_t)n + 1) * sizeof(int64_t),
                 "factor row offsets"));
  SPS_TRY(to_ctx(ctx, (void **)&f->diag, hdiag, (size_t)n * sizeof(int64_t),
                 "factor diagonal positions"));
  SPS_TRY(to_ctx(ctx, (void **)&f->colind, F->colind, (size_t)nnz * sizeof(int32_t),
                 "factor columns"));
  SPS_TRY(to_ctx(ctx, (void **)&f->values, F->values, (size_t)nnz * sizeof(double),
                 "factor values"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&f->dinv, n8 ? n8 : 1, "factor inverse pivots"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&f->t, n8 ? n8 : 1, "factor solve vector"));
  if (r && r->row_perm)
    SPS_TRY(to_ctx(ctx, (void **)&f->in_perm, r->row_perm, (size_t)n * sizeof(int32_t),
                   "factor row permutation"));
  if (r && r->row_scale)
    SPS_TRY(to_ctx(ctx, (void **)&f->in_scale, r->row_scale, n8, "factor row scaling"));
  const int32_t *cp = r ? r->col_perm : NULL;
  if (col_perm || cp) {
    /* out_perm[k] = cp[q_k]: where the unknown at position k of B Q lands in x. */
    SPS_TRY(sps_host_alloc(ctx, (void **)&hperm, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                           "factor column permutation"));
    for (int64_t k = 0; k < n; k++) {
      const int32_t q = col_perm ? col_perm[k] : (int32_t)k;
      hperm[k] = cp ? cp[q] : q;
    }
    SPS_TRY(to_ctx(ctx, (void **)&f->out_perm, hperm, (size_t)n * sizeof(int32_t),
                   "factor column permutation"));
  }
  if (r && r->col_scale) {
    /* out_scale[k] = col_scale[q_k]: the scaling of the column of B at position k. */
    SPS_TRY(sps_host_alloc(ctx, (void **)&hout, n > 0 ? (size_t)n : 1, sizeof(double),
                           "factor column scaling"));
    for (int64_t k = 0; k < n; k++) hout[k] = r->col_scale[col_perm ? col_perm[k] : k];
    SPS_TRY(to_ctx(ctx, (void **)&f->out_scale, hout, n8, "factor column scaling"));
  }
  if (f->out_perm || f->out_scale)
    SPS_TRY(ctx->be->malloc(ctx, (void **)&f->y, n8 ? n8 : 1, "factor solve vector"));
  SPS_TRY(sps_trisolve_create(ctx, &f->lower, n, 0, F->rowptr, hdiag, F->colind));
  SPS_TRY(sps_trisolve_create(ctx, &f->upper, n, 1, F->rowptr, hdiag, F->colind));
  sps_trisolve_bind(f->lower, f->rowptr, f->diag, f->colind, f->values, NULL);
  sps_trisolve_bind(f->upper, f->rowptr, f->diag, f->colind, f->values, f->dinv);
cleanup:
  if (st) sps_lu_factors_destroy(f);
  sps_host_free(hdiag);
  sps_host_free(hperm);
  sps_host_free(hout);
  return st;
}

sps_status sps_lu_factors_set_dinv(sps_lu_factors *f, const double *h_dinv)
{
  SPS_CHECK(f->ctx->be->upload(f->ctx, f->dinv, h_dinv, (size_t)f->n * sizeof(double)));
  return sps_lu_factors_refresh(f);
}

sps_status sps_lu_factors_refresh(sps_lu_factors *f)
{
  SPS_CHECK(sps_trisolve_refresh(f->lower));
  return sps_trisolve_refresh(f->upper);
}

sps_status sps_lu_factors_apply(sps_lu_factors *f, const double *r, double *z)
{
  /* t <- L^-1 (Dr P r) */
  SPS_CHECK(sps_trisolve_apply(f->lower, r, f->in_perm, f->in_scale, f->t, NULL, NULL, NULL));
  /* z <- Dc Q U^-1 t: solved into y and scattered when there is a Q or Dc, else into z */
  if (f->y)
    return sps_trisolve_apply(f->upper, f->t, NULL, NULL, f->y, z, f->out_perm, f->out_scale);
  return sps_trisolve_apply(f->upper, f->t, NULL, NULL, z, NULL, NULL, NULL);
}

/* A permutation or scaling indexed by B's row (or column) after B <- Q B Q^T: v'[i] = v[q[i]],
 * or q itself for a permutation that was the identity. */
static sps_status compose_perm(sps_context *ctx, int32_t **v, const int32_t *q, int64_t n)
{
  int32_t *w;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&w, n > 0 ? (size_t)n : 1, sizeof(int32_t),
                           "composed permutation"));
  for (int64_t i = 0; i < n; i++) w[i] = *v ? (*v)[q[i]] : q[i];
  sps_host_free(*v);
  *v = w;
  return SPS_SUCCESS;
}

static sps_status compose_scale(sps_context *ctx, double **v, const int32_t *q, int64_t n)
{
  if (!*v) return SPS_SUCCESS;
  double *w;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&w, n > 0 ? (size_t)n : 1, sizeof(double),
                           "composed scaling"));
  for (int64_t i = 0; i < n; i++) w[i] = (*v)[q[i]];
  sps_host_free(*v);
  *v = w;
  return SPS_SUCCESS;
}

/*
 * The "ordering" rule. -1: ILUT (threshold) takes reverse Cuthill-McKee, which keeps the
 * fill of its rows near the diagonal (as SuperLU's ILU takes COLAMD); ILU(0) and IC(0), whose
 * pattern is A's, are put in multicolor order when A has at least SPS_COLOR_MIN_N rows and
 * its forward substitution more than n / SPS_COLOR_ROWS_PER_LEVEL level sets (a GPU solve
 * would wait on one level after another with too few rows each to fill the device). It
 * depends on the matrix only, so the CPU and the GPU make the same choice. Returns 0 natural,
 * 1 multicolor, 2 RCM.
 */
#define SPS_COLOR_MIN_N 100000
#define SPS_COLOR_ROWS_PER_LEVEL 10000

static int ordering_of(sps_context *ctx, int ordering, int threshold, const sps_host_csr *B)
{
  if (ordering >= 0) return ordering;
  if (threshold) return 2;
  if (B->n < SPS_COLOR_MIN_N) return 0;
  const int64_t levels = sps_host_csr_lower_levels(ctx, B);
  return levels > B->n / SPS_COLOR_ROWS_PER_LEVEL;
}

sps_status sps_lu_factors_prepare(sps_precond *pc, const sps_matrix *A, int symmetric,
                                  int threshold, sps_host_csr *B, sps_reorder *r)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *p = &pc->params;
  sps_status st = SPS_SUCCESS;
  sps_host_csr B0 = {0}, B1 = {0};
  int32_t *q = NULL;
  memset(B, 0, sizeof *B);
  memset(r, 0, sizeof *r);
  SPS_TRY(sps_host_csr_with_diagonal(ctx, A, pc->sign, &B0));
  const int weak = !symmetric && p->matching == -1 && sps_reorder_diagonal_is_weak(&B0);
  const int pivoting = threshold && p->ilut_pivot > 0.0;
  const int match = !symmetric && (p->matching == 1 || (weak && !pivoting));
  const int scale =
      !symmetric && (p->scaling == 1 || (p->scaling == -1 && (match || threshold)));
  int64_t unmatched = 0;
  if (weak && !match) {
    /* ILUTP's column swaps put a large entry on a weak diagonal themselves; the matching
     * runs only to tell a structurally singular A. */
    sps_reorder probe = {0};
    st = sps_reorder_compute(ctx, &B0, 1, 0, &probe);
    unmatched = probe.unmatched;
    sps_reorder_free(&probe);
    if (st) goto cleanup;
  }
  if (match || scale) {
    SPS_TRY(sps_reorder_compute(ctx, &B0, match, scale, r));
    if (match) unmatched = r->unmatched;
  }
  if (unmatched > 0)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "%s: A is structurally singular: %lld of %lld rows cannot be matched to a "
                 "nonzero on the diagonal",
                 pc->ops->name, (long long)unmatched, (long long)A->nrows);
  if (match || scale) {
    SPS_TRY(sps_reorder_apply(ctx, &B0, r, &B1));
    pc->info.matched = match;
    pc->info.scaled = scale;
    pc->info.permuted_rows = r->permuted;
  } else {
    B1 = B0;
    memset(&B0, 0, sizeof B0);
  }
  r->n = A->nrows;
  const int order = ordering_of(ctx, p->ordering, threshold, &B1);
  if (order) {
    /* B <- Q B1 Q^T, and the transformation composed: rows and columns of B1 at q. */
    int ncolors = 0;
    if (order == 1)
      SPS_TRY(sps_coloring_order(ctx, &B1, &q, &ncolors));
    else
      SPS_TRY(sps_rcm_order(ctx, &B1, &q));
    SPS_TRY(sps_host_csr_permute_symmetric(ctx, &B1, q, B));
    SPS_TRY(compose_perm(ctx, &r->row_perm, q, A->nrows));
    SPS_TRY(compose_perm(ctx, &r->col_perm, q, A->nrows));
    SPS_TRY(compose_scale(ctx, &r->row_scale, q, A->nrows));
    SPS_TRY(compose_scale(ctx, &r->col_scale, q, A->nrows));
    pc->info.colors = ncolors;
    pc->info.ordering = order;
  } else {
    *B = B1;
    memset(&B1, 0, sizeof B1);
  }
cleanup:
  if (st) {
    sps_reorder_free(r);
    sps_host_csr_free(B);
  }
  sps_host_csr_free(&B0);
  sps_host_csr_free(&B1);
  sps_host_free(q);
  return st;
}

void sps_lu_factors_destroy(sps_lu_factors *f)
{
  if (!f->ctx) {
    memset(f, 0, sizeof *f);
    return;
  }
  sps_context *ctx = f->ctx;
  void *arrays[] = {f->rowptr, f->diag,    f->colind,    f->values, f->dinv, f->t,
                    f->y,      f->in_perm, f->in_scale, f->out_perm, f->out_scale};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    if (arrays[k]) ctx->be->free(ctx, arrays[k]);
  sps_trisolve_destroy(&f->lower);
  sps_trisolve_destroy(&f->upper);
  memset(f, 0, sizeof *f);
}
