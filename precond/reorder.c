/* reorder.c: static pivoting for the incomplete factorisations: a maximum-product matching that puts large nonzeros on the diagonal (with its scaling), and iterative equilibration. */
#include <math.h>
#include <string.h>

#include "reorder.h"

/*
 * The matching (Duff and Koster, "On algorithms for permuting large entries to the diagonal
 * of a sparse matrix", SIAM J. Matrix Anal. Appl. 22 (2001), MC64's job 5). With
 * a_j = max_i |a_ij| (column maxima), the cost of an entry is c_ij = log a_j - log |a_ij| >= 0;
 * a permutation sigma minimising sum_j c_{sigma(j) j} maximises prod_j |a_{sigma(j) j}|. It is
 * found column by column by shortest augmenting paths (Dijkstra on reduced costs
 * c_ij - u_i - v_j >= 0 with row potentials u and column potentials v, kept feasible and tight
 * on the matching), after a cheap initial matching on the entries of reduced cost 0. A column
 * that has no augmenting path when its turn comes never gets one (the matched set only
 * grows), so the matching has maximum cardinality as well (a maximum transversal, what Duff's
 * MC21 finds): a square matrix with fewer than n matched columns is structurally singular,
 * and `unmatched` counts the columns left over. Entries that are exactly 0 count as absent.
 *
 * The scaling from the duals: row_scale = exp(u), col_scale = exp(v) / a_j, so that in
 * B = Dr P A Dc every |b_ii| = 1 and every |b_ij| = exp(-(c_ij - u_i - v_j)) <= 1.
 *
 * Without the matching, scaling is Ruiz's iterative equilibration (Ruiz, "A scaling
 * algorithm to equilibrate both rows and columns norms in matrices", RAL-TR-2001-034): rows
 * and columns divided by the square roots of their infinity norms until every norm lies
 * within [1/2, 2], at most 20 sweeps.
 */

#define RUIZ_SWEEPS 20
/* exp() of a dual is clamped to this exponent so that extreme ranges stay finite. */
#define DUAL_EXP_MAX 700.0

/* The pattern of A by columns (entries that are exactly 0 left out), with their costs. */
typedef struct csc_costs {
  int64_t *ptr;  /* n + 1 */
  int32_t *row;  /* entries */
  double *cost;  /* c_ij */
  double *cmax;  /* n: a_j, the largest |a_ij| of column j */
} csc_costs;

static void csc_free(csc_costs *c)
{
  sps_host_free(c->ptr);
  sps_host_free(c->row);
  sps_host_free(c->cost);
  sps_host_free(c->cmax);
  memset(c, 0, sizeof *c);
}

static sps_status csc_build(sps_context *ctx, const sps_host_csr *A, csc_costs *c)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  int64_t *fill = NULL;
  memset(c, 0, sizeof *c);
  const size_t nn = n > 0 ? (size_t)n : 1;
  int64_t nz = 0;
  for (int64_t k = 0; k < A->rowptr[n]; k++) nz += A->values[k] != 0.0;
  SPS_TRY(sps_host_calloc(ctx, (void **)&c->ptr, nn + 1, sizeof(int64_t), "matching columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&c->row, nz > 0 ? (size_t)nz : 1, sizeof(int32_t),
                         "matching columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&c->cost, nz > 0 ? (size_t)nz : 1, sizeof(double),
                         "matching costs"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&c->cmax, nn, sizeof(double), "matching column maxima"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&fill, nn, sizeof(int64_t), "matching columns"));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const double a = fabs(A->values[k]);
      if (a == 0.0) continue;
      const int32_t j = A->colind[k];
      c->ptr[j + 1]++;
      if (a > c->cmax[j]) c->cmax[j] = a;
    }
  for (int64_t j = 0; j < n; j++) c->ptr[j + 1] += c->ptr[j];
  memcpy(fill, c->ptr, (size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const double a = fabs(A->values[k]);
      if (a == 0.0) continue;
      const int32_t j = A->colind[k];
      const int64_t at = fill[j]++;
      c->row[at] = (int32_t)i;
      /* NaN and Inf entries get an infinite cost: matched only when nothing else can be. */
      const double cij = log(c->cmax[j]) - log(a);
      c->cost[at] = isfinite(cij) ? (cij > 0.0 ? cij : 0.0) : INFINITY;
    }
cleanup:
  sps_host_free(fill);
  if (st) csc_free(c);
  return st;
}

