/* ilut_factor.c: tests of the ILUTP factorisation (precond/ilut_factor.c): exact LU without dropping against a dense LU, the dropping and fill rules, column pivoting, the pivot rule, bad arguments. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilut.h"
#include "internal.h"
#include "testlib.h"

/* A dense n x n matrix, row-major. */
typedef struct dense {
  int n;
  double *a;
} dense;

static void *xcalloc(size_t count, size_t size)
{
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) sps_bail("out of host memory");
  return p;
}

static dense dense_zero(int n)
{
  dense d;
  d.n = n;
  d.a = xcalloc((size_t)n * (size_t)n, sizeof(double));
  return d;
}

#define AT(d, i, j) ((d).a[(size_t)(i) * (size_t)(d).n + (size_t)(j)])

/* B <- the CSR of d: every diagonal position stored (0 where d has none), nothing else zero. */
static void csr_of_dense(sps_context *ctx, const dense *d, sps_host_csr *B)
{
  int64_t nnz = 0;
  for (int i = 0; i < d->n; i++)
    for (int j = 0; j < d->n; j++)
      nnz += (AT(*d, i, j) != 0.0 || i == j);
  if (sps_host_csr_alloc(ctx, B, d->n, nnz, "test matrix")) sps_bail("allocation");
  int64_t at = 0;
  for (int i = 0; i < d->n; i++) {
    for (int j = 0; j < d->n; j++)
      if (AT(*d, i, j) != 0.0 || i == j) {
        B->colind[at] = j;
        B->values[at++] = AT(*d, i, j);
      }
    B->rowptr[i + 1] = at;
  }
}

/*
 * A random sparse matrix: each off-diagonal entry present with probability density, values
 * in [-1, 1); some rows have entries left of the diagonal only (so their U part in B is
 * empty, and all their U entries are fill); the diagonal is sum |off| + 1 (dominant) or, when
 * dominant is 0, uniform like the rest.
 */
static dense random_matrix(sps_rng *rng, int n, double density, int dominant)
{
  dense d = dense_zero(n);
  for (int i = 0; i < n; i++) {
    const int lower_only = (sps_rng_next(rng) % 5) == 0;
    double off = 0.0;
    for (int j = 0; j < n; j++) {
      if (j == i || (lower_only && j > i)) continue;
      if ((double)(sps_rng_next(rng) >> 11) / 9007199254740992.0 < density) {
        AT(d, i, j) = sps_rng_uniform(rng);
        off += fabs(AT(d, i, j));
      }
    }
    AT(d, i, i) = dominant ? off + 1.0 : sps_rng_uniform(rng);
  }
  return d;
}

/* L (unit lower), U (upper, diagonal 1 / udiag_inv) as dense matrices. */
static void dense_factors(const sps_ilut_factors *f, dense *L, dense *U)
{
  const int n = (int)f->L.n;
  *L = dense_zero(n);
  *U = dense_zero(n);
  for (int i = 0; i < n; i++) {
    AT(*L, i, i) = 1.0;
    AT(*U, i, i) = 1.0 / f->udiag_inv[i];
    for (int64_t k = f->L.rowptr[i]; k < f->L.rowptr[i + 1]; k++)
      AT(*L, i, f->L.colind[k]) = f->L.values[k];
    for (int64_t k = f->U.rowptr[i]; k < f->U.rowptr[i + 1]; k++)
      AT(*U, i, f->U.colind[k]) = f->U.values[k];
  }
}

/* The columns of d permuted: (d Q)(:, k) = d(:, q[k]) (q NULL: a copy). */
static dense permute_columns(const dense *d, const int32_t *q)
{
  dense e = dense_zero(d->n);
  for (int i = 0; i < d->n; i++)
    for (int k = 0; k < d->n; k++)
      AT(e, i, k) = AT(*d, i, q ? q[k] : k);
  return e;
}

