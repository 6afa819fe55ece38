/* tridiag_eig.c: the extreme eigenvalues of a symmetric tridiagonal matrix by bisection on Sturm counts (Lanczos's T_k in the Chebyshev and multigrid eigenvalue estimates). */
#include <math.h>

#include "tridiag_eig.h"

/*
 * The number of eigenvalues below x: the negative pivots q_i of the LDL^T factorisation of
 * T - x I, q_i = alpha_i - x - beta_i^2 / q_{i-1} (Sturm's theorem; Golub and Van Loan,
 * Matrix Computations, 4th ed., section 8.4.1). A zero pivot is nudged below zero.
 */
static int sturm_count(const double *alpha, const double *beta, int k, double x)
{
  int count = 0;
  double q = 1.0;
  for (int i = 0; i < k; i++) {
    const double b2 = i > 0 ? beta[i] * beta[i] : 0.0;
    q = alpha[i] - x - (i > 0 ? b2 / q : 0.0);
    if (q == 0.0) q = -1e-300;
    if (q < 0.0) count++;
  }
  return count;
}

/* The j-th smallest eigenvalue (0-based), by bisection in [lo, hi]. */
static double tridiag_eig(const double *alpha, const double *beta, int k, int j, double lo,
                          double hi)
{
  for (int it = 0; it < 200 && hi - lo > 1e-14 * fmax(fabs(lo), fabs(hi)); it++) {
    const double mid = 0.5 * (lo + hi);
    if (sturm_count(alpha, beta, k, mid) > j)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}

void sps_tridiag_eig_extremes(const double *alpha, const double *beta, int k, double *tmin,
                              double *tmax)
{
  /* Gershgorin bounds: every eigenvalue lies in [alpha_i - r_i, alpha_i + r_i] for some i. */
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < k; i++) {
    const double r = (i > 0 ? fabs(beta[i]) : 0.0) + (i + 1 < k ? fabs(beta[i + 1]) : 0.0);
    if (alpha[i] - r < lo) lo = alpha[i] - r;
    if (alpha[i] + r > hi) hi = alpha[i] + r;
  }
  *tmin = tridiag_eig(alpha, beta, k, 0, lo, hi);
  *tmax = tridiag_eig(alpha, beta, k, k - 1, lo, hi);
}
