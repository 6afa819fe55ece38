/* amg_aggregate.c: strength of connection and MIS(2) aggregation (precond/aggregate.c) against their definitions; built once for the CPU and once (SPS_TEST_GPU) to hold the CUDA kernels to the CPU reference element for element.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each aggregation of a matrix with a theta is a case
 * (the random matrices are drawn in every shard), and the priorities and the errors are one each. */

#include "../../precond/aggregate.h"
#include "../../precond/ref/kernels.h"
#include "../testlib.h"

/*
 * On each matrix (1-D and 2-D Laplacians, an anisotropic 2-D Laplacian, random patterns
 * symmetric and not, a dense row, isolated rows and explicit zeros, n = 0 and 1, the bundled
 * matrices and, with SPS_MATRICES, the shared ones) the aggregation on the context under test
 * is checked against definitions written here independently of precond/ref/aggregate.c:
 *   - S is the strength graph: the sorted pairs {i, j} with j strong in row i or i in row j,
 *     computed by sorting all pairs (so S is symmetric, sorted, without the diagonal);
 *   - the rows with an empty row of S, and only they, have agg -1;
 *   - the roots are the MIS(2) of the rounds with the maximum taken over the explicit ball
 *     of radius 2 (neighbours and their neighbours) instead of two sweeps; they are pairwise at
 *     distance >= 3 in S, and agg numbers them 0..naggs-1 in ascending order;
 *   - every other row follows the joining rule: the root neighbour with the largest (p, j),
 *     else the neighbour adjacent to a root with the largest (p, j); so every row is within
 *     distance 2 of its root and each aggregate is connected through it;
 *   - counts: on the 1-D Laplacian n/5 <= naggs <= n/3 + 1, on the 2-D 5-point one
 *     n/13 <= naggs <= n/5 + 2 sqrt(n) (a root's radius-2 ball holds at most 13 rows; the
 *     radius-1 balls of the roots are disjoint), and on the anisotropic one S holds only the
 *     strong direction.
 * The GPU build also runs the CPU context and requires the same agg, naggs and S, element for
 * element, and prints the GPU's time next to one SpMV on the large shared matrices.
 * Both builds check the priorities against core/splitmix64.h, the argument checks, and that
 * each host allocation failing in turn gives SPS_ERR_HOST_MEMORY and leaks nothing.
 */

static sps_context *cpu;
static sps_context *dev; /* the context under test: the CPU, or CUDA in the GPU build */

/* A growing host CSR built row by row (test side, plain malloc). */
typedef struct builder {
  sps_host_csr A;
  int64_t cap, at, row;
} builder;

static void b_start(builder *b, int64_t n, int64_t cap)
{
  if (sps_host_csr_alloc(cpu, &b->A, n, cap, "test")) sps_bail("alloc");
  b->cap = cap;
  b->at = 0;
  b->row = 0;
}

static void b_put(builder *b, int64_t j, double v)
{
  if (b->at >= b->cap) sps_bail("builder overflow");
  b->A.colind[b->at] = (int32_t)j;
  b->A.values[b->at++] = v;
}

/* Close the current row: sort its entries by column. */
static void b_end_row(builder *b)
{
  const int64_t s = b->A.rowptr[b->row];
  sps_host_csr_sort_row(b->A.colind + s, b->A.values + s, b->at - s);
  b->A.rowptr[++b->row] = b->at;
}

static void lap1d(sps_host_csr *A, int64_t n)
{
  builder b;
  b_start(&b, n, 3 * n + 1);
  for (int64_t i = 0; i < n; i++) {
    if (i > 0) b_put(&b, i - 1, -1.0);
    b_put(&b, i, 2.0);
    if (i + 1 < n) b_put(&b, i + 1, -1.0);
    b_end_row(&b);
  }
  *A = b.A;
}

/* The 5-point Laplacian on an N x N grid, -eps in the y direction (eps = 1: isotropic). */
static void lap2d(sps_host_csr *A, int64_t N, double eps)
{
  builder b;
  const int64_t n = N * N;
  b_start(&b, n, 5 * n + 1);
  for (int64_t y = 0; y < N; y++)
    for (int64_t x = 0; x < N; x++) {
      const int64_t i = y * N + x;
      if (y > 0) b_put(&b, i - N, -eps);
      if (x > 0) b_put(&b, i - 1, -1.0);
      b_put(&b, i, 2.0 + 2.0 * eps);
      if (x + 1 < N) b_put(&b, i + 1, -1.0);
      if (y + 1 < N) b_put(&b, i + N, -eps);
      b_end_row(&b);
    }
  *A = b.A;
}

