/* mm_read.c: tests of the Matrix Market reader and writer: every kind of bad input (status, file:line message, no matrix), good files, gzip, vectors, multivectors, bit-exact round trips. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <float.h>
#include <unistd.h>

#include "testlib.h"

static sps_context *ctx;
static char tmpdir[64];

static const char *bad_path(const char *name)
{
  static char path[4096];
  snprintf(path, sizeof path, "%s/bad/%s", sps_test_data_dir(), name);
  return path;
}

static const char *tmp_path(const char *name)
{
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) sps_bail("cannot write %s", path);
}

/*
 * Read a bad matrix file: the status, "path:line:" (line 0: just "path:") and a phrase must
 * appear in the message, and no matrix may come back.
 */
static void expect_bad_matrix(const char *name, sps_status want, int line, const char *phrase)
{
  const char *path = bad_path(name);
  sps_matrix *A = (sps_matrix *)&A; /* not NULL, so the reader must reset it */
  sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
  const char *msg = sps_context_last_error(ctx);
  char where[4200];
  if (line > 0)
    snprintf(where, sizeof where, "%s:%d: ", path, line);
  else
    snprintf(where, sizeof where, "%s: ", path);
  int ok = st == want && A == NULL && strstr(msg, where) == msg && strstr(msg, phrase) != NULL;
  sps_ok(ok, "%s: %s at line %d ('%s')", name, sps_status_name(want), line, phrase);
  if (!ok) sps_diag("got %s, A %s, message: %s", sps_status_name(st), A ? "set" : "NULL", msg);
}

static void expect_bad_vector(const char *name, sps_status want, int line, const char *phrase)
{
  const char *path = bad_path(name);
  sps_vector *v = (sps_vector *)&v;
  sps_status st = sps_vector_read_mm(ctx, &v, path, 0);
  const char *msg = sps_context_last_error(ctx);
  char where[4200];
  snprintf(where, sizeof where, "%s:%d: ", path, line);
  int ok = st == want && v == NULL && strstr(msg, where) == msg && strstr(msg, phrase) != NULL;
  sps_ok(ok, "vector %s: %s at line %d ('%s')", name, sps_status_name(want), line, phrase);
  if (!ok) sps_diag("got %s, v %s, message: %s", sps_status_name(st), v ? "set" : "NULL", msg);
}

/* The CSR of A equals the given arrays exactly, with every row sorted. */
static int csr_equals(const sps_matrix *A, int64_t m, const int64_t *rp, const int32_t *ci,
                      const double *va)
{
  const int64_t *r;
  const int32_t *c;
  const double *v;
  if (!A) return 0;
  sps_matrix_get_csr(A, &r, &c, &v);
  for (int64_t i = 0; i <= m; i++)
    if (r[i] != rp[i]) return 0;
  for (int64_t k = 0; k < rp[m]; k++)
    if (c[k] != ci[k] || memcmp(&v[k], &va[k], sizeof(double)) != 0) return 0;
  return 1;
}

