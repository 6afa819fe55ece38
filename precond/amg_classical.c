/* amg_classical.c: the classical (Ruge-Stueben type) prolongator of one multigrid level, built on the context's device: strength of connection, PMIS C/F splitting, extended+i interpolation and its truncation. */
#include <string.h>

#include "amg_step.h"

/*
 * The steps (precond/ref/kernels.h and precond/ref/amg_classical.c give the math), for level l
 * with operator H (n rows):
 *   1. S, the strong dependencies: j in S_i when -s h_ij > theta max_k (-s h_ik) (s the sign
 *      of h_ii; theta = amg.strength, AMG_CLASSICAL_THETA by default), none for rows with
 *      |sum_j h_ij| > AMG_MAX_ROW_SUM |h_ii| (hypre's max_row_sum); S^T by a transpose;
 *   2. PMIS: rounds of select and update until no row is undecided (each round decides at
 *      least the undecided row of the largest measure, so at most n rounds; the host reads one
 *      counter a round), then the C points numbered by a prefix sum;
 *   3. the interpolatory sets C^_i of the F rows as the pattern of M2 M1 (our sparse
 *      product; M2 = {i} u strong F neighbours, M1 = strong C neighbours), the
 *      extended+i weights on them, one thread a row;
 *   4. P: C rows inject (one entry 1 in the row's coarse column), F rows keep at most
 *      amg.interp_max of their weights (hypre's P_max_elmts, 4 by default), none below
 *      amg.trunc times the row's largest (trunc_factor, 0 by default), rescaled to the row's
 *      sum (precond/ref/kernels.h, trunc_count/fill), their columns renumbered to the coarse
 *      level.
 * Every step runs on the context's device with the same results on the CPU and the GPU.
 */
#define AMG_MAX_ROW_SUM 0.9

sps_status amg_classical_prolongator(sps_precond *pc, int l, const amg_csr *H, amg_csr *P,
                                     int64_t *nc)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *prm = &pc->params;
  const int64_t n = H->nrows;
  const size_t nn = (size_t)(n > 0 ? n : 1);
  sps_status st = SPS_SUCCESS;
  amg_csr S = {0}, ST = {0}, M1 = {0}, M2 = {0}, Ch = {0};
  uint64_t *key = NULL;
  unsigned char *newc = NULL;
  int64_t *flag = NULL, *cnum = NULL;
  unsigned long long *word = NULL, undecided = 0;
  memset(P, 0, sizeof *P);
  *nc = 0;
  const double theta = amg_level_theta(prm, l);
  /* 1. strength */
  SPS_TRY(amg_csr_alloc_rows(ctx, &S, n, n, "AMG strength"));
  SPS_TRY(AMG_STEP(ctx, cls_strength_count, n, H->rp, H->ci, H->v, theta, AMG_MAX_ROW_SUM, S.rp));
  SPS_TRY(amg_scan(ctx, S.rp, n, &S.nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, &S, 0, "AMG strength"));
  SPS_TRY(
      AMG_STEP(ctx, cls_strength_fill, n, H->rp, H->ci, H->v, theta, AMG_MAX_ROW_SUM, S.rp, S.ci));
  SPS_TRY(amg_csr_transpose(ctx, &S, &ST, 0));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_STRENGTH));
  /* 2. PMIS */
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&key, nn * sizeof *key, "AMG C/F splitting"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&newc, nn, "AMG C/F splitting"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&word, sizeof *word, "AMG C/F splitting"));
  SPS_TRY(AMG_STEP(ctx, cls_pmis_init, n, ST.rp, key, word));
  SPS_TRY(amg_read_word(ctx, word, &undecided));
  while (undecided > 0) {
    const unsigned long long before = undecided;
    SPS_TRY(AMG_STEP(ctx, cls_pmis_select, n, S.rp, S.ci, ST.rp, ST.ci, key, newc));
    SPS_TRY(AMG_STEP(ctx, cls_pmis_update, n, S.rp, S.ci, newc, key, word));
    SPS_TRY(amg_read_word(ctx, word, &undecided));
    if (undecided >= before)
      SPS_TRY_FAIL(ctx, SPS_ERR_STATE, "amg: PMIS made no progress on level %d (%llu undecided)", l,
                   before);
  }
  amg_csr_free(ctx, &ST);
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&flag, (nn + 1) * sizeof *flag, "AMG C points"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&cnum, (nn + 1) * sizeof *cnum, "AMG coarse numbers"));
  SPS_TRY(AMG_STEP(ctx, cls_cflags, n, key, flag));
  SPS_TRY(AMG_STEP(ctx, cls_cflags, n, key, cnum));
  SPS_TRY(amg_scan(ctx, cnum, n, nc));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_SPLITTING));
  if (*nc == 0) goto cleanup;
  /* 3. the interpolatory sets and the weights */
  SPS_TRY(amg_csr_alloc_rows(ctx, &M2, n, n, "AMG interpolation sets"));
  SPS_TRY(amg_csr_alloc_rows(ctx, &M1, n, n, "AMG interpolation sets"));
  SPS_TRY(AMG_STEP(ctx, cls_split_count, n, S.rp, S.ci, key, M2.rp, M1.rp));
  SPS_TRY(amg_scan(ctx, M2.rp, n, &M2.nnz));
  SPS_TRY(amg_scan(ctx, M1.rp, n, &M1.nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, &M2, 1, "AMG interpolation sets"));
  SPS_TRY(amg_csr_alloc_entries(ctx, &M1, 1, "AMG interpolation sets"));
  SPS_TRY(
      AMG_STEP(ctx, cls_split_fill, n, S.rp, S.ci, key, M2.rp, M2.ci, M2.v, M1.rp, M1.ci, M1.v));
  SPS_TRY(amg_csr_product(ctx, &M2, &M1, &Ch));
  amg_csr_free(ctx, &M1);
  amg_csr_free(ctx, &M2);
  SPS_TRY(AMG_STEP(ctx, cls_interp, n, H->rp, H->ci, H->v, S.rp, S.ci, key, Ch.rp, Ch.ci, Ch.v));
  /* 4. P */
  SPS_TRY(amg_csr_alloc_rows(ctx, P, n, *nc, "AMG prolongator"));
  SPS_TRY(AMG_STEP(ctx, amg_trunc_count, n, Ch.rp, Ch.v, flag, prm->amg_trunc, amg_interp_max(prm),
                   P->rp));
  SPS_TRY(amg_scan(ctx, P->rp, n, &P->nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, P, 1, "AMG prolongator"));
  SPS_TRY(AMG_STEP(ctx, amg_trunc_fill, n, Ch.rp, Ch.ci, Ch.v, (const double *)NULL, flag, cnum,
                   prm->amg_trunc, amg_interp_max(prm), P->rp, P->ci, P->v));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_INTERPOLATION));
cleanup:
  if (st) amg_csr_free(ctx, P);
  amg_csr_free(ctx, &S);
  amg_csr_free(ctx, &ST);
  amg_csr_free(ctx, &M1);
  amg_csr_free(ctx, &M2);
  amg_csr_free(ctx, &Ch);
  void *v[] = {key, newc, flag, cnum, word};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    sps_scratch_free(ctx, v[k]);
  return st;
}
