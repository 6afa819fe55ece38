/* mm_read.c: sps_matrix_read_mm, sps_vector_read_mm and sps_multivector_read_mm (files and memory buffers, plain or compressed) into CSR matrices, dense vectors and multivectors. */
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

/*
 * Memory follows the entries read, never the counts a file declares: the triplets are kept
 * in chunks allocated as entries arrive (each at most as large as everything before it, so
 * the memory is at most twice what was read, and nothing is copied), and the arrays sized
 * by the row count are allocated only once every entry has been read and checked.
 */

/* One chunk of COO triplets with 0-based indices; i, j and v share one allocation, mem. */
typedef struct coo_chunk {
  int32_t *i, *j;
  double *v;
  void *mem;
  int64_t n; /* triplets stored */
  struct coo_chunk *next;
} coo_chunk;

/* COO triplets in chunks; cap is the room in the last chunk. */
typedef struct coo {
  coo_chunk *head, *tail;
  int64_t n, cap;
} coo;

/*
 * The first chunk's triplets, and the largest chunk's (16 bytes a triplet: from 2^17 on, a
 * chunk is a whole number of 2 MiB huge pages).
 */
#define MM_CHUNK_MIN (INT64_C(1) << 12)
#define MM_CHUNK_MAX (INT64_C(1) << 21)

/*
 * Large arrays are aligned to 2 MiB and marked for transparent huge pages where Linux
 * offers them: the first touch of fresh memory (page faults) otherwise costs more than
 * parsing the text. The memory is released with sps_host_free, like sps_host_alloc's.
 */
static sps_status big_alloc(sps_context *ctx, void **p, size_t count, size_t size, const char *what)
{
  const size_t huge = (size_t)2 << 20;
  /* Huge pages from 16 MiB, or from 2 MiB for a whole number of them (the entry chunks). */
  if (size == 0 || count > SIZE_MAX / size - huge ||
      (count < (size_t)8 * huge / size && (count * size < huge || count * size % huge != 0)))
    return sps_host_alloc(ctx, p, count, size, what);
  size_t bytes = (count * size + huge - 1) / huge * huge;
  SPS_CHECK(sps_host_alloc_aligned(ctx, p, huge, bytes, what));
#ifdef MADV_HUGEPAGE
  (void)madvise(*p, bytes, MADV_HUGEPAGE);
#endif
  return SPS_SUCCESS;
}

static void chunk_free(coo_chunk *k)
{
  if (!k) return;
  sps_host_free(k->mem);
  sps_host_free(k);
}

static void coo_free(coo *c)
{
  for (coo_chunk *k = c->head, *next; k; k = next) {
    next = k->next;
    chunk_free(k);
  }
  memset(c, 0, sizeof *c);
}

/*
 * Append a chunk for the next triplets: as many as were read so far (at least
 * MM_CHUNK_MIN, at most MM_CHUNK_MAX), and never more than the @p left the file declares.
 */
static sps_status coo_grow(sps_context *ctx, coo *c, int64_t left)
{
  int64_t cap = c->n < MM_CHUNK_MIN ? MM_CHUNK_MIN : c->n > MM_CHUNK_MAX ? MM_CHUNK_MAX : c->n;
  if (cap > left) cap = left;
  if (cap < 1) cap = 1;
  coo_chunk *k = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_calloc(ctx, (void **)&k, 1, sizeof *k, "Matrix Market entries"));
  /* v first (8-byte aligned), then i and j. */
  const size_t triplet = sizeof *k->v + sizeof *k->i + sizeof *k->j;
  SPS_TRY(big_alloc(ctx, &k->mem, (size_t)cap, triplet, "Matrix Market entries"));
  k->v = (double *)k->mem;
  k->i = (int32_t *)(k->v + cap);
  k->j = k->i + cap;
  if (c->tail)
    c->tail->next = k;
  else
    c->head = k;
  c->tail = k;
  c->cap = cap;
  return SPS_SUCCESS;
cleanup:
  chunk_free(k);
  return st;
}

/*
 * The row count the entries must justify before arrays of that many rows are allocated:
 * above MM_SPARSE_ROWS rows, a file must declare at least one entry per MM_ROWS_PER_ENTRY
 * rows. A matrix with fewer has at least seven empty rows in eight (a structurally singular
 * system), and from a small file it is far more likely a corrupt size line; reading it would
 * cost the memory of every row (16 GB for 2e9 rows) however few entries the file holds.
 */