static int cmp_u64(const void *a, const void *b)
{
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Random: about per_row off-diagonal entries a row, values of random sign and magnitude over
 * a few decades (so theta cuts some), diagonal 4 (or random sign when `signs`); symmetric
 * pattern and values when sym. dense_row >= 0: that row (and column, when sym) full. */
static void random_matrix(sps_host_csr *A, int64_t n, int per_row, int sym, int64_t dense_row,
                          sps_rng *rng)
{
  /* Draw the off-diagonal pairs, mirror them when sym, then sort by (row, col), unique. */
  int64_t cap = n * per_row * 2 + (dense_row >= 0 ? 2 * n : 0) + 1, np = 0;
  uint64_t *pairs = malloc((size_t)cap * sizeof *pairs);
  if (!pairs) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++)
    for (int q = 0; q < per_row; q++) {
      const int64_t j = (int64_t)(sps_rng_next(rng) % (uint64_t)n);
      if (j == i) continue;
      pairs[np++] = (uint64_t)i << 32 | (uint64_t)j;
      if (sym) pairs[np++] = (uint64_t)j << 32 | (uint64_t)i;
    }
  if (dense_row >= 0)
    for (int64_t j = 0; j < n; j++)
      if (j != dense_row) {
        pairs[np++] = (uint64_t)dense_row << 32 | (uint64_t)j;
        if (sym) pairs[np++] = (uint64_t)j << 32 | (uint64_t)dense_row;
      }
  qsort(pairs, (size_t)np, sizeof *pairs, cmp_u64);
  int64_t u = 0;
  for (int64_t k = 0; k < np; k++)
    if (u == 0 || pairs[u - 1] != pairs[k]) pairs[u++] = pairs[k];
  np = u;
  /* Values: symmetric by hashing the unordered pair when sym (the row joins the hash else). */
  builder b;
  b_start(&b, n, np + n + 1);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    b_put(&b, i, 4.0);
    for (; k < np && (int64_t)(pairs[k] >> 32) == i; k++) {
      const int64_t j = (int64_t)(pairs[k] & 0xffffffffu);
      const int64_t lo = i < j ? i : j, hi = i < j ? j : i;
      uint64_t s = (uint64_t)lo * 1000003u + (uint64_t)hi + (sym ? 0u : (uint64_t)i << 40);
      const uint64_t h = sps_splitmix64_next(&s);
      const double mag = pow(10.0, -3.0 * (double)(h >> 11) * 0x1.0p-53);
      b_put(&b, j, (h & 1) ? -mag : mag);
    }
    b_end_row(&b);
  }
  *A = b.A;
  free(pairs);
}

/* Row i of a CSR pattern holds column j (binary search). */
static int has(const int64_t *rp, const int32_t *ci, int64_t i, int64_t j)
{
  int64_t lo = rp[i], hi = rp[i + 1];
  while (lo < hi) {
    const int64_t m = lo + (hi - lo) / 2;
    if (ci[m] < j)
      lo = m + 1;
    else if (ci[m] > j)
      hi = m;
    else
      return 1;
  }
  return 0;
}

/* The strength graph by definition: all strong pairs, both ways, sorted and unique. Returns
 * 1 when S equals it. */
static int check_strength(const sps_host_csr *A, double theta, const sps_host_csr *S)
{
  const int64_t n = A->n;
  double *d = calloc((size_t)n + 1, sizeof *d);
  uint64_t *pairs = malloc(((size_t)A->rowptr[n] * 2 + 1) * sizeof *pairs);
  if (!d || !pairs) sps_bail("alloc");
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) d[i] = A->values[k];
  int64_t np = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int64_t j = A->colind[k];
      const double a = A->values[k];
      if (j == i || a == 0.0 || !(fabs(a) >= theta * sqrt(fabs(d[i] * d[j])))) continue;
      pairs[np++] = (uint64_t)i << 32 | (uint64_t)j;
      pairs[np++] = (uint64_t)j << 32 | (uint64_t)i;
    }
  qsort(pairs, (size_t)np, sizeof *pairs, cmp_u64);
  int64_t u = 0;
  for (int64_t k = 0; k < np; k++)
    if (u == 0 || pairs[u - 1] != pairs[k]) pairs[u++] = pairs[k];
  int ok = S->n == n && S->rowptr[0] == 0 && S->rowptr[n] == u;
  for (int64_t i = 0; ok && i < n; i++)
    for (int64_t k = S->rowptr[i]; ok && k < S->rowptr[i + 1]; k++)
      ok = pairs[k] == ((uint64_t)i << 32 | (uint64_t)S->colind[k]);
  free(d);
  free(pairs);
  return ok;
}

