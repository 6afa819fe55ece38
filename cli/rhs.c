/* rhs.c: seeded random vectors, the host product b = A*x*, and the error ||x - x*||/||x*||. */
#include <math.h>

#include "../core/csr_matvec.h"
#include "../core/splitmix64.h"
#include "rhs.h"

void cli_random_fill(double *v, int64_t n, uint64_t seed)
{
  uint64_t state = seed;
  for (int64_t i = 0; i < n; i++)
    v[i] = sps_splitmix64_sym(&state);
}

void cli_csr_matvec(int64_t n, const int64_t *rowptr, const int32_t *colind, const double *values,
                    const double *x, double *y)
{
  sps_csr_matvec_host(n, rowptr, colind, values, x, y);
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
