/* mm_read.c: sps_matrix_read_mm and sps_vector_read_mm, Matrix Market files (plain or gzip) into CSR matrices and dense vectors. */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "csr_assemble.h"
#include "mm_scan.h"

/*
 * Storage conventions of symmetric files. A `symmetric` file stores the lower triangle
 * (i >= j) and a `skew-symmetric` file the strict lower triangle (i > j), as the Matrix
 * Market definition says; an entry above the diagonal is refused rather than mirrored,
 * because a file that stores both triangles would otherwise be silently doubled. Each
 * off-diagonal a_ij is mirrored to a_ji = a_ij (symmetric) or a_ji = -a_ij (skew).
 */

/* COO triplets with 0-based indices. */
typedef struct coo {
  int32_t *i, *j;
  double *v;
  int64_t n, cap;
} coo;

/*
 * Large arrays are aligned to 2 MiB and marked for transparent huge pages where Linux
 * offers them: the first touch of fresh memory (page faults) otherwise costs more than
 * parsing the text. The memory is released with sps_host_free, like sps_host_alloc's.
 */
static sps_status big_alloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  const size_t huge = (size_t)2 << 20;
  if (size == 0 || count < (size_t)8 * huge / size || count > SIZE_MAX / size - huge)
    return sps_host_alloc(ctx, p, count, size, what);
  size_t bytes = (count * size + huge - 1) / huge * huge;
  SPS_CHECK(sps_host_alloc_aligned(ctx, p, huge, bytes, what));
#ifdef MADV_HUGEPAGE
  (void)madvise(*p, bytes, MADV_HUGEPAGE);
#endif
  return SPS_SUCCESS;
}

static void coo_free(coo *c)
{
  sps_host_free(c->i);
  sps_host_free(c->j);
  sps_host_free(c->v);
  memset(c, 0, sizeof *c);
}

/* Reallocate to hold cap triplets, keeping the first c->n. */
static sps_status coo_reserve(sps_context *ctx, coo *c, int64_t cap)
{
  coo d = {NULL, NULL, NULL, c->n, cap};
  sps_status st = SPS_SUCCESS;
  SPS_TRY(big_alloc(ctx, (void **)&d.i, (size_t)cap, sizeof *d.i, "Matrix Market row indices"));
  SPS_TRY(big_alloc(ctx, (void **)&d.j, (size_t)cap, sizeof *d.j, "Matrix Market column indices"));
  SPS_TRY(big_alloc(ctx, (void **)&d.v, (size_t)cap, sizeof *d.v, "Matrix Market values"));
  if (c->n) {
    memcpy(d.i, c->i, (size_t)c->n * sizeof *d.i);
    memcpy(d.j, c->j, (size_t)c->n * sizeof *d.j);
    memcpy(d.v, c->v, (size_t)c->n * sizeof *d.v);
  }
  coo_free(c);
  *c = d;
  return SPS_SUCCESS;
cleanup:
  coo_free(&d);
  return st;
}

/* Entries reserved before any is read; more are added by doubling as they arrive. */
#define MM_INITIAL_CAP (INT64_C(1) << 26)

static const char *symm_name(sps_mm_symm s)
{
  return s == SPS_MM_SYMMETRIC ? "symmetric" : s == SPS_MM_SKEW ? "skew-symmetric" : "general";
}

/* Read the coordinate entries of a matrix file into c (0-based), checking every line. */
static sps_status read_entries(sps_mm_reader *r, const sps_mm_header *h, unsigned flags, coo *c)
{
  sps_context *ctx = r->ctx;
  const int64_t m = h->nrows, n = h->ncols, declared = h->nnz;
  int64_t k = 0;
  for (;;) {
    if (r->cur == r->end) {
      SPS_CHECK(sps_mm_refill(r));
      if (r->cur == r->end) break;
    }
    const char *p = r->cur, *end = r->end;
    int64_t line = r->line + 1;
    while (p < end) {
      sps_mm_entry e;
      int blank;
      const char *q = sps_mm_parse_line(r, h, p, line, flags, &e, &blank);
      if (!q) return SPS_ERR_IO;
      if (!blank) {
        if (k == declared)
          return sps_mm_error(r, SPS_ERR_IO, line,
                              "more entries than the %lld declared on line %lld",
                              (long long)declared, (long long)h->size_line);
        if (e.i < 1 || e.i > m)
          return sps_mm_error(r, SPS_ERR_IO, line, "row index %lld is outside 1..%lld",
                              (long long)e.i, (long long)m);
        if (e.j < 1 || e.j > n)
          return sps_mm_error(r, SPS_ERR_IO, line, "column index %lld is outside 1..%lld",
                              (long long)e.j, (long long)n);
        if (h->symm != SPS_MM_GENERAL) {
          if (e.j > e.i)
            return sps_mm_error(r, SPS_ERR_IO, line,
                                "entry (%lld, %lld) lies above the diagonal; a %s file stores "
                                "the lower triangle only",
                                (long long)e.i, (long long)e.j, symm_name(h->symm));
          if (e.j == e.i && h->symm == SPS_MM_SKEW)
            return sps_mm_error(r, SPS_ERR_IO, line,
                                "diagonal entry (%lld, %lld) in a skew-symmetric file, whose "
                                "diagonal is zero",
                                (long long)e.i, (long long)e.j);
        }
        if (k == c->cap) {
          int64_t cap = c->cap > declared / 2 ? declared : 2 * c->cap;
          c->n = k;
          SPS_CHECK(coo_reserve(ctx, c, cap));
        }
        c->i[k] = (int32_t)(e.i - 1);
        c->j[k] = (int32_t)(e.j - 1);
        c->v[k] = e.v;
        k++;
      }
      p = q;
      line++;
    }
    r->cur = r->end;
    r->line = line - 1;
  }
  c->n = k;
  if (k < declared)
    return sps_mm_error(r, SPS_ERR_IO, r->line + 1,
                        "the file ends after %lld of the %lld entries declared on line %lld",
                        (long long)k, (long long)declared, (long long)h->size_line);
  return SPS_SUCCESS;
}

