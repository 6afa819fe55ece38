/* amg_hierarchy.c: the setup of smoothed-aggregation multigrid: on the host, level by level, the aggregates, the smoothed prolongator, the Galerkin coarse operator and the smoother's data; each level's operators then handed to the context's device with their own SpMV plans. */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/compensated_sum.h"
#include "aggregate.h"
#include "amg.h"
#include "spgemm.h"
#include "ref/kernels.h"

/*
 * Smoothed aggregation (Vanek, Mandel and Brezina, Computing 56 (1996); the choices of PyAMG's
 * smoothed_aggregation_solver and of PETSc's GAMG). For level l with operator A (n rows,
 * D = diag(A)):
 *   1. aggregates: the strong graph (j strong for i when |a_ij| >= theta_l sqrt(|a_ii a_jj|),
 *      symmetrised) partitioned by MIS(2) aggregation (precond/aggregate.h); agg(i) in 0 .. n_c -
 * 1, or -1 for a row with no strong neighbour, which no aggregate takes. theta_l = amg.strength *
 *      AMG_STRENGTH_DECAY^l: the Galerkin operators spread a row over more and smaller
 *      entries level after level (30 to 190 per row on the 3-D Laplacian's levels 1 to 3), so
 *      a fixed theta leaves most coarse rows without a strong neighbour and coarsening
 *      stalls (PETSc GAMG's -pc_gamg_threshold_scale). Measured on the shared matrices:
 *      halving per level takes CG+AMG on laplacian7pt_100 from 25 to 12 iterations, G3_circuit
 *      from 22 to 21, the others unchanged or better (doc/performance.md);
 *   2. the tentative prolongator T (n x n_c) that interpolates the near-null vector B
 *      exactly: t_{i,agg(i)} = B_i / ||B_J|| (J the aggregate of i), so T's columns are
 *      orthonormal and T B_c = B on the aggregated rows with B_c,J = ||B_J||, the coarse
 *      level's near-null vector. B = 1 on the finest level (the constants, the null space of
 *      a Laplacian without Dirichlet rows); carrying B_c down (PyAMG's fit_candidates) keeps
 *      the exact null vector of a singular problem on every level;
 *   3. the smoothed prolongator P = (I - omega D^-1 A) T, omega = 4/(3 rho) with rho the
 *      Lanczos estimate of the spectral radius of D^-1 A (amg_spectrum.c): the damped Jacobi
 *      step that minimises the energy of the coarse basis functions' high frequencies;
 *   4. R = P^T and the Galerkin operator A_c = R (A P), symmetric positive definite when A is.
 * Coarsening stops at a level of at most amg.coarse_size rows, at amg.levels levels, or when
 * it stalls (n_c > AMG_STALL n, or no aggregate at all); the coarsest level is inverted
 * densely (amg_coarse.c) when it has at most AMG_DENSE_MAX rows, else it is only smoothed.
 *
 * Everything here is host arithmetic in a fixed order (the products are compensated,
 * ref/spgemm.c), so the hierarchy is the same on every device; only the results are
 * uploaded. The smoother's interval on each level is [b / amg.cheby_ratio, b] with
 * b = AMG_UPPER_MARGIN rho: Lanczos approaches lambda_max from below, and a Chebyshev
 * polynomial amplifies what lies above its interval.
 *
 * The solver may hand -A (sign = -1, a negative definite system solved as (-A) x = -b); the
 * hierarchy is built on sign*A. A matrix whose diagonal adds up negative (a negative definite
 * system given to GMRES) is turned around once more: the hierarchy of -(sign A) is built and
 * the cycle's result negated (amg_data.outer).
 */

#define AMG_STALL 0.9
#define AMG_STRENGTH_DECAY 0.5
/* amg_product runs on OpenMP threads from this many rows of A up */
#define AMG_PRODUCT_THREAD_ROWS 20000
#define AMG_UPPER_MARGIN 1.1

double amg_level_theta(const sps_precond_params *prm, int l)
{
  return prm->amg_strength * pow(AMG_STRENGTH_DECAY, l);
}