/* 1 when L is strictly lower and U strictly upper with sorted columns, and q a permutation. */
static int structure_ok(const sps_ilut_factors *f)
{
  const int64_t n = f->L.n;
  if (f->U.n != n || f->L.rowptr[0] != 0 || f->U.rowptr[0] != 0) return 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = f->L.rowptr[i]; k < f->L.rowptr[i + 1]; k++)
      if (f->L.colind[k] < 0 || f->L.colind[k] >= i ||
          (k > f->L.rowptr[i] && f->L.colind[k] <= f->L.colind[k - 1]))
        return 0;
    for (int64_t k = f->U.rowptr[i]; k < f->U.rowptr[i + 1]; k++)
      if (f->U.colind[k] <= i || f->U.colind[k] >= n ||
          (k > f->U.rowptr[i] && f->U.colind[k] <= f->U.colind[k - 1]))
        return 0;
  }
  if (f->col_perm) {
    char *seen = xcalloc((size_t)n, 1);
    int ok = 1;
    for (int64_t k = 0; k < n; k++) {
      const int32_t c = f->col_perm[k];
      if (c < 0 || c >= n || seen[c]) ok = 0;
      if (ok) seen[c] = 1;
    }
    free(seen);
    if (!ok) return 0;
  }
  return 1;
}

/* 1 when every stored value of the factors and every inverse pivot is finite. */
static int factors_finite(const sps_ilut_factors *f)
{
  const int64_t n = f->L.n;
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(f->udiag_inv[i])) return 0;
  for (int64_t k = 0; k < f->L.rowptr[n]; k++)
    if (!isfinite(f->L.values[k])) return 0;
  for (int64_t k = 0; k < f->U.rowptr[n]; k++)
    if (!isfinite(f->U.values[k])) return 0;
  return 1;
}

/*
 * max_ij |(L U - B Q)_ij| / (gamma (|L| |U|)_ij + tiny): at most 1 when B Q = L U to the
 * rounding of the elimination (the backward error bound of LU, Higham, Accuracy and
 * Stability of Numerical Algorithms, Theorem 9.3, gamma = 2 n eps for a margin).
 */
static double lu_residual(const dense *BQ, const dense *L, const dense *U)
{
  const int n = BQ->n;
  const double gamma = 2.0 * (double)n * DBL_EPSILON;
  double worst = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0, a = 0.0;
      for (int k = 0; k < n; k++) {
        s += AT(*L, i, k) * AT(*U, k, j);
        a += fabs(AT(*L, i, k)) * fabs(AT(*U, k, j));
      }
      const double r = fabs(s - AT(*BQ, i, j)) / (gamma * a + DBL_MIN);
      if (r > worst) worst = r;
    }
  return worst;
}

/*
 * The dense reference: Doolittle LU of A without pivoting, in place (L strictly below the
 * diagonal, U on and above). Returns 0 on a zero pivot.
 */
static int dense_lu(dense *A)
{
  const int n = A->n;
  for (int k = 0; k < n; k++) {
    if (AT(*A, k, k) == 0.0) return 0;
    for (int i = k + 1; i < n; i++) {
      const double l = AT(*A, i, k) / AT(*A, k, k);
      AT(*A, i, k) = l;
      for (int j = k + 1; j < n; j++)
        AT(*A, i, j) -= l * AT(*A, k, j);
    }
  }
  return 1;
}

/* max |factor entry - reference| / max(|reference entry|, 1) over L and U. */
static double factor_difference(const dense *L, const dense *U, const dense *ref)
{
  const int n = ref->n;
  double worst = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      const double got = j < i ? AT(*L, i, j) : AT(*U, i, j), want = AT(*ref, i, j);
      const double r = fabs(got - want) / fmax(fabs(want), 1.0);
      if (r > worst) worst = r;
    }
  return worst;
}

