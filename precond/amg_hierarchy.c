/* amg_hierarchy.c: the setup of algebraic multigrid on the context's device, level by level: the smoother's data, the prolongator (smoothed aggregation or classical), its transpose and the Galerkin coarse operator, each level's operators then kept as library matrices with their own SpMV plans. */
#include <math.h>
#include <string.h>

#include "amg_step.h"

/*
 * For level l with operator H (n rows, D = diag(H)):
 *   1. the smoother's diagonal (1/h_ii, or the l1 row sums), and where the Chebyshev smoother
 *      or smoothed aggregation needs it the estimate rho of the spectral radius of D^-1 H
 *      (amg_spectrum.c); for Gauss-Seidel the colours (amg_mcgs.c);
 *   2. the prolongator P (n x n_c): smoothed aggregation (amg_sa.c, amg.coarsening 0) with
 *      omega = 4/(3 rho), or classical PMIS coarsening with extended+i interpolation
 *      (amg_classical.c, amg.coarsening 1), in two stages on the levels that
 *      amg_aggressive_level picks (amg_params.c: by default the first two of at least 20,000
 *      rows) from the level's size, which both devices know, so both pick the same;
 *   3. R = P^T (a transpose) and the Galerkin operator A_c = R (H P) (two sparse products),
 *      symmetric positive definite when H is.
 * Coarsening stops at a level of at most amg.coarse_size rows, at amg.levels levels, or when
 * it stalls (n_c > AMG_STALL n, or no coarse point at all); the coarsest level is inverted
 * densely (amg_coarse.c) when it has at most AMG_DENSE_MAX rows, else it is only smoothed.
 *
 * Where it runs: every step above reads and writes arrays in the context's memory
 * (amg_device.c, amg_step.h), so on a CUDA context the operators are built on the GPU by our
 * kernels and products and stay there; what crosses to the host is sizes (one word per
 * count-scan-fill construction, per round of MIS(2), PMIS or colouring, the two of each sparse
 * product), the two Lanczos scalars of each step, each level's row offsets (8 bytes a row, for
 * the library matrix that takes the level), the colours' offsets and the coarsest level
 * (at most AMG_DENSE_MAX rows), whose dense inverse is formed on the host and uploaded. On the
 * CPU the same code runs the reference kernels, and every step gives the same bits on both
 * (the products and the dot products are compensated, the row steps add in entry order with
 * no fused multiply-add), so the CPU and the GPU build the same hierarchy.
 *
 * The smoother's interval on each level is [b / amg.cheby_ratio, b] with b = AMG_UPPER_MARGIN
 * rho: Lanczos approaches lambda_max from below, and a Chebyshev polynomial amplifies what
 * lies above its interval.
 *
 * The solver may hand -A (sign = -1, a negative definite system solved as (-A) x = -b); the
 * hierarchy is built on sign*A. A matrix whose diagonal adds up negative (a negative definite
 * system given to GMRES) is turned around once more: the hierarchy of -(sign A) is built and
 * the cycle's result negated (amg_data.outer).
 */

#define AMG_STALL 0.9
#define AMG_UPPER_MARGIN 1.1

static void drop(sps_matrix **M)
{
  if (!*M) return;
  sps_context_track((*M)->ctx, SPS_OBJECT_MATRIX, 1);
  sps_matrix_destroy(M);
}

/*
 * An SpMV plan of M, owned by the preconditioner: AUTO where M has its host arrays (the CPU,
 * and the dense inverse); on the matrices made on the GPU, csr-vector with the threads per row
 * of seed 000's rule, which needs no host analysis. Both round like csr-scalar.
 */
