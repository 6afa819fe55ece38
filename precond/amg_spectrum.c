/* amg_spectrum.c: the estimate of the spectral radius of D^-1 A on each multigrid level, by a few Lanczos steps through the level's SpMV plan and the backend's vector operations, so that it runs on the level's device and gives every device the same value. */
#include <math.h>

#include "../core/comm.h"
#include "amg_step.h"
#include "tridiag_eig.h"

/*
 * Lanczos (Golub and Van Loan, Matrix Computations, 4th ed., Algorithm 10.1.1, no
 * reorthogonalisation) on S = D^-1/2 H D^-1/2 (|D| when the diagonal has both signs), which
 * is similar to D^-1 H and symmetric when H is:
 *   v_1 = v / ||v||, beta_1 = 0
 *   w = S v_j - beta_j v_{j-1},  alpha_j = w . v_j,  w <- w - alpha_j v_j,
 *   beta_{j+1} = ||w||,  v_{j+1} = w / beta_{j+1}
 * stopping early when beta_{j+1} <= 1e-12 |alpha_j| (an invariant subspace). The largest
 * eigenvalue of the tridiagonal T_k (alpha, beta) is a Ritz value: it approaches
 * lambda_max(D^-1 H) from below, within a few percent after 10 to 20 steps on the matrices
 * multigrid meets; the smoother puts its margin on top. The start is uniform in [-1, 1) from a
 * fixed seed, drawn where the vector lives (sps_ref_amg_random and its kernel: the same
 * numbers); the SpMV and the dot products round alike on every device (compensated sums), so
 * the estimate is the same on the CPU and the GPU.
 *
 * Where the backend leaves reductions in its memory (dot_store, sumsq_store: the CPU and one
 * GPU, not a distributed context), the scalars stay there: alpha_j, beta_j and the flags of the
 * norms live in one small array, the steps (precond/ref/amg_lanczos.c and its kernels) read
 * them from it, and the host reads the array back once, after the last step, where the loop
 * below (host_lanczos) waits for two scalars a step. The same operations in the same order, so
 * the same bits. Steps after a breakdown run on, on values nobody reads; the host finds the
 * breakdown in the array as the loop would have. A norm that nrm2 would have rescaled (a flag)
 * sends the level to the loop.
 */
#define AMG_LANCZOS_SEED 20261125u

static sps_status host_lanczos(sps_context *ctx, const amg_level *L, const double *dsq, int steps,
                               double *v, double *vold, double *w, double *y, double *rho)
{
  const sps_backend *be = ctx->be;
  const int64_t n = L->n;
  sps_status st = SPS_SUCCESS;
  double *alpha = NULL, *beta = NULL;
  *rho = 0.0;
  if (n == 0) return SPS_SUCCESS;
  SPS_TRY(sps_host_calloc(ctx, (void **)&alpha, (size_t)steps + 1, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&beta, (size_t)steps + 2, sizeof(double), "Lanczos"));
  SPS_TRY(AMG_STEP(ctx, amg_random, n, (uint64_t)AMG_LANCZOS_SEED, v));
  double nv;
  SPS_TRY(be->nrm2(ctx, n, v, &nv));
  SPS_TRY(be->scal(ctx, n, 1.0 / nv, v));
  SPS_TRY(be->fill(ctx, n, 0.0, vold));
  int k = 0;
  for (int j = 0; j < steps; j++) {
    /* w = S v - beta_j v_old */
    SPS_TRY(be->pointwise_mult(ctx, n, dsq, v, y));
    SPS_TRY(sps_spmv_apply_raw(L->Aplan, L->asign, y, 0.0, w));
    SPS_TRY(be->pointwise_mult(ctx, n, dsq, w, w));
    SPS_TRY(be->axpy(ctx, n, -beta[j], vold, w));
    double a;
    SPS_TRY(be->dot(ctx, n, w, v, &a));
    alpha[j] = a;
    SPS_TRY(be->axpy(ctx, n, -a, v, w));
    double b;
    SPS_TRY(be->nrm2(ctx, n, w, &b));
    k = j + 1;
    if (!(b > 1e-12 * fabs(a)) || !isfinite(b)) break;
    beta[j + 1] = b;
    /* v_old <- v, v <- w / b */
    SPS_TRY(be->copy(ctx, n, v, vold));
    SPS_TRY(be->axpby(ctx, n, 1.0 / b, w, 0.0, v));
  }
  double tmin, tmax;
  sps_tridiag_eig_extremes(alpha, beta, k, &tmin, &tmax);
  *rho = tmax;
cleanup:
  sps_host_free(alpha);
  sps_host_free(beta);
  return st;
}