/* x <- Q (L U)^-1 b with the sparse factors: forward, backward, then x[q[k]] = y[k]. */
static void factor_solve(const sps_ilut_factors *f, const double *b, double *x)
{
  const int64_t n = f->L.n;
  double *y = xcalloc((size_t)n, sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    double s = b[i];
    for (int64_t k = f->L.rowptr[i]; k < f->L.rowptr[i + 1]; k++)
      s -= f->L.values[k] * y[f->L.colind[k]];
    y[i] = s;
  }
  for (int64_t i = n - 1; i >= 0; i--) {
    double s = y[i];
    for (int64_t k = f->U.rowptr[i]; k < f->U.rowptr[i + 1]; k++)
      s -= f->U.values[k] * y[f->U.colind[k]];
    y[i] = s * f->udiag_inv[i];
  }
  for (int64_t k = 0; k < n; k++)
    x[f->col_perm ? f->col_perm[k] : k] = y[k];
  free(y);
}

/* ||x - x*|| / ||x*|| for x = Q (L U)^-1 (B x*), x* random. */
static double solve_error(const dense *B, const sps_ilut_factors *f, sps_rng *rng)
{
  const int n = B->n;
  double *xs = xcalloc((size_t)n, sizeof(double)), *b = xcalloc((size_t)n, sizeof(double)),
         *x = xcalloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++)
    xs[i] = sps_rng_uniform(rng);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      b[i] += AT(*B, i, j) * xs[j];
  factor_solve(f, b, x);
  double e = 0.0, s = 0.0;
  for (int i = 0; i < n; i++) {
    e += (x[i] - xs[i]) * (x[i] - xs[i]);
    s += xs[i] * xs[i];
  }
  free(xs);
  free(b);
  free(x);
  return sqrt(e / fmax(s, DBL_MIN));
}

/* Factor dense d with the given parameters; bail on failure. */
static void factor(sps_context *ctx, const dense *d, double fill, double drop, double pivot,
                   double pivot_tol, sps_ilut_factors *f)
{
  sps_host_csr B;
  csr_of_dense(ctx, d, &B);
  if (sps_ilut_factor(ctx, &B, fill, drop, pivot, pivot_tol, f) != SPS_SUCCESS)
    sps_bail("sps_ilut_factor: %s", sps_context_last_error(ctx));
  sps_host_csr_free(&B);
}

/* Without dropping and without a fill limit, ILUT is the exact LU. */
static void test_exact(sps_context *ctx)
{
  sps_rng rng = {11};
  int structure = 1, no_swap = 1, nsamples = 0;
  double worst_res = 0.0, worst_ref = 0.0, worst_solve = 0.0;
  for (int t = 0; t < 40; t++) {
    const int n = 1 + (int)(sps_rng_next(&rng) % 50);
    const double density = 0.05 + 0.3 * (double)(sps_rng_next(&rng) % 100) / 100.0;
    dense d = random_matrix(&rng, n, density, 1);
    sps_ilut_factors f;
    factor(ctx, &d, 1e6, 0.0, 0.0, 1e-10, &f);
    structure &= structure_ok(&f);
    no_swap &= f.col_perm == NULL && f.swaps == 0 && f.replaced == 0;
    dense L, U, ref = permute_columns(&d, NULL);
    dense_factors(&f, &L, &U);
    worst_res = fmax(worst_res, lu_residual(&d, &L, &U));
    if (!dense_lu(&ref)) sps_bail("dense LU of a diagonally dominant matrix broke down");
    worst_ref = fmax(worst_ref, factor_difference(&L, &U, &ref));
    worst_solve = fmax(worst_solve, solve_error(&d, &f, &rng));
    nsamples++;
    free(L.a);
    free(U.a);
    free(ref.a);
    free(d.a);
    sps_ilut_factors_free(&f);
  }
  sps_ok(structure, "exact: L strictly lower, U strictly upper, columns sorted (%d matrices)",
         nsamples);
  sps_ok(no_swap, "exact: no pivoting asked, no column permutation, no pivot replaced");
  sps_ok(worst_res <= 1.0, "exact: L U = B to rounding (worst %.2f of the bound)", worst_res);
  sps_ok(worst_ref <= 1e-12, "exact: L and U equal the dense LU (worst %.1e)", worst_ref);
  sps_ok(worst_solve <= 1e-12, "exact: L U x = b solves B x = b (worst error %.1e)", worst_solve);
}

