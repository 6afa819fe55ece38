/* amg_cycle.c: the multigrid cycle (V, W or F) of the algebraic multigrid preconditioner, made of SpMV plans, backend vector operations and the Gauss-Seidel sweeps only, so that it runs on either device with the same rounding and without reading anything back. */
#include "amg_step.h"

/*
 * One cycle on level l for A_l x = b (Briggs, Henson and McCormick, A Multigrid Tutorial,
 * 2nd ed., ch. 3; Trottenberg, Oosterlee and Schueller, Multigrid, section 2.4):
 *
 *   x <- S(x, b)                       pre-smoothing (from x = 0 when `zero`)
 *   b_{l+1} = R (b - A x)              restricted residual
 *   x_{l+1} = cycle(l + 1, b_{l+1})    from zero; W: twice; F: an F-cycle, then a V-cycle
 *   x <- x + P x_{l+1}                 coarse-grid correction
 *   x <- S(x, b)                       post-smoothing
 *
 * and on the coarsest level x = A_c^-1 b by one SpMV with the dense inverse (or two smoothings
 * when there is none). The smoother S(x, b) = x + p(D^-1 A) D^-1 (b - A x) is a polynomial in
 * D^-1 A: Chebyshev (Adams, Brezina, Hu and Tuminaro, J. Comput. Phys. 188 (2003)) on the
 * interval [eig_b / ratio, eig_b] above the spectrum's upper end, or l1-Jacobi (p = 1 and D
 * the row sums of |A|, Baker, Falgout, Kolev and Yang, SIAM J. Sci. Comput. 33 (2011)); or
 * symmetric multicolour Gauss-Seidel (amg_mcgs.c: a forward sweep colour by colour, then a
 * backward one). Each is self-adjoint in the A inner product and contracts in its norm, so the
 * same smoother before and after makes the V- and W-cycles symmetric positive definite for
 * SPD A: CG can use them. The F-cycle's two coarse cycles differ, so it is not exactly
 * symmetric.
 *
 * Cost per level: with Chebyshev degree d, 2d SpMVs with A_l (d - 1 when pre-smoothing from
 * zero on level 0 and below), one with R, one with P; l1-Jacobi: 2 with A_l; Gauss-Seidel:
 * four passes over A_l's entries (two sweeps each way) and one residual.
 *
 * The Chebyshev smoother's vector updates are fused, one pass a step beside its product
 * (precond/ref/amg_smooth.c, precond/cuda/amg_smooth.cu), with the same roundings as the
 * separate backend operations. Every step is a kernel launch with its scalars as arguments, so
 * the cycle is issued without any host synchronisation and the solvers capture it in their CUDA graphs with the rest of
 * an iteration (CG: between cg_update and cg_rz, solvers/cg.c).
 */

/* y <- alpha * M x + beta * y through a plan. */
static sps_status mv(sps_spmv_plan *plan, double alpha, const double *x, double beta, double *y)
{
  return sps_spmv_apply_raw(plan, alpha, x, beta, y);
}

/* L->r <- b - A_l x. */
static sps_status residual(sps_context *ctx, amg_level *L, const double *b, const double *x)
{
  SPS_CHECK(ctx->be->copy(ctx, L->n, b, L->r));
  return mv(L->Aplan, -L->asign, x, 1.0, L->r);
}

/*
 * x <- x + p(D^-1 A) D^-1 (b - A x), or x <- p(D^-1 A) D^-1 b when zero. Chebyshev: the
 * iteration of precond/cheby.c on [a, b] (Saad, Algorithm 12.1) with s = D^-1 (b - A x):
 *   theta = (b + a)/2, delta = (b - a)/2, sigma = theta/delta, rho_0 = 1/sigma
 *   e = s / theta, x <- x + e
 *   for k = 1 .. d-1:  s <- s - D^-1 A e,  rho_k = 1/(2 sigma - rho_{k-1}),
 *                      e <- rho_k rho_{k-1} e + (2 rho_k / delta) s,  x <- x + e
 */