static void test_bad_input(void)
{
  expect_bad_matrix("empty.mtx", SPS_ERR_IO, 1, "empty file");
  expect_bad_matrix("missing_banner.mtx", SPS_ERR_IO, 1, "missing banner");
  expect_bad_matrix("malformed_banner.mtx", SPS_ERR_IO, 1, "malformed banner");
  expect_bad_matrix("unknown_object.mtx", SPS_ERR_IO, 1, "unknown object 'vector'");
  expect_bad_matrix("unknown_format.mtx", SPS_ERR_IO, 1, "unknown format 'coordinat'");
  expect_bad_matrix("unknown_field.mtx", SPS_ERR_IO, 1, "unknown field 'float'");
  expect_bad_matrix("unknown_symmetry.mtx", SPS_ERR_IO, 1, "unknown symmetry 'symmetrical'");
  expect_bad_matrix("no_size_line.mtx", SPS_ERR_IO, 4, "ends before the size line");
  expect_bad_matrix("size_line_short.mtx", SPS_ERR_IO, 3, "malformed size line");
  expect_bad_matrix("size_line_not_integer.mtx", SPS_ERR_IO, 2, "'x' is not an integer");
  expect_bad_matrix("size_line_trailing.mtx", SPS_ERR_IO, 2, "malformed size line");
  expect_bad_matrix("size_negative.mtx", SPS_ERR_IO, 2, "negative row count -3");
  expect_bad_matrix("size_above_int32.mtx", SPS_ERR_SIZE, 2, "32-bit index limit");
  expect_bad_matrix("size_overflow.mtx", SPS_ERR_SIZE, 2, "too large");
  expect_bad_matrix("symmetric_rectangular.mtx", SPS_ERR_IO, 2, "must be square");
  expect_bad_matrix("truncated.mtx", SPS_ERR_IO, 6, "ends after 3 of the 5 entries");
  expect_bad_matrix("too_many_entries.mtx", SPS_ERR_IO, 5, "more entries than the 2 declared");
  expect_bad_matrix("row_out_of_range.mtx", SPS_ERR_IO, 4, "row index 11 is outside 1..10");
  expect_bad_matrix("col_out_of_range.mtx", SPS_ERR_IO, 7, "column index 12 is outside 1..10");
  expect_bad_matrix("zero_index.mtx", SPS_ERR_IO, 4, "row index 0 is outside 1..10");
  expect_bad_matrix("negative_index.mtx", SPS_ERR_IO, 4, "row index -1 is outside 1..10");
  expect_bad_matrix("bad_index.mtx", SPS_ERR_IO, 4, "bad row index '2x'");
  expect_bad_matrix("missing_column.mtx", SPS_ERR_IO, 4, "missing column index");
  expect_bad_matrix("missing_value.mtx", SPS_ERR_IO, 4, "missing value");
  expect_bad_matrix("symmetric_upper.mtx", SPS_ERR_IO, 5, "above the diagonal");
  expect_bad_matrix("skew_diagonal.mtx", SPS_ERR_IO, 4, "diagonal entry (2, 2)");
  expect_bad_matrix("bad_value.mtx", SPS_ERR_IO, 4, "bad real value 'abc'");
  expect_bad_matrix("bad_value_suffix.mtx", SPS_ERR_IO, 4, "bad real value '1.5x'");
  expect_bad_matrix("trailing_garbage.mtx", SPS_ERR_IO, 4, "unexpected text 'xyz'");
  expect_bad_matrix("pattern_with_value.mtx", SPS_ERR_IO, 4, "unexpected text '2.0'");
  expect_bad_matrix("nan_value.mtx", SPS_ERR_IO, 4, "'nan' is not finite");
  expect_bad_matrix("inf_value.mtx", SPS_ERR_IO, 5, "'-Inf' is not finite");
  expect_bad_matrix("overflow_value.mtx", SPS_ERR_IO, 3, "'1e999' is not finite");
  expect_bad_matrix("integer_fraction.mtx", SPS_ERR_IO, 4, "bad integer value '2.5'");
  expect_bad_matrix("complex.mtx", SPS_ERR_UNSUPPORTED, 1, "complex");
  expect_bad_matrix("hermitian.mtx", SPS_ERR_UNSUPPORTED, 1, "hermitian");
  expect_bad_matrix("array_matrix.mtx", SPS_ERR_UNSUPPORTED, 1, "array");
  expect_bad_matrix("array_pattern.mtx", SPS_ERR_IO, 1, "pattern");
  expect_bad_matrix("does_not_exist.mtx", SPS_ERR_IO, 0, "cannot open: No such file or directory");
  expect_bad_matrix("index_overflow.mtx", SPS_ERR_IO, 3,
                    "row index '99999999999999999999999' is too large");
  expect_bad_matrix("size_nnz_overflow.mtx", SPS_ERR_SIZE, 2,
                    "entry count 9223372036854775808 is too large");
  /* Memory follows the entries: a declared size alone allocates nothing. */
  expect_bad_matrix("rows_unjustified.mtx", SPS_ERR_SIZE, 2,
                    "2013502103 rows but only 1 entries declared");
  expect_bad_matrix("rows_unjustified_square.mtx", SPS_ERR_SIZE, 2,
                    "200000000 rows but only 1 entries declared");
  expect_bad_matrix("declared_many.mtx", SPS_ERR_IO, 4,
                    "ends after 1 of the 1000000000000 entries");
  /* Compression: told from the data, each failure named. */
  expect_bad_matrix("not_gzip.mtx.gz", SPS_ERR_IO, 1,
                    "the name ends in .gz but the data is not compressed that way");
  expect_bad_matrix("zstd.mtx.zst", SPS_ERR_UNSUPPORTED, 0, "zstd-compressed, which is not supported");
#ifdef SPS_HAVE_ZLIB
  expect_bad_matrix("truncated.mtx.gz", SPS_ERR_IO, 34, "the gzip stream is truncated");
  expect_bad_matrix("corrupt_block.mtx.gz", SPS_ERR_IO, 1,
                    "the gzip stream is corrupt (zlib: invalid block type)");
  expect_bad_matrix("corrupt_header.mtx.gz", SPS_ERR_IO, 1,
                    "the gzip stream is corrupt (zlib: unknown compression method)");
  expect_bad_matrix("corrupt_crc.mtx.gz", SPS_ERR_IO, 13,
                    "the gzip stream is corrupt (zlib: incorrect data check)");
  expect_bad_matrix("trailing_garbage.mtx.gz", SPS_ERR_IO, 0,
                    "trailing data after the end of the gzip stream at byte 147");
#else
  expect_bad_matrix("truncated.mtx.gz", SPS_ERR_UNSUPPORTED, 0, "no zlib");
#endif
#ifdef SPS_HAVE_LZMA
  expect_bad_matrix("truncated.mtx.xz", SPS_ERR_IO, 2, "the xz stream is truncated");
  expect_bad_matrix("corrupt.mtx.xz", SPS_ERR_IO, 2, "the xz stream is corrupt");
  expect_bad_matrix("trailing_garbage.mtx.xz", SPS_ERR_IO, 0,
                    "trailing data after the end of the xz stream at byte 200");
#else
  expect_bad_matrix("truncated.mtx.xz", SPS_ERR_UNSUPPORTED, 0, "no liblzma");
#endif
#ifdef SPS_HAVE_BZIP2
  expect_bad_matrix("truncated.mtx.bz2", SPS_ERR_IO, 1, "the bzip2 stream is truncated");
  expect_bad_matrix("corrupt.mtx.bz2", SPS_ERR_IO, 1, "the bzip2 stream is corrupt");
  expect_bad_matrix("trailing_garbage.mtx.bz2", SPS_ERR_IO, 0,
                    "trailing data after the end of the bzip2 stream at byte 156");
#else
  expect_bad_matrix("truncated.mtx.bz2", SPS_ERR_UNSUPPORTED, 0, "no libbz2");
#endif

  /* NaN and Inf are accepted on request. */
  sps_matrix *A = NULL;
  const double *val;
  sps_status st = sps_matrix_read_mm(ctx, &A, bad_path("inf_value.mtx"), SPS_MM_ALLOW_NONFINITE);
  int ok = st == SPS_SUCCESS && A;
  if (ok) {
    sps_matrix_get_csr(A, NULL, NULL, &val);
    ok = isinf(val[2]) && val[2] < 0;
  }
  sps_ok(ok, "SPS_MM_ALLOW_NONFINITE accepts -Inf");
  sps_matrix_destroy(&A);
  st = sps_matrix_read_mm(ctx, &A, bad_path("nan_value.mtx"), SPS_MM_ALLOW_NONFINITE);
  ok = st == SPS_SUCCESS && A;
  if (ok) {
    sps_matrix_get_csr(A, NULL, NULL, &val);
    ok = isnan(val[1]);
  }
  sps_ok(ok, "SPS_MM_ALLOW_NONFINITE accepts nan");
  sps_matrix_destroy(&A);

  expect_bad_vector("vector_truncated.mtx", SPS_ERR_IO, 6, "ends after 3 of the 4 entries");
  expect_bad_vector("vector_too_many.mtx", SPS_ERR_IO, 5, "more entries than the 2 declared");
  expect_bad_vector("vector_coordinate_col.mtx", SPS_ERR_IO, 4, "column index 2 is outside 1..1");
  expect_bad_vector("vector_two_values.mtx", SPS_ERR_IO, 3, "unexpected text '2.0'");
  expect_bad_vector("array_matrix.mtx", SPS_ERR_SIZE, 2, "one column");
  expect_bad_vector("bad_value.mtx", SPS_ERR_SIZE, 2, "one column");
  expect_bad_vector("vector_rows_unjustified.mtx", SPS_ERR_SIZE, 2,
                    "2013502103 rows but only 1 entries declared");
  expect_bad_vector("declared_many.mtx", SPS_ERR_SIZE, 2, "one column");
}