static sps_status make_plan(sps_context *ctx, const sps_matrix *M, sps_spmv_plan **plan)
{
  const int device_built = ctx->kind == SPS_DEVICE_CUDA && !M->colind && M->nnz > 0;
  SPS_CHECK(sps_spmv_plan_create(ctx, plan, M, device_built ? SPS_SPMV_CSR_VECTOR : SPS_SPMV_AUTO));
  sps_spmv_plan_set_owned(*plan);
  if (device_built) {
    const double mean = M->nrows > 0 ? (double)M->nnz / (double)M->nrows : 0.0;
    SPS_CHECK(sps_spmv_plan_set_threads_per_row(*plan, sps_spmv_tpr_from_mean(mean, 2)));
  }
  return sps_spmv_plan_setup(*plan);
}

/* A host-built matrix (the dense inverse) as a library matrix owned by the preconditioner. */
static sps_status adopt_host(sps_context *ctx, sps_matrix **out, sps_host_rcsr *M)
{
  sps_status st = sps_matrix_adopt_csr(ctx, out, M->nrows, M->ncols, M->rowptr, M->colind,
                                       M->values, SPS_SYMMETRY_GENERAL);
  memset(M, 0, sizeof *M);
  if (!st) sps_context_track(ctx, SPS_OBJECT_MATRIX, -1);
  return st;
}

void amg_data_free(sps_context *ctx, amg_data *d)
{
  for (int l = 0; l < SPS_AMG_MAX_LEVELS; l++) {
    amg_level *L = &d->lv[l];
    sps_spmv_plan **plans[] = {&L->Pplan, &L->Rplan, &L->Ainvplan, l > 0 ? &L->Aplan : NULL};
    for (size_t k = 0; k < sizeof plans / sizeof plans[0]; k++)
      if (plans[k]) sps_spmv_plan_destroy(plans[k]);
    drop(&L->A);
    drop(&L->P);
    drop(&L->R);
    drop(&L->Ainv);
    if (L->work) ctx->be->free(ctx, L->work);
    L->work = L->dinv = L->x = L->b = L->r = L->e = L->t = NULL;
    if (L->order) ctx->be->free(ctx, L->order);
    L->order = NULL;
    sps_host_free(L->color_start);
    L->color_start = NULL;
  }
  sps_spmv_plan_destroy(&d->own_plan0);
}

/* The work vectors of level l (dinv, r, e, t, and x, b below level 0) in one allocation, each
 * starting on a 256-byte boundary. */
static sps_status level_vectors(sps_context *ctx, amg_level *L, int l)
{
  const size_t stride = ((size_t)(L->n > 0 ? L->n : 1) + 31) / 32 * 32;
  const size_t count = l > 0 ? 6 : 4;
  SPS_CHECK(ctx->be->malloc(ctx, (void **)&L->work, count * stride * sizeof(double),
                            "AMG level work vectors"));
  double *w = L->work;
  L->dinv = w;
  L->r = w + stride;
  L->e = w + 2 * stride;
  L->t = w + 3 * stride;
  if (l > 0) {
    L->x = w + 4 * stride;
    L->b = w + 5 * stride;
  }
  return SPS_SUCCESS;
}

/*
 * The smoother's data of level l from its operator H: L->dinv, 1/h_ii into hdinv (for
 * smoothed aggregation) and sqrt(|1/h_ii|) into dsq (context memory, n each); SPS_ERR_UNSUPPORTED
 * naming the level and row for a zero or non-finite h_ii; the spectral radius estimate when
 * `need_rho` (y: n doubles of scratch) and the Chebyshev interval.
 */