/* fill 0, or a drop tolerance above every entry: the diagonal of B only. */
static void test_diagonal_only(sps_context *ctx)
{
  sps_rng rng = {12};
  int empty = 1, diag = 1;
  for (int t = 0; t < 20; t++) {
    const int n = 1 + (int)(sps_rng_next(&rng) % 40);
    dense d = random_matrix(&rng, n, 0.3, 1);
    for (int pass = 0; pass < 2; pass++) {
      sps_ilut_factors f;
      if (pass == 0)
        factor(ctx, &d, 0.0, 0.0, 0.1, 1e-10, &f);
      else
        factor(ctx, &d, 10.0, 1e10, 0.1, 1e-10, &f);
      empty &= f.L.rowptr[n] == 0 && f.U.rowptr[n] == 0 && f.swaps == 0 && f.col_perm == NULL;
      for (int i = 0; i < n; i++)
        diag &= f.udiag_inv[i] == 1.0 / AT(d, i, i);
      sps_ilut_factors_free(&f);
    }
    free(d.a);
  }
  sps_ok(empty, "fill 0, and drop 1e10: L and U empty, no swap");
  sps_ok(diag, "fill 0, and drop 1e10: udiag_inv = 1 / b_ii exactly");
}

/* The first dropping rule, where no elimination happens: B upper or lower triangular. */
static void test_drop_rule(sps_context *ctx)
{
  sps_rng rng = {13};
  const double drop = 0.3;
  int upper_ok = 1, lower_ok = 1;
  for (int t = 0; t < 20; t++) {
    const int n = 2 + (int)(sps_rng_next(&rng) % 30);
    dense d = random_matrix(&rng, n, 0.5, 1);
    for (int tri = 0; tri < 2; tri++) {
      dense e = dense_zero(n);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          if (i == j || (tri == 0 ? j > i : j < i)) AT(e, i, j) = AT(d, i, j);
      sps_ilut_factors f;
      factor(ctx, &e, 1e6, drop, 0.0, 1e-10, &f);
      dense L, U;
      dense_factors(&f, &L, &U);
      for (int i = 0; i < n; i++) {
        /* tau_i = drop * the mean |b_ij| over the stored entries of the row (the diagonal
         * position is always stored) */
        double asum = 0.0;
        int stored = 0;
        for (int j = 0; j < n; j++)
          if (AT(e, i, j) != 0.0 || i == j) {
            asum += fabs(AT(e, i, j));
            stored++;
          }
        const double tau = drop * (asum / stored);
        for (int j = 0; j < n; j++) {
          if (i == j || AT(e, i, j) == 0.0) continue;
          /* an entry stays, with its value (U: b_ij; L: b_ij / b_jj), iff |b_ij| >= tau */
          const int keep = fabs(AT(e, i, j)) >= tau;
          if (tri == 0)
            upper_ok &= AT(U, i, j) == (keep ? AT(e, i, j) : 0.0);
          else
            lower_ok &= AT(L, i, j) == (keep ? AT(e, i, j) * (1.0 / AT(e, j, j)) : 0.0);
        }
      }
      free(L.a);
      free(U.a);
      free(e.a);
      sps_ilut_factors_free(&f);
    }
    free(d.a);
  }
  sps_ok(upper_ok, "drop rule: u_ij kept iff |b_ij| >= drop mean_j |b_ij| (B upper triangular)");
  sps_ok(lower_ok,
         "drop rule: l_ij = b_ij / b_jj kept iff |b_ij| >= drop mean_j |b_ij|, tested before the "
         "division (B lower triangular)");
}

/* round(fill * m / 2), at least 1 when fill > 0 and m > 0 (the test's own copy of the rule). */
static int64_t fill_bound(double fill, int64_t m)
{
  if (fill <= 0.0 || m == 0) return 0;
  const int64_t p = (int64_t)floor(0.5 * fill * (double)m + 0.5);
  return p < 1 ? 1 : p;
}

