/* block_cg.c: block CG (O'Leary 1980) over all columns at once, made breakdown-free by a rank-revealing orthonormalisation of the search directions (Ji and Li 2017), with converged columns leaving the block. */
#include <math.h>
#include <string.h>

#include "batch.h"
#include "block_dense.h"

/*
 * Block preconditioned CG (D. O'Leary, "The block conjugate gradient algorithm and related
 * methods", Linear Algebra Appl. 29 (1980)) searches one block Krylov space
 * span{Z_0, M^-1 A Z_0, ...} for all the right-hand sides, so that each column's error is
 * minimised in the A-norm over a space s times larger than its own Krylov space: on matrices
 * with isolated small eigenvalues, or right-hand sides that share components, the columns
 * converge in fewer iterations. Plain block CG breaks down when the block of search directions
 * loses rank (two equal right-hand sides, a column whose residual becomes a combination of the
 * others): P^T A P becomes singular. The breakdown-free form (H. Ji and Y. Li, "A
 * breakdown-free block conjugate gradient method", BIT 57 (2017)) orthonormalises the new
 * directions and drops the dependent ones, so the block shrinks instead:
 *
 *   R = B - A X,  Z = M^-1 R,  P = orth(Z)
 *   loop
 *     Q = A P,  alpha = (P^T Q)^-1 (P^T R),  X += P alpha,  R -= Q alpha
 *     test each column (||r_j|| <= tol_j, confirmed on the true residual: the column leaves
 *     the block; else its residual is replaced by the true one)
 *     Z = M^-1 R,  beta = -(P^T Q)^-1 (Q^T Z),  P = orth(Z + P beta)
 *
 * with P^T A P_old = 0 by the choice of beta. orth is SVQB (A. Stathopoulos and K. Wu, SIAM J.
 * Sci. Comput. 23 (2002)): G = W^T W, G = U diag(lambda) U^T, P = W U_r diag(lambda_r)^-1/2 for
 * the eigenvalues above SPS_BCG_RANK_TOL lambda_max (singular values above 1e-6 of the
 * largest: the rank decision), then one Cholesky QR pass (P^T P = L L^T, P <- P L^-T) to make
 * P orthonormal to working precision. The Gram matrices are compensated sums (the block
 * backend's gram), the products with small matrices plain sums in a fixed order, and the small
 * dense algebra runs on the host (block_dense.c), the same code on both backends: the CPU and
 * the GPU take the same iterations (bar rare ties). A column whose residual meets its tolerance
 * on the true residual is written back and removed from R, so the others go on with a block
 * one column narrower. Each iteration reads the Gram matrices back: one synchronisation per
 * iteration, the price of the rank decisions.
 *
 * Stops as batched CG does per column: converged, maximum iterations, NaN, divergence
 * (50 iterations above dtol by the recurrence, confirmed), interrupted; the whole block
 * stops with INDEFINITE_MATRIX when P^T A P is not positive definite, and with BREAKDOWN when
 * no direction is left (the residuals are zero to working precision but not to the test).
 */

#define SPS_BCG_RANK_TOL 1e-12

#define MAXC SPS_BLOCK_MAX_COLS

typedef struct bkcg_work {
  double *P, *Q, *W, *Z; /* directions (r columns), A P, Z + P beta, M^-1 R (NULL: R) */
  double *dense;         /* host: G, U, C, PQ, L, M (MAXC x MAXC each), lambda (MAXC) */
  int above[MAXC];       /* by block position: consecutive iterations above dtol */
} bkcg_work;

static void bkcg_destroy(sps_solver *s, sps_batch *bt)
{
  bkcg_work *w = bt->mwork;
  if (!w) return;
  sps_context *ctx = s->ctx;
  double *own[] = {w->P, w->Q, w->W, w->Z};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (own[k]) ctx->be->free(ctx, own[k]);
  sps_host_free(w->dense);
  sps_host_free(w);
  bt->mwork = NULL;
}

/* A block of the method (not moved by sps_batch_compact: block CG keeps its columns in place). */
static sps_status bkcg_alloc(sps_solver *s, sps_batch *bt, double **p, const char *what)
{
  sps_context *ctx = s->ctx;
  SPS_CHECK(ctx->be->malloc(ctx, (void **)p, (size_t)bt->bstride * sizeof(double), what));
  return ctx->be->fill(ctx, bt->bstride, 0.0, *p);
}

