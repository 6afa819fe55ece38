/* reorder.c: the matching (maximum product, maximum transversal), its scaling, Ruiz equilibration and the reordered matrix, against brute force and dense references. */
#include "../testlib.h"
#include "../../precond/reorder.h"

/* A random n x n sparse matrix with about `per_row` entries a row, values of wildly different
 * magnitudes, and (when `nodiag`) no diagonal entries at all. */
static void random_csr(sps_context *ctx, sps_host_csr *A, int n, int per_row, int nodiag,
                       sps_rng *rng)
{
  if (sps_host_csr_alloc(ctx, A, n, (int64_t)n * n, "test matrix")) sps_bail("alloc");
  int64_t at = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      if (nodiag && i == j) continue;
      if ((int)(sps_rng_next(rng) % (uint64_t)n) >= per_row && !(j == (i + 1) % n)) continue;
      A->colind[at] = j;
      A->values[at++] = sps_rng_uniform(rng) * pow(10.0, (double)(sps_rng_next(rng) % 9) - 4.0);
    }
    A->rowptr[i + 1] = at;
  }
}

static double dense_at(const sps_host_csr *A, int i, int j)
{
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colind[k] == j) return A->values[k];
  return 0.0;
}

/* The largest prod_j |a_{sigma(j) j}| over all permutations (n <= 8), by recursion. */
static double best_product(const sps_host_csr *A, int n, int j, unsigned used)
{
  if (j == n) return 1.0;
  double best = 0.0;
  for (int i = 0; i < n; i++) {
    if (used & (1u << i)) continue;
    const double a = fabs(dense_at(A, i, j));
    if (a == 0.0) continue;
    const double p = a * best_product(A, n, j + 1, used | (1u << i));
    if (p > best) best = p;
  }
  return best;
}