/* The host CSR of a square level as a rectangular one (a view). */
static sps_host_rcsr rview(const sps_host_csr *H)
{
  sps_host_rcsr r = {H->n, H->n, H->rowptr, H->colind, H->values};
  return r;
}

sps_status amg_product(sps_context *ctx, const sps_host_rcsr *A, const sps_host_rcsr *B,
                       sps_host_rcsr *C)
{
  sps_status st = SPS_SUCCESS;
  int64_t *mark = NULL, *count = NULL;
  sps_csum *acc = NULL;
  memset(C, 0, sizeof *C);
  /* On a GPU context the product runs on the GPU (precond/spgemm.c), with the same bits: it
   * adds each c_ij's products in A's row order, as the reference below does. */
  if (ctx->kind == SPS_DEVICE_CUDA) return sps_spgemm(ctx, A, B, C);
  const int64_t m = A->nrows;
  /* Row blocks, one per thread, each with its own markers and sums: the rows of C are
   * independent, so the result does not depend on the number of threads. */
  int nt = 1;
#ifdef _OPENMP
  if (m >= AMG_PRODUCT_THREAD_ROWS) nt = omp_get_max_threads();
#endif
  const size_t nc = (size_t)(B->ncols > 0 ? B->ncols : 1);
  SPS_TRY(
      sps_host_alloc(ctx, (void **)&mark, (size_t)nt * nc, sizeof(int64_t), "AMG product markers"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&count, (size_t)m + 1, sizeof(int64_t),
                         "AMG product row counts"));
#pragma omp parallel for num_threads(nt) schedule(static, 1)
  for (int t = 0; t < nt; t++) {
    const int64_t r0 = m * t / nt, r1 = m * (t + 1) / nt;
    sps_ref_spgemm_count(r1 - r0, B->ncols, A->rowptr + r0, A->colind, B->rowptr, B->colind,
                         mark + (size_t)t * nc, count + r0);
  }
  int64_t nnz = 0;
  for (int64_t i = 0; i < m; i++)
    nnz += count[i];
  SPS_TRY(sps_host_rcsr_alloc(ctx, C, m, B->ncols, nnz, "AMG product"));
  C->rowptr[0] = 0;
  for (int64_t i = 0; i < m; i++)
    C->rowptr[i + 1] = C->rowptr[i] + count[i];
  SPS_TRY(
      sps_host_alloc(ctx, (void **)&acc, (size_t)nt * nc, sizeof(sps_csum), "AMG product sums"));
#pragma omp parallel for num_threads(nt) schedule(static, 1)
  for (int t = 0; t < nt; t++) {
    const int64_t r0 = m * t / nt, r1 = m * (t + 1) / nt;
    sps_ref_spgemm_fill(r1 - r0, B->ncols, A->rowptr + r0, A->colind, A->values, B->rowptr,
                        B->colind, B->values, C->rowptr + r0, mark + (size_t)t * nc,
                        acc + (size_t)t * nc, C->colind, C->values);
  }
cleanup:
  if (st) sps_host_rcsr_free(C);
  sps_host_free(mark);
  sps_host_free(count);
  sps_host_free(acc);
  return st;
}

/*
 * A library matrix that takes the host arrays of M (emptied here, whatever happens), left out
 * of the context's count of live objects: the preconditioner owns it, as a solver owns its
 * SpMV plan.
 */
static sps_status adopt(sps_context *ctx, sps_matrix **out, sps_host_rcsr *M, sps_symmetry sym)
{
  sps_status st =
      sps_matrix_adopt_csr(ctx, out, M->nrows, M->ncols, M->rowptr, M->colind, M->values, sym);
  memset(M, 0, sizeof *M);
  if (!st) sps_context_track(ctx, SPS_OBJECT_MATRIX, -1);
  return st;
}

static void drop(sps_matrix **M)
{
  if (!*M) return;
  sps_context_track((*M)->ctx, SPS_OBJECT_MATRIX, 1);
  sps_matrix_destroy(M);
}

/* An SpMV plan of M chosen by AUTO (a variant that rounds like csr-scalar on every device),
 * owned by the preconditioner. */