/* (p_a, a) > (p_b, b) */
static int prio_greater(int64_t a, int64_t b)
{
  const uint64_t pa = sps_agg_priority(a), pb = sps_agg_priority(b);
  return pa > pb || (pa == pb && a > b);
}

/* The roots by the rounds written with the explicit radius-2 ball: in each round, an
 * undecided row whose ball's largest tuple (state, p, index) is its own becomes IN, one whose
 * ball holds an IN row becomes OUT. Returns the number of rounds; state[] ends 0 or 2. */
static int ball_mis2(const sps_host_csr *S, unsigned char *state)
{
  const int64_t n = S->n;
  const int64_t *rp = S->rowptr;
  const int32_t *ci = S->colind;
  unsigned char *next = malloc((size_t)n + 1);
  if (!next) sps_bail("alloc");
  int64_t undecided = 0;
  for (int64_t i = 0; i < n; i++) {
    state[i] = rp[i + 1] > rp[i] ? 1 : 0;
    undecided += state[i];
  }
  int rounds = 0;
  while (undecided > 0) {
    rounds++;
    memcpy(next, state, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      if (state[i] != 1) continue;
      int64_t best = i;
      for (int64_t a = rp[i]; a < rp[i + 1]; a++) {
        const int64_t j = ci[a];
        for (int64_t c = rp[j] - 1; c < rp[j + 1]; c++) {
          const int64_t k = c < rp[j] ? j : ci[c];
          if (state[k] > state[best] || (state[k] == state[best] && prio_greater(k, best)))
            best = k;
        }
      }
      if (best == i)
        next[i] = 2;
      else if (state[best] == 2)
        next[i] = 0;
    }
    undecided = 0;
    for (int64_t i = 0; i < n; i++) {
      state[i] = next[i];
      undecided += state[i] == 1;
    }
    if (rounds > n + 1) break;
  }
  free(next);
  return rounds;
}

