/* amg_spectrum.c: the estimate of the spectral radius of D^-1 A on each multigrid level, by a few Lanczos steps on the host from a fixed start, so that every device builds the same hierarchy. */
#include <math.h>

#include "../core/csr_matvec.h"
#include "../core/splitmix64.h"
#include "amg.h"
#include "tridiag_eig.h"

/*
 * Lanczos (Golub and Van Loan, Matrix Computations, 4th ed., Algorithm 10.1.1, no
 * reorthogonalisation) on S = D^-1/2 H D^-1/2, which is similar to D^-1 H and symmetric when
 * H is:
 *   v_1 = v / ||v||, beta_1 = 0
 *   w = S v_j - beta_j v_{j-1},  alpha_j = w . v_j,  w <- w - alpha_j v_j,
 *   beta_{j+1} = ||w||,  v_{j+1} = w / beta_{j+1}
 * stopping early when beta_{j+1} <= 1e-12 |alpha_j| (an invariant subspace). The largest
 * eigenvalue of the tridiagonal T_k (alpha, beta) is a Ritz value: it approaches
 * lambda_max(D^-1 H) from below, within a few percent after 10 to 20 steps on the matrices
 * multigrid meets; the smoother puts its margin on top. The start is uniform in [-1, 1) from
 * a fixed seed and the sums are plain host loops in index order: the estimate is the same
 * for every device and thread count (the host product's rows are independent).
 */
sps_status amg_spectral_radius(sps_context *ctx, const sps_host_csr *H, const double *dinv,
                               int steps, double *rho)
{
  const int64_t n = H->n;
  sps_status st = SPS_SUCCESS;
  double *dsq = NULL, *v = NULL, *vold = NULL, *w = NULL, *y = NULL, *alpha = NULL, *beta = NULL;
  *rho = 0.0;
  if (n == 0) return SPS_SUCCESS;
  const size_t nn = (size_t)n;
  SPS_TRY(sps_host_alloc(ctx, (void **)&dsq, nn, sizeof(double), "AMG Lanczos D^-1/2"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&v, nn, sizeof(double), "AMG Lanczos vector"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&vold, nn, sizeof(double), "AMG Lanczos vector"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&w, nn, sizeof(double), "AMG Lanczos vector"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&y, nn, sizeof(double), "AMG Lanczos vector"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&alpha, (size_t)steps + 1, sizeof(double), "Lanczos"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&beta, (size_t)steps + 2, sizeof(double), "Lanczos"));
  uint64_t seed = 20261125u;
  double nv = 0.0;
  for (int64_t i = 0; i < n; i++) {
    dsq[i] = sqrt(fabs(dinv[i]));
    v[i] = sps_splitmix64_sym(&seed);
    nv += v[i] * v[i];
  }
  nv = sqrt(nv);
  for (int64_t i = 0; i < n; i++)
    v[i] /= nv;
  int k = 0;
  for (int j = 0; j < steps; j++) {
    /* w = S v - beta_j v_old */
    for (int64_t i = 0; i < n; i++)
      y[i] = dsq[i] * v[i];
    sps_csr_matvec_host(n, H->rowptr, H->colind, H->values, y, w);
    double a = 0.0;
    for (int64_t i = 0; i < n; i++) {
      w[i] = dsq[i] * w[i] - beta[j] * vold[i];
      a += w[i] * v[i];
    }
    alpha[j] = a;
    double b = 0.0;
    for (int64_t i = 0; i < n; i++) {
      w[i] -= a * v[i];
      b += w[i] * w[i];
    }
    b = sqrt(b);
    k = j + 1;
    if (!(b > 1e-12 * fabs(a)) || !isfinite(b)) break;
    beta[j + 1] = b;
    /* v_old <- v, v <- w / b */
    for (int64_t i = 0; i < n; i++) {
      vold[i] = v[i];
      v[i] = w[i] / b;
    }
  }
  double tmin, tmax;
  sps_tridiag_eig_extremes(alpha, beta, k, &tmin, &tmax);
  *rho = tmax;
cleanup:
  sps_host_free(dsq);
  sps_host_free(v);
  sps_host_free(vold);
  sps_host_free(w);
  sps_host_free(y);
  sps_host_free(alpha);
  sps_host_free(beta);
  return st;
}
