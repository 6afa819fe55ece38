/* ic0.c: the IC(0) preconditioner for symmetric positive definite A: incomplete Cholesky with the pattern of A, with a Manteuffel diagonal shift when it breaks down. */
#include <math.h>

#include "ilu0.h"
#include "precond.h"

/*
 * IC(0) (Meijerink and van der Vorst 1977): A ~ L D L^T with the sparsity of A. It is
 * computed as ILU(0) of the symmetric A, whose factors are L and U = D L^T in exact
 * arithmetic, so the factorisation, its CUDA kernel and the two triangular solves are those
 * of ilu0 (precond/ilu0.h); the apply is M^-1 r = U^-1 L^-1 r.
 *
 * Breakdown: a pivot u_ii <= pivot.tol * max_j |a_ij| (A not an M-matrix: IC(0) may meet
 * one even when A is SPD). Then the factorisation is repeated on A + alpha diag(A)
 * (Manteuffel 1980), alpha = 1e-3 at first (or "ic0.shift" when set), doubled until no pivot
 * breaks down, at most 30 times; sps_precond_info reports alpha and the tries. Large
 * matrices whose natural order gives the triangular solves too many level sets are put in
 * multicolor order first (parameter "ordering", precond/lu_factors.h). A diagonal
 * entry that is not positive cannot be shifted away and is refused at once (the solver's
 * automatic choice solves a negative definite A as (-A) x = -b instead).
 */

#define IC0_MAX_TRIES 30
#define IC0_FIRST_SHIFT 1e-3

typedef struct ic0_data {
  sps_lu_factors f;
} ic0_data;

static void ic0_destroy(sps_precond *pc)
{
  ic0_data *d = pc->data;
  if (!d) return;
  sps_lu_factors_destroy(&d->f);
  sps_host_free(d);
  pc->data = NULL;
}

static sps_status ic0_setup(sps_precond *pc, const sps_matrix *A)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *p = &pc->params;
  sps_status st = SPS_SUCCESS;
  sps_host_csr B = {0};
  sps_reorder r = {0};
  double *diag0 = NULL;
  int64_t *dpos = NULL;
  ic0_data *d = NULL;
  const int64_t n = A->nrows;
  SPS_TRY(sps_lu_factors_prepare(pc, A, 1, 0, &B, &r));
  SPS_TRY(sps_host_alloc(ctx, (void **)&dpos, n > 0 ? (size_t)n : 1, sizeof(int64_t),
                         "IC(0) diagonal positions"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&diag0, n > 0 ? (size_t)n : 1, sizeof(double),
                         "IC(0) diagonal"));
  sps_host_csr_diagonal_positions(&B, dpos);
  for (int64_t i = 0; i < n; i++) {
    diag0[i] = B.values[dpos[i]];
    if (!(diag0[i] > 0.0))
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "ic0: the diagonal entry of row %lld is %g: incomplete Cholesky needs a "
                   "positive diagonal (A symmetric positive definite)",
                   (long long)(r.row_perm ? r.row_perm[i] + 1 : i + 1), pc->sign * diag0[i]);
  }
  SPS_TRY(sps_host_calloc(ctx, (void **)&d, 1, sizeof *d, "IC(0) data"));
  pc->data = d;
  SPS_TRY(sps_lu_factors_create(ctx, &d->f, &B, &r, NULL));
  double alpha = p->ic0_shift;
  int tries = 0;
  for (;;) {
    for (int64_t i = 0; i < n; i++) B.values[dpos[i]] = diag0[i] + alpha * diag0[i];
    int64_t replaced, breakdowns;
    SPS_TRY(sps_ilu0_factor(&d->f, &B, p->pivot_tol, 1, &replaced, &breakdowns));
    tries++;
    if (breakdowns == 0) break;
    if (tries >= IC0_MAX_TRIES)
      SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                   "ic0: %lld pivots still break down with the diagonal shifted by alpha = %g "
                   "after %d tries: A is far from positive definite",
                   (long long)breakdowns, alpha, tries);
    alpha = alpha > 0.0 ? 2.0 * alpha : IC0_FIRST_SHIFT;
  }
  pc->info.shift = alpha;
  pc->info.shift_tries = tries;
  pc->info.nnz_factors = d->f.nnz;
  pc->info.levels_lower = sps_trisolve_levels(d->f.lower);
  pc->info.levels_upper = sps_trisolve_levels(d->f.upper);
cleanup:
  if (st) ic0_destroy(pc);
  sps_reorder_free(&r);
  sps_host_csr_free(&B);
  sps_host_free(diag0);
  sps_host_free(dpos);
  return st;
}

static sps_status ic0_apply(sps_precond *pc, const double *r, double *z)
{
  ic0_data *d = pc->data;
  return sps_lu_factors_apply(&d->f, r, z);
}

const sps_precond_ops sps_precond_ops_ic0 = {
    .type = SPS_PRECOND_IC0,
    .name = "ic0",
    .in_place = 1,
    .symmetric = 1,
    .setup = ic0_setup,
    .apply = ic0_apply,
    .destroy = ic0_destroy,
};