static sps_status make_plan(sps_context *ctx, const sps_matrix *M, sps_spmv_plan **plan)
{
  SPS_CHECK(sps_spmv_plan_create(ctx, plan, M, SPS_SPMV_AUTO));
  sps_spmv_plan_set_owned(*plan);
  return sps_spmv_plan_setup(*plan);
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
    double **v[] = {&L->dinv, &L->x, &L->b, &L->r, &L->e, &L->t};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
      if (*v[k]) {
        ctx->be->free(ctx, *v[k]);
        *v[k] = NULL;
      }
  }
  sps_spmv_plan_destroy(&d->own_plan0);
}

/*
 * The smoother's data of one level: the inverse diagonal (for P's smoothing, into hdinv, n on
 * the host; SPS_ERR_UNSUPPORTED naming the level and row for a zero or non-finite a_ii), the
 * spectral radius estimate and the interval, the smoother's diagonal and the work vectors
 * on the device.
 */
static sps_status level_smoother(sps_precond *pc, amg_data *d, int l, const sps_host_csr *H,
                                 double *hdinv, double *hsd)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  amg_level *L = &d->lv[l];
  const int64_t n = H->n;
  for (int64_t i = 0; i < n; i++) {
    double a = 0.0, row = 0.0;
    for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) {
      if (H->colind[k] == i) a = H->values[k];
      row += fabs(H->values[k]);
    }
    if (a == 0.0 || !isfinite(a) || !isfinite(row))
      SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
               "amg: the diagonal entry of row %lld of level %d is %g: smoothed aggregation "
               "needs a nonzero diagonal",
               (long long)(i + 1), l, a);
    hdinv[i] = 1.0 / a;
    /* l1-Jacobi: d_i = sum_j |a_ij|, with a_ii's sign */
    hsd[i] = d->smoother == AMG_SMOOTHER_L1_JACOBI ? (a > 0.0 ? 1.0 : -1.0) / row : hdinv[i];
  }
  SPS_CHECK(amg_spectral_radius(ctx, H, hdinv, pc->params.cheby_lanczos, &L->rho));
  if (!(L->rho > 0.0) || !isfinite(L->rho))
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "amg: the spectral radius estimate of D^-1 A on level %d is %g: A does not look "
             "positive definite",
             l, L->rho);
  L->eig_b = AMG_UPPER_MARGIN * L->rho;
  L->eig_a = L->eig_b / pc->params.amg_cheby_ratio;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  SPS_CHECK(be->malloc(ctx, (void **)&L->dinv, bytes, "AMG smoother diagonal"));
  SPS_CHECK(be->upload(ctx, L->dinv, hsd, (size_t)n * sizeof(double)));
  if (l > 0) {
    SPS_CHECK(be->malloc(ctx, (void **)&L->x, bytes, "AMG level iterate"));
    SPS_CHECK(be->malloc(ctx, (void **)&L->b, bytes, "AMG level right-hand side"));
  }
  SPS_CHECK(be->malloc(ctx, (void **)&L->r, bytes, "AMG level residual"));
  SPS_CHECK(be->malloc(ctx, (void **)&L->e, bytes, "AMG level Chebyshev step"));
  SPS_CHECK(be->malloc(ctx, (void **)&L->t, bytes, "AMG level product"));
  return SPS_SUCCESS;
}

