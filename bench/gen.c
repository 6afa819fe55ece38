/* gen.c: the benchmark matrix generators of gen.h; each fills CSR arrays row by row (OpenMP over rows), never through COO. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../core/splitmix64.h"
#include "gen.h"

/* Uniform in (0, 1] (splitmix64, the seeded generator of every random draw here). */
static double unit_open0(uint64_t *s)
{
  return ((double)(sps_splitmix64_next(s) >> 11) + 1.0) * 0x1.0p-53;
}

static int alloc_csr(bench_csr *m, int64_t nrows, int64_t ncols, int64_t nnz, char *err,
                     size_t errlen)
{
  m->nrows = nrows;
  m->ncols = ncols;
  m->rowptr = NULL;
  m->colind = NULL;
  m->values = NULL;
  if (sps_host_alloc(NULL, (void **)&m->rowptr, (size_t)nrows + 1, sizeof *m->rowptr, "rowptr") ||
      sps_host_alloc(NULL, (void **)&m->colind, (size_t)nnz, sizeof *m->colind, "colind") ||
      sps_host_alloc(NULL, (void **)&m->values, (size_t)nnz, sizeof *m->values, "values")) {
    snprintf(err, errlen, "cannot allocate %lld rows and %lld nonzeros: %s", (long long)nrows,
             (long long)nnz, sps_context_create_error());
    bench_csr_free(m);
    return 1;
  }
  return 0;
}

void bench_csr_free(bench_csr *m)
{
  sps_host_free(m->rowptr);
  sps_host_free(m->colind);
  sps_host_free(m->values);
  m->rowptr = NULL;
  m->colind = NULL;
  m->values = NULL;
}

/*
 * A stencil on a g[0] x g[1] x g[2] grid (g[2] = 1 in 2D), unknown index x + g0*(y + g1*z).
 * lo[d] and hi[d] are the values to the lower and upper neighbour in direction d. Rows are
 * written in column order: -z, -y, -x, centre, +x, +y, +z.
 */
static int gen_stencil(bench_csr *m, const int64_t g[3], int dims, double diag, const double lo[3],
                       const double hi[3], char *err, size_t errlen)
{
  int64_t n = g[0] * g[1] * g[2];
  if (n > INT32_MAX) {
    snprintf(err, errlen, "%lld unknowns exceed the 32-bit column index", (long long)n);
    return 1;
  }
  /* nnz: every unknown has 2*dims+1 entries, less one per missing neighbour on each face. */
  int64_t nnz = (2 * dims + 1) * n;
  for (int d = 0; d < dims; d++) nnz -= 2 * (n / g[d]);
  if (alloc_csr(m, n, n, nnz, err, errlen)) return 1;
  const int64_t stride[3] = {1, g[0], g[0] * g[1]};
  int64_t *rp = m->rowptr;
  /* Row lengths, then their prefix sum. */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1])};
    int64_t len = 1;
    for (int d = 0; d < dims; d++) len += (c[d] > 0) + (c[d] < g[d] - 1);
    rp[i + 1] = len;
  }
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) rp[i + 1] += rp[i];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1])};
    int64_t k = rp[i];
    for (int d = dims - 1; d >= 0; d--)
      if (c[d] > 0) {
        m->colind[k] = (int32_t)(i - stride[d]);
        m->values[k++] = lo[d];
      }
    m->colind[k] = (int32_t)i;
    m->values[k++] = diag;
    for (int d = 0; d < dims; d++)
      if (c[d] < g[d] - 1) {
        m->colind[k] = (int32_t)(i + stride[d]);
        m->values[k++] = hi[d];
      }
  }
  return 0;
}

static int cmp_int32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The row's own random stream, independent of the thread that builds it. */
static uint64_t row_seed(uint64_t seed, int64_t i)
{
  uint64_t s = seed ^ ((uint64_t)i * 0xD1B54A32D192ED03ull);
  return sps_splitmix64_next(&s);
}

/* Row length with P(L >= k) = k^(1 - alpha), capped at cap. */
static int64_t powerlaw_length(uint64_t *s, double alpha, int64_t cap)
{
  double l = floor(pow(unit_open0(s), -1.0 / (alpha - 1.0)));
  return l >= (double)cap ? cap : (int64_t)l;
}

