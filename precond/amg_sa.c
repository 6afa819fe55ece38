/* amg_sa.c: the smoothed-aggregation prolongator of one multigrid level, built on the context's device: aggregates, the tentative prolongator fitted to the near-null vector, its Jacobi smoothing, and the optional truncation. */
#include <string.h>

#include "aggregate.h"
#include "amg_step.h"

/*
 * Smoothed aggregation (Vanek, Mandel and Brezina, Computing 56 (1996); the choices of PyAMG's
 * smoothed_aggregation_solver and of PETSc's GAMG), for level l with operator H (n rows,
 * D = diag(H)):
 *   1. aggregates: the strong graph (j strong for i when |h_ij| >= theta_l sqrt(|h_ii h_jj|),
 *      symmetrised) partitioned by MIS(2) aggregation (precond/aggregate.h); agg(i) in
 *      0 .. n_c - 1, or -1 for a row with no strong neighbour, which no aggregate takes;
 *   2. the tentative prolongator T (n x n_c) that interpolates the near-null vector B
 *      exactly: t_{i,agg(i)} = B_i / ||B_J|| (J the aggregate of i), so T's columns are
 *      orthonormal and T B_c = B on the aggregated rows with B_c,J = ||B_J||, the coarse
 *      level's near-null vector (PyAMG's fit_candidates). The norms are the rows of T^T
 *      (a transpose lists each aggregate's rows in ascending order), each a compensated sum
 *      in that order;
 *   3. the smoothed prolongator P = (I - omega D^-1 H) T, omega = 4/(3 rho) with rho the
 *      estimate of the spectral radius of D^-1 H: the damped Jacobi step that lowers the
 *      energy of the coarse basis functions. P has the pattern of H T (our sparse product);
 *   4. with amg.interp_max > 0 or amg.trunc > 0, P's rows are truncated as classical
 *      interpolation's are (precond/ref/kernels.h), scaled so that P B_c is kept.
 * Every step runs on the context's device (precond/ref/amg_level.c, precond/cuda/amg_level.cu)
 * with the same results on both; nothing comes back to the host but sizes.
 */

sps_status amg_sa_prolongator(sps_precond *pc, int l, const amg_csr *H, const double *B, double *Bc,
                              const double *dinv, double omega, amg_csr *P, int64_t *nc)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *prm = &pc->params;
  const int64_t n = H->nrows;
  sps_status st = SPS_SUCCESS;
  amg_csr T = {0}, Tt = {0}, AT = {0};
  int32_t *agg = NULL;
  memset(P, 0, sizeof *P);
  *nc = 0;
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&agg, (size_t)(n > 0 ? n : 1) * sizeof *agg, "AMG aggregates"));
  SPS_TRY(sps_amg_aggregate_device(ctx, n, H->rp, H->ci, H->v, amg_level_theta(prm, l), agg, nc));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_SPLITTING));
  if (*nc == 0) goto cleanup;
  /* T with the values of B, then B_c = the norms of T's columns, then T's columns scaled */
  SPS_TRY(amg_csr_alloc_rows(ctx, &T, n, *nc, "AMG tentative prolongator"));
  SPS_TRY(AMG_STEP(ctx, amg_tent_count, n, agg, T.rp));
  SPS_TRY(amg_scan(ctx, T.rp, n, &T.nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, &T, 1, "AMG tentative prolongator"));
  SPS_TRY(AMG_STEP(ctx, amg_tent_fill, n, agg, B, T.rp, T.ci, T.v));
  SPS_TRY(amg_csr_transpose(ctx, &T, &Tt, 1));
  SPS_TRY(AMG_STEP(ctx, amg_row_norms, *nc, Tt.rp, Tt.v, Bc));
  amg_csr_free(ctx, &Tt);
  SPS_TRY(AMG_STEP(ctx, amg_tent_scale, n, T.rp, T.ci, T.v, Bc));
  /* P = (I - omega D^-1 H) T on the pattern of H T (which holds T's: H's diagonal is stored) */
  SPS_TRY(amg_csr_product(ctx, H, &T, &AT));
  SPS_TRY(AMG_STEP(ctx, amg_sa_smooth, n, AT.rp, AT.ci, AT.v, dinv, omega, T.rp, T.ci, T.v));
  if (amg_interp_max(prm) > 0 || prm->amg_trunc > 0.0) {
    SPS_TRY(amg_csr_alloc_rows(ctx, P, n, *nc, "AMG prolongator"));
    SPS_TRY(AMG_STEP(ctx, amg_trunc_count, n, AT.rp, AT.v, (const int64_t *)NULL, prm->amg_trunc,
                     amg_interp_max(prm), P->rp));
    SPS_TRY(amg_scan(ctx, P->rp, n, &P->nnz));
    SPS_TRY(amg_csr_alloc_entries(ctx, P, 1, "AMG prolongator"));
    SPS_TRY(AMG_STEP(ctx, amg_trunc_fill, n, AT.rp, AT.ci, AT.v, (const double *)Bc,
                     (const int64_t *)NULL, (const int64_t *)NULL, prm->amg_trunc,
                     amg_interp_max(prm), P->rp, P->ci, P->v));
  } else {
    *P = AT;
    memset(&AT, 0, sizeof AT);
  }
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_INTERPOLATION));
cleanup:
  if (st) amg_csr_free(ctx, P);
  amg_csr_free(ctx, &T);
  amg_csr_free(ctx, &Tt);
  amg_csr_free(ctx, &AT);
  sps_scratch_free(ctx, agg);
  return st;
}