static sps_status level_smoother(sps_precond *pc, amg_data *d, int l, const amg_csr *H,
                                 double *hdinv, double *dsq, double *y, unsigned long long *word,
                                 int need_rho)
{
  sps_context *ctx = pc->ctx;
  amg_level *L = &d->lv[l];
  const int64_t n = H->nrows;
  unsigned long long bad = 0;
  SPS_CHECK(AMG_STEP(ctx, amg_smoother_diag, n, H->rp, H->ci, H->v,
                     d->smoother == AMG_SMOOTHER_L1_JACOBI, hdinv, L->dinv, dsq, word));
  SPS_CHECK(amg_read_word(ctx, word, &bad));
  if (bad < (unsigned long long)n) {
    double hd = 0.0;
    SPS_CHECK(ctx->be->download(ctx, &hd, hdinv + bad, sizeof hd));
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "amg: the diagonal entry of row %llu of level %d is %g: multigrid needs a nonzero "
             "diagonal",
             bad + 1, l, isinf(hd) ? 0.0 : 1.0 / hd);
  }
  L->rho = 0.0;
  if (!need_rho) return SPS_SUCCESS;
  SPS_CHECK(
      amg_spectral_radius(ctx, L, dsq, pc->params.cheby_lanczos, L->r, L->e, L->t, y, &L->rho));
  if (!(L->rho > 0.0) || !isfinite(L->rho))
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "amg: the spectral radius estimate of D^-1 A on level %d is %g: A does not look "
             "positive definite",
             l, L->rho);
  L->eig_b = AMG_UPPER_MARGIN * L->rho;
  L->eig_a = L->eig_b / pc->params.amg_cheby_ratio;
  return SPS_SUCCESS;
}

/*
 * M <- M without its entries |m_ij| < eps sqrt(|m_ii m_jj|), each row's dropped entries added
 * to its diagonal (precond/ref/kernels.h, filter_count/fill); d: room for M's diagonal.
 */
static sps_status filter(sps_context *ctx, amg_csr *M, double eps, double *d)
{
  sps_status st = SPS_SUCCESS;
  amg_csr F = {0};
  const int64_t n = M->nrows;
  SPS_TRY(AMG_STEP(ctx, agg_diagonal, n, M->rp, M->ci, M->v, d));
  SPS_TRY(amg_csr_alloc_rows(ctx, &F, n, M->ncols, "AMG filtered coarse operator"));
  SPS_TRY(AMG_STEP(ctx, amg_filter_count, n, M->rp, M->ci, M->v, d, eps, F.rp));
  SPS_TRY(amg_scan(ctx, F.rp, n, &F.nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, &F, 1, "AMG filtered coarse operator"));
  SPS_TRY(AMG_STEP(ctx, amg_filter_fill, n, M->rp, M->ci, M->v, d, eps, F.rp, F.ci, F.v));
  amg_csr_free(ctx, M);
  *M = F;
  memset(&F, 0, sizeof F);
cleanup:
  amg_csr_free(ctx, &F);
  return st;
}

/*
 * Aggressive classical coarsening in two stages: P1 = the classical prolongator of H, the
 * intermediate operator A1 = P1^T H P1, P2 = the classical prolongator of A1, and
 * P = P1 P2 truncated to amg.interp_max entries a row (rescaled to the row's sum), so that the
 * level below H has the coarse points of two coarsenings and A1 is not kept.
 */