static int gen_powerlaw(bench_csr *m, int64_t n, double alpha, uint64_t seed, char *err,
                        size_t errlen)
{
  int64_t *cap = NULL;
  if (sps_host_alloc(NULL, (void **)&cap, (size_t)n + 1, sizeof *cap, "row capacity")) {
    snprintf(err, errlen, "cannot allocate %lld row lengths", (long long)n);
    return 1;
  }
  /* Pass 1: the drawn lengths, whose prefix sum bounds the storage. */
  cap[0] = 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    uint64_t s = row_seed(seed, i);
    cap[i + 1] = powerlaw_length(&s, alpha, n);
  }
  for (int64_t i = 0; i < n; i++) cap[i + 1] += cap[i];
  if (alloc_csr(m, n, n, cap[n], err, errlen)) {
    sps_host_free(cap);
    return 1;
  }
  int64_t *rp = m->rowptr;
  /* Pass 2: draw the same lengths again, then the columns; sort, merge duplicates, set values. */
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    uint64_t s = row_seed(seed, i);
    int64_t len = powerlaw_length(&s, alpha, n);
    int32_t *col = m->colind + cap[i];
    double *val = m->values + cap[i];
    col[0] = (int32_t)i;
    for (int64_t k = 1; k < len; k++) col[k] = (int32_t)(sps_splitmix64_next(&s) % (uint64_t)n);
    qsort(col, (size_t)len, sizeof *col, cmp_int32);
    int64_t kept = 0;
    for (int64_t k = 0; k < len; k++)
      if (kept == 0 || col[k] != col[kept - 1]) col[kept++] = col[k];
    double sum = 0.0;
    int64_t kdiag = 0;
    for (int64_t k = 0; k < kept; k++) {
      if (col[k] == (int32_t)i) {
        kdiag = k;
        continue;
      }
      val[k] = -(0.1 + 0.9 * (unit_open0(&s) - 0x1.0p-53));
      sum += -val[k];
    }
    val[kdiag] = 1.0 + sum;
    rp[i + 1] = kept;
  }
  /* Compact the rows in place (each moves left or stays). */
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = rp[i + 1];
    if (rp[i] != cap[i]) {
      memmove(m->colind + rp[i], m->colind + cap[i], (size_t)len * sizeof *m->colind);
      memmove(m->values + rp[i], m->values + cap[i], (size_t)len * sizeof *m->values);
    }
    rp[i + 1] = rp[i] + len;
  }
  sps_host_free(cap);
  return 0;
}

/*
 * The full box stencil on a g[0] x g[1] x g[2] grid: every neighbour within one step in each
 * direction (9 points in 2D, 27 in 3D); -1 off the diagonal, 3^dims - 1 on it (SPD). Rows are
 * written in column order (dz, dy, dx ascending).
 */
static int gen_box_stencil(bench_csr *m, const int64_t g[3], int dims, char *err, size_t errlen)
{
  const int64_t n = g[0] * g[1] * g[2];
  if (n > INT32_MAX) {
    snprintf(err, errlen, "%lld unknowns exceed the 32-bit column index", (long long)n);
    return 1;
  }
  /* nnz: the product over directions of the neighbours on a line, 3*g - 2 each. */
  int64_t nnz = 1;
  for (int d = 0; d < dims; d++) nnz *= 3 * g[d] - 2;
  if (alloc_csr(m, n, n, nnz, err, errlen)) return 1;
  int64_t *rp = m->rowptr;
  const int64_t zr = dims == 3 ? 1 : 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const int64_t c[3] = {i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1])};
    int64_t len = 1;
    for (int d = 0; d < dims; d++) len *= 1 + (c[d] > 0) + (c[d] < g[d] - 1);
    rp[i + 1] = len;
  }
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) rp[i + 1] += rp[i];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const int64_t c[3] = {i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1])};
    int64_t k = rp[i];
    for (int64_t dz = -zr; dz <= zr; dz++)
      for (int64_t dy = -1; dy <= 1; dy++)
        for (int64_t dx = -1; dx <= 1; dx++) {
          const int64_t x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
          if (x < 0 || x >= g[0] || y < 0 || y >= g[1] || z < 0 || z >= g[2]) continue;
          m->colind[k] = (int32_t)(x + g[0] * (y + g[1] * z));
          m->values[k++] = (dx | dy | dz) ? -1.0 : (dims == 3 ? 26.0 : 8.0);
        }
  }
  return 0;
}