/* The second rule: per row, at most fill_bound entries in L and in U, the largest ones. */
static void test_fill_limit(sps_context *ctx)
{
  sps_rng rng = {14};
  const double fills[] = {0.3, 0.5, 1.0, 2.5};
  int within = 1, attained = 1, fewer = 1, largest = 1;
  for (int t = 0; t < 16; t++) {
    const int n = 10 + (int)(sps_rng_next(&rng) % 40);
    const double fill = fills[t % 4];
    const double pivot = t >= 8 ? 0.1 : 0.0;
    dense d = random_matrix(&rng, n, 0.2, 1);
    sps_ilut_factors f, exact;
    factor(ctx, &d, fill, 0.0, pivot, 1e-10, &f);
    factor(ctx, &d, 1e6, 0.0, pivot, 1e-10, &exact);
    int hit = 0;
    for (int i = 0; i < n; i++) {
      int64_t m = 0;
      for (int j = 0; j < n; j++)
        m += j != i && AT(d, i, j) != 0.0;
      /* after a swap the diagonal of B may be loaded off position i: at most m + 1 */
      const int64_t p = fill_bound(fill, f.swaps > 0 ? m + 1 : m);
      const int64_t nl = f.L.rowptr[i + 1] - f.L.rowptr[i];
      const int64_t nu = f.U.rowptr[i + 1] - f.U.rowptr[i];
      within &= nl <= p && nu <= p;
      hit |= nl == p || nu == p;
    }
    attained &= hit || f.swaps > 0;
    fewer &= f.L.rowptr[n] + f.U.rowptr[n] < exact.L.rowptr[n] + exact.U.rowptr[n];
    sps_ilut_factors_free(&f);
    sps_ilut_factors_free(&exact);
    free(d.a);
  }
  /* which entries stay: B upper triangular, no elimination, so U keeps the largest |b_ij| */
  for (int t = 0; t < 10; t++) {
    const int n = 40 + (int)(sps_rng_next(&rng) % 80);
    dense d = random_matrix(&rng, n, 0.6, 1);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        AT(d, i, j) = 0.0;
    sps_ilut_factors f;
    factor(ctx, &d, 0.7, 0.0, 0.0, 1e-10, &f);
    dense L, U;
    dense_factors(&f, &L, &U);
    for (int i = 0; i < n; i++) {
      double kept_min = INFINITY, dropped_max = 0.0;
      int64_t m = 0, kept = 0;
      for (int j = i + 1; j < n; j++) {
        if (AT(d, i, j) == 0.0) continue;
        m++;
        if (AT(U, i, j) != 0.0) {
          kept++;
          largest &= AT(U, i, j) == AT(d, i, j);
          kept_min = fmin(kept_min, fabs(AT(d, i, j)));
        } else {
          dropped_max = fmax(dropped_max, fabs(AT(d, i, j)));
        }
      }
      largest &= kept == (m < fill_bound(0.7, m) ? m : fill_bound(0.7, m));
      largest &= kept == 0 || kept_min >= dropped_max;
    }
    free(L.a);
    free(U.a);
    free(d.a);
    sps_ilut_factors_free(&f);
  }
  sps_ok(within, "fill: at most round(fill m_i / 2) entries (at least 1) in each row of L and U");
  sps_ok(attained, "fill: the bound is reached in some row of every factorisation");
  sps_ok(fewer, "fill: fewer entries than the exact LU");
  sps_ok(largest, "fill: the entries kept are the largest (B upper triangular)");
}