static sps_status aggressive_prolongator(sps_precond *pc, int l, const amg_csr *H, amg_csr *P,
                                         int64_t *nc)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *prm = &pc->params;
  sps_status st = SPS_SUCCESS;
  amg_csr P1 = {0}, R1 = {0}, T = {0}, A1 = {0}, P2 = {0}, Q = {0};
  int64_t n1 = 0;
  memset(P, 0, sizeof *P);
  *nc = 0;
  SPS_TRY(amg_classical_prolongator(pc, l, H, &P1, &n1));
  if (n1 == 0 || (double)n1 > AMG_STALL * (double)H->nrows) {
    *P = P1;
    *nc = n1;
    return SPS_SUCCESS;
  }
  SPS_TRY(amg_csr_transpose(ctx, &P1, &R1, 1));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_TRANSPOSE));
  SPS_TRY(amg_csr_product(ctx, H, &P1, &T));
  SPS_TRY(amg_csr_product(ctx, &R1, &T, &A1));
  amg_csr_free(ctx, &T);
  amg_csr_free(ctx, &R1);
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_GALERKIN));
  SPS_TRY(amg_classical_prolongator(pc, l, &A1, &P2, nc));
  amg_csr_free(ctx, &A1);
  if (*nc == 0 || (double)*nc > AMG_STALL * (double)n1) {
    /* the second stage stalled: the first one alone */
    *P = P1;
    memset(&P1, 0, sizeof P1);
    *nc = n1;
    goto cleanup;
  }
  SPS_TRY(amg_csr_product(ctx, &P1, &P2, &Q));
  const int pm = amg_interp_max(prm);
  if (pm > 0 || prm->amg_trunc > 0.0) {
    const int64_t n = H->nrows;
    SPS_TRY(amg_csr_alloc_rows(ctx, P, n, *nc, "AMG prolongator"));
    SPS_TRY(AMG_STEP(ctx, amg_trunc_count, n, Q.rp, Q.v, (const int64_t *)NULL, prm->amg_trunc, pm,
                     P->rp));
    SPS_TRY(amg_scan(ctx, P->rp, n, &P->nnz));
    SPS_TRY(amg_csr_alloc_entries(ctx, P, 1, "AMG prolongator"));
    SPS_TRY(AMG_STEP(ctx, amg_trunc_fill, n, Q.rp, Q.ci, Q.v, (const double *)NULL,
                     (const int64_t *)NULL, (const int64_t *)NULL, prm->amg_trunc, pm, P->rp, P->ci,
                     P->v));
  } else {
    *P = Q;
    memset(&Q, 0, sizeof Q);
  }
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_INTERPOLATION));
cleanup:
  if (st) amg_csr_free(ctx, P);
  amg_csr_free(ctx, &P1);
  amg_csr_free(ctx, &R1);
  amg_csr_free(ctx, &T);
  amg_csr_free(ctx, &A1);
  amg_csr_free(ctx, &P2);
  amg_csr_free(ctx, &Q);
  return st;
}

/* The coarsest level's dense inverse: H downloaded (at most AMG_DENSE_MAX rows), inverted on
 * the host, the inverse handed to the device with its plan. */
static sps_status coarsest_inverse(sps_precond *pc, amg_level *L, const amg_csr *H, int symmetric)
{
  sps_context *ctx = pc->ctx;
  sps_status st = SPS_SUCCESS;
  sps_host_rcsr Hh = {0}, G = {0};
  SPS_TRY(amg_csr_download(ctx, H, &Hh));
  const sps_host_csr Hs = {Hh.nrows, Hh.rowptr, Hh.colind, Hh.values};
  int64_t dropped;
  SPS_TRY(amg_dense_inverse(ctx, &Hs, symmetric, &G, &dropped));
  pc->info.replaced_pivots = dropped;
  pc->info.amg_coarse_nnz = G.rowptr[G.nrows];
  SPS_TRY(adopt_host(ctx, &L->Ainv, &G));
  SPS_TRY(make_plan(ctx, L->Ainv, &L->Ainvplan));
  SPS_TRY(amg_phase_end(pc, AMG_PHASE_COARSEST));
cleanup:
  sps_host_rcsr_free(&Hh);
  sps_host_rcsr_free(&G);
  return st;
}