/* The properties of agg (file comment). Reports one TAP line per group. */
static void check_properties(const char *name, const sps_host_csr *A, double theta,
                             const sps_host_csr *S, const int32_t *agg, int64_t naggs,
                             const sps_amg_aggregate_info *info)
{
  const int64_t n = A->n;
  sps_ok(check_strength(A, theta, S), "%s: S is the symmetrised strength graph (%lld entries)",
         name, (long long)S->rowptr[n]);
  int sym = 1;
  for (int64_t i = 0; i < n && sym; i++)
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1] && sym; k++)
      sym = S->colind[k] != i && has(S->rowptr, S->colind, S->colind[k], i) &&
            (k == S->rowptr[i] || S->colind[k - 1] < S->colind[k]);
  sps_ok(sym, "%s: S is symmetric, sorted, without the diagonal", name);
  int64_t isolated = 0;
  int iso_ok = 1;
  for (int64_t i = 0; i < n; i++) {
    const int empty = S->rowptr[i + 1] == S->rowptr[i];
    isolated += empty;
    if (empty ? agg[i] != -1 : (agg[i] < 0 || agg[i] >= naggs)) iso_ok = 0;
  }
  sps_ok(iso_ok && info->isolated == isolated && info->strong_entries == S->rowptr[n],
         "%s: agg -1 exactly on the %lld isolated rows, in [0, %lld) elsewhere", name,
         (long long)isolated, (long long)naggs);
  unsigned char *state = malloc((size_t)n + 1);
  int32_t *root = malloc(((size_t)naggs + 1) * sizeof *root);
  if (!state || !root) sps_bail("alloc");
  const int rounds = ball_mis2(S, state);
  int64_t nroots = 0;
  int roots_ok = 1;
  for (int64_t i = 0; i < n; i++)
    if (state[i] == 2) {
      if (nroots < naggs) root[nroots] = (int32_t)i;
      if (agg[i] != nroots) roots_ok = 0;
      nroots++;
    }
  sps_ok(roots_ok && nroots == naggs && rounds == info->mis_rounds,
         "%s: the roots are the MIS(2) of the ball rounds, numbered in order (%lld roots, %d "
         "rounds)",
         name, (long long)nroots, rounds);
  /* Pairwise distance >= 3: no root in a root's radius-2 ball but itself. */
  int dist_ok = 1;
  for (int64_t r = 0; r < naggs && dist_ok && nroots == naggs; r++) {
    const int64_t i = root[r];
    for (int64_t a = S->rowptr[i]; a < S->rowptr[i + 1]; a++) {
      const int64_t j = S->colind[a];
      if (state[j] == 2) dist_ok = 0;
      for (int64_t c = S->rowptr[j]; c < S->rowptr[j + 1]; c++)
        if (S->colind[c] != i && state[S->colind[c]] == 2) dist_ok = 0;
    }
  }
  sps_ok(dist_ok, "%s: roots pairwise at distance >= 3 in S", name);
  /* The joining rule, and so distance <= 2 to the root through the aggregate. */
  int join_ok = nroots == naggs, near_ok = nroots == naggs;
  int64_t *size = calloc((size_t)naggs + 1, sizeof *size);
  if (!size) sps_bail("alloc");
  for (int64_t i = 0; i < n && join_ok; i++) {
    if (agg[i] >= 0) size[agg[i]]++;
    if (agg[i] < 0 || state[i] == 2) continue;
    int64_t best = -1;
    for (int64_t a = S->rowptr[i]; a < S->rowptr[i + 1]; a++) {
      const int64_t j = S->colind[a];
      if (state[j] == 2 && (best < 0 || prio_greater(j, best))) best = j;
    }
    if (best < 0) {
      /* No root neighbour: the neighbour next to a root with the largest (p, j). */
      for (int64_t a = S->rowptr[i]; a < S->rowptr[i + 1]; a++) {
        const int64_t j = S->colind[a];
        int near_root = 0;
        for (int64_t c = S->rowptr[j]; c < S->rowptr[j + 1] && !near_root; c++)
          near_root = state[S->colind[c]] == 2;
        if (near_root && (best < 0 || prio_greater(j, best))) best = j;
      }
      if (best < 0) {
        near_ok = 0;
        join_ok = 0;
        break;
      }
      /* best is adjacent to its own root, which is then within distance 2 of i. */
      if (agg[best] != agg[i] || !has(S->rowptr, S->colind, best, root[agg[i]])) near_ok = 0;
    } else if (best != root[agg[i]]) {
      near_ok = 0;
    }
    if (agg[i] != agg[best]) join_ok = 0;
  }
  sps_ok(join_ok, "%s: each row joins by the rule (largest (p, j) root, else neighbour of one)",
         name);
  sps_ok(near_ok, "%s: every aggregated row within distance 2 of its root, through its aggregate",
         name);
  int64_t smin = n, smax = 0;
  for (int64_t a = 0; a < naggs; a++) {
    if (size[a] < smin) smin = size[a];
    if (size[a] > smax) smax = size[a];
  }
  if (naggs > 0)
    sps_diag("%s: n %lld, naggs %lld (n/naggs %.2f, sizes %lld..%lld), isolated %lld, MIS(2) "
             "rounds %d, attach rounds %d",
             name, (long long)n, (long long)naggs, (double)(n - isolated) / (double)naggs,
             (long long)smin, (long long)smax, (long long)isolated, info->mis_rounds,
             info->attach_rounds);
  free(size);
  free(state);
  free(root);
}