#define MM_SPARSE_ROWS (INT64_C(1) << 24)
#define MM_ROWS_PER_ENTRY 8

static sps_status check_rows_justified(sps_mm_reader *r, const sps_mm_header *h, const char *what)
{
  if (h->nrows > MM_SPARSE_ROWS && h->nrows / MM_ROWS_PER_ENTRY > h->nnz)
    return sps_mm_error(r, SPS_ERR_SIZE, h->size_line,
                        "%lld rows but only %lld entries declared: more than %lld rows need at "
                        "least one entry per %d rows, since the %s would take %lld MB for "
                        "mostly empty rows (a corrupt size line?)",
                        (long long)h->nrows, (long long)h->nnz, (long long)MM_SPARSE_ROWS,
                        MM_ROWS_PER_ENTRY, what, (long long)(h->nrows / 125000));
  return SPS_SUCCESS;
}

static const char *symm_name(sps_mm_symm s)
{
  return s == SPS_MM_SYMMETRIC ? "symmetric" : s == SPS_MM_SKEW ? "skew-symmetric" : "general";
}

/* Where the next triplets go: the last chunk's arrays, its fill and its room. */
typedef struct coo_cursor {
  int32_t *i, *j;
  double *v;
  int64_t fill, cap;
} coo_cursor;

/* Start a new chunk for the k-th triplet and onwards (the last one is full). */
static sps_status coo_next_chunk(sps_context *ctx, coo *c, coo_cursor *w, int64_t k,
                                 int64_t declared)
{
  if (c->tail) c->tail->n = w->fill;
  c->n = k;
  SPS_CHECK(coo_grow(ctx, c, declared - k));
  w->i = c->tail->i;
  w->j = c->tail->j;
  w->v = c->tail->v;
  w->fill = 0;
  w->cap = c->cap;
  return SPS_SUCCESS;
}

/* Close the last chunk after k triplets. */
static void coo_finish(coo *c, const coo_cursor *w, int64_t k)
{
  if (c->tail) c->tail->n = w->fill;
  c->n = k;
}

/* Which entries a reader keeps: those of rows [lo, hi), and with mirror those of columns
 * [lo, hi) too (their mirror falls in the rows); NULL keeps all. */
typedef struct mm_filter {
  int64_t lo, hi;
  int mirror;
} mm_filter;

/* Read the coordinate entries of a matrix file into c (0-based), checking every line; with
 * a filter, every line is checked and only the entries it keeps are stored. */
static sps_status read_entries(sps_mm_reader *r, const sps_mm_header *h, unsigned flags,
                               const mm_filter *f, coo *c)
{
  sps_context *ctx = r->ctx;
  const int64_t m = h->nrows, n = h->ncols, declared = h->nnz;
  int64_t k = 0, kept = 0;
  coo_cursor w = {NULL, NULL, NULL, 0, 0};
  sps_status st = SPS_SUCCESS;
  for (;;) {
    if (r->cur == r->end) {
      SPS_TRY(sps_mm_refill(r));
      if (r->cur == r->end) break;
    }
    const char *p = r->cur, *end = r->end;
    int64_t line = r->line + 1;
    while (p < end) {
      sps_mm_entry e;
      int blank;
      const char *q = sps_mm_parse_line(r, h, p, line, flags, &e, &blank);
      if (!q) SPS_TRY(SPS_ERR_IO);
      if (!blank) {
        if (k == declared)
          SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line,
                               "more entries than the %lld declared on line %lld",
                               (long long)declared, (long long)h->size_line));
        if (e.i < 1 || e.i > m)
          SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line, "row index %lld is outside 1..%lld",
                               (long long)e.i, (long long)m));
        if (e.j < 1 || e.j > n)
          SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line, "column index %lld is outside 1..%lld",
                               (long long)e.j, (long long)n));
        if (h->symm != SPS_MM_GENERAL) {
          if (e.j > e.i)
            SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line,
                                 "entry (%lld, %lld) lies above the diagonal; a %s file stores "
                                 "the lower triangle only",
                                 (long long)e.i, (long long)e.j, symm_name(h->symm)));
          if (e.j == e.i && h->symm == SPS_MM_SKEW)
            SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line,
                                 "diagonal entry (%lld, %lld) in a skew-symmetric file, whose "
                                 "diagonal is zero",
                                 (long long)e.i, (long long)e.j));
        }
        k++;
        if (!f || (e.i - 1 >= f->lo && e.i - 1 < f->hi) ||
            (f->mirror && e.j - 1 >= f->lo && e.j - 1 < f->hi)) {
          /* the chunks are sized by what is left to read at most */
          if (w.fill == w.cap) SPS_TRY(coo_next_chunk(ctx, c, &w, kept, kept + declared - k + 1));
          w.i[w.fill] = (int32_t)(e.i - 1);
          w.j[w.fill] = (int32_t)(e.j - 1);
          w.v[w.fill] = e.v;
          w.fill++;
          kept++;
        }
      }
      p = q;
      line++;
    }
    r->cur = r->end;
    r->line = line - 1;
  }
  if (k < declared)
    SPS_TRY(sps_mm_error(r, SPS_ERR_IO, r->line + 1,
                         "the file ends after %lld of the %lld entries declared on line %lld",
                         (long long)k, (long long)declared, (long long)h->size_line));