/*
 * Input with no line ends, or one endless line: refused from the first block (the banner) or
 * at the line limit, never buffered whole. Each file is 6 MiB, more than the 4 MiB limit.
 */
static void test_long_lines(void)
{
  const size_t big = (size_t)6 << 20;
  char *text = malloc(big + 64);
  if (!text) sps_bail("out of memory");
  memset(text, 'x', big);
  text[big] = '\0';
  const char *path = tmp_path("no_newline.mtx");
  write_file(path, text);
  sps_matrix *A = NULL;
  sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && !A && strstr(msg, ":1: missing banner"),
         "6 MiB without a line end: missing banner at line 1");
  if (st != SPS_ERR_IO) sps_diag("%s: %s", sps_status_name(st), msg);

  const char *banner = "%%MatrixMarket matrix coordinate real general\n";
  memcpy(text, banner, strlen(banner));
  write_file(path, text);
  st = sps_matrix_read_mm(ctx, &A, path, 0);
  msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && !A && strstr(msg, ":2: line longer than 4 MiB"),
         "a 6 MiB second line: refused at line 2 as longer than 4 MiB");
  if (st != SPS_ERR_IO) sps_diag("%s: %s", sps_status_name(st), msg);
  remove(path);
  free(text);
}

/* The good compressed files: xz, bzip2, and gzip in two members, read as the plain text. */
static void test_compressed(void)
{
  static const char *const names[] = {"lap5.mtx.xz", "lap5.mtx.bz2", "lap5_two_members.mtx.gz"};
  static const int have[] = {
#ifdef SPS_HAVE_LZMA
      1,
#else
      0,
#endif
#ifdef SPS_HAVE_BZIP2
      1,
#else
      0,
#endif
#ifdef SPS_HAVE_ZLIB
      1,
#else
      0,
#endif
  };
  char path[4096];
  snprintf(path, sizeof path, "%s/compressed/lap5.mtx", sps_test_data_dir());
  sps_matrix *P = NULL;
  if (sps_matrix_read_mm(ctx, &P, path, 0) != SPS_SUCCESS) sps_bail("lap5.mtx: %s", sps_context_last_error(ctx));
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(P, &rp, &ci, &va);
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/compressed/%s", sps_test_data_dir(), names[k]);
    sps_matrix *A = NULL;
    sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
    if (!have[k]) {
      sps_ok(st == SPS_ERR_UNSUPPORTED && !A, "%s: refused by a build without its library", names[k]);
      continue;
    }
    sps_ok(st == SPS_SUCCESS && csr_equals(A, 5, rp, ci, va), "%s: the matrix of lap5.mtx", names[k]);
    if (st) sps_diag("%s", sps_context_last_error(ctx));
    sps_matrix_destroy(&A);
  }
  sps_matrix_destroy(&P);
}