/* Aggregate A on dev (and on the CPU in the GPU build), check, and return naggs. */
static int64_t check_case(const char *name, const sps_host_csr *A, double theta,
                          sps_host_csr *S_out, int32_t **agg_out)
{
  const int64_t n = A->n;
  int32_t *agg = malloc(((size_t)n + 1) * sizeof *agg);
  if (!agg) sps_bail("alloc");
  int64_t naggs = -1;
  sps_host_csr S = {0};
  sps_amg_aggregate_info info;
  const double t0 = sps_wtime();
  sps_status st = sps_amg_aggregate_ex(dev, A, theta, agg, &naggs, &S, &info);
  const double t = sps_wtime() - t0;
  if (!sps_ok(st == SPS_SUCCESS, "%s (theta %g): aggregation returns success", name, theta)) {
    sps_diag("%s", sps_context_last_error(dev));
    free(agg);
    return -1;
  }
  if (n >= 100000)
    sps_diag("%s: aggregation on the %s %.1f ms (upload of A %.1f, strength graph %.1f, MIS(2) "
             "%.1f, attach %.1f; n %lld, nnz %lld; with the strength graph's download)",
             name, dev == cpu ? "CPU" : "GPU", 1e3 * t, 1e3 * info.upload_seconds,
             1e3 * info.strength_seconds, 1e3 * info.mis_seconds, 1e3 * info.attach_seconds,
             (long long)n, (long long)A->rowptr[n]);
  check_properties(name, A, theta, &S, agg, naggs, &info);
  /* The plain entry point gives the same. */
  int32_t *agg2 = malloc(((size_t)n + 1) * sizeof *agg2);
  int64_t naggs2 = -1;
  if (!agg2) sps_bail("alloc");
  st = sps_amg_aggregate(dev, A, theta, agg2, &naggs2);
  sps_ok(st == SPS_SUCCESS && naggs2 == naggs && memcmp(agg, agg2, (size_t)n * sizeof *agg) == 0,
         "%s: sps_amg_aggregate repeats sps_amg_aggregate_ex's aggregates", name);
  if (dev != cpu) {
    /* The CPU reference, element for element. */
    int64_t naggs_c = -1;
    sps_host_csr Sc = {0};
    sps_amg_aggregate_info ic;
    const double c0 = sps_wtime();
    st = sps_amg_aggregate_ex(cpu, A, theta, agg2, &naggs_c, &Sc, &ic);
    const double tc = sps_wtime() - c0;
    int same_s = st == SPS_SUCCESS && Sc.rowptr &&
                 memcmp(Sc.rowptr, S.rowptr, ((size_t)n + 1) * sizeof(int64_t)) == 0 &&
                 memcmp(Sc.colind, S.colind, (size_t)S.rowptr[n] * sizeof(int32_t)) == 0;
    sps_ok(same_s, "%s: the GPU's strength graph equals the CPU's", name);
    int64_t where = -1;
    for (int64_t i = 0; i < n && where < 0; i++)
      if (agg[i] != agg2[i]) where = i;
    sps_ok(st == SPS_SUCCESS && naggs_c == naggs && where < 0 && ic.mis_rounds == info.mis_rounds &&
               ic.attach_rounds == info.attach_rounds,
           "%s: the GPU's aggregates equal the CPU's element for element (naggs %lld, %lld)%s",
           name, (long long)naggs, (long long)naggs_c,
           where >= 0 ? " (first difference below)" : "");
    if (where >= 0) sps_diag("row %lld: GPU %d, CPU %d", (long long)where, agg[where], agg2[where]);
    if (n >= 100000)
      sps_diag("%s: the same on the CPU %.1f ms (strength graph %.1f, MIS(2) %.1f, attach %.1f)",
               name, 1e3 * tc, 1e3 * ic.strength_seconds, 1e3 * ic.mis_seconds,
               1e3 * ic.attach_seconds);
    sps_host_csr_free(&Sc);
  }
  free(agg2);
  if (S_out)
    *S_out = S;
  else
    sps_host_csr_free(&S);
  if (agg_out)
    *agg_out = agg;
  else
    free(agg);
  return naggs;
}

/* The GPU's aggregation against one csr-scalar SpMV on the same matrix (wall clock,
 * synchronised, best of 5). */