static sps_status bkcg_setup(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  bkcg_work *w;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&w, 1, sizeof *w, "block CG work space"));
  bt->mwork = w;
  SPS_CHECK(bkcg_alloc(s, bt, &w->P, "block CG directions"));
  SPS_CHECK(bkcg_alloc(s, bt, &w->Q, "block CG A P"));
  SPS_CHECK(bkcg_alloc(s, bt, &w->W, "block CG new directions"));
  if (!bt->identity) SPS_CHECK(bkcg_alloc(s, bt, &w->Z, "block CG M^-1 R"));
  return sps_host_calloc(ctx, (void **)&w->dense, 6 * MAXC * MAXC + MAXC, sizeof(double),
                         "block CG small matrices");
}

/*
 * Move the active columns of B, X and R to positions 0..a-1 (in order), after writing the
 * finished ones back to the user's X; bt->w becomes a (the leading dimension stays).
 */
static sps_status bkcg_squeeze(sps_solver *s, sps_batch *bt)
{
  sps_context *ctx = s->ctx;
  bkcg_work *w = bt->mwork;
  int from[MAXC], ident[MAXC], a = 0, above[MAXC];
  SPS_CHECK(sps_batch_write_back(s, bt, 0));
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    if (c && c->active) {
      from[a] = p;
      ident[a] = a;
      above[a] = w->above[p];
      a++;
    }
  }
  int moved = a != bt->w;
  for (int q = 0; q < a; q++) moved |= from[q] != q;
  if (moved && a > 0) {
    double *bufs[] = {bt->B, bt->X, bt->R};
    for (int k = 0; k < 3; k++) {
      SPS_CHECK(bt->bk->copy_cols(ctx, s->n, a, bufs[k], bt->ld, from, bt->T, bt->ld, ident));
      SPS_CHECK(bt->bk->copy_cols(ctx, s->n, a, bt->T, bt->ld, ident, bufs[k], bt->ld, ident));
    }
  }
  int at[MAXC];
  for (int q = 0; q < MAXC; q++) at[q] = q < a ? bt->at[from[q]] : -1;
  memcpy(bt->at, at, sizeof at);
  for (int q = 0; q < a; q++) {
    bt->col[bt->at[q]].pos = q;
    w->above[q] = above[q];
  }
  bt->w = a;
  return SPS_SUCCESS;
}

/* Y <- beta Y + X C on the first b columns (X of a columns), C a x b on the host. */
static sps_status bkcg_gemm(sps_solver *s, sps_batch *bt, int a, const double *X, int b,
                            const double *C, double beta, double *Y)
{
  if (b == 0) return SPS_SUCCESS;
  return bt->bk->gemm(s->ctx, s->n, bt->ld, a, X, b, sps_block_all(b), C, beta, Y, bt->ws);
}

/* G <- X^T Y (a x b, column-major with leading dimension a), on the host. */
static sps_status bkcg_gram(sps_solver *s, sps_batch *bt, int a, const double *X, int b,
                            const double *Y, double *G)
{
  if (a == 0 || b == 0) return SPS_SUCCESS;
  return bt->bk->gram(s->ctx, s->n, bt->ld, a, X, b, Y, G, bt->ws);
}

/*
 * P <- orth(W) for W of a columns: SVQB with the rank decision, then a Cholesky QR pass.
 * *r gets the number of directions kept (0 when W is zero to working precision).
 */