sps_status amg_tentative(sps_context *ctx, int64_t n, const int32_t *agg, int64_t nc,
                         const double *B, sps_host_rcsr *T, double *Bc)
{
  sps_status st = SPS_SUCCESS;
  memset(T, 0, sizeof *T);
  int64_t nt = 0;
  /* Bc_J = ||B restricted to J|| (a compensated sum of squares, in row order) */
  sps_csum *sq = NULL;
  SPS_TRY(sps_host_alloc(ctx, (void **)&sq, (size_t)(nc > 0 ? nc : 1), sizeof(sps_csum),
                         "AMG aggregate norms"));
  for (int64_t j = 0; j < nc; j++)
    sq[j] = sps_csum_zero();
  for (int64_t i = 0; i < n; i++)
    if (agg[i] >= 0) {
      sps_csum_add(&sq[agg[i]], B[i] * B[i]);
      nt++;
    }
  for (int64_t j = 0; j < nc; j++)
    Bc[j] = sqrt(sps_csum_value(sq[j]));
  /* t_{i,agg(i)} = B_i / Bc_agg(i), rows with agg(i) = -1 empty */
  SPS_TRY(sps_host_rcsr_alloc(ctx, T, n, nc, nt, "AMG tentative prolongator"));
  for (int64_t i = 0, k = 0; i < n; i++) {
    if (agg[i] >= 0) {
      T->colind[k] = agg[i];
      T->values[k++] = B[i] / Bc[agg[i]];
    }
    T->rowptr[i + 1] = k;
  }
cleanup:
  sps_host_free(sq);
  return st;
}

sps_status amg_prolongator(sps_context *ctx, const sps_host_csr *H, const int32_t *agg, int64_t nc,
                           const double *B, double *Bc, const double *hdinv, double omega,
                           sps_host_rcsr *P, sps_host_rcsr *R)
{
  const int64_t n = H->n;
  sps_status st = SPS_SUCCESS;
  sps_host_rcsr T = {0};
  memset(P, 0, sizeof *P);
  memset(R, 0, sizeof *R);
  SPS_TRY(amg_tentative(ctx, n, agg, nc, B, &T, Bc));
  const sps_host_rcsr Hr = rview(H);
  SPS_TRY(amg_product(ctx, &Hr, &T, P));
  /* p_ij = t_ij - omega / a_ii (A T)_ij: the pattern of A T holds T's (every row of H has its
   * diagonal) */
  for (int64_t i = 0; i < n; i++) {
    const double w = omega * hdinv[i];
    for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
      double v = -w * P->values[k];
      if (agg[i] >= 0 && P->colind[k] == agg[i]) v += T.values[T.rowptr[i]];
      P->values[k] = v;
    }
  }
  SPS_TRY(sps_host_rcsr_alloc(ctx, R, nc, n, P->rowptr[n], "AMG restriction"));
  sps_ref_csr_transpose(n, nc, P->rowptr, P->colind, P->values, R->rowptr, R->colind, R->values);
cleanup:
  if (st) {
    sps_host_rcsr_free(P);
    sps_host_rcsr_free(R);
  }
  sps_host_rcsr_free(&T);
  return st;
}

