/* gen.h: generated test matrices for the benchmarks (stencils, power-law, banded, block-diagonal, random and circuit-like rows) and row slices, built directly in CSR. */
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
 *   stencil2d9:N        N*N unknowns, the 9-point box stencil: 8 on the diagonal, -1 off it.
 *   stencil3d27:N       N^3 unknowns, the 27-point box stencil: 26 on the diagonal, -1 off it.
 *   banded:N:W[:seed]   N x N, every column within W of the diagonal (rows of 2W+1 inside).
 *   blockdiag:N:B[:seed]  N x N, dense B x B diagonal blocks (the last one smaller when B does
 *                       not divide N).
 *   random:N:K[:seed]   N x N, the diagonal and K - 1 uniformly random columns per row
 *                       (duplicates merged).
 *   circuit:N:D[:seed]  N x N, circuit-like: D hub nodes (the middles of D equal parts of the
 *                       rows) whose rows are dense (all N columns) and whose columns are dense
 *                       (every row holds them); every other row has the diagonal and 1 to 5
 *                       entries of its own, alternately within 64 of the diagonal and
 *                       uniformly random.
 * The generators from banded on take values as powerlaw does (-u off the diagonal, 1 + the
 * sum of their magnitudes on it) from a splitmix64 stream per row.
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

/*
 * Copy rows [a, b) of a host CSR matrix (all its ncols columns) into @p out, as seed 002 made
 * its training blocks. On failure returns nonzero with the reason in @p err.
 */
int bench_csr_rows(const int64_t *rowptr, const int32_t *colind, const double *values,
                   int64_t nrows, int64_t ncols, int64_t a, int64_t b, bench_csr *out, char *err,
                   size_t errlen);

/* Free the arrays of @p m (which may have been adopted already: then pass nothing). */
void bench_csr_free(bench_csr *m);

#endif /* SPS_BENCH_GEN_H */