static sps_status smooth(sps_precond *pc, const amg_data *d, amg_level *L, const double *b,
                         double *x, int zero)
{
  sps_context *ctx = pc->ctx;
  const sps_backend *be = ctx->be;
  const int64_t n = L->n;
  double *s = L->r;
  if (d->smoother == AMG_SMOOTHER_MCGS) return amg_mcgs_smooth(ctx, L, b, x, zero);
  if (!zero) SPS_CHECK(residual(ctx, L, b, x)); /* s = b - A x */
  if (d->smoother == AMG_SMOOTHER_L1_JACOBI) {
    /* x <- x + D^-1 s (from zero: x <- D^-1 b) */
    SPS_CHECK(be->pointwise_mult(ctx, n, L->dinv, zero ? b : s, s));
    return zero ? be->copy(ctx, n, s, x) : be->axpy(ctx, n, 1.0, s, x);
  }
  const double theta = 0.5 * (L->eig_b + L->eig_a), delta = 0.5 * (L->eig_b - L->eig_a);
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  /* s = D^-1 (b - A x), e = s / theta, x <- x + e: one fused pass (precond/ref/amg_smooth.c) */
  SPS_CHECK(AMG_STEP(ctx, amg_cheby_first, n, (const double *)L->dinv, zero ? b : (const double *)s,
                     1.0 / theta, zero, s, L->e, x));
  for (int k = 1; k < d->degree; k++) {
    /* t = A e; then fused: s <- s - D^-1 t, e <- rho_k rho_{k-1} e + (2 rho_k / delta) s,
     * x <- x + e */
    SPS_CHECK(mv(L->Aplan, L->asign, L->e, 0.0, L->t));
    const double rho_next = 1.0 / (2.0 * sigma - rho);
    SPS_CHECK(AMG_STEP(ctx, amg_cheby_step, n, (const double *)L->dinv, (const double *)L->t,
                       2.0 * rho_next / delta, rho_next * rho, s, L->e, x));
    rho = rho_next;
  }
  return SPS_SUCCESS;
}

/* One cycle of the given kind on level l for A_l x = b (x = 0 on entry when zero). */
static sps_status cycle(sps_precond *pc, amg_data *d, int l, const double *b, double *x, int zero,
                        int kind)
{
  sps_context *ctx = pc->ctx;
  amg_level *L = &d->lv[l];
  if (l == d->nlevels - 1) {
    if (!L->Ainv) {
      SPS_CHECK(smooth(pc, d, L, b, x, zero));
      return smooth(pc, d, L, b, x, 0);
    }
    /* x <- A^-1 b, or x <- x + A^-1 (b - A x) */
    if (zero) return mv(L->Ainvplan, 1.0, b, 0.0, x);
    SPS_CHECK(residual(ctx, L, b, x));
    return mv(L->Ainvplan, 1.0, L->r, 1.0, x);
  }
  amg_level *C = &d->lv[l + 1];
  SPS_CHECK(smooth(pc, d, L, b, x, zero));
  /* b_c = R (b - A x) */
  SPS_CHECK(residual(ctx, L, b, x));
  SPS_CHECK(mv(L->Rplan, 1.0, L->r, 0.0, C->b));
  switch (kind) {
  case AMG_CYCLE_W:
    SPS_CHECK(cycle(pc, d, l + 1, C->b, C->x, 1, AMG_CYCLE_W));
    SPS_CHECK(cycle(pc, d, l + 1, C->b, C->x, 0, AMG_CYCLE_W));
    break;
  case AMG_CYCLE_F:
    SPS_CHECK(cycle(pc, d, l + 1, C->b, C->x, 1, AMG_CYCLE_F));
    SPS_CHECK(cycle(pc, d, l + 1, C->b, C->x, 0, AMG_CYCLE_V));
    break;
  default:
    SPS_CHECK(cycle(pc, d, l + 1, C->b, C->x, 1, AMG_CYCLE_V));
  }
  /* x <- x + P x_c */
  SPS_CHECK(mv(L->Pplan, 1.0, C->x, 1.0, x));
  return smooth(pc, d, L, b, x, 0);
}

sps_status amg_cycle_apply(sps_precond *pc, const double *r, double *z)
{
  amg_data *d = pc->data;
  SPS_CHECK(cycle(pc, d, 0, r, z, 1, d->cycle));
  /* the hierarchy of -(sign A): (sign A)^-1 r = -(-(sign A))^-1 r */
  if (d->outer < 0.0) SPS_CHECK(pc->ctx->be->scal(pc->ctx, pc->n, -1.0, z));
  return SPS_SUCCESS;
}