static int is_permutation(const int32_t *p, int64_t n)
{
  char *seen = calloc((size_t)n + 1, 1);
  int ok = seen != NULL;
  for (int64_t i = 0; ok && i < n; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) ok = 0;
    else seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

int main(void)
{
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("context");
  sps_rng rng = {0x4e6f4d61ull};

  /* Maximum product against brute force, with and without diagonals, and the scaling. */
  int opt_ok = 1, perm_ok = 1, scale_ok = 1, apply_ok = 1;
  for (int trial = 0; trial < 200; trial++) {
    const int n = 3 + trial % 6;
    sps_host_csr A;
    random_csr(ctx, &A, n, 2, trial % 2, &rng);
    sps_reorder r;
    if (sps_reorder_compute(ctx, &A, 1, 1, &r)) sps_bail("compute: %s", sps_context_last_error(ctx));
    const double best = best_product(&A, n, 0, 0);
    if (r.unmatched != (best == 0.0)) {
      /* a structurally singular draw: only the count matters then */
      if (best > 0.0 || r.unmatched == 0) opt_ok = 0;
    } else if (best > 0.0) {
      double prod = 1.0;
      for (int j = 0; j < n; j++) prod *= fabs(dense_at(&A, r.row_perm[j], j));
      if (!(prod >= best * (1.0 - 1e-12))) opt_ok = 0;
    }
    if (!is_permutation(r.row_perm, n)) perm_ok = 0;
    sps_host_csr B;
    if (sps_reorder_apply(ctx, &A, &r, &B)) sps_bail("apply");
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        const double want = r.row_scale[i] * dense_at(&A, r.row_perm[i], j) * r.col_scale[j];
        const double got = dense_at(&B, i, j);
        if (got != want) apply_ok = 0;
        if (r.unmatched == 0 && fabs(got) > 1.0 + 1e-12) scale_ok = 0;
        if (r.unmatched == 0 && i == j && fabs(fabs(got) - 1.0) > 1e-12) scale_ok = 0;
      }
    for (int i = 0; i < n; i++) {
      int has = 0;
      for (int64_t k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) {
        has |= B.colind[k] == i;
        if (k > B.rowptr[i] && B.colind[k] <= B.colind[k - 1]) apply_ok = 0;
      }
      if (!has) apply_ok = 0;
    }
    sps_host_csr_free(&B);
    sps_reorder_free(&r);
    sps_host_csr_free(&A);
  }
  sps_ok(opt_ok, "matching maximises prod |b_ii| (200 random matrices against brute force)");
  sps_ok(perm_ok, "row_perm is a permutation");
  sps_ok(scale_ok, "scaled and matched: |b_ii| = 1 and |b_ij| <= 1");
  sps_ok(apply_ok, "B = Dr P A Dc entry by entry, rows sorted, every diagonal present");

  /* Structurally singular: a zero column, and two rows sharing their only column. */
  {
    sps_host_csr A;
    if (sps_host_csr_alloc(ctx, &A, 4, 16, "t")) sps_bail("alloc");
    const int rows[4][2] = {{0, 1}, {1, -1}, {1, -1}, {0, 3}}; /* column 2 empty */
    int64_t at = 0;
    for (int i = 0; i < 4; i++) {
      for (int q = 0; q < 2; q++)
        if (rows[i][q] >= 0) {
          A.colind[at] = rows[i][q];
          A.values[at++] = 1.0 + i;
        }
      A.rowptr[i + 1] = at;
    }
    sps_reorder r;
    const sps_status st = sps_reorder_compute(ctx, &A, 1, 1, &r);
    sps_ok(st == SPS_SUCCESS && r.unmatched == 1 && is_permutation(r.row_perm, 4),
           "structurally singular 4 x 4 (an empty column, two rows on one column): 1 unmatched, "
           "still a permutation (got %lld)",
           (long long)r.unmatched);
    sps_reorder_free(&r);
    sps_host_csr_free(&A);
  }

  /* Ruiz: every row and column infinity norm within [1/2, 2] after scaling. */
  {
    sps_host_csr A;
    random_csr(ctx, &A, 40, 4, 0, &rng);
    sps_reorder r;
    sps_host_csr B;
    int ok = sps_reorder_compute(ctx, &A, 0, 1, &r) == SPS_SUCCESS && !r.row_perm &&
             sps_reorder_apply(ctx, &A, &r, &B) == SPS_SUCCESS;
    double rmin = 1e300, rmax = 0.0, cmax[40] = {0};
    for (int i = 0; ok && i < 40; i++) {
      double m = 0.0;
      for (int64_t k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) {
        const double a = fabs(B.values[k]);
        if (a > m) m = a;
        if (a > cmax[B.colind[k]]) cmax[B.colind[k]] = a;
      }
      if (m < rmin) rmin = m;
      if (m > rmax) rmax = m;
    }
    for (int j = 0; j < 40; j++) {
      if (cmax[j] < rmin) rmin = cmax[j];
      if (cmax[j] > rmax) rmax = cmax[j];
    }
    sps_ok(ok && rmin >= 0.5 && rmax <= 2.0, "Ruiz equilibration: row and column norms in [%.3g, %.3g]",
           rmin, rmax);
    if (ok) sps_host_csr_free(&B);
    sps_reorder_free(&r);
    sps_host_csr_free(&A);
  }

  /* The weak-diagonal rule. */
  {
    sps_host_csr A;
    random_csr(ctx, &A, 10, 3, 1, &rng);
    sps_ok(sps_reorder_diagonal_is_weak(&A), "no diagonal entries: weak");
    sps_host_csr_free(&A);
  }

  /* The shared circuit matrices with missing diagonal entries become fully matched. */
  const char *dir = sps_test_matrices_dir();
  const char *names[] = {"adder_dcop_05.mtx.gz", "rajat12.mtx.gz"};
  for (int k = 0; dir && k < 2; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    sps_matrix *M = NULL;
    if (sps_matrix_read_mm(ctx, &M, path, 0)) sps_bail("%s", sps_context_last_error(ctx));
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    int64_t n;
    sps_matrix_get_size(M, &n, NULL, NULL);
    sps_matrix_get_csr(M, &rp, &ci, &va);
    sps_host_csr A = {n, (int64_t *)rp, (int32_t *)ci, (double *)va};
    sps_reorder r;
    sps_host_csr B;
    int ok = sps_reorder_diagonal_is_weak(&A) && sps_reorder_compute(ctx, &A, 1, 1, &r) == SPS_SUCCESS &&
             r.unmatched == 0 && sps_reorder_apply(ctx, &A, &r, &B) == SPS_SUCCESS;
    int64_t zero = 0;
    for (int64_t i = 0; ok && i < n; i++)
      for (int64_t q = B.rowptr[i]; q < B.rowptr[i + 1]; q++)
        if (B.colind[q] == i && !(fabs(B.values[q]) > 0.999)) zero++;
    sps_ok(ok && zero == 0, "%s: weak diagonal, matched with |b_ii| = 1 (%lld rows moved, %lld bad)",
           names[k], ok ? (long long)r.permuted : -1LL, (long long)zero);
    if (ok) sps_host_csr_free(&B);
    sps_reorder_free(&r);
    sps_matrix_destroy(&M);
  }
  if (!dir) sps_diag("SPS_MATRICES not set: the shared circuit matrices are not checked");
  sps_context_destroy(&ctx);
  return sps_done();
}
