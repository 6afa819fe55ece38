/* rhs.c: seeded random vectors, the host product b = A*x*, and the error ||x - x*||/||x*||. */
#include <math.h>

#include "rhs.h"

/* splitmix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a Weyl sequence and mixed. */
static uint64_t splitmix64_next(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void cli_random_fill(double *v, int64_t n, uint64_t seed)
{
  uint64_t state = seed;
  for (int64_t i = 0; i < n; i++) {
    /* the top 53 bits give u in [0, 1); v = 2u - 1 lies in [-1, 1) */
    double u = (double)(splitmix64_next(&state) >> 11) * 0x1.0p-53;
    v[i] = 2.0 * u - 1.0;
  }
}

void cli_csr_matvec(int64_t n, const int64_t *rowptr, const int32_t *colind, const double *values,
                    const double *x, double *y)
{
  for (int64_t i = 0; i < n; i++) {
    double sum = 0.0; /* y_i = sum_j a_ij x_j */
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      sum += values[k] * x[colind[k]];
    y[i] = sum;
  }
}

double cli_relative_error(const double *x, const double *xs, int64_t n)
{
  double diff = 0.0, ref = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double d = x[i] - xs[i];
    diff += d * d;
    ref += xs[i] * xs[i];
  }
  return ref > 0.0 ? sqrt(diff / ref) : sqrt(diff);
}