/* ILUTP: zero diagonal entries that only a column interchange can handle. */
static void test_pivoting(sps_context *ctx)
{
  sps_rng rng = {15};
  int structure = 1, swapped = 1, none_replaced = 1, exact_ref = 1;
  double worst_res = 0.0, worst_solve = 0.0;
  for (int t = 0; t < 30; t++) {
    const int n = 2 + (int)(sps_rng_next(&rng) % 40);
    dense d = random_matrix(&rng, n, 0.3, 0);
    /* row 0: zero diagonal, a nonzero to its right; other diagonals zero at random */
    AT(d, 0, 0) = 0.0;
    AT(d, 0, 1 + (int)(sps_rng_next(&rng) % (uint64_t)(n - 1))) = 1.0;
    for (int i = 1; i < n; i++)
      if (sps_rng_next(&rng) % 3 == 0) AT(d, i, i) = 0.0;
    /* a nonsingular matrix, likely: add 4 times a permutation matrix without fixed points
     * (one cycle, by Sattolo's shuffle), so no row is left without a large entry */
    int *q = xcalloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
      q[i] = i;
    for (int i = n - 1; i > 0; i--) {
      const int j = (int)(sps_rng_next(&rng) % (uint64_t)i), s = q[i];
      q[i] = q[j];
      q[j] = s;
    }
    for (int i = 0; i < n; i++)
      AT(d, i, q[i]) += 4.0;
    free(q);
    const double pivot = t % 2 ? 1.0 : 0.1;
    sps_ilut_factors f;
    factor(ctx, &d, 1e6, 0.0, pivot, 1e-10, &f);
    structure &= structure_ok(&f);
    swapped &= f.swaps > 0 && f.col_perm != NULL;
    none_replaced &= f.replaced == 0;
    dense L, U, BQ = permute_columns(&d, f.col_perm), ref = permute_columns(&d, f.col_perm);
    dense_factors(&f, &L, &U);
    worst_res = fmax(worst_res, lu_residual(&BQ, &L, &U));
    exact_ref &= dense_lu(&ref) && factor_difference(&L, &U, &ref) <= 1e-9;
    worst_solve = fmax(worst_solve, solve_error(&d, &f, &rng));
    free(L.a);
    free(U.a);
    free(BQ.a);
    free(ref.a);
    free(d.a);
    sps_ilut_factors_free(&f);
  }
  sps_ok(structure, "ILUTP: factors sorted and triangular, col_perm a permutation");
  sps_ok(swapped, "ILUTP: a zero diagonal entry with a nonzero to its right makes a swap");
  sps_ok(none_replaced, "ILUTP: no pivot needed the pivot rule");
  sps_ok(worst_res <= 1.0, "ILUTP: B Q = L U to rounding (worst %.2f of the bound)", worst_res);
  sps_ok(exact_ref, "ILUTP: L and U equal the dense LU of B Q");
  sps_ok(worst_solve <= 1e-8, "ILUTP: Q (L U)^-1 b solves B x = b (worst error %.1e)", worst_solve);
}