static sps_status bkcg_orth(sps_solver *s, sps_batch *bt, int a, int *r)
{
  bkcg_work *w = bt->mwork;
  double *G = w->dense, *U = G + MAXC * MAXC, *C = U + MAXC * MAXC, *lam = w->dense + 6 * MAXC * MAXC;
  *r = 0;
  SPS_CHECK(bkcg_gram(s, bt, a, w->W, a, w->W, G));
  sps_dense_symmetrize(a, G, a);
  sps_dense_sym_eig(a, G, a, lam, U, a);
  int k = 0;
  while (k < a && lam[k] > SPS_BCG_RANK_TOL * lam[0] && lam[k] > 0.0 && isfinite(lam[k])) k++;
  if (k == 0) return SPS_SUCCESS;
  /* C = U_k diag(lambda_k)^-1/2: W C has orthonormal columns in exact arithmetic */
  for (int j = 0; j < k; j++) {
    const double f = 1.0 / sqrt(lam[j]);
    for (int i = 0; i < a; i++) C[i + j * a] = U[i + j * a] * f;
  }
  SPS_CHECK(bkcg_gemm(s, bt, a, w->W, k, C, 0.0, w->P));
  /* Cholesky QR: P^T P = L L^T, P <- P L^-T, through W */
  SPS_CHECK(bkcg_gram(s, bt, k, w->P, k, w->P, G));
  sps_dense_symmetrize(k, G, k);
  if (sps_dense_cholesky(k, G, k) == 0) {
    /* C = L^-T: the identity solved from the right */
    for (int j = 0; j < k; j++)
      for (int i = 0; i < k; i++) C[i + j * k] = i == j ? 1.0 : 0.0;
    sps_dense_right_solve_lt(k, k, G, k, C, k);
    SPS_CHECK(bkcg_gemm(s, bt, k, w->P, k, C, 0.0, w->W));
    double *t = w->P;
    w->P = w->W;
    w->W = t;
  }
  *r = k;
  return SPS_SUCCESS;
}

/* Z <- M^-1 R on the a active columns (Z = R without a preconditioner). */
static sps_status bkcg_precond(sps_solver *s, sps_batch *bt, double **Z)
{
  bkcg_work *w = bt->mwork;
  *Z = bt->R;
  if (!w->Z) return SPS_SUCCESS;
  *Z = w->Z;
  return sps_batch_precond(s, bt, sps_block_all(bt->w), bt->R, w->Z);
}

/* Record the residual norms of iteration `it` in the columns' host histories. */
static void bkcg_record(sps_solver *s, sps_batch *bt, int it)
{
  if (!s->colhist) return;
  for (int p = 0; p < bt->w; p++) {
    const sps_batch_col *c = sps_batch_at(bt, p);
    if (!c || !c->active || it > s->maxit) continue;
    double *h = s->colhist + (size_t)c->j * ((size_t)s->maxit + 1);
    h[it] = ldexp(c->rnorm, c->scale_exp);
    s->colrep[c->j].history_count = it + 1;
  }
}

