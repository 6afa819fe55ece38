/* ilu0.c: the CPU reference of the ILU(0) factorisation in place (IKJ order), with the pivot rule; also the breakdown test of incomplete Cholesky. */
#include <math.h>
#include <stdlib.h>

#include "kernels.h"

/* Position of column j in the sorted columns colind[b, e), or -1. */
static int64_t find_col(const int32_t *colind, int64_t b, int64_t e, int32_t j)
{
  while (b < e) {
    const int64_t m = b + (e - b) / 2;
    if (colind[m] < j)
      b = m + 1;
    else if (colind[m] > j)
      e = m;
    else
      return m;
  }
  return -1;
}

/* The pivot rule (precond/ref/kernels.h): the pivot to divide by, and whether it was
 * replaced or is an incomplete-Cholesky breakdown. Shared in spirit with the CUDA kernel,
 * which writes the same expression. */
static double pivot_of(double u, double rowmax, double pivot_tol, int spd, int *replaced,
                       int *breakdown)
{
  const double floor_ = rowmax > 0.0 ? pivot_tol * rowmax : 1.0;
  *replaced = 0;
  *breakdown = 0;
  if (spd) {
    if (!(u > floor_)) {
      *breakdown = 1;
      *replaced = 1;
      return floor_;
    }
    return u;
  }
  if (!(fabs(u) >= floor_)) {
    *replaced = 1;
    return u < 0.0 ? -floor_ : floor_;
  }
  return u;
}

void sps_ref_ilu0_factor(int64_t n, const int64_t *rowptr, const int64_t *diag,
                         const int32_t *colind, double *values, const double *rowmax,
                         double pivot_tol, int spd, double *dinv, int64_t *replaced,
                         int64_t *breakdowns)
{
  for (int64_t i = 0; i < n; i++) {
    const int64_t rb = rowptr[i], re = rowptr[i + 1], di = diag[i];
    /* k over the lower part of row i, ascending; a_ik is final once every k' < k is done. */
    for (int64_t p = rb; p < di; p++) {
      const int32_t k = colind[p];
      const double lik = values[p] * dinv[k];
      values[p] = lik;
      /* a_ij -= l_ik u_kj for j > k in row k that row i also has (both rows sorted). */
      for (int64_t q = diag[k] + 1; q < rowptr[k + 1]; q++) {
        const int64_t at = find_col(colind, p + 1, re, colind[q]);
        if (at >= 0) values[at] = values[at] - lik * values[q];
      }
    }
    int rep, brk;
    const double u = pivot_of(values[di], rowmax[i], pivot_tol, spd, &rep, &brk);
    values[di] = u;
    dinv[i] = 1.0 / u;
    *replaced += rep;
    *breakdowns += brk;
  }
}