/* The readers from memory: the same results and messages as from a file, named as asked. */
static void test_buffers(void)
{
  const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 4\n2 1 -1\n2 2 3\n";
  sps_matrix *A = NULL;
  sps_status st = sps_matrix_read_mm_buffer(ctx, &A, text, strlen(text), "mem", 0);
  const int64_t rp[] = {0, 1, 3};
  const int32_t ci[] = {0, 0, 1};
  const double va[] = {4.0, -1.0, 3.0};
  sps_ok(st == SPS_SUCCESS && csr_equals(A, 2, rp, ci, va), "matrix from a buffer");
  sps_matrix_destroy(&A);

  /* Cut short: the message names the buffer and the line. */
  st = sps_matrix_read_mm_buffer(ctx, &A, text, strlen(text) - 7, "mem", 0);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && !A && strcmp(msg, "mem:5: the file ends after 2 of the 3 entries declared on line 2") == 0,
         "a cut buffer: SPS_ERR_IO 'mem:5: ... ends after 2 of the 3 entries'");
  if (st != SPS_ERR_IO) sps_diag("%s", msg);
  st = sps_matrix_read_mm_buffer(ctx, &A, "", 0, NULL, 0);
  msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && strstr(msg, "<buffer>:1: empty file") == msg,
         "an empty buffer without a name: '<buffer>:1: empty file'");
  st = sps_matrix_read_mm_buffer(ctx, &A, NULL, 10, "mem", 0);
  sps_ok(st == SPS_ERR_ARGUMENT && !A, "NULL data with a size: SPS_ERR_ARGUMENT");

#ifdef SPS_HAVE_ZLIB
  /* A gzip file's bytes in memory read as the file does. */
  char path[4096];
  snprintf(path, sizeof path, "%s/compressed/lap5_two_members.mtx.gz", sps_test_data_dir());
  FILE *f = fopen(path, "rb");
  unsigned char gz[4096];
  size_t n = f ? fread(gz, 1, sizeof gz, f) : 0;
  if (f) fclose(f);
  st = sps_matrix_read_mm_buffer(ctx, &A, gz, n, "gz", 0);
  int64_t m = 0, nnz = 0;
  if (st == SPS_SUCCESS) sps_matrix_get_size(A, &m, NULL, &nnz);
  sps_ok(st == SPS_SUCCESS && m == 5 && nnz == 13, "gzip bytes (two members) from a buffer: 5 x 5, 13 entries");
  sps_matrix_destroy(&A);
  st = sps_matrix_read_mm_buffer(ctx, &A, gz, n - 5, "gz", 0);
  msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && strstr(msg, "gz:") == msg && strstr(msg, "the gzip stream is truncated"),
         "gzip bytes cut short: the gzip stream is truncated");
#endif

  sps_vector *v = NULL;
  const char *vt = "%%MatrixMarket matrix array real general\n3 1\n1\n-0\n2.5\n";
  double x[3];
  st = sps_vector_read_mm_buffer(ctx, &v, vt, strlen(vt), "vec", 0);
  sps_ok(st == SPS_SUCCESS && sps_vector_download(v, x, 3) == SPS_SUCCESS && x[0] == 1.0 &&
             x[1] == 0.0 && signbit(x[1]) && x[2] == 2.5,
         "vector from a buffer (-0 kept)");
  sps_vector_destroy(&v);
}

/* Read text written to a temporary file; the dense copy of A (row-major) goes to dense. */
static sps_matrix *read_text(const char *name, const char *text, int64_t m, int64_t n,
                             int64_t nnz, sps_symmetry sym)
{
  const char *path = tmp_path(name);
  write_file(path, text);
  sps_matrix *A = NULL;
  sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
  if (!sps_ok(st == SPS_SUCCESS, "%s reads", name)) {
    sps_diag("%s: %s", sps_status_name(st), sps_context_last_error(ctx));
    return NULL;
  }
  int64_t rm, rn, rz;
  sps_symmetry rs;
  sps_matrix_get_size(A, &rm, &rn, &rz);
  sps_matrix_get_symmetry(A, &rs);
  sps_ok(rm == m && rn == n && rz == nnz && rs == sym, "%s: %lld x %lld, %lld entries, symmetry %d",
         name, (long long)m, (long long)n, (long long)nnz, (int)sym);
  return A;
}