/* Layout of the scalars in the context's memory: alpha[steps], beta[steps + 1] (beta_0 = 0),
 * flag[steps + 1] (flag 0: the start's norm, flag j + 1: step j's), the sums sq[2]. */
static sps_status device_lanczos(sps_context *ctx, const amg_level *L, const double *dsq, int steps,
                                 double *v, double *vold, double *w, double *y, double *rho,
                                 int *redo)
{
  const sps_backend *be = ctx->be;
  const int64_t n = L->n;
  sps_status st = SPS_SUCCESS;
  const size_t ns = 3 * (size_t)steps + 4;
  double *sc = NULL, *h = NULL, *alpha = NULL, *beta = NULL;
  *redo = 0;
  SPS_TRY(sps_scratch_alloc(ctx, (void **)&sc, ns * sizeof(double), "AMG Lanczos scalars"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&h, ns, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&alpha, (size_t)steps + 1, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&beta, (size_t)steps + 2, sizeof(double), "Lanczos"));
  double *d_alpha = sc, *d_beta = sc + steps, *d_flag = d_beta + steps + 1,
         *d_sq = d_flag + steps + 1;
  SPS_TRY(be->fill(ctx, (int64_t)ns, 0.0, sc));
  SPS_TRY(AMG_STEP(ctx, amg_random, n, (uint64_t)AMG_LANCZOS_SEED, v));
  SPS_TRY(be->sumsq_store(ctx, n, v, d_sq));
  SPS_TRY(AMG_STEP(ctx, amg_lanczos_start, n, d_sq, d_flag, v));
  SPS_TRY(be->fill(ctx, n, 0.0, vold));
  for (int j = 0; j < steps; j++) {
    /* w = S v - beta_j v_old */
    SPS_TRY(be->pointwise_mult(ctx, n, dsq, v, y));
    SPS_TRY(sps_spmv_apply_raw(L->Aplan, L->asign, y, 0.0, w));
    SPS_TRY(AMG_STEP(ctx, amg_lanczos_residual, n, dsq, d_beta + j, vold, w));
    SPS_TRY(be->dot_store(ctx, n, w, v, d_alpha + j));
    SPS_TRY(AMG_STEP(ctx, amg_lanczos_orth, n, d_alpha + j, v, w));
    SPS_TRY(be->sumsq_store(ctx, n, w, d_sq));
    SPS_TRY(AMG_STEP(ctx, amg_lanczos_next, n, d_sq, d_beta + j + 1, d_flag + j + 1, w, v, vold));
  }
  SPS_TRY(be->download(ctx, h, sc, ns * sizeof(double)));
  const double *ha = h, *hb = h + steps, *hf = hb + steps + 1;
  if (hf[0] != 0.0) {
    *redo = 1;
    goto cleanup;
  }
  /* the loop's stopping test, on the stored scalars */
  int k = 0;
  for (int j = 0; j < steps; j++) {
    if (hf[j + 1] != 0.0) {
      *redo = 1;
      goto cleanup;
    }
    const double a = ha[j], b = hb[j + 1];
    alpha[j] = a;
    k = j + 1;
    if (!(b > 1e-12 * fabs(a)) || !isfinite(b)) break;
    beta[j + 1] = b;
  }
  double tmin, tmax;
  sps_tridiag_eig_extremes(alpha, beta, k, &tmin, &tmax);
  *rho = tmax;
cleanup:
  sps_scratch_free(ctx, sc);
  sps_host_free(h);
  sps_host_free(alpha);
  sps_host_free(beta);
  return st;
}

sps_status amg_spectral_radius(sps_context *ctx, const amg_level *L, const double *dsq, int steps,
                               double *v, double *vold, double *w, double *y, double *rho)
{
  if (ctx->be->dot_store && ctx->be->sumsq_store && !sps_comm_is_dist(ctx) && L->n > 0 &&
      steps > 0) {
    int redo = 0;
    SPS_CHECK(device_lanczos(ctx, L, dsq, steps, v, vold, w, y, rho, &redo));
    if (!redo) return SPS_SUCCESS;
  }
  return host_lanczos(ctx, L, dsq, steps, v, vold, w, y, rho);
}