sps_status amg_hierarchy_build(sps_precond *pc, const sps_matrix *A, amg_data *d)
{
  sps_context *ctx = pc->ctx;
  const sps_precond_params *prm = &pc->params;
  sps_status st = SPS_SUCCESS;
  sps_host_csr H0 = {0};
  sps_host_rcsr P = {0}, R = {0}, AP = {0}, Ac = {0}, G = {0};
  double *hdinv = NULL, *hsd = NULL;
  int32_t *agg = NULL;
  double *B = NULL, *Bc = NULL;
  const int64_t n0 = A->nrows;
  d->smoother = prm->amg_smoother;
  d->degree = prm->amg_cheby_degree;
  d->cycle = prm->amg_cycle;
  d->outer = 1.0;
  const int symmetric = A->symmetry == SPS_SYMMETRY_SYMMETRIC || sps_matrix_is_symmetric(A);

  /* Level 0 on the host: sign*A with every diagonal position stored, turned around when its
   * diagonal adds up negative. */
  SPS_TRY(sps_host_csr_with_diagonal(ctx, A, pc->sign, &H0));
  {
    double trace = 0.0;
    for (int64_t i = 0; i < n0; i++)
      for (int64_t k = H0.rowptr[i]; k < H0.rowptr[i + 1]; k++)
        if (H0.colind[k] == i) trace += H0.values[k];
    if (trace < 0.0) {
      d->outer = -1.0;
      for (int64_t k = 0; k < H0.rowptr[n0]; k++)
        H0.values[k] = -H0.values[k];
    }
  }
  SPS_TRY(sps_host_alloc(ctx, (void **)&hdinv, (size_t)(n0 > 0 ? n0 : 1), sizeof(double),
                         "AMG inverse diagonal (host)"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&hsd, (size_t)(n0 > 0 ? n0 : 1), sizeof(double),
                         "AMG smoother diagonal (host)"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&agg, (size_t)(n0 > 0 ? n0 : 1), sizeof(int32_t),
                         "AMG aggregates"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&B, (size_t)(n0 > 0 ? n0 : 1), sizeof(double),
                         "AMG near-null vector"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&Bc, (size_t)(n0 > 0 ? n0 : 1), sizeof(double),
                         "AMG near-null vector"));
  for (int64_t i = 0; i < n0; i++)
    B[i] = 1.0;
  d->lv[0].asign = pc->sign * d->outer;
  if (pc->plan)
    d->lv[0].Aplan = pc->plan;
  else {
    SPS_TRY(make_plan(ctx, A, &d->own_plan0));
    d->lv[0].Aplan = d->own_plan0;
  }

  sps_host_csr H = H0;
  for (int l = 0;; l++) {
    amg_level *L = &d->lv[l];
    d->nlevels = l + 1;
    L->n = H.n;
    L->nnz = l == 0 ? A->nnz : H.rowptr[H.n];
    SPS_TRY(level_smoother(pc, d, l, &H, hdinv, hsd));
    const double theta = amg_level_theta(prm, l);
    int last = H.n <= prm->amg_coarse_size || l + 1 >= prm->amg_levels;
    int64_t nc = 0;
    if (!last) {
      SPS_TRY(sps_amg_aggregate(ctx, &H, theta, agg, &nc));
      last = nc == 0 || (double)nc > AMG_STALL * (double)H.n;
    }
    if (last) {
      if (H.n <= AMG_DENSE_MAX) {
        int64_t dropped;
        SPS_TRY(amg_dense_inverse(ctx, &H, symmetric, &G, &dropped));
        pc->info.replaced_pivots = dropped;
        pc->info.amg_coarse_nnz = G.rowptr[G.nrows];
        SPS_TRY(adopt(ctx, &L->Ainv, &G, SPS_SYMMETRY_GENERAL));
        SPS_TRY(make_plan(ctx, L->Ainv, &L->Ainvplan));
      }
      break;
    }
    SPS_TRY(amg_prolongator(ctx, &H, agg, nc, B, Bc, hdinv, 4.0 / (3.0 * L->rho), &P, &R));
    double *swap = B;
    B = Bc;
    Bc = swap;
    const sps_host_rcsr Hr = rview(&H);
    SPS_TRY(amg_product(ctx, &Hr, &P, &AP));
    SPS_TRY(amg_product(ctx, &R, &AP, &Ac));
    sps_host_rcsr_free(&AP);
    if (l == 0) sps_host_csr_free(&H0);
    SPS_TRY(adopt(ctx, &L->P, &P, SPS_SYMMETRY_GENERAL));
    SPS_TRY(adopt(ctx, &L->R, &R, SPS_SYMMETRY_GENERAL));
    SPS_TRY(make_plan(ctx, L->P, &L->Pplan));
    SPS_TRY(make_plan(ctx, L->R, &L->Rplan));
    amg_level *C = &d->lv[l + 1];
    SPS_TRY(adopt(ctx, &C->A, &Ac, SPS_SYMMETRY_GENERAL));
    C->asign = 1.0;
    SPS_TRY(make_plan(ctx, C->A, &C->Aplan));
    H = sps_host_csr_view(C->A);
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
  info->degree = d->smoother == AMG_SMOOTHER_CHEBY ? d->degree : 0;
  info->eig_min = d->lv[0].eig_a;
  info->eig_max = d->lv[0].eig_b;
cleanup:
  sps_host_csr_free(&H0);
  sps_host_rcsr_free(&P);
  sps_host_rcsr_free(&R);
  sps_host_rcsr_free(&AP);
  sps_host_rcsr_free(&Ac);
  sps_host_rcsr_free(&G);
  sps_host_free(hdinv);
  sps_host_free(hsd);
  sps_host_free(agg);
  sps_host_free(B);
  sps_host_free(Bc);
  return st;
}