static void test_good_matrices(void)
{
  sps_matrix *A;

  /* General, unsorted entries, duplicates summed, explicit zero kept, empty row 3. */
  A = read_text("general.mtx",
                "%%MatrixMarket matrix coordinate real general\n"
                "% comment\n"
                "4 3 7\n"
                "2 3 5.0\n"
                "1 2 -1.5\n"
                "1 1 2.0\n"
                "2 1 0.0\n"
                "4 2 1e-3\n"
                "1 2 0.25\n"
                "2 3 -2.0\n",
                4, 3, 5, SPS_SYMMETRY_GENERAL);
  {
    const int64_t rp[] = {0, 2, 4, 4, 5};
    const int32_t ci[] = {0, 1, 0, 2, 1};
    const double va[] = {2.0, -1.25, 0.0, 3.0, 1e-3};
    sps_ok(csr_equals(A, 4, rp, ci, va), "general: sorted, duplicates summed, zero kept");
  }
  sps_matrix_destroy(&A);

  /* Symmetric: lower triangle mirrored; upper-case keywords; blank lines before the size line. */
  A = read_text("symmetric.mtx",
                "%%MATRIXMARKET Matrix Coordinate REAL Symmetric\n"
                "\n"
                "% comment\n"
                "   \n"
                "3 3 4\n"
                "1 1 4.0\n"
                "3 1 -1.0\n"
                "2 2 5.0\n"
                "3 2 -2.0\n",
                3, 3, 6, SPS_SYMMETRY_SYMMETRIC);
  {
    const int64_t rp[] = {0, 2, 4, 6};
    const int32_t ci[] = {0, 2, 1, 2, 0, 1};
    const double va[] = {4.0, -1.0, 5.0, -2.0, -1.0, -2.0};
    sps_ok(csr_equals(A, 3, rp, ci, va), "symmetric: expanded to full storage");
  }
  sps_matrix_destroy(&A);

  /* Skew-symmetric: a_ji = -a_ij. */
  A = read_text("skew.mtx",
                "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                "3 3 2\n"
                "2 1 1.5\n"
                "3 2 -4.0\n",
                3, 3, 4, SPS_SYMMETRY_SKEW);
  {
    const int64_t rp[] = {0, 1, 3, 4};
    const int32_t ci[] = {1, 0, 2, 1};
    const double va[] = {-1.5, 1.5, 4.0, -4.0};
    sps_ok(csr_equals(A, 3, rp, ci, va), "skew-symmetric: mirrored with negated values");
  }
  sps_matrix_destroy(&A);

  /* Pattern: values 1; CRLF line endings; tabs between fields; no final newline. */
  A = read_text("pattern.mtx",
                "%%MatrixMarket matrix coordinate pattern general\r\n"
                "% comment\r\n"
                "2 3 3\r\n"
                "2\t3\r\n"
                "1 1 \r\n"
                "2 1",
                2, 3, 3, SPS_SYMMETRY_GENERAL);
  {
    const int64_t rp[] = {0, 1, 3};
    const int32_t ci[] = {0, 0, 2};
    const double va[] = {1.0, 1.0, 1.0};
    sps_ok(csr_equals(A, 2, rp, ci, va), "pattern with CRLF: values 1");
  }
  sps_matrix_destroy(&A);

  /* Integer field, symmetric pattern of duplicates on the diagonal. */
  A = read_text("integer.mtx",
                "%%MatrixMarket matrix coordinate integer symmetric\n"
                "2 2 4\n"
                "1 1 3\n"
                "2 1 -7\n"
                "1 1 +4\n"
                "2 2 -0\n",
                2, 2, 4, SPS_SYMMETRY_SYMMETRIC);
  {
    const int64_t rp[] = {0, 2, 4};
    const int32_t ci[] = {0, 1, 0, 1};
    const double va[] = {7.0, -7.0, -7.0, -0.0};
    sps_ok(csr_equals(A, 2, rp, ci, va), "integer symmetric: duplicates summed, -0 kept");
  }
  sps_matrix_destroy(&A);

  /* nnz = 0 and an empty 0 x 0 matrix. */
  A = read_text("empty_entries.mtx", "%%MatrixMarket matrix coordinate real general\n5 4 0\n", 5,
                4, 0, SPS_SYMMETRY_GENERAL);
  sps_matrix_destroy(&A);
  A = read_text("zero_by_zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0,
                0, 0, SPS_SYMMETRY_GENERAL);
  sps_matrix_destroy(&A);
}