/*
 * Canonical CSR from the file's entries c, adding the mirror of each off-diagonal entry
 * (value times mirror_sign) when mirror_sign is not 0. All original entries are placed
 * before the mirrors, so a lower triangle stored column by column (the usual order) gives
 * rows that are already sorted and canonicalisation only checks them.
 */
static sps_status coo_to_csr(sps_context *ctx, int64_t nrows, const coo *c, double mirror_sign,
                             int64_t **rowptr_out, int32_t **colind_out, double **values_out)
{
  int64_t *rowptr = NULL;
  int32_t *colind = NULL;
  double *values = NULL;
  sps_status st = SPS_SUCCESS;
  const int64_t n = c->n;
  SPS_TRY(big_alloc(ctx, (void **)&rowptr, (size_t)nrows + 1, sizeof *rowptr, "CSR row offsets"));
  memset(rowptr, 0, ((size_t)nrows + 1) * sizeof *rowptr);
  /* rowptr[i + 1] <- entries of row i */
  int64_t total = n;
  for (int64_t k = 0; k < n; k++) rowptr[c->i[k] + 1]++;
  if (mirror_sign != 0.0)
    for (int64_t k = 0; k < n; k++)
      if (c->i[k] != c->j[k]) {
        rowptr[c->j[k] + 1]++;
        total++;
      }
  SPS_TRY(big_alloc(ctx, (void **)&colind, (size_t)total, sizeof *colind, "CSR column indices"));
  SPS_TRY(big_alloc(ctx, (void **)&values, (size_t)total, sizeof *values, "CSR values"));
  /* rowptr[i] <- start of row i, advanced as entries are placed, so it ends at row i + 1 */
  int64_t sum = 0;
  for (int64_t i = 0; i < nrows; i++) {
    int64_t len = rowptr[i + 1];
    rowptr[i] = sum;
    sum += len;
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t p = rowptr[c->i[k]]++;
    colind[p] = c->j[k];
    values[p] = c->v[k];
  }
  if (mirror_sign != 0.0)
    for (int64_t k = 0; k < n; k++)
      if (c->i[k] != c->j[k]) {
        int64_t p = rowptr[c->j[k]]++;
        colind[p] = c->i[k];
        values[p] = mirror_sign * c->v[k];
      }
  for (int64_t i = nrows; i > 0; i--) rowptr[i] = rowptr[i - 1];
  rowptr[0] = 0;
  int64_t nnz;
  SPS_TRY(sps_csr_canonicalize(ctx, nrows, rowptr, colind, values, &nnz));
  *rowptr_out = rowptr;
  *colind_out = colind;
  *values_out = values;
  return SPS_SUCCESS;
cleanup:
  sps_host_free(rowptr);
  sps_host_free(colind);
  sps_host_free(values);
  return st;
}