/* A binary min-heap of (distance, row) with lazy deletion (stale entries are skipped). */
typedef struct heap_item {
  double d;
  int32_t i;
} heap_item;

static void heap_push(heap_item *h, int64_t *size, double d, int32_t i)
{
  int64_t k = (*size)++;
  while (k > 0) {
    const int64_t p = (k - 1) / 2;
    if (h[p].d <= d) break;
    h[k] = h[p];
    k = p;
  }
  h[k].d = d;
  h[k].i = i;
}

static heap_item heap_pop(heap_item *h, int64_t *size)
{
  const heap_item top = h[0], last = h[--(*size)];
  int64_t k = 0;
  for (;;) {
    int64_t c = 2 * k + 1;
    if (c >= *size) break;
    if (c + 1 < *size && h[c + 1].d < h[c].d) c++;
    if (h[c].d >= last.d) break;
    h[k] = h[c];
    k = c;
  }
  if (*size > 0) h[k] = last;
  return top;
}

/* The matching and its duals: col_match[j] = the row matched to column j (or -1). */
static sps_status match_columns(sps_context *ctx, const csc_costs *c, int64_t n,
                                int32_t *col_match, double *u, double *v, int64_t *unmatched)
{
  sps_status st = SPS_SUCCESS;
  int32_t *row_match = NULL, *pred = NULL, *touched = NULL;
  double *dist = NULL;
  unsigned char *done = NULL;
  heap_item *heap = NULL;
  const size_t nn = n > 0 ? (size_t)n : 1;
  const int64_t nnz = c->ptr[n];
  SPS_TRY(sps_host_alloc(ctx, (void **)&row_match, nn, sizeof(int32_t), "matching"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&pred, nn, sizeof(int32_t), "matching"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&touched, nn, sizeof(int32_t), "matching"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&dist, nn, sizeof(double), "matching"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&done, nn, 1, "matching"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&heap, (size_t)nnz + 1, sizeof(heap_item), "matching heap"));
  for (int64_t k = 0; k < n; k++) {
    row_match[k] = col_match[k] = -1;
    dist[k] = INFINITY;
    v[k] = 0.0; /* each column's smallest cost is 0 (its largest entry) */
    u[k] = INFINITY;
  }
  /* u_i = min_j c_ij (rows without entries keep u = 0). */
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = c->ptr[j]; k < c->ptr[j + 1]; k++)
      if (c->cost[k] < u[c->row[k]]) u[c->row[k]] = c->cost[k];
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(u[i])) u[i] = 0.0;
  /* The cheap matching: an entry of reduced cost 0 whose row is still free. */
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = c->ptr[j]; k < c->ptr[j + 1]; k++) {
      const int32_t i = c->row[k];
      if (row_match[i] < 0 && c->cost[k] - u[i] - v[j] <= 0.0) {
        row_match[i] = (int32_t)j;
        col_match[j] = i;
        break;
      }
    }
  *unmatched = 0;
  for (int64_t s = 0; s < n; s++) {
    if (col_match[s] >= 0) continue;
    /* Dijkstra from column s over alternating paths: column j -> row i costs the reduced
     * cost of (i, j); row i -> the column it is matched to costs 0. */
    int64_t hs = 0, nt = 0;
    int32_t sink = -1;
    double D = 0.0;
    for (int64_t k = c->ptr[s]; k < c->ptr[s + 1]; k++) {
      const int32_t i = c->row[k];
      const double d = fmax(c->cost[k] - u[i] - v[s], 0.0);
      if (d < dist[i]) {
        if (!isfinite(dist[i])) touched[nt++] = i;
        dist[i] = d;
        pred[i] = (int32_t)s;
        heap_push(heap, &hs, d, i);
      }
    }
    while (hs > 0) {
      const heap_item it = heap_pop(heap, &hs);
      const int32_t i = it.i;
      if (done[i] || it.d > dist[i]) continue;
      done[i] = 1;
      if (row_match[i] < 0) {
        sink = i;
        D = dist[i];
        break;
      }
      const int32_t j = row_match[i];
      for (int64_t k = c->ptr[j]; k < c->ptr[j + 1]; k++) {
        const int32_t r = c->row[k];
        if (done[r]) continue;
        const double d = dist[i] + fmax(c->cost[k] - u[r] - v[j], 0.0);
        if (d < dist[r]) {
          if (!isfinite(dist[r])) touched[nt++] = r;
          dist[r] = d;
          pred[r] = j;
          heap_push(heap, &hs, d, r);
        }
      }
    }
    if (sink >= 0 && isfinite(D)) {
      /* Potentials: reached nodes move by min(dist, D) - D, so the path becomes tight. */
      v[s] += D;
      for (int64_t t = 0; t < nt; t++) {
        const int32_t i = touched[t];
        if (!done[i] || i == sink) continue;
        u[i] += dist[i] - D;
        v[row_match[i]] += D - dist[i];
      }
      /* Augment: flip the matching along the path from the sink back to s. */
      for (int32_t i = sink;;) {
        const int32_t j = pred[i], prev = col_match[j];
        col_match[j] = i;
        row_match[i] = j;
        if (j == (int32_t)s) break;
        i = prev;
      }
    } else {
      (*unmatched)++;
    }
    for (int64_t t = 0; t < nt; t++) {
      dist[touched[t]] = INFINITY;
      done[touched[t]] = 0;
    }
  }