/* The bundled gzipped matrices, against tests/data/README.md. */
static void test_bundled(void)
{
  static const struct {
    const char *name;
    int64_t m, n, stored, full;
    sps_symmetry sym;
  } mats[] = {
      {"nos3.mtx.gz", 960, 960, 8402, 15844, SPS_SYMMETRY_SYMMETRIC},
      {"1138_bus.mtx.gz", 1138, 1138, 2596, 4054, SPS_SYMMETRY_SYMMETRIC},
      {"bcsstk14.mtx.gz", 1806, 1806, 32630, 63454, SPS_SYMMETRY_SYMMETRIC},
      {"orsreg_1.mtx.gz", 2205, 2205, 14133, 14133, SPS_SYMMETRY_GENERAL},
      {"watt_2.mtx.gz", 1856, 1856, 11550, 11550, SPS_SYMMETRY_GENERAL},
      {"add20.mtx.gz", 2395, 2395, 17319, 17319, SPS_SYMMETRY_GENERAL},
      {"ash219.mtx.gz", 219, 85, 438, 438, SPS_SYMMETRY_GENERAL},
  };
  char path[4096];
  for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++) {
    snprintf(path, sizeof path, "%s/%s", sps_test_data_dir(), mats[k].name);
    sps_matrix *A = NULL;
    sps_status st = sps_matrix_read_mm(ctx, &A, path, 0);
#ifndef SPS_HAVE_ZLIB
    sps_ok(st == SPS_ERR_UNSUPPORTED && !A, "%s refused without zlib", mats[k].name);
    continue;
#endif
    if (!sps_ok(st == SPS_SUCCESS, "%s reads", mats[k].name)) {
      sps_diag("%s", sps_context_last_error(ctx));
      continue;
    }
    int64_t m, n, nnz;
    sps_symmetry sym;
    sps_matrix_get_size(A, &m, &n, &nnz);
    sps_matrix_get_symmetry(A, &sym);
    /* full = 2*stored - diagonal entries, for a symmetric matrix with a full diagonal. */
    sps_ok(m == mats[k].m && n == mats[k].n && nnz == mats[k].full && sym == mats[k].sym,
           "%s: %lld x %lld, %lld entries (got %lld x %lld, %lld)", mats[k].name,
           (long long)mats[k].m, (long long)mats[k].n, (long long)mats[k].full, (long long)m,
           (long long)n, (long long)nnz);
    if (sym == SPS_SYMMETRY_SYMMETRIC) {
      int is_sym = 0;
      sps_matrix_check_symmetry(A, &is_sym);
      sps_ok(is_sym, "%s: expanded matrix equals its transpose", mats[k].name);
    }
    sps_matrix_destroy(&A);
  }

  /* Known entries of nos3: its first data lines are "1 1 8.6867810000000e+01",
     "2 1 4.8849813000000e-15", "3 1 -1.7463532000000e+01". */
  snprintf(path, sizeof path, "%s/nos3.mtx.gz", sps_test_data_dir());
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) == SPS_SUCCESS) {
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    sps_matrix_get_csr(A, &rp, &ci, &va);
    sps_ok(ci[0] == 0 && va[0] == 8.6867810000000e+01 && ci[1] == 1 &&
               va[1] == 4.8849813000000e-15 && ci[2] == 2 && va[2] == -1.7463532000000e+01 &&
               ci[rp[1]] == 0 && va[rp[1]] == 4.8849813000000e-15,
           "nos3: a11, a12 = a21, a13 as in the file");
    sps_matrix_destroy(&A);
  }
}

static void test_vectors(void)
{
  sps_vector *v = NULL;
  double x[4];
  const char *path = tmp_path("array.mtx");
  write_file(path, "%%MatrixMarket matrix array real general\n% b\n4 1\n1.5\n-2\n\n3e2\n 0.125 \n");
  sps_status st = sps_vector_read_mm(ctx, &v, path, 0);
  int ok = st == SPS_SUCCESS && v;
  int64_t n = -1;
  if (ok) {
    sps_vector_get_size(v, &n);
    ok = n == 4 && sps_vector_download(v, x, 4) == SPS_SUCCESS && x[0] == 1.5 && x[1] == -2.0 &&
         x[2] == 300.0 && x[3] == 0.125;
  }
  sps_ok(ok, "vector: array file with a blank line");
  sps_vector_destroy(&v);

  path = tmp_path("coord.mtx");
  write_file(path, "%%MatrixMarket matrix coordinate integer general\n4 1 3\n3 1 7\n1 1 -2\n3 1 1\n");
  st = sps_vector_read_mm(ctx, &v, path, 0);
  ok = st == SPS_SUCCESS && v;
  if (ok) {
    sps_vector_get_size(v, &n);
    ok = n == 4 && sps_vector_download(v, x, 4) == SPS_SUCCESS && x[0] == -2.0 && x[1] == 0.0 &&
         x[2] == 8.0 && x[3] == 0.0;
  }
  sps_ok(ok, "vector: coordinate n x 1, missing entries 0, duplicates summed");
  sps_vector_destroy(&v);
}