cleanup:
  coo_finish(c, &w, kept);
  return st;
}

/* Every triplet of c, chunk by chunk: BODY sees ci, cj, cv (the triplet's row, column, value). */
#define COO_FOR_EACH(c, BODY)                                                              \
  for (const coo_chunk *q_ = (c)->head; q_; q_ = q_->next)                                 \
    for (int64_t t_ = 0; t_ < q_->n; t_++) {                                               \
      const int32_t ci = q_->i[t_], cj = q_->j[t_];                                        \
      const double cv = q_->v[t_];                                                         \
      (void)cj;                                                                            \
      (void)cv;                                                                            \
      BODY                                                                                 \
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
  SPS_TRY(big_alloc(ctx, (void **)&rowptr, (size_t)nrows + 1, sizeof *rowptr, "CSR row offsets"));
  memset(rowptr, 0, ((size_t)nrows + 1) * sizeof *rowptr);
  /* rowptr[i + 1] <- entries of row i */
  int64_t total = c->n;
  COO_FOR_EACH(c, rowptr[ci + 1]++;)
  if (mirror_sign != 0.0) COO_FOR_EACH(c, if (ci != cj) {
      rowptr[cj + 1]++;
      total++;
    })
  SPS_TRY(big_alloc(ctx, (void **)&colind, (size_t)total, sizeof *colind, "CSR column indices"));
  SPS_TRY(big_alloc(ctx, (void **)&values, (size_t)total, sizeof *values, "CSR values"));
  /* rowptr[i] <- start of row i, advanced as entries are placed, so it ends at row i + 1 */
  int64_t sum = 0;
  for (int64_t i = 0; i < nrows; i++) {
    int64_t len = rowptr[i + 1];
    rowptr[i] = sum;
    sum += len;
  }
  COO_FOR_EACH(c, {
    int64_t p = rowptr[ci]++;
    colind[p] = cj;
    values[p] = cv;
  })
  if (mirror_sign != 0.0) COO_FOR_EACH(c, if (ci != cj) {
      int64_t p = rowptr[cj]++;
      colind[p] = ci;
      values[p] = mirror_sign * cv;
    })
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

/* Read a matrix from an opened reader, which is closed before returning. */
static sps_status read_matrix(sps_context *ctx, sps_matrix **A, sps_mm_reader *r, unsigned flags)
{
  sps_mm_header h;
  coo c = {NULL, NULL, 0, 0};
  int64_t *rowptr = NULL;
  int32_t *colind = NULL;
  double *values = NULL;
  sps_status st = SPS_SUCCESS;
  const char *path = r->path;
  SPS_TRY(sps_mm_read_header(r, &h));
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
  SPS_TRY(check_rows_justified(r, &h, "row offsets"));
  SPS_TRY(read_entries(r, &h, flags, NULL, &c));
  sps_mm_close(r);
  const double mirror_sign = h.symm == SPS_MM_SYMMETRIC ? 1.0 : h.symm == SPS_MM_SKEW ? -1.0 : 0.0;
  SPS_TRY(coo_to_csr(ctx, h.nrows, &c, mirror_sign, &rowptr, &colind, &values));
  coo_free(&c);
  sps_symmetry sym = h.symm == SPS_MM_SYMMETRIC ? SPS_SYMMETRY_SYMMETRIC
                     : h.symm == SPS_MM_SKEW    ? SPS_SYMMETRY_SKEW
                                                : SPS_SYMMETRY_GENERAL;
  /* sps_matrix_adopt_csr owns the arrays from here, and frees them if it fails. */
  return sps_matrix_adopt_csr(ctx, A, h.nrows, h.ncols, rowptr, colind, values, sym);
cleanup:
  sps_mm_close(r);
  coo_free(&c);
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
  SPS_CHECK(sps_mm_open(ctx, &r, path));
  return read_matrix(ctx, A, &r, flags);
}

sps_status sps_matrix_read_mm_buffer(sps_context *ctx, sps_matrix **A, const void *data,
                                     size_t size, const char *name, unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, A, "A");
  *A = NULL;
  SPS_CHECK_ARG(ctx, data || size == 0, "data");
  sps_mm_reader r;
  SPS_CHECK(sps_mm_open_buffer(ctx, &r, data, size, name));
  return read_matrix(ctx, A, &r, flags);
}

