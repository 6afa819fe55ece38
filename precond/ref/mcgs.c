/* mcgs.c: the CPU reference of multicolor Gauss-Seidel, the multigrid smoother whose colours are found by parallel Jones-Plassmann rounds and swept one colour at a time, which the CUDA kernels (precond/cuda/mcgs.cu) are held to.
 *
 * Colouring (Jones and Plassmann, SIAM J. Sci. Comput. 14 (1993), with the smallest free colour
 * as in Jones-Plassmann-Luby): in each round, every uncoloured row whose priority (p(i), i)
 * (sps_agg_priority) exceeds that of all its uncoloured neighbours takes the smallest colour
 * none of its coloured neighbours has. Two such rows are never neighbours, so a round reads
 * the colours of the rounds before and writes new ones without conflict, in any order: the GPU
 * finds the same colours. Neighbours are the columns of the row, and for a matrix whose
 * pattern is not symmetric those of the transpose's row too, so that rows of one colour share
 * no entry in either direction.
 *
 * Sweep: rows of one colour are independent (none reads another's x), so a colour is a
 * parallel, SpMV-like step x_i <- x_i + (b_i - (A x)_i) / a_ii; colours in ascending order make a
 * forward Gauss-Seidel sweep in the order of the colours, in descending order the backward
 * one, and the two together a symmetric smoother. Each row's sum is compensated
 * (core/compensated_sum.h) and formed as the GPU's `lanes` lanes form it (each lane's share,
 * then their shuffle tree, as spmv/ref/csr_vector.c does), so the kernel gives the same bits.
 */
#include "kernels.h"

/* The priority tuple of row i beats row j's. */
static int mc_beats(int64_t i, int64_t j)
{
  const uint64_t pi = sps_agg_priority(i), pj = sps_agg_priority(j);
  return pi > pj || (pi == pj && i > j);
}

/* The smallest colour none of row i's coloured neighbours has (cin of the previous rounds). */
static int32_t mc_free_color(int64_t i, const int64_t *rp, const int32_t *ci, const int64_t *trp,
                             const int32_t *tci, const int32_t *cin)
{
  for (int32_t base = 0;; base += 64) {
    uint64_t used = 0;
    for (int pass = 0; pass < 2; pass++) {
      const int64_t *p = pass ? trp : rp;
      const int32_t *c = pass ? tci : ci;
      if (!p) continue;
      for (int64_t k = p[i]; k < p[i + 1]; k++) {
        const int32_t col = cin[c[k]];
        if (c[k] != i && col >= base && col < base + 64) used |= 1ull << (col - base);
      }
    }
    if (used != ~0ull) {
      int32_t b = 0;
      while (used & (1ull << b))
        b++;
      return base + b;
    }
  }
}

void sps_ref_mc_color_init(int64_t n, int32_t *color)
{
  for (int64_t i = 0; i < n; i++)
    color[i] = -1;
}

void sps_ref_mc_color_round(int64_t n, const int64_t *rp, const int32_t *ci, const int64_t *trp,
                            const int32_t *tci, const int32_t *cin, int32_t *cout,
                            unsigned long long *left)
{
  unsigned long long lf = 0;
  for (int64_t i = 0; i < n; i++) {
    cout[i] = cin[i];
    if (cin[i] >= 0) continue;
    int top = 1;
    for (int pass = 0; pass < 2 && top; pass++) {
      const int64_t *p = pass ? trp : rp;
      const int32_t *c = pass ? tci : ci;
      if (!p) continue;
      for (int64_t k = p[i]; top && k < p[i + 1]; k++) {
        const int32_t j = c[k];
        if (j != i && cin[j] < 0 && !mc_beats(i, j)) top = 0;
      }
    }
    if (top)
      cout[i] = mc_free_color(i, rp, ci, trp, tci, cin);
    else
      lf++;
  }
  *left = lf;
}

void sps_ref_mc_color_count(int64_t n, const int32_t *color, unsigned long long *ncolors)
{
  int32_t top = -1;
  for (int64_t i = 0; i < n; i++)
    if (color[i] > top) top = color[i];
  *ncolors = (unsigned long long)(top + 1);
}

void sps_ref_mc_order(int64_t n, const int32_t *color, int ncolors, int64_t *start, int32_t *order)
{
  for (int c = 0; c <= ncolors; c++)
    start[c] = 0;
  for (int64_t i = 0; i < n; i++)
    start[color[i] + 1]++;
  for (int c = 0; c < ncolors; c++)
    start[c + 1] += start[c];
  /* rows ascending within each colour: start[c] advances while filling, then shifts back */
  for (int64_t i = 0; i < n; i++)
    order[start[color[i]]++] = (int32_t)i;
  for (int c = ncolors; c > 0; c--)
    start[c] = start[c - 1];
  start[0] = 0;
}

void sps_ref_mcgs_sweep(int64_t count, const int32_t *rows, const int64_t *rp, const int32_t *ci,
                        const double *v, double s, const double *dinv, const double *b, double *x,
                        int lanes)
{
  /* Rows of one colour are independent, so OpenMP shares them out. */
#pragma omp parallel for schedule(dynamic, 256) if (count > 4096)
  for (int64_t t = 0; t < count; t++) {
    const int32_t i = rows[t];
    /* the GPU's lanes and their shuffle tree (spmv/ref/csr_vector.c's order) */
    sps_csum p[32];
    for (int l = 0; l < lanes; l++) {
      p[l] = sps_csum_zero();
      for (int64_t k = rp[i] + l; k < rp[i + 1]; k += lanes)
        sps_csum_add(&p[l], v[k] * x[ci[k]]);
    }
    for (int d = lanes / 2; d > 0; d /= 2)
      for (int l = 0; l < d; l++)
        sps_csum_merge(&p[l], p[l + d]);
    const double r = b[i] - s * sps_csum_value(p[0]);
    x[i] = x[i] + dinv[i] * r;
  }
}