/* Random finite doubles, with the special values the writer must keep exactly. */
static void test_write_round_trip(void)
{
  enum { N = 2000 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  if (!x || !y) sps_bail("out of memory");
  sps_rng rng = {42};
  const double special[] = {-0.0, 0.0, 1e308, -1e308, DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
                            2.2250738585072009e-308, 1e-310, 0.1, 1.0 / 3.0, -123456789.125};
  const int ns = (int)(sizeof special / sizeof special[0]);
  for (int i = 0; i < N; i++) {
    if (i < ns) {
      x[i] = special[i];
      continue;
    }
    uint64_t bits;
    do {
      bits = sps_rng_next(&rng);
    } while (((bits >> 52) & 0x7ff) == 0x7ff); /* no NaN or Inf */
    memcpy(&x[i], &bits, sizeof bits);
  }
  sps_vector *v = NULL, *w = NULL;
  if (sps_vector_create(ctx, &v, N) || sps_vector_upload(v, x, N)) sps_bail("vector setup failed");
  const char *path = tmp_path("written.mtx");
  sps_status st = sps_vector_write_mm(v, path);
  sps_ok(st == SPS_SUCCESS, "write %d values", N);
  st = sps_vector_read_mm(ctx, &w, path, 0);
  int ok = st == SPS_SUCCESS && w && sps_vector_download(w, y, N) == SPS_SUCCESS &&
           memcmp(x, y, N * sizeof *x) == 0;
  sps_ok(ok, "read back bit-exact (-0.0, subnormals, 1e308, random bit patterns)");
  if (st) sps_diag("%s", sps_context_last_error(ctx));
  sps_vector_destroy(&w);

  const char *bad = "/nonexistent-directory-of-spsolve/x.mtx";
  st = sps_vector_write_mm(v, bad);
  const char *msg = sps_context_last_error(ctx);
  sps_ok(st == SPS_ERR_IO && strstr(msg, bad) == msg && strstr(msg, "No such file"),
         "write to an unwritable path: SPS_ERR_IO naming the file");
  if (access("/dev/full", W_OK) == 0) {
    st = sps_vector_write_mm(v, "/dev/full");
    msg = sps_context_last_error(ctx);
    sps_ok(st == SPS_ERR_IO && strstr(msg, "/dev/full: write failed") == msg,
           "write to a full disk (/dev/full): SPS_ERR_IO");
  }
  sps_vector_destroy(&v);
  free(x);
  free(y);
}

/* Random decimal strings read through the parser must equal strtod bit for bit. */
static void test_decimal_parser(void)
{
  enum { N = 60000 };
  sps_rng rng = {7};
  static const char *hard[] = {
      "9007199254740993",        "9007199254740992",     "2.2250738585072011e-308",
      "2.2250738585072012e-308", "4.9406564584124654e-324", "2.4703282292062328e-324",
      "1.7976931348623157e308",  "1e23",                 "8.988465674311579e307",
      "0.1",                     "123456789012345678901234567890", "1e-400",
      "0.000000000000000000000000000000001", "7.2057594037927933e16", "1e22", "1e-22",
      "3.0517578125e-05",        "-0",                   "+.5e1",    "5.",     "00012.5000e-0",
      "1.00000000000000011102230246251565404236316680908203125"};
  const int nh = (int)(sizeof hard / sizeof hard[0]);
  char(*tok)[64] = malloc(N * sizeof *tok);
  double *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
  if (!tok || !want || !got) sps_bail("out of memory");
  const char *path = tmp_path("decimals.mtx");
  FILE *f = fopen(path, "w");
  if (!f) sps_bail("cannot write %s", path);
  fprintf(f, "%%%%MatrixMarket matrix array real general\n%d 1\n", N);
  for (int i = 0; i < N; i++) {
    if (i < nh) {
      snprintf(tok[i], sizeof tok[i], "%s", hard[i]);
    } else {
      /* sign, 1..25 digits with a point somewhere or none, optional exponent */
      int nd = 1 + (int)(sps_rng_next(&rng) % 25);
      int point = (int)(sps_rng_next(&rng) % (uint64_t)(nd + 2)) - 1;
      char *p = tok[i];
      if (sps_rng_next(&rng) % 2) *p++ = '-';
      for (int d = 0; d < nd; d++) {
        if (d == point) *p++ = '.';
        *p++ = (char)('0' + sps_rng_next(&rng) % 10);
      }
      uint64_t form = sps_rng_next(&rng) % 4;
      if (form == 1) p += sprintf(p, "e%d", (int)(sps_rng_next(&rng) % 45) - 22);
      if (form == 2) p += sprintf(p, "E%+d", (int)(sps_rng_next(&rng) % 640) - 330);
      *p = '\0';
    }
    want[i] = strtod(tok[i], NULL);
    if (!isfinite(want[i])) snprintf(tok[i], sizeof tok[i], "1"), want[i] = 1.0;
    fprintf(f, "%s\n", tok[i]);
  }
  if (fclose(f) != 0) sps_bail("cannot write %s", path);
  sps_vector *v = NULL;
  sps_status st = sps_vector_read_mm(ctx, &v, path, 0);
  int bad = -1;
  if (st == SPS_SUCCESS && sps_vector_download(v, got, N) == SPS_SUCCESS) {
    bad = 0;
    for (int i = 0; i < N; i++)
      if (memcmp(&want[i], &got[i], sizeof(double)) != 0) {
        if (bad < 5) sps_diag("'%s': strtod %.17g, reader %.17g", tok[i], want[i], got[i]);
        bad++;
      }
  } else {
    sps_diag("%s", sps_context_last_error(ctx));
  }
  sps_ok(bad == 0, "%d random decimal strings parse to strtod's correctly rounded double", N);
  sps_vector_destroy(&v);
  free(tok);
  free(want);
  free(got);
}

/* Multivectors: an array n x k listed column by column, a coordinate n x k with a duplicate
 * summed, the write of k columns read back to the bit, and the errors (column out of range,
 * too many entries, a pattern file). */
static void test_multivectors(void)
{
  const char *arr = tmp_path("mv_array.mtx");
  write_file(arr, "%%MatrixMarket matrix array real general\n% three rows, two columns\n3 2\n"
                  "1\n2\n3\n-0\n5e-300\n6\n");
  sps_multivector *X = NULL;
  double x[6] = {0};
  sps_status st = sps_multivector_read_mm(ctx, &X, arr, 0);
  int64_t n = 0, k = 0;
  if (!st) sps_multivector_get_size(X, &n, &k);
  if (!st) st = sps_multivector_download(X, x, 3, 2);
  sps_ok(st == SPS_SUCCESS && n == 3 && k == 2 && x[0] == 1.0 && x[2] == 3.0 && signbit(x[3]) &&
             x[3] == 0.0 && x[4] == 5e-300 && x[5] == 6.0,
         "multivector array 3 x 2: column by column, -0 kept");
  const char *tmpw = tmp_path("mv_written.mtx");
  sps_multivector *Y = NULL;
  double y[6] = {0};
  st = X ? sps_multivector_write_mm(X, tmpw) : SPS_ERR_STATE;
  if (!st) st = sps_multivector_read_mm(ctx, &Y, tmpw, 0);
  if (!st) st = sps_multivector_download(Y, y, 3, 2);
  sps_ok(st == SPS_SUCCESS && memcmp(x, y, sizeof x) == 0,
         "sps_multivector_write_mm reads back bit for bit");
  sps_multivector_destroy(&X);
  sps_multivector_destroy(&Y);
  const char *coo = tmp_path("mv_coo.mtx");
  write_file(coo, "%%MatrixMarket matrix coordinate real general\n4 3 4\n1 1 1.5\n4 3 2\n"
                  "4 3 0.25\n2 2 -1\n");
  double z[12];
  st = sps_multivector_read_mm(ctx, &X, coo, 0);
  if (!st) st = sps_multivector_download(X, z, 4, 3);
  sps_ok(st == SPS_SUCCESS && z[0] == 1.5 && z[5] == -1.0 && z[11] == 2.25 && z[1] == 0.0 &&
             z[7] == 0.0,
         "multivector coordinate 4 x 3: entries placed, duplicates summed, the rest 0");
  sps_multivector_destroy(&X);
  const char *badcol = tmp_path("mv_badcol.mtx");
  write_file(badcol, "%%MatrixMarket matrix coordinate real general\n4 2 1\n1 3 1.0\n");
  X = (sps_multivector *)&X;
  st = sps_multivector_read_mm(ctx, &X, badcol, 0);
  sps_ok(st == SPS_ERR_IO && X == NULL && strstr(sps_context_last_error(ctx), ":3: column index 3 is outside 1..2"),
         "multivector column 3 of 2: SPS_ERR_IO at line 3 (%s)", sps_context_last_error(ctx));
  const char *many = tmp_path("mv_many.mtx");
  write_file(many, "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n");
  st = sps_multivector_read_mm(ctx, &X, many, 0);
  sps_ok(st == SPS_ERR_IO && strstr(sps_context_last_error(ctx), "more entries than the 2"),
         "multivector with more values than declared: SPS_ERR_IO (%s)", sps_context_last_error(ctx));
  const char *pat = tmp_path("mv_pattern.mtx");
  write_file(pat, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n");
  st = sps_multivector_read_mm(ctx, &X, pat, 0);
  sps_ok(st == SPS_ERR_UNSUPPORTED, "multivector from a pattern file: SPS_ERR_UNSUPPORTED");
  sps_ok(sps_multivector_read_mm(ctx, NULL, arr, 0) == SPS_ERR_ARGUMENT &&
             sps_multivector_write_mm(NULL, tmpw) == SPS_ERR_ARGUMENT,
         "NULL arguments: SPS_ERR_ARGUMENT");
  remove(arr);
  remove(tmpw);
  remove(coo);
  remove(badcol);
  remove(many);
  remove(pat);
}

static void remove_tmpdir(void)
{
  static const char *names[] = {"general.mtx", "symmetric.mtx", "skew.mtx", "pattern.mtx",
                                "integer.mtx", "empty_entries.mtx", "zero_by_zero.mtx",
                                "array.mtx", "coord.mtx", "written.mtx", "decimals.mtx"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) remove(tmp_path(names[k]));
  rmdir(tmpdir);
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/sps_mm_read_XXXXXX");
  if (!mkdtemp(tmpdir)) sps_bail("cannot make a temporary directory");
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  test_bad_input();
  test_long_lines();
  test_compressed();
  test_buffers();
  test_good_matrices();
  test_bundled();
  test_vectors();
  test_multivectors();
  test_write_round_trip();
  test_decimal_parser();
  sps_context_destroy(&ctx);
  remove_tmpdir();
  return sps_done();
}