/*
 * Read a dense array from an opened reader, which is closed before returning: one column (a
 * vector) unless `multi`, else n x k (a multivector). *x gets the n*k values column-major
 * (allocated here), *nrows and *ncols the sizes. An `array` file lists the values column by
 * column, a coordinate one gives (row, column, value) triplets, duplicates summed.
 */
static sps_status read_dense(sps_context *ctx, sps_mm_reader *r, unsigned flags, int multi,
                             double **xout, int64_t *nrows, int64_t *ncols)
{
  sps_mm_header h;
  coo c = {NULL, NULL, 0, 0};
  coo_cursor w = {NULL, NULL, NULL, 0, 0};
  double *x = NULL;
  sps_status st = SPS_SUCCESS;
  const char *path = r->path;
  const char *what = multi ? "multivector" : "vector";
  int64_t k = 0;
  *xout = NULL;
  SPS_TRY(sps_mm_read_header(r, &h));
  if (h.field == SPS_MM_COMPLEX || h.symm == SPS_MM_HERMITIAN)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED,
                 "%s:1: complex %ss are not supported (real only)", path, what);
  if (h.field == SPS_MM_PATTERN)
    SPS_TRY_FAIL(ctx, SPS_ERR_UNSUPPORTED, "%s:1: a pattern file has no values to read as a %s",
                 path, what);
  if (h.symm != SPS_MM_GENERAL)
    SPS_TRY_FAIL(ctx, SPS_ERR_IO, "%s:1: a %s file must be general, not %s", path, what,
                 symm_name(h.symm));
  if (!multi && h.ncols != 1)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: a vector file has one column, this one has %lld",
                 path, (long long)h.size_line, (long long)h.ncols);
  if (multi && h.ncols < 1)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: a multivector file has at least one column, this "
                 "one has none", path, (long long)h.size_line);
  if (h.nrows > INT32_MAX || h.ncols > INT32_MAX)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: %lld x %lld values exceed the 32-bit index limit of %d",
                 path, (long long)h.size_line, (long long)h.nrows, (long long)h.ncols, INT32_MAX);
  if (h.ncols > 0 && h.nrows > INT64_MAX / 8 / h.ncols)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: %lld x %lld values are too many", path,
                 (long long)h.size_line, (long long)h.nrows, (long long)h.ncols);
  if (h.format == SPS_MM_COORDINATE) {
    /* the values of every row and column are allocated: the entries must justify them */
    sps_mm_header all = h;
    all.nrows = h.nrows * h.ncols;
    SPS_TRY(check_rows_justified(r, &all, what));
  }
  /* The values (array) or the triplets (coordinate), kept until the file is read. */
  for (;;) {
    if (r->cur == r->end) {
      SPS_TRY(sps_mm_refill(r));
      if (r->cur == r->end) break;
    }
    const char *p = r->cur;
    int64_t line = r->line + 1;
    while (p < r->end) {
      sps_mm_entry e;
      int blank;
      const char *q = sps_mm_parse_line(r, &h, p, line, flags, &e, &blank);
      if (!q) SPS_TRY(SPS_ERR_IO);
      if (!blank) {
        if (k == h.nnz)
          SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line,
                               "more entries than the %lld declared on line %lld",
                               (long long)h.nnz, (long long)h.size_line));
        if (h.format == SPS_MM_COORDINATE) {
          if (e.i < 1 || e.i > h.nrows)
            SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line, "row index %lld is outside 1..%lld",
                                 (long long)e.i, (long long)h.nrows));
          if (e.j < 1 || e.j > h.ncols)
            SPS_TRY(sps_mm_error(r, SPS_ERR_IO, line, "column index %lld is outside 1..%lld",
                                 (long long)e.j, (long long)h.ncols));
        } else {
          /* an array lists column 1, then column 2, ... */
          e.i = k % h.nrows + 1;
          e.j = k / h.nrows + 1;
        }
        if (w.fill == w.cap) SPS_TRY(coo_next_chunk(ctx, &c, &w, k, h.nnz));
        w.i[w.fill] = (int32_t)(e.i - 1);
        w.j[w.fill] = (int32_t)(e.j - 1);
        w.v[w.fill] = e.v;
        w.fill++;
        k++;
      }
      p = q;
      line++;
    }
    r->cur = r->end;
    r->line = line - 1;
  }
  coo_finish(&c, &w, k);
  if (k < h.nnz)
    SPS_TRY(sps_mm_error(r, SPS_ERR_IO, r->line + 1,
                         "the file ends after %lld of the %lld entries declared on line %lld",
                         (long long)k, (long long)h.nnz, (long long)h.size_line));
  sps_mm_close(r);
  SPS_TRY(sps_host_calloc(ctx, (void **)&x, (size_t)(h.nrows * h.ncols), sizeof *x,
                          multi ? "multivector values" : "vector values"));
  if (h.format == SPS_MM_ARRAY)
    COO_FOR_EACH(&c, x[(int64_t)cj * h.nrows + ci] = cv;) /* as written, -0 included */
  else
    COO_FOR_EACH(&c, x[(int64_t)cj * h.nrows + ci] += cv;) /* duplicates are summed */
  coo_free(&c);
  *xout = x;
  x = NULL;
  *nrows = h.nrows;
  *ncols = h.ncols;