static void time_against_spmv(const char *name, const sps_matrix *Acpu, const sps_host_csr *A,
                              double theta)
{
  if (dev == cpu) return;
  sps_matrix *Ag = NULL;
  sps_spmv_plan *plan = NULL;
  sps_vector *x = NULL, *y = NULL;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  int64_t m;
  sps_test_csr(Acpu, &m, &rp, &ci, &va);
  if (sps_matrix_create_csr(dev, &Ag, m, m, rp, ci, va) ||
      sps_spmv_plan_create(dev, &plan, Ag, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(plan) ||
      sps_vector_create(dev, &x, m) || sps_vector_create(dev, &y, m) || sps_vector_fill(x, 1.0))
    sps_bail("SpMV setup: %s", sps_context_last_error(dev));
  int32_t *agg = malloc(((size_t)A->n + 1) * sizeof *agg);
  if (!agg) sps_bail("alloc");
  double t_agg = 1e30, t_spmv = 1e30;
  int64_t naggs;
  sps_amg_aggregate_info info, best = {0};
  for (int r = 0; r < 5; r++) {
    sps_context_synchronize(dev);
    double t0 = sps_wtime();
    if (sps_amg_aggregate_ex(dev, A, theta, agg, &naggs, NULL, &info)) sps_bail("aggregate");
    if (sps_wtime() - t0 < t_agg) t_agg = sps_wtime() - t0, best = info;
    t0 = sps_wtime();
    sps_spmv_apply(plan, 1.0, x, 0.0, y);
    sps_context_synchronize(dev);
    if (sps_wtime() - t0 < t_spmv) t_spmv = sps_wtime() - t0;
  }
  sps_diag("%s: GPU aggregation %.2f ms, one csr-scalar SpMV %.1f us (wall clock, synchronised, "
           "best of 5): %.0f SpMV-equivalents, %.0f without the upload of A",
           name, 1e3 * t_agg, 1e6 * t_spmv, t_agg / t_spmv, (t_agg - best.upload_seconds) / t_spmv);
  sps_diag("%s: of which upload of A %.2f ms, strength graph %.2f ms, MIS(2) %.2f ms (%d rounds), "
           "roots, attach and agg's download %.2f ms",
           name, 1e3 * best.upload_seconds, 1e3 * best.strength_seconds, 1e3 * best.mis_seconds,
           best.mis_rounds, 1e3 * best.attach_seconds);
  free(agg);
  sps_vector_destroy(&x);
  sps_vector_destroy(&y);
  sps_spmv_plan_destroy(&plan);
  sps_matrix_destroy(&Ag);
}

static void check_file(const char *dir, const char *file, double theta, int timing)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(cpu, &A, path, 0) != SPS_SUCCESS) {
    sps_ok(0, "%s: %s", file, sps_context_last_error(cpu));
    return;
  }
  int64_t m, nc;
  sps_matrix_get_size(A, &m, &nc, NULL);
  if (m != nc) {
    sps_matrix_destroy(&A);
    return;
  }
  sps_host_csr B;
  if (sps_host_csr_with_diagonal(cpu, A, 1.0, &B)) sps_bail("copy");
  char name[256];
  snprintf(name, sizeof name, "%s theta %g", file, theta);
  check_case(name, &B, theta, NULL, NULL);
  if (timing) time_against_spmv(file, A, &B, theta);
  sps_host_csr_free(&B);
  sps_matrix_destroy(&A);
}