/* The row laws of gen_rows: how long row i is and where its columns lie. */
typedef enum row_law {
  LAW_BANDED,    /* columns i-p .. i+p, all of them */
  LAW_BLOCKDIAG, /* the dense p x p diagonal block that holds row i */
  LAW_RANDOM,    /* the diagonal and p - 1 uniformly random columns */
  LAW_CIRCUIT    /* see gen.h: short local rows, q dense rows and columns */
} row_law;

typedef struct row_gen {
  row_law law;
  int64_t n, p, q;
  uint64_t seed;
} row_gen;

/* Row r of the q dense rows and columns of a circuit: the middles of q equal parts. */
static int64_t circuit_hub(const row_gen *g, int64_t t)
{
  return (2 * t + 1) * g->n / (2 * g->q);
}

static int circuit_is_hub(const row_gen *g, int64_t i)
{
  /* i is a hub when it is the middle of its part. */
  int64_t t = i * g->q / g->n;
  for (int64_t u = t > 0 ? t - 1 : 0; u <= t + 1 && u < g->q; u++)
    if (circuit_hub(g, u) == i) return 1;
  return 0;
}

/* An upper bound on row i's length (before duplicates are merged). */
static int64_t row_capacity(const row_gen *g, int64_t i, uint64_t *s)
{
  switch (g->law) {
  case LAW_BANDED: {
    const int64_t lo = i - g->p < 0 ? 0 : i - g->p, hi = i + g->p >= g->n ? g->n - 1 : i + g->p;
    return hi - lo + 1;
  }
  case LAW_BLOCKDIAG: {
    const int64_t b0 = i / g->p * g->p, b1 = b0 + g->p > g->n ? g->n : b0 + g->p;
    return b1 - b0;
  }
  case LAW_RANDOM:
    return g->p;
  case LAW_CIRCUIT:
    if (circuit_is_hub(g, i)) return g->n;
    /* 2 to 6 entries of its own, and the q dense columns. */
    return 2 + (int64_t)(sps_splitmix64_next(s) % 5) + g->q;
  }
  return 0;
}

/* Write row i's columns (at most its capacity, in any order, duplicates allowed). */
static int64_t row_columns(const row_gen *g, int64_t i, int64_t cap, uint64_t *s, int32_t *col)
{
  int64_t k = 0;
  switch (g->law) {
  case LAW_BANDED: {
    const int64_t lo = i - g->p < 0 ? 0 : i - g->p;
    for (; k < cap; k++) col[k] = (int32_t)(lo + k);
    return k;
  }
  case LAW_BLOCKDIAG: {
    const int64_t b0 = i / g->p * g->p;
    for (; k < cap; k++) col[k] = (int32_t)(b0 + k);
    return k;
  }
  case LAW_RANDOM:
    col[k++] = (int32_t)i;
    for (; k < cap; k++) col[k] = (int32_t)(sps_splitmix64_next(s) % (uint64_t)g->n);
    return k;
  case LAW_CIRCUIT:
    if (cap == g->n) {
      for (; k < cap; k++) col[k] = (int32_t)k;
      return k;
    }
    col[k++] = (int32_t)i;
    /* Own entries: alternately a near neighbour (within 64) and a uniformly random node. */
    for (int64_t e = 1; e < cap - g->q; e++) {
      int64_t c;
      if (e % 2) {
        c = i + (int64_t)(sps_splitmix64_next(s) % 129) - 64;
        c = c < 0 ? 0 : c >= g->n ? g->n - 1 : c;
      } else {
        c = (int64_t)(sps_splitmix64_next(s) % (uint64_t)g->n);
      }
      col[k++] = (int32_t)c;
    }
    for (int64_t t = 0; t < g->q; t++) col[k++] = (int32_t)circuit_hub(g, t);
    return k;
  }
  return 0;
}

/*
 * An n x n matrix row by row from a row law: capacities, then columns (sorted, duplicates
 * merged), values -u off the diagonal (u uniform in [0.1, 1)) and 1 + the sum of their
 * magnitudes on it (strictly diagonally dominant where the diagonal is stored), then the rows
 * compacted. Each row draws from its own splitmix64 stream, so the threads do not matter.
 */