static sps_status bkcg_solve(sps_solver *s, sps_batch *bt)
{
  bkcg_work *w = bt->mwork;
  double *PQ = w->dense + 3 * MAXC * MAXC, *L = PQ + MAXC * MAXC, *M = L + MAXC * MAXC;
  double norms[MAXC], *Z;
  memset(w->above, 0, sizeof w->above);
  SPS_CHECK(bkcg_squeeze(s, bt));
  int r = 0, it = 0;
  SPS_CHECK(bkcg_precond(s, bt, &Z));
  int ident[MAXC];
  for (int q = 0; q < MAXC; q++) ident[q] = q;
  SPS_CHECK(bt->bk->copy_cols(s->ctx, s->n, bt->w, Z, bt->ld, ident, w->W, bt->ld, ident));
  SPS_CHECK(bkcg_orth(s, bt, bt->w, &r));
  while (bt->w > 0) {
    const int a = bt->w;
    if (r == 0) {
      /* no direction left: the residuals vanished to working precision, not to the test */
      for (int p = 0; p < a; p++) sps_batch_finish(bt, p, SPS_DIVERGED_BREAKDOWN, it);
      break;
    }
    if (it >= s->maxit) {
      for (int p = 0; p < a; p++) sps_batch_finish(bt, p, SPS_DIVERGED_MAX_ITERATIONS, it);
      break;
    }
    /* Q = sign*A P on the r directions */
    if (r == 1 && bt->ld == 1)
      SPS_CHECK(sps_spmv_apply_raw(s->plan, s->sign, w->P, 0.0, w->Q));
    else
      SPS_CHECK(sps_spmm_apply_cols(bt->spmm, r, s->sign, w->P, bt->ld, 0.0, w->Q, bt->ld));
    /* alpha = (P^T Q)^-1 P^T R */
    SPS_CHECK(bkcg_gram(s, bt, r, w->P, r, w->Q, PQ));
    sps_dense_symmetrize(r, PQ, r);
    memcpy(L, PQ, (size_t)r * r * sizeof(double));
    if (sps_dense_cholesky(r, L, r) != 0) {
      for (int p = 0; p < a; p++) sps_batch_finish(bt, p, SPS_DIVERGED_INDEFINITE_MATRIX, it);
      break;
    }
    SPS_CHECK(bkcg_gram(s, bt, r, w->P, a, bt->R, M));
    sps_dense_cholesky_solve(r, L, r, a, M, r);
    /* X += P alpha; R -= Q alpha */
    SPS_CHECK(bkcg_gemm(s, bt, r, w->P, a, M, 1.0, bt->X));
    for (int q = 0; q < r * a; q++) M[q] = -M[q];
    SPS_CHECK(bkcg_gemm(s, bt, r, w->Q, a, M, 1.0, bt->R));
    it++;
    SPS_CHECK(bt->bk->nrm2(s->ctx, s->n, a, bt->ld, sps_block_all(a), bt->R, norms, bt->ws));
    uint64_t check = 0;
    for (int p = 0; p < a; p++) {
      sps_batch_col *c = sps_batch_at(bt, p);
      c->rnorm = norms[p];
      w->above[p] = norms[p] > c->dtol_abs ? w->above[p] + 1 : 0;
      if (!(norms[p] > c->tol) || w->above[p] >= SPS_DTOL_ITERATIONS) check |= (uint64_t)1 << p;
    }
    bkcg_record(s, bt, it);
    bt->t = it;
    const int stop = sps_batch_report(s, bt, it - 1);
    if (check) {
      /* the recurrence claims convergence (or NaN, or divergence): the true residual decides;
       * where it does not confirm, R's column is replaced by it and the column goes on */
      SPS_CHECK(sps_batch_true_residual(s, bt, check, norms));
      for (int p = 0; p < a; p++) {
        if (!((check >> p) & 1u)) continue;
        sps_batch_col *c = sps_batch_at(bt, p);
        sps_reason reason = sps_solver_bad(norms[p]) ? SPS_DIVERGED_NAN : sps_batch_test(s, c, norms[p]);
        if (reason == SPS_REASON_NONE && w->above[p] >= SPS_DTOL_ITERATIONS) {
          if (norms[p] > c->dtol_abs)
            reason = SPS_DIVERGED_DTOL;
          else
            w->above[p] = 0;
        }
        c->rnorm = norms[p];
        if (reason != SPS_REASON_NONE) sps_batch_finish(bt, p, reason, it);
      }
    }
    if (stop)
      for (int p = 0; p < a; p++)
        if (sps_batch_at(bt, p)->active) sps_batch_finish(bt, p, SPS_INTERRUPTED, it);
    SPS_CHECK(bkcg_squeeze(s, bt));
    const int an = bt->w;
    if (an == 0) break;
    if (it >= s->maxit) {
      for (int p = 0; p < an; p++) sps_batch_finish(bt, p, SPS_DIVERGED_MAX_ITERATIONS, it);
      break;
    }
    /* Z = M^-1 R; beta = -(P^T Q)^-1 Q^T Z; W = Z + P beta; P = orth(W) */
    SPS_CHECK(bkcg_precond(s, bt, &Z));
    SPS_CHECK(bkcg_gram(s, bt, r, w->Q, an, Z, M));
    sps_dense_cholesky_solve(r, L, r, an, M, r);
    for (int q = 0; q < r * an; q++) M[q] = -M[q];
    SPS_CHECK(bt->bk->copy_cols(s->ctx, s->n, an, Z, bt->ld, ident, w->W, bt->ld, ident));
    SPS_CHECK(bkcg_gemm(s, bt, r, w->P, an, M, 1.0, w->W));
    SPS_CHECK(bkcg_orth(s, bt, an, &r));
  }
  return SPS_SUCCESS;
}

/* Block CG moves its columns itself (bkcg_squeeze); the width classes are not used. */
static sps_status bkcg_compact(sps_solver *s, sps_batch *bt, const int *src)
{
  (void)s;
  (void)bt;
  (void)src;
  return SPS_SUCCESS;
}

const sps_batch_method sps_batch_method_block_cg = {
    .setup = bkcg_setup,
    .solve = bkcg_solve,
    .compact = bkcg_compact,
    .destroy = bkcg_destroy,
};