sps_status amg_hierarchy_build(sps_precond *pc, const sps_matrix *A, amg_data *d)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  const sps_precond_params *prm = &pc->params;
  sps_status st = SPS_SUCCESS;
  amg_csr H0 = {0}, P = {0}, R = {0}, AP = {0}, Ac = {0};
  double *hdinv = NULL, *dsq = NULL, *y = NULL, *B = NULL, *Bc = NULL;
  unsigned long long *word = NULL;
  const int64_t n0 = A->nrows;
  const size_t bytes0 = (size_t)(n0 > 0 ? n0 : 1) * sizeof(double);
  d->coarsening = prm->amg_coarsening;
  d->smoother = prm->amg_smoother;
  d->degree = prm->amg_cheby_degree;
  d->cycle = prm->amg_cycle;
  d->outer = 1.0;
  const int symmetric = A->symmetry == SPS_SYMMETRY_SYMMETRIC || sps_matrix_is_symmetric(A);
  const int sa = d->coarsening == AMG_COARSEN_AGGREGATION;
  memset(pc->info.amg_setup_seconds, 0, sizeof pc->info.amg_setup_seconds);
  memset(pc->info.amg_level_seconds, 0, sizeof pc->info.amg_level_seconds);
  d->level = 0;
  d->mark = sps_wtime();

  SPS_TRY(sps_scratch_alloc(ctx, (void **)&hdinv, bytes0, "AMG inverse diagonal"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&dsq, bytes0, "AMG Lanczos D^-1/2"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&y, bytes0, "AMG Lanczos vector"));
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&word, sizeof *word, "AMG setup counter"));
  if (sa) {
    SPS_TRY(sps_scratch_alloc(ctx, (void **)&B, bytes0, "AMG near-null vector"));
    SPS_TRY(sps_scratch_alloc(ctx, (void **)&Bc, bytes0, "AMG near-null vector"));
    SPS_TRY(be->fill(ctx, n0, 1.0, B));
  }

  /* Level 0: sign*A with every diagonal position stored, turned around when its diagonal
   * adds up negative (trace = diag . ones, on the device). */
  const amg_csr a = amg_csr_of(A);
  SPS_TRY(amg_csr_alloc_rows(ctx, &H0, n0, n0, "AMG level 0"));
  SPS_TRY(AMG_STEP(ctx, amg_diag_count, n0, a.rp, a.ci, H0.rp));
  SPS_TRY(amg_scan(ctx, H0.rp, n0, &H0.nnz));
  SPS_TRY(amg_csr_alloc_entries(ctx, &H0, 1, "AMG level 0"));
  SPS_TRY(AMG_STEP(ctx, amg_diag_fill, n0, a.rp, a.ci, a.v, pc->sign, H0.rp, H0.ci, H0.v));
  {
    double trace = 0.0;
    SPS_TRY(AMG_STEP(ctx, agg_diagonal, n0, H0.rp, H0.ci, H0.v, dsq));
    SPS_TRY(be->fill(ctx, n0, 1.0, y));
    SPS_TRY(be->dot(ctx, n0, dsq, y, &trace));
    if (trace < 0.0) {
      d->outer = -1.0;
      SPS_TRY(be->scal(ctx, H0.nnz, -1.0, H0.v));
    }
  }
  d->lv[0].asign = pc->sign * d->outer;
  d->lv[0].op = a;
  if (pc->plan)
    d->lv[0].Aplan = pc->plan;
  else {
    SPS_TRY(make_plan(ctx, A, &d->own_plan0));
    d->lv[0].Aplan = d->own_plan0;
  }

  const amg_csr *H = &H0;
  for (int l = 0;; l++) {
    amg_level *L = &d->lv[l];
    d->nlevels = l + 1;
    L->n = H->nrows;
    L->nnz = l == 0 ? A->nnz : H->nnz;
    d->level = l;
    SPS_TRY(level_vectors(ctx, L, l));
    SPS_TRY(amg_phase_end(pc, AMG_PHASE_MATRICES));
    int last = H->nrows <= prm->amg_coarse_size || l + 1 >= prm->amg_levels;
    const int need_rho = d->smoother == AMG_SMOOTHER_CHEBY || (sa && !last);
    SPS_TRY(level_smoother(pc, d, l, H, hdinv, dsq, y, word, need_rho));
    if (d->smoother == AMG_SMOOTHER_MCGS) SPS_TRY(amg_mcgs_setup(ctx, L, symmetric));
    SPS_TRY(amg_phase_end(pc, AMG_PHASE_SMOOTHER));
    int64_t nc = 0;
    if (!last) {
      if (sa)
        SPS_TRY(amg_sa_prolongator(pc, l, H, B, Bc, hdinv, 4.0 / (3.0 * L->rho), &P, &nc));
      else if (amg_aggressive_level(prm, l, H->nrows))
        SPS_TRY(aggressive_prolongator(pc, l, H, &P, &nc));
      else
        SPS_TRY(amg_classical_prolongator(pc, l, H, &P, &nc));
      last = nc == 0 || (double)nc > AMG_STALL * (double)H->nrows;
      if (last) amg_csr_free(ctx, &P);
    }
    if (last) {
      if (H->nrows <= AMG_DENSE_MAX) SPS_TRY(coarsest_inverse(pc, L, H, symmetric));
      break;
    }
    if (sa) {
      double *swap = B;
      B = Bc;
      Bc = swap;
    }
    SPS_TRY(amg_csr_transpose(ctx, &P, &R, 1));
    SPS_TRY(amg_phase_end(pc, AMG_PHASE_TRANSPOSE));
    SPS_TRY(amg_csr_product(ctx, H, &P, &AP));
    SPS_TRY(amg_csr_product(ctx, &R, &AP, &Ac));
    amg_csr_free(ctx, &AP);
    if (prm->amg_filter > 0.0) SPS_TRY(filter(ctx, &Ac, prm->amg_filter, dsq));
    SPS_TRY(amg_phase_end(pc, AMG_PHASE_GALERKIN));
    if (l == 0) amg_csr_free(ctx, &H0);
    SPS_TRY(amg_csr_adopt(ctx, &P, &L->P));
    SPS_TRY(amg_csr_adopt(ctx, &R, &L->R));
    SPS_TRY(make_plan(ctx, L->P, &L->Pplan));
    SPS_TRY(make_plan(ctx, L->R, &L->Rplan));
    amg_level *C = &d->lv[l + 1];
    SPS_TRY(amg_csr_adopt(ctx, &Ac, &C->A));
    C->asign = 1.0;
    C->op = amg_csr_of(C->A);
    SPS_TRY(make_plan(ctx, C->A, &C->Aplan));
    SPS_TRY(amg_phase_end(pc, AMG_PHASE_MATRICES));
    H = &C->op;
  }

  sps_precond_info *info = &pc->info;
  info->amg_levels = d->nlevels;
  double rows = 0.0, nnz = 0.0;
  for (int l = 0; l < d->nlevels; l++) {
    info->amg_rows[l] = d->lv[l].n;
    info->amg_nnz[l] = d->lv[l].nnz;
    rows += (double)d->lv[l].n;
    nnz += (double)d->lv[l].nnz;
  }
  info->amg_grid_complexity = n0 > 0 ? rows / (double)n0 : 0.0;
  info->amg_operator_complexity = A->nnz > 0 ? nnz / (double)A->nnz : 0.0;
  info->amg_coarsening = d->coarsening;
  info->amg_smoother = d->smoother;
  info->colors = d->smoother == AMG_SMOOTHER_MCGS ? d->lv[0].ncolors : 0;
  info->degree = d->smoother == AMG_SMOOTHER_CHEBY ? d->degree : 0;
  info->eig_min = d->lv[0].eig_a;
  info->eig_max = d->lv[0].eig_b;
cleanup:
  amg_csr_free(ctx, &H0);
  amg_csr_free(ctx, &P);
  amg_csr_free(ctx, &R);
  amg_csr_free(ctx, &AP);
  amg_csr_free(ctx, &Ac);
  double *v[] = {hdinv, dsq, y, B, Bc};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    sps_scratch_free(ctx, v[k]);
  sps_scratch_free(ctx, word);
  /* what the setup's scratch pool keeps goes back to the device */
  sps_scratch_release(ctx);
  return st;
}