static int gen_rows(bench_csr *m, const row_gen *g, char *err, size_t errlen)
{
  const int64_t n = g->n;
  int64_t *cap = NULL;
  if (sps_host_alloc(NULL, (void **)&cap, (size_t)n + 1, sizeof *cap, "row capacity")) {
    snprintf(err, errlen, "cannot allocate %lld row lengths", (long long)n);
    return 1;
  }
  cap[0] = 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    uint64_t s = row_seed(g->seed, i);
    cap[i + 1] = row_capacity(g, i, &s);
  }
  for (int64_t i = 0; i < n; i++) cap[i + 1] += cap[i];
  if (alloc_csr(m, n, n, cap[n], err, errlen)) {
    sps_host_free(cap);
    return 1;
  }
  int64_t *rp = m->rowptr;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t i = 0; i < n; i++) {
    uint64_t s = row_seed(g->seed, i);
    const int64_t c = row_capacity(g, i, &s);
    int32_t *col = m->colind + cap[i];
    double *val = m->values + cap[i];
    const int64_t len = row_columns(g, i, c, &s, col);
    if (g->law == LAW_RANDOM || g->law == LAW_CIRCUIT)
      qsort(col, (size_t)len, sizeof *col, cmp_int32);
    int64_t kept = 0;
    for (int64_t k = 0; k < len; k++)
      if (kept == 0 || col[k] != col[kept - 1]) col[kept++] = col[k];
    double sum = 0.0;
    int64_t kdiag = -1;
    for (int64_t k = 0; k < kept; k++) {
      if (col[k] == (int32_t)i) {
        kdiag = k;
        continue;
      }
      val[k] = -(0.1 + 0.9 * (unit_open0(&s) - 0x1.0p-53));
      sum += -val[k];
    }
    if (kdiag >= 0) val[kdiag] = 1.0 + sum;
    rp[i + 1] = kept;
  }
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t len = rp[i + 1];
    if (rp[i] != cap[i]) {
      memmove(m->colind + rp[i], m->colind + cap[i], (size_t)len * sizeof *m->colind);
      memmove(m->values + rp[i], m->values + cap[i], (size_t)len * sizeof *m->values);
    }
    rp[i + 1] = rp[i] + len;
  }
  sps_host_free(cap);
  return 0;
}

int bench_csr_rows(const int64_t *rowptr, const int32_t *colind, const double *values,
                   int64_t nrows, int64_t ncols, int64_t a, int64_t b, bench_csr *out, char *err,
                   size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (a < 0 || b <= a || b > nrows) {
    snprintf(err, errlen, "rows [%lld, %lld) are not a nonempty range of the %lld rows",
             (long long)a, (long long)b, (long long)nrows);
    return 1;
  }
  const int64_t base = rowptr[a], nnz = rowptr[b] - base;
  if (alloc_csr(out, b - a, ncols, nnz, err, errlen)) return 1;
  for (int64_t i = a; i <= b; i++) out->rowptr[i - a] = rowptr[i] - base;
  memcpy(out->colind, colind + base, (size_t)nnz * sizeof *colind);
  memcpy(out->values, values + base, (size_t)nnz * sizeof *values);
  out->symmetry = SPS_SYMMETRY_GENERAL;
  return 0;
}

/* Parse a positive integer field; returns nonzero on a bad one. */
static int parse_size(const char *s, int64_t *v)
{
  if (!s || !*s) return 1;
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno || *end || x <= 0) return 1;
  *v = x;
  return 0;
}