cleanup:
  sps_host_free(row_match);
  sps_host_free(pred);
  sps_host_free(touched);
  sps_host_free(dist);
  sps_host_free(done);
  sps_host_free(heap);
  return st;
}

static double clamp_exp(double e)
{
  if (e > DUAL_EXP_MAX) e = DUAL_EXP_MAX;
  if (e < -DUAL_EXP_MAX) e = -DUAL_EXP_MAX;
  return exp(e);
}

/* Ruiz equilibration of A into row and column scales (indexed by A's rows and columns). */
static sps_status ruiz(sps_context *ctx, const sps_host_csr *A, double *rs, double *cs)
{
  const int64_t n = A->n;
  double *rn = NULL, *cn = NULL;
  sps_status st = SPS_SUCCESS;
  const size_t nn = n > 0 ? (size_t)n : 1;
  SPS_TRY(sps_host_alloc(ctx, (void **)&rn, nn, sizeof(double), "equilibration"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&cn, nn, sizeof(double), "equilibration"));
  for (int64_t k = 0; k < n; k++) rs[k] = cs[k] = 1.0;
  for (int sweep = 0; sweep < RUIZ_SWEEPS; sweep++) {
    for (int64_t k = 0; k < n; k++) rn[k] = cn[k] = 0.0;
    for (int64_t i = 0; i < n; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        const int32_t j = A->colind[k];
        const double a = fabs(A->values[k]) * rs[i] * cs[j];
        if (!isfinite(a)) continue;
        if (a > rn[i]) rn[i] = a;
        if (a > cn[j]) cn[j] = a;
      }
    int balanced = 1;
    for (int64_t k = 0; k < n; k++) {
      if (rn[k] > 0.0 && (rn[k] < 0.5 || rn[k] > 2.0)) balanced = 0;
      if (cn[k] > 0.0 && (cn[k] < 0.5 || cn[k] > 2.0)) balanced = 0;
    }
    if (balanced) break;
    for (int64_t k = 0; k < n; k++) {
      if (rn[k] > 0.0) rs[k] /= sqrt(rn[k]);
      if (cn[k] > 0.0) cs[k] /= sqrt(cn[k]);
    }
  }
cleanup:
  sps_host_free(rn);
  sps_host_free(cn);
  return st;
}

