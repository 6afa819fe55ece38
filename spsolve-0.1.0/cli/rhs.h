/* rhs.h: the right-hand side and the exact solution x* of spsolve's test problem, made on the host.
 */
#ifndef SPS_CLI_RHS_H
#define SPS_CLI_RHS_H

#include <stdint.h>

/* Fill v[0:n] with seeded uniform values in [-1, 1) (splitmix64; the same seed gives the same
 * values). */
void cli_random_fill(double *v, int64_t n, uint64_t seed);

/*
 * y <- A*x for the n x n CSR matrix (rowptr, colind, values), in plain double on the host.
 * The CLI forms b = A*x* this way so that b does not depend on the SpMV kernel under test.
 */
void cli_csr_matvec(int64_t n, const int64_t *rowptr, const int32_t *colind, const double *values,
                    const double *x, double *y);

/* ||x - xs|| / ||xs|| (||x - xs|| when xs = 0). */
double cli_relative_error(const double *x, const double *xs, int64_t n);

#endif /* SPS_CLI_RHS_H */