sps_status sps_matrix_read_mm(sps_context *ctx, sps_matrix **A, const char *path, unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, A, "A");
  *A = NULL;
  SPS_CHECK_ARG(ctx, path, "path");
  sps_mm_reader r;
  sps_mm_header h;
  coo c = {NULL, NULL, NULL, 0, 0};
  int64_t *rowptr = NULL;
  int32_t *colind = NULL;
  double *values = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_mm_open(ctx, &r, path));
  SPS_TRY(sps_mm_read_header(&r, &h));
  if (h.field == SPS_MM_COMPLEX || h.symm == SPS_MM_HERMITIAN)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "%s:1: complex and hermitian matrices are not supported (real only)", path);
  if (h.format == SPS_MM_ARRAY)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "%s:1: dense `array` matrices are not supported; use the coordinate format", path);
  if (h.nrows > INT32_MAX || h.ncols > INT32_MAX)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE,
                 "%s:%lld: %lld x %lld exceeds the 32-bit index limit of %d rows and columns",
                 path, (long long)h.size_line, (long long)h.nrows, (long long)h.ncols, INT32_MAX);

  SPS_TRY(coo_reserve(ctx, &c, h.nnz < MM_INITIAL_CAP ? h.nnz : MM_INITIAL_CAP));
  SPS_TRY(read_entries(&r, &h, flags, &c));
  sps_mm_close(&r);
  const double mirror_sign = h.symm == SPS_MM_SYMMETRIC ? 1.0 : h.symm == SPS_MM_SKEW ? -1.0 : 0.0;
  SPS_TRY(coo_to_csr(ctx, h.nrows, &c, mirror_sign, &rowptr, &colind, &values));
  coo_free(&c);
  sps_symmetry sym = h.symm == SPS_MM_SYMMETRIC ? SPS_SYMMETRY_SYMMETRIC
                     : h.symm == SPS_MM_SKEW    ? SPS_SYMMETRY_SKEW
                                                : SPS_SYMMETRY_GENERAL;
  /* sps_matrix_adopt_csr owns the arrays from here, and frees them if it fails. */
  return sps_matrix_adopt_csr(ctx, A, h.nrows, h.ncols, rowptr, colind, values, sym);
cleanup:
  sps_mm_close(&r);
  coo_free(&c);
  sps_host_free(rowptr);
  sps_host_free(colind);
  sps_host_free(values);
  return st;
}

sps_status sps_vector_read_mm(sps_context *ctx, sps_vector **v, const char *path, unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, v, "v");
  *v = NULL;
  SPS_CHECK_ARG(ctx, path, "path");
  sps_mm_reader r;
  sps_mm_header h;
  double *x = NULL;
  sps_vector *out = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_mm_open(ctx, &r, path));
  SPS_TRY(sps_mm_read_header(&r, &h));
  if (h.field == SPS_MM_COMPLEX || h.symm == SPS_MM_HERMITIAN)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "%s:1: complex vectors are not supported (real only)", path);
  if (h.field == SPS_MM_PATTERN)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED, "%s:1: a pattern file has no values to read as a vector",
                 path);
  if (h.symm != SPS_MM_GENERAL)
    SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s:1: a vector file must be general, not %s", path,
                 symm_name(h.symm));
  if (h.ncols != 1)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: a vector file has one column, this one has %lld",
                 path, (long long)h.size_line, (long long)h.ncols);
  SPS_TRY(sps_host_calloc(ctx, (void **)&x, (size_t)h.nrows, sizeof *x, "vector values"));
  int64_t k = 0;
  for (;;) {
    if (r.cur == r.end) {
      SPS_TRY(sps_mm_refill(&r));
      if (r.cur == r.end) break;
    }
    const char *p = r.cur;
    int64_t line = r.line + 1;
    while (p < r.end) {
      sps_mm_entry e;
      int blank;
      const char *q = sps_mm_parse_line(&r, &h, p, line, flags, &e, &blank);
      if (!q) SPS_TRY(SPS_ERR_IO);
      if (!blank) {
        if (k == h.nnz)
          SPS_TRY(sps_mm_error(&r, SPS_ERR_IO, line,
                               "more entries than the %lld declared on line %lld",
                               (long long)h.nnz, (long long)h.size_line));
        if (h.format == SPS_MM_ARRAY) {
          x[k] = e.v;
        } else {
          if (e.i < 1 || e.i > h.nrows)
            SPS_TRY(sps_mm_error(&r, SPS_ERR_IO, line, "row index %lld is outside 1..%lld",
                                 (long long)e.i, (long long)h.nrows));
          if (e.j != 1)
            SPS_TRY(sps_mm_error(&r, SPS_ERR_IO, line, "column index %lld is outside 1..1",
                                 (long long)e.j));
          x[e.i - 1] += e.v;
        }
        k++;
      }
      p = q;
      line++;
    }
    r.cur = r.end;
    r.line = line - 1;
  }
  if (k < h.nnz)
    SPS_TRY(sps_mm_error(&r, SPS_ERR_IO, r.line + 1,
                         "the file ends after %lld of the %lld entries declared on line %lld",
                         (long long)k, (long long)h.nnz, (long long)h.size_line));
  SPS_TRY(sps_vector_create(ctx, &out, h.nrows));
  SPS_TRY(sps_vector_upload(out, x, h.nrows));
  *v = out;
  out = NULL;
cleanup:
  sps_mm_close(&r);
  sps_host_free(x);
  sps_vector_destroy(&out);
  return st;
}
