/* ilut.c: the ILUT preconditioner: optional matching and scaling, the ILUTP factorisation on the host, triangular solves on the context's device. */
#include <string.h>

#include "ilut.h"
#include "lu_factors.h"
#include "precond.h"

/*
 * ILUT(p, tau) with column pivoting (ILUTP; Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., 10.4; precond/ilut.h): parameters "ilut.fill" (p), "ilut.drop" (tau),
 * "ilut.pivot", "pivot.tol". The matrix is reordered and scaled first under the same rule as
 * ilu0 ("matching", "scaling"), so M^-1 = Dc Q U^-1 L^-1 Dr P. The factorisation runs on
 * the host (the sizes of its rows are only known as it goes); the factors are assembled into
 * one CSR with a diagonal slot per row and solved where the solve runs.
 */

typedef struct ilut_data {
  sps_lu_factors f;
} ilut_data;

static void ilut_destroy(sps_precond *pc)
{
  ilut_data *d = pc->data;
  if (!d) return;
  sps_lu_factors_destroy(&d->f);
  sps_host_free(d);
  pc->data = NULL;
}

/* F <- [L | u_ii | U] row by row, diagonal slot holding u_ii = 1 / udiag_inv. */
static sps_status assemble(sps_context *ctx, const sps_ilut_factors *lu, sps_host_csr *F)
{
  const int64_t n = lu->L.n;
  SPS_CHECK(sps_host_csr_alloc(ctx, F, n, lu->L.rowptr[n] + lu->U.rowptr[n] + n, "ILUT factors"));
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = lu->L.rowptr[i]; k < lu->L.rowptr[i + 1]; k++) {
      F->colind[at] = lu->L.colind[k];
      F->values[at++] = lu->L.values[k];
    }
    F->colind[at] = (int32_t)i;
    F->values[at++] = 1.0 / lu->udiag_inv[i];
    for (int64_t k = lu->U.rowptr[i]; k < lu->U.rowptr[i + 1]; k++) {
      F->colind[at] = lu->U.colind[k];
      F->values[at++] = lu->U.values[k];
    }
    F->rowptr[i + 1] = at;
  }
  return SPS_SUCCESS;
}

static sps_status ilut_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *p = &pc->params;
  sps_status st = SPS_SUCCESS;
  sps_host_csr B = {0}, F = {0};
  sps_reorder r = {0};
  sps_ilut_factors lu;
  memset(&lu, 0, sizeof lu);
  ilut_data *d = NULL;
  SPS_TRY(sps_lu_factors_prepare(pc, A, 0, 1, &B, &r));
  SPS_TRY(sps_ilut_factor(ctx, &B, p->ilut_fill, p->ilut_drop, p->ilut_pivot, p->pivot_tol, &lu));
  SPS_TRY(assemble(ctx, &lu, &F));
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "ILUT data"));
  pc->data = d;
  SPS_TRY(sps_lu_factors_create(ctx, &d->f, &F, &r, lu.col_perm));
  SPS_TRY(sps_lu_factors_set_dinv(&d->f, lu.udiag_inv));
  pc->info.replaced_pivots = lu.replaced;
  pc->info.pivot_swaps = lu.swaps;
  pc->info.nnz_factors = F.rowptr[F.n];
  pc->info.levels_lower = sps_trisolve_levels(d->f.lower);
  pc->info.levels_upper = sps_trisolve_levels(d->f.upper);
cleanup:
  if (st) ilut_destroy(pc);
  sps_ilut_factors_free(&lu);
  sps_reorder_free(&r);
  sps_host_csr_free(&B);
  sps_host_csr_free(&F);
  return st;
}

static sps_status ilut_apply(sps_precond *pc, const double *r, double *z)
{
  ilut_data *d = pc->data;
  return sps_lu_factors_apply(&d->f, r, z);
}

const sps_precond_ops sps_precond_ops_ilut = {
    .type = SPS_PRECOND_ILUT,
    .name = "ilut",
    .in_place = 1,
    .symmetric = 0,
    .setup = ilut_setup,
    .apply = ilut_apply,
    .destroy = ilut_destroy,
};