static void check_small_cases(sps_rng *rng)
{
  sps_host_csr A, S;
  int32_t *agg;
  /* n = 0 and n = 1. */
  if (sps_case()) {
    lap1d(&A, 0);
    sps_ok(check_case("n=0", &A, 0.0, NULL, NULL) == 0, "n=0: no aggregates");
    sps_host_csr_free(&A);
  }
  if (sps_case()) {
    lap1d(&A, 1);
    check_case("n=1", &A, 0.0, NULL, &agg);
    sps_ok(agg[0] == -1, "n=1: the one row is isolated (agg -1)");
    free(agg);
    sps_host_csr_free(&A);
  }
  /* 1-D Laplacians of odd and even sizes. */
  const int64_t sizes[] = {2, 3, 7, 64, 1001};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    if (!sps_case()) continue;
    char name[64];
    const int64_t n = sizes[k];
    snprintf(name, sizeof name, "1-D Laplacian n=%lld", (long long)n);
    lap1d(&A, n);
    const int64_t na = check_case(name, &A, 0.25, NULL, NULL);
    sps_ok(na >= (n + 4) / 5 && na <= n / 3 + 1, "%s: n/5 <= naggs %lld <= n/3 + 1", name,
           (long long)na);
    sps_host_csr_free(&A);
  }
  /* 2-D 5-point Laplacians. */
  const int64_t grids[] = {5, 31, 100};
  for (size_t k = 0; k < sizeof grids / sizeof grids[0]; k++) {
    if (!sps_case()) continue;
    char name[64];
    const int64_t N = grids[k], n = N * N;
    snprintf(name, sizeof name, "2-D Laplacian %lldx%lld", (long long)N, (long long)N);
    lap2d(&A, N, 1.0);
    const int64_t na = check_case(name, &A, 0.0, NULL, NULL);
    sps_ok(13 * na >= n && 5 * na <= n + 10 * N,
           "%s: n/13 <= naggs %lld <= n/5 + 2N (n/naggs %.2f)", name, (long long)na,
           (double)n / (double)na);
    sps_host_csr_free(&A);
  }
  /* Anisotropic: with theta 0.25 only the x couplings (1 against 1e-3) are strong. */
  const int64_t N = 60;
  if (sps_case()) {
    lap2d(&A, N, 1e-3);
    check_case("anisotropic 2-D Laplacian (eps 1e-3)", &A, 0.25, &S, &agg);
    int lines = 1;
    for (int64_t i = 0; i < N * N; i++)
      for (int64_t k = S.rowptr[i]; k < S.rowptr[i + 1]; k++)
        if (S.colind[k] / N != i / N) lines = 0;
    /* So each aggregate lies within one grid line. */
    int within = 1;
    for (int64_t i = 0; i < N * N; i++)
      if (agg[i] >= 0 && agg[i] != agg[(i / N) * N + (i % N == 0 ? 1 : i % N - 1)] &&
          agg[i] != agg[(i / N) * N + (i % N == N - 1 ? N - 2 : i % N + 1)])
        within = 0;
    sps_ok(lines && within && S.rowptr[N * N] == 2 * N * (N - 1),
           "anisotropic: S holds exactly the x couplings (%lld entries), aggregates along lines",
           (long long)S.rowptr[N * N]);
    sps_host_csr_free(&S);
    free(agg);
    sps_host_csr_free(&A);
  }
  if (sps_case()) {
    /* theta 0 keeps them all. */
    lap2d(&A, N, 1e-3);
    check_case("anisotropic 2-D Laplacian theta 0", &A, 0.0, &S, NULL);
    sps_ok(S.rowptr[N * N] == 4 * N * (N - 1), "anisotropic, theta 0: S holds every coupling");
    sps_host_csr_free(&S);
    sps_host_csr_free(&A);
  }
  /* Random patterns, symmetric and not (the union with the transpose matters), a dense row. */
  const int64_t rsizes[] = {2, 17, 250, 5000, 60001};
  for (size_t k = 0; k < sizeof rsizes / sizeof rsizes[0]; k++)
    for (int sym = 0; sym <= 1; sym++) {
      char name[64];
      snprintf(name, sizeof name, "random %s n=%lld", sym ? "symmetric" : "unsymmetric",
               (long long)rsizes[k]);
      random_matrix(&A, rsizes[k], 3, sym, -1, rng); /* in every shard: the rng goes on */
      if (sps_case()) check_case(name, &A, 0.0, NULL, NULL);
      if (sps_case()) check_case(name, &A, 0.08, NULL, NULL);
      if (sps_case()) check_case(name, &A, 0.5, NULL, NULL);
      sps_host_csr_free(&A);
    }
  random_matrix(&A, 3000, 2, 1, 1234, rng);
  if (sps_case()) check_case("a dense row and column", &A, 0.0, NULL, NULL);
  sps_host_csr_free(&A);
  random_matrix(&A, 3000, 2, 0, 17, rng);
  if (sps_case()) check_case("a dense row (unsymmetric)", &A, 0.0, NULL, NULL);
  sps_host_csr_free(&A);
  /* Isolated rows: every third row of a 1-D Laplacian decoupled to its diagonal, one row with
   * explicit zeros, one with a NaN off-diagonal, one without its diagonal. */
  if (sps_case()) {
    const int64_t n = 300;
    builder b;
    b_start(&b, n, 3 * n + 1);
    for (int64_t i = 0; i < n; i++) {
      const int cut = i % 3 == 0;
      if (i == 100) {
        b_put(&b, i - 1, 0.0);
        b_put(&b, i, 2.0);
        b_put(&b, i + 1, 0.0);
      } else if (i == 200) {
        b_put(&b, i - 1, NAN);
        b_put(&b, i, 2.0);
      } else {
        if (i > 0 && !cut && (i - 1) % 3 != 0 && i - 1 != 100) b_put(&b, i - 1, -1.0);
        if (i != 250) b_put(&b, i, 2.0);
        if (i + 1 < n && !cut && (i + 1) % 3 != 0 && i + 1 != 100) b_put(&b, i + 1, -1.0);
      }
      b_end_row(&b);
    }
    check_case("isolated rows, zeros, a NaN, a missing diagonal", &b.A, 0.1, &S, &agg);
    int64_t minus = 0;
    for (int64_t i = 0; i < n; i++)
      minus += agg[i] == -1;
    sps_ok(agg[0] == -1 && agg[3] == -1 && agg[100] == -1 && minus >= 100,
           "isolated rows: decoupled rows and the row of explicit zeros get -1 (%lld rows)",
           (long long)minus);
    sps_host_csr_free(&S);
    free(agg);
    sps_host_csr_free(&b.A);
  }
}