sps_status sps_reorder_compute(sps_context *ctx, const sps_host_csr *A, int matching,
                               int scaling, sps_reorder *r)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  csc_costs c;
  memset(&c, 0, sizeof c);
  int32_t *col_match = NULL;
  double *u = NULL, *v = NULL;
  unsigned char *used = NULL;
  memset(r, 0, sizeof *r);
  r->n = n;
  const size_t nn = n > 0 ? (size_t)n : 1;
  if (matching) {
    SPS_TRY(csc_build(ctx, A, &c));
    SPS_TRY(sps_host_alloc(ctx, (void **)&col_match, nn, sizeof(int32_t), "matching"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&u, nn, sizeof(double), "matching duals"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&v, nn, sizeof(double), "matching duals"));
    SPS_TRY(match_columns(ctx, &c, n, col_match, u, v, &r->unmatched));
    SPS_TRY(sps_host_alloc(ctx, (void **)&r->row_perm, nn, sizeof(int32_t), "row permutation"));
    /* Row j of B is the row matched to column j; unmatched columns take the unmatched rows
     * in order (any completion: the matrix is structurally singular then). */
    if (scaling) {
      SPS_TRY(sps_host_alloc(ctx, (void **)&r->row_scale, nn, sizeof(double), "row scaling"));
      SPS_TRY(sps_host_alloc(ctx, (void **)&r->col_scale, nn, sizeof(double), "column scaling"));
      for (int64_t j = 0; j < n; j++) {
        r->col_scale[j] = c.cmax[j] > 0.0 ? clamp_exp(v[j]) / c.cmax[j] : 1.0;
        r->row_scale[j] = col_match[j] >= 0 ? clamp_exp(u[col_match[j]]) : 1.0;
      }
    }
    SPS_TRY(sps_host_calloc(ctx, (void **)&used, nn, 1, "matching rows used"));
    for (int64_t j = 0; j < n; j++)
      if (col_match[j] >= 0) used[col_match[j]] = 1;
    int64_t next = 0;
    for (int64_t j = 0; j < n; j++) {
      if (col_match[j] < 0) {
        while (used[next]) next++;
        used[next] = 1;
        r->row_perm[j] = (int32_t)next;
      } else {
        r->row_perm[j] = col_match[j];
      }
      r->permuted += r->row_perm[j] != (int32_t)j;
    }
  } else if (scaling) {
    SPS_TRY(sps_host_alloc(ctx, (void **)&r->row_scale, nn, sizeof(double), "row scaling"));
    SPS_TRY(sps_host_alloc(ctx, (void **)&r->col_scale, nn, sizeof(double), "column scaling"));
    SPS_TRY(ruiz(ctx, A, r->row_scale, r->col_scale));
  }
cleanup:
  if (st) sps_reorder_free(r);
  csc_free(&c);
  sps_host_free(col_match);
  sps_host_free(u);
  sps_host_free(v);
  sps_host_free(used);
  return st;
}


sps_status sps_reorder_apply(sps_context *ctx, const sps_host_csr *A, const sps_reorder *r,
                             sps_host_csr *B)
{
  const int64_t n = A->n;
  /* Rows of B lacking a diagonal entry get an explicit zero: count them first. */
  int64_t extra = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t src = r->row_perm ? r->row_perm[i] : i;
    int found = 0;
    for (int64_t k = A->rowptr[src]; k < A->rowptr[src + 1]; k++)
      if (A->colind[k] == i) found = 1;
    extra += !found;
  }
  SPS_CHECK(sps_host_csr_alloc(ctx, B, n, A->rowptr[n] + extra, "reordered matrix"));
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t src = r->row_perm ? r->row_perm[i] : i, b = at;
    const double rs = r->row_scale ? r->row_scale[i] : 1.0;
    int found = 0;
    for (int64_t k = A->rowptr[src]; k < A->rowptr[src + 1]; k++) {
      const int32_t j = A->colind[k];
      found |= j == i;
      B->colind[at] = j;
      B->values[at++] = rs * A->values[k] * (r->col_scale ? r->col_scale[j] : 1.0);
    }
    if (!found) {
      B->colind[at] = (int32_t)i;
      B->values[at++] = 0.0;
    }
    sps_host_csr_sort_row(B->colind + b, B->values + b, at - b);
    B->rowptr[i + 1] = at;
  }
  return SPS_SUCCESS;
}

void sps_reorder_free(sps_reorder *r)
{
  sps_host_free(r->row_perm);
  sps_host_free(r->col_perm);
  sps_host_free(r->row_scale);
  sps_host_free(r->col_scale);
  r->row_perm = r->col_perm = NULL;
  r->row_scale = r->col_scale = NULL;
}

/*
 * The "auto" rule of the matching: a row without a diagonal entry, with a zero one, or with
 * one below 1e-14 times the largest |a_ij| of its row (zero to working precision). Such a
 * pivot is replaced by the factorisations' pivot rule, which loses the row's information;
 * the matching moves a real entry there instead (circuit matrices: adder_dcop_05, rajat12).
 * Matrices whose diagonal is merely small keep their order: the matching changes their
 * incomplete factors, for better or worse, and they converge without it.
 */
int sps_reorder_diagonal_is_weak(const sps_host_csr *A)
{
  for (int64_t i = 0; i < A->n; i++) {
    double d = 0.0, m = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const double a = fabs(A->values[k]);
      if (A->colind[k] == i) d = a;
      if (a > m) m = a;
    }
    if (!(d > 1e-14 * m)) return 1;
  }
  return 0;
}