/* The pivot rule: singular matrices give finite factors and counted replacements. */
static void test_pivot_rule(sps_context *ctx)
{
  sps_rng rng = {16};
  const int n = 12;
  dense d = random_matrix(&rng, n, 0.4, 1);
  /* row 3 zero (its explicit diagonal 0), column 7 zero (its diagonal 0) */
  for (int j = 0; j < n; j++)
    AT(d, 3, j) = 0.0;
  for (int i = 0; i < n; i++)
    AT(d, i, 7) = 0.0;
  double m7 = 0.0;
  for (int j = 0; j < n; j++)
    m7 = fmax(m7, fabs(AT(d, 7, j)));
  sps_ilut_factors f;
  factor(ctx, &d, 1e6, 0.0, 0.0, 1e-10, &f);
  sps_ok(factors_finite(&f) && f.replaced == 2,
         "pivot rule: zero row and zero column, no pivoting: finite factors, 2 pivots replaced "
         "(%lld)",
         (long long)f.replaced);
  sps_ok(f.udiag_inv[3] == 1.0 && f.udiag_inv[7] == 1.0 / (1e-10 * m7),
         "pivot rule: a zero row's pivot becomes 1, a zero pivot pivot_tol * max_j |b_ij|");
  sps_ilut_factors_free(&f);
  factor(ctx, &d, 1e6, 0.0, 0.0, 0.0, &f);
  sps_ok(factors_finite(&f) && f.replaced == 2 && f.udiag_inv[7] == 1.0 / m7,
         "pivot rule: pivot_tol 0, a zero pivot becomes max_j |b_ij|, no division by zero");
  sps_ilut_factors_free(&f);
  factor(ctx, &d, 10.0, 1e-4, 0.1, 1e-10, &f);
  sps_ok(factors_finite(&f) && f.replaced >= 1 && structure_ok(&f),
         "pivot rule: ILUTP on the same: finite factors, %lld pivots replaced, %lld swaps",
         (long long)f.replaced, (long long)f.swaps);
  sps_ilut_factors_free(&f);
  free(d.a);

  /* a 1 x 1 zero matrix, the empty matrix */
  dense z = dense_zero(1);
  factor(ctx, &z, 10.0, 1e-4, 0.1, 1e-10, &f);
  sps_ok(f.udiag_inv[0] == 1.0 && f.replaced == 1, "pivot rule: the 1 x 1 zero matrix");
  sps_ilut_factors_free(&f);
  free(z.a);
  sps_host_csr E = {0};
  if (sps_host_csr_alloc(ctx, &E, 0, 0, "empty")) sps_bail("allocation");
  sps_ok(sps_ilut_factor(ctx, &E, 10.0, 1e-4, 0.1, 1e-10, &f) == SPS_SUCCESS &&
             f.L.rowptr[0] == 0 && f.U.rowptr[0] == 0,
         "n = 0: empty factors");
  sps_ilut_factors_free(&f);
  sps_host_csr_free(&E);

  /* NaN and Inf in B: no crash, a status of success (the caller judges the factors) */
  dense w = random_matrix(&rng, 9, 0.5, 1);
  AT(w, 2, 5) = NAN;
  AT(w, 6, 1) = INFINITY;
  AT(w, 4, 4) = NAN;
  sps_host_csr B;
  csr_of_dense(ctx, &w, &B);
  const double pivots[] = {0.0, 0.1};
  for (int k = 0; k < 2; k++) {
    const sps_status st = sps_ilut_factor(ctx, &B, 10.0, 1e-4, pivots[k], 1e-10, &f);
    sps_ok(st == SPS_SUCCESS && structure_ok(&f), "NaN and Inf in B, pivot %g: factors built",
           pivots[k]);
    sps_ilut_factors_free(&f);
  }
  sps_host_csr_free(&B);
  free(w.a);
}

static void test_arguments(sps_context *ctx)
{
  dense d = dense_zero(3);
  for (int i = 0; i < 3; i++)
    AT(d, i, i) = 1.0;
  sps_host_csr B;
  csr_of_dense(ctx, &d, &B);
  sps_ilut_factors f;
  const double bad[][4] = {{-1.0, 1e-4, 0.1, 1e-10},
                           {10.0, NAN, 0.1, 1e-10},
                           {10.0, 1e-4, -0.5, 1e-10},
                           {10.0, 1e-4, 0.1, NAN}};
  int ok = 1;
  for (int k = 0; k < 4; k++) {
    memset(&f, 0xff, sizeof f);
    ok &= sps_ilut_factor(ctx, &B, bad[k][0], bad[k][1], bad[k][2], bad[k][3], &f) ==
              SPS_ERR_ARGUMENT &&
          f.L.rowptr == NULL && f.udiag_inv == NULL && f.col_perm == NULL;
  }
  sps_ok(ok, "a negative or NaN parameter: SPS_ERR_ARGUMENT, factors zeroed");
  sps_ilut_factors_free(NULL);
  sps_host_csr_free(&B);
  free(d.a);
}

int main(void)
{
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  test_exact(ctx);
  test_diagonal_only(ctx);
  test_drop_rule(ctx);
  test_fill_limit(ctx);
  test_pivoting(ctx);
  test_pivot_rule(ctx);
  test_arguments(ctx);
  sps_context_destroy(&ctx);
  return sps_done();
}
