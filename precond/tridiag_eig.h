/* tridiag_eig.h: the extreme eigenvalues of a symmetric tridiagonal matrix (Lanczos's T_k), by bisection on Sturm counts, for the eigenvalue estimates of the Chebyshev preconditioner and of algebraic multigrid. */
#ifndef SPS_PRECOND_TRIDIAG_EIG_H
#define SPS_PRECOND_TRIDIAG_EIG_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The smallest and largest eigenvalue of the k x k symmetric tridiagonal matrix with diagonal
 * alpha[0..k-1] and off-diagonal beta[1..k-1] (beta[i] couples rows i-1 and i; beta[0] is not
 * read): bisection to relative width 1e-14 inside the Gershgorin interval. k >= 1.
 */
void sps_tridiag_eig_extremes(const double *alpha, const double *beta, int k, double *tmin,
                              double *tmax);

#ifdef __cplusplus
}
#endif

#endif /* SPS_PRECOND_TRIDIAG_EIG_H */