/* Bad arguments, and each host allocation failing in turn. */
static void check_errors(void)
{
  sps_host_csr A;
  lap2d(&A, 20, 1.0);
  int32_t agg[400];
  int64_t naggs;
  sps_ok(sps_amg_aggregate(NULL, &A, 0.0, agg, &naggs) == SPS_ERR_ARGUMENT, "ctx NULL refused");
  sps_ok(sps_amg_aggregate(dev, NULL, 0.0, agg, &naggs) == SPS_ERR_ARGUMENT, "A NULL refused");
  sps_ok(sps_amg_aggregate(dev, &A, 0.0, NULL, &naggs) == SPS_ERR_ARGUMENT, "agg NULL refused");
  sps_ok(sps_amg_aggregate(dev, &A, 0.0, agg, NULL) == SPS_ERR_ARGUMENT, "naggs NULL refused");
  sps_ok(sps_amg_aggregate(dev, &A, -0.1, agg, &naggs) == SPS_ERR_ARGUMENT &&
             sps_amg_aggregate(dev, &A, NAN, agg, &naggs) == SPS_ERR_ARGUMENT &&
             strstr(sps_context_last_error(dev), "theta"),
         "theta negative or NaN refused, naming theta");
  int fail_ok = 1, k = 1;
  const long live = sps_test_alloc_live();
  for (;; k++) {
    sps_host_csr S;
    sps_test_alloc_fail_at(k);
    const sps_status st = sps_amg_aggregate_ex(dev, &A, 0.0, agg, &naggs, &S, NULL);
    const int fired = sps_test_alloc_fired();
    sps_test_alloc_fail_at(0);
    if (!fired) {
      if (st != SPS_SUCCESS) fail_ok = 0;
      sps_host_csr_free(&S);
      break;
    }
    if (st != SPS_ERR_HOST_MEMORY || sps_test_alloc_live() != live) fail_ok = 0;
  }
  sps_ok(fail_ok && sps_test_alloc_live() == live,
         "each of the %d host allocations failing gives SPS_ERR_HOST_MEMORY and leaks nothing",
         k - 1);
  sps_host_csr_free(&A);
}

int main(void)
{
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS) sps_bail("CPU context");
#ifdef SPS_TEST_GPU
  dev = sps_test_cuda_context_or_skip();
#else
  dev = cpu;
#endif
  /* The priorities are splitmix64's draws (core/splitmix64.h), top 62 bits. */
  if (sps_case()) {
    int prio_ok = 1;
    for (int64_t i = 0; i < 100000; i++) {
      uint64_t s = SPS_AGG_SEED + (uint64_t)i * 0x9E3779B97F4A7C15ull;
      if (sps_agg_priority(i) != sps_splitmix64_next(&s) >> 2) prio_ok = 0;
    }
    sps_ok(prio_ok, "sps_agg_priority is splitmix64's draw from the seeded state, top 62 bits");
  }
  sps_rng rng = {0xa66e6a7e5ull};
  check_small_cases(&rng); /* a case per aggregation */
  if (sps_case()) check_errors();
  const char *data = sps_test_data_dir();
  const char *bundled[] = {"nos3.mtx.gz",     "orsreg_1.mtx.gz", "add20.mtx.gz",
                           "bcsstk14.mtx.gz", "1138_bus.mtx.gz", "watt_2.mtx.gz"};
  for (size_t k = 0; k < sizeof bundled / sizeof bundled[0]; k++) {
    if (sps_case()) check_file(data, bundled[k], 0.0, 0);
    if (sps_case()) check_file(data, bundled[k], 0.08, 0);
  }
  const char *dir = sps_test_matrices_dir();
  if (dir) {
    const char *shared[] = {"G3_circuit.mtx.gz", "laplacian7pt_100.mtx.gz", "nos3.mtx.gz",
                            "bcsstk14.mtx.gz",   "ani5_crop.mtx.gz",        "rajat12.mtx.gz",
                            "sherman3.mtx.gz",   "olm1000.mtx.gz"};
    for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++)
      if (sps_case()) check_file(dir, shared[k], 0.08, k < 2);
  } else if (sps_case()) {
    sps_skip("the shared matrices (set SPS_MATRICES)");
  }
  if (dev != cpu) sps_context_destroy(&dev);
  sps_context_destroy(&cpu);
  return sps_done();
}