cleanup:
  coo_finish(&c, &w, k);
  sps_mm_close(r);
  coo_free(&c);
  sps_host_free(x);
  return st;
}

/* Read a vector from an opened reader, which is closed before returning. */
static sps_status read_vector(sps_context *ctx, sps_vector **v, sps_mm_reader *r, unsigned flags)
{
  double *x = NULL;
  int64_t n, k;
  sps_vector *out = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(read_dense(ctx, r, flags, 0, &x, &n, &k));
  SPS_TRY(sps_vector_create(ctx, &out, n));
  SPS_TRY(sps_vector_upload(out, x, n));
  *v = out;
  out = NULL;
cleanup:
  sps_host_free(x);
  sps_vector_destroy(&out);
  return st;
}

/* Read a multivector from an opened reader, which is closed before returning. */
static sps_status read_multivector(sps_context *ctx, sps_multivector **X, sps_mm_reader *r,
                                   unsigned flags)
{
  double *x = NULL;
  int64_t n, k;
  sps_multivector *out = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(read_dense(ctx, r, flags, 1, &x, &n, &k));
  SPS_TRY(sps_multivector_create(ctx, &out, n, k));
  SPS_TRY(sps_multivector_upload(out, x, n, k));
  *X = out;
  out = NULL;
cleanup:
  sps_host_free(x);
  sps_multivector_destroy(&out);
  return st;
}

sps_status sps_multivector_read_mm(sps_context *ctx, sps_multivector **X, const char *path,
                                   unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, X, "X");
  *X = NULL;
  SPS_CHECK_ARG(ctx, path, "path");
  sps_mm_reader r;
  SPS_CHECK(sps_mm_open(ctx, &r, path));
  return read_multivector(ctx, X, &r, flags);
}

sps_status sps_vector_read_mm(sps_context *ctx, sps_vector **v, const char *path, unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, v, "v");
  *v = NULL;
  SPS_CHECK_ARG(ctx, path, "path");
  sps_mm_reader r;
  SPS_CHECK(sps_mm_open(ctx, &r, path));
  return read_vector(ctx, v, &r, flags);
}

