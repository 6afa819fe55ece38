/* gen.h: generated test matrices for the benchmarks (Poisson 2D/3D, 3D convection-diffusion, power-law rows), built directly in CSR. */
#ifndef SPS_BENCH_GEN_H
#define SPS_BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "spsolve.h"

/*
 * Specifications, as given to --gen:
 *   poisson2d:N         N*N unknowns, 5-point Laplacian: 4 on the diagonal, -1 off it (SPD).
 *   poisson3d:N         N^3 unknowns, 7-point Laplacian: 6 on the diagonal, -1 off it (SPD).
 *   convdiff3d:N        N^3 unknowns, -Laplace(u) + b.grad(u) with b = (10, 5, 2.5), central
 *                       differences scaled by h^2 (h = 1/(N+1)): 6 on the diagonal, -1 - w_d
 *                       to the lower and -1 + w_d to the upper neighbour in direction d,
 *                       w_d = b_d*h/2 (nonsymmetric).
 *   powerlaw:N:alpha[:seed]  N x N; row i has length L_i with P(L >= k) = k^(1 - alpha),
 *                       k >= 1 (a discrete power law with exponent alpha > 1, capped at N):
 *                       the diagonal plus L_i - 1 uniformly random columns (duplicates
 *                       merged, so the longest rows come out a little shorter). Off-diagonal
 *                       values are -u, u uniform in [0.1, 1); the diagonal is 1 + the sum of
 *                       their magnitudes (strictly diagonally dominant, nonsymmetric). The
 *                       row lengths and columns come from a splitmix64 stream per row
 *                       (seed 1 unless given), so the matrix does not depend on the threads.
 * Every row is sorted by column with no duplicates; row offsets are 64-bit.
 */

/* Host CSR arrays made by a generator (malloc'ed; hand them to sps_matrix_adopt_csr or free them). */
typedef struct bench_csr {
  int64_t nrows, ncols;
  int64_t *rowptr;
  int32_t *colind;
  double *values;
  sps_symmetry symmetry;
} bench_csr;

/*
 * Build the matrix of @p spec. On failure returns nonzero and writes the reason into @p err
 * (unknown kind, bad or missing size, too many rows for 32-bit columns, out of memory).
 */
int bench_gen(const char *spec, bench_csr *out, char *err, size_t errlen);

/* Free the arrays of @p m (which may have been adopted already: then pass nothing). */
void bench_csr_free(bench_csr *m);

#endif /* SPS_BENCH_GEN_H */