int bench_gen(const char *spec, bench_csr *out, char *err, size_t errlen)
{
  char buf[256];
  memset(out, 0, sizeof *out);
  if (strlen(spec) >= sizeof buf) {
    snprintf(err, errlen, "generator specification too long");
    return 1;
  }
  strcpy(buf, spec);
  char *f[4] = {NULL, NULL, NULL, NULL};
  int nf = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ":", &save); tok && nf < 4;
       tok = strtok_r(NULL, ":", &save))
    f[nf++] = tok;
  int64_t N;
  if (nf < 2 || parse_size(f[1], &N)) {
    snprintf(err, errlen, "'%s': expected KIND:N with N a positive integer", spec);
    return 1;
  }
  const double one[3] = {-1.0, -1.0, -1.0};
  if (strcmp(f[0], "poisson2d") == 0 && nf == 2) {
    const int64_t g[3] = {N, N, 1};
    out->symmetry = SPS_SYMMETRY_SYMMETRIC;
    if (N > 46340) {
      snprintf(err, errlen, "'%s': N*N exceeds the 32-bit column index", spec);
      return 1;
    }
    return gen_stencil(out, g, 2, 4.0, one, one, err, errlen);
  }
  if ((strcmp(f[0], "poisson3d") == 0 || strcmp(f[0], "convdiff3d") == 0) && nf == 2) {
    if (N > 1290) {
      snprintf(err, errlen, "'%s': N^3 exceeds the 32-bit column index", spec);
      return 1;
    }
    const int64_t g[3] = {N, N, N};
    if (f[0][0] == 'p') {
      out->symmetry = SPS_SYMMETRY_SYMMETRIC;
      return gen_stencil(out, g, 3, 6.0, one, one, err, errlen);
    }
    const double b[3] = {10.0, 5.0, 2.5};
    double h = 1.0 / (double)(N + 1), lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
      lo[d] = -1.0 - 0.5 * b[d] * h;
      hi[d] = -1.0 + 0.5 * b[d] * h;
    }
    out->symmetry = SPS_SYMMETRY_GENERAL;
    return gen_stencil(out, g, 3, 6.0, lo, hi, err, errlen);
  }
  if ((strcmp(f[0], "stencil2d9") == 0 || strcmp(f[0], "stencil3d27") == 0) && nf == 2) {
    const int three = f[0][7] == '3';
    if (three ? N > 1290 : N > 46340) {
      snprintf(err, errlen, "'%s': the grid exceeds the 32-bit column index", spec);
      return 1;
    }
    const int64_t g[3] = {N, N, three ? N : 1};
    out->symmetry = SPS_SYMMETRY_SYMMETRIC;
    return gen_box_stencil(out, g, three ? 3 : 2, err, errlen);
  }
  if ((strcmp(f[0], "banded") == 0 || strcmp(f[0], "blockdiag") == 0 ||
       strcmp(f[0], "random") == 0 || strcmp(f[0], "circuit") == 0) &&
      (nf == 3 || nf == 4)) {
    row_gen g = {.n = N, .seed = 1};
    int64_t p, seed = 1;
    if (parse_size(f[2], &p) || (nf == 4 && parse_size(f[3], &seed))) {
      snprintf(err, errlen, "'%s': expected %s:N:P[:seed] with positive integers", spec, f[0]);
      return 1;
    }
    if (N > INT32_MAX) {
      snprintf(err, errlen, "'%s': N exceeds the 32-bit column index", spec);
      return 1;
    }
    g.seed = (uint64_t)seed;
    g.p = p;
    out->symmetry = SPS_SYMMETRY_GENERAL;
    if (strcmp(f[0], "banded") == 0)
      g.law = LAW_BANDED;
    else if (strcmp(f[0], "blockdiag") == 0)
      g.law = LAW_BLOCKDIAG;
    else if (strcmp(f[0], "random") == 0)
      g.law = LAW_RANDOM;
    else
      g.law = LAW_CIRCUIT, g.q = p;
    if ((g.law == LAW_RANDOM || g.law == LAW_BLOCKDIAG || g.law == LAW_CIRCUIT) && p > N) {
      snprintf(err, errlen, "'%s': P may not exceed N", spec);
      return 1;
    }
    return gen_rows(out, &g, err, errlen);
  }
  if (strcmp(f[0], "powerlaw") == 0 && (nf == 3 || nf == 4)) {
    char *end;
    double alpha = strtod(f[2], &end);
    if (*end || !(alpha > 1.0) || !isfinite(alpha)) {
      snprintf(err, errlen, "'%s': the exponent alpha must be a number > 1", spec);
      return 1;
    }
    int64_t seed = 1;
    if (nf == 4 && parse_size(f[3], &seed)) {
      snprintf(err, errlen, "'%s': the seed must be a positive integer", spec);
      return 1;
    }
    if (N > INT32_MAX) {
      snprintf(err, errlen, "'%s': N exceeds the 32-bit column index", spec);
      return 1;
    }
    out->symmetry = SPS_SYMMETRY_GENERAL;
    return gen_powerlaw(out, N, alpha, (uint64_t)seed, err, errlen);
  }
  snprintf(err, errlen,
           "'%s': unknown generator (poisson2d:N, poisson3d:N, convdiff3d:N, stencil2d9:N, "
           "stencil3d27:N, powerlaw:N:alpha[:seed], banded:N:W[:seed], blockdiag:N:B[:seed], "
           "random:N:K[:seed], circuit:N:D[:seed])",
           spec);
  return 1;
}