sps_status sps_vector_read_mm_buffer(sps_context *ctx, sps_vector **v, const void *data,
                                     size_t size, const char *name, unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, v, "v");
  *v = NULL;
  SPS_CHECK_ARG(ctx, data || size == 0, "data");
  sps_mm_reader r;
  SPS_CHECK(sps_mm_open_buffer(ctx, &r, data, size, name));
  return read_vector(ctx, v, &r, flags);
}

sps_status sps_mm_read_rows(sps_context *ctx, const char *path, unsigned flags, int nparts,
                            int part, sps_mm_rows *out)
{
  sps_mm_reader r;
  sps_mm_header h;
  coo c = {NULL, NULL, 0, 0};
  sps_status st = SPS_SUCCESS;
  memset(out, 0, sizeof *out);
  SPS_CHECK(sps_mm_open(ctx, &r, path));
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
  if (h.nrows != h.ncols)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%s:%lld: A is %lld x %lld: a distributed matrix is square",
                 path, (long long)h.size_line, (long long)h.nrows, (long long)h.ncols);
  SPS_TRY(check_rows_justified(&r, &h, "row offsets"));
  const int64_t lo = (int64_t)part * h.nrows / nparts, hi = (int64_t)(part + 1) * h.nrows / nparts;
  const mm_filter f = {lo, hi, h.symm != SPS_MM_GENERAL};
  SPS_TRY(read_entries(&r, &h, flags, &f, &c));
  sps_mm_close(&r);
  const double mirror_sign = h.symm == SPS_MM_SYMMETRIC ? 1.0 : h.symm == SPS_MM_SKEW ? -1.0 : 0.0;
  const int64_t n = hi - lo;
  out->nrows = h.nrows;
  out->ncols = h.ncols;
  out->symmetry = h.symm == SPS_MM_SYMMETRIC ? SPS_SYMMETRY_SYMMETRIC
                  : h.symm == SPS_MM_SKEW    ? SPS_SYMMETRY_SKEW
                                             : SPS_SYMMETRY_GENERAL;
  out->first = lo;
  out->n = n;
  SPS_TRY(sps_host_calloc(ctx, (void **)&out->rowptr, (size_t)n + 1, sizeof *out->rowptr,
                          "row offsets of the rank's rows"));
  /* rowptr[i + 1] <- entries of local row i: the kept entries of the rows, and the mirrors
   * of those of the columns */
  COO_FOR_EACH(&c, {
    if (ci >= lo && ci < hi) out->rowptr[ci - lo + 1]++;
    if (mirror_sign != 0.0 && ci != cj && cj >= lo && cj < hi) out->rowptr[cj - lo + 1]++;
  })
  for (int64_t i = 0; i < n; i++) out->rowptr[i + 1] += out->rowptr[i];
  const int64_t nnz = out->rowptr[n];
  SPS_TRY(sps_host_alloc(ctx, (void **)&out->colind, (size_t)(nnz > 0 ? nnz : 1),
                         sizeof *out->colind, "columns of the rank's rows"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&out->values, (size_t)(nnz > 0 ? nnz : 1),
                         sizeof *out->values, "values of the rank's rows"));
  {
    int64_t *at = NULL;
    SPS_TRY(sps_host_alloc(ctx, (void **)&at, (size_t)n + 1, sizeof *at, "row cursors"));
    memcpy(at, out->rowptr, ((size_t)n + 1) * sizeof *at);
    COO_FOR_EACH(&c, {
      if (ci >= lo && ci < hi) {
        const int64_t p = at[ci - lo]++;
        out->colind[p] = cj;
        out->values[p] = cv;
      }
      if (mirror_sign != 0.0 && ci != cj && cj >= lo && cj < hi) {
        const int64_t p = at[cj - lo]++;
        out->colind[p] = ci;
        out->values[p] = mirror_sign * cv;
      }
    })
    sps_host_free(at);
  }
  coo_free(&c);
  return SPS_SUCCESS;
cleanup:
  sps_mm_close(&r);
  coo_free(&c);
  sps_mm_rows_free(out);
  return st;
}

void sps_mm_rows_free(sps_mm_rows *rows)
{
  sps_host_free(rows->rowptr);
  sps_host_free(rows->colind);
  sps_host_free(rows->values);
  rows->rowptr = NULL;
  rows->colind = NULL;
  rows->values = NULL;
}
