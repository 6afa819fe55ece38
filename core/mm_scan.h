/* mm_scan.h: the scanner under the Matrix Market readers: whole-line blocks from plain or gzip files, the header, entry lines and numbers. */
#ifndef SPS_CORE_MM_SCAN_H
#define SPS_CORE_MM_SCAN_H

#include "internal.h"

/* The header words of a Matrix Market file (the object is always `matrix`). */
typedef enum { SPS_MM_COORDINATE, SPS_MM_ARRAY } sps_mm_format;
typedef enum { SPS_MM_REAL, SPS_MM_INTEGER, SPS_MM_PATTERN, SPS_MM_COMPLEX } sps_mm_field;
typedef enum { SPS_MM_GENERAL, SPS_MM_SYMMETRIC, SPS_MM_SKEW, SPS_MM_HERMITIAN } sps_mm_symm;

typedef struct sps_mm_header {
  sps_mm_format format;
  sps_mm_field field;
  sps_mm_symm symm;
  int64_t nrows, ncols;
  int64_t nnz;        /* coordinate: the declared entry count; array: nrows*ncols */
  int64_t size_line;  /* the 1-based line number of the size line */
} sps_mm_header;

struct sps_mm_pipe;

/*
 * A reader hands out the file as blocks of whole lines: [cur, end) where end[-1] is '\n'
 * (a final line without one gets it appended), so parsers scan each line up to its '\n'
 * without bounds checks. `line` counts the lines consumed, so the one at cur is line + 1.
 * The compression is told by the magic number of the data, not by the name. A line longer
 * than a block (4 MiB) is refused, and the banner is checked in the first block, so no
 * input is ever held whole. A truncated or corrupt compressed stream, or trailing data after
 * it, is reported when the parser reaches it, naming the line reached.
 */
typedef struct sps_mm_reader {
  sps_context *ctx;
  const char *path; /* the file, or the name given to a buffer, for messages */
  const char *suffix; /* a compression suffix of the name (".gz") on uncompressed data */
  struct sps_mm_pipe *pipe;
  char *cur, *end;
  int64_t line;
} sps_mm_reader;

/* Open @p path (plain, gzip, xz or bzip2); the message names the file and gives strerror on
 * failure. A failed open leaves nothing to close. */
sps_status sps_mm_open(sps_context *ctx, sps_mm_reader *r, const char *path);
/* Read @p size bytes at @p data (not copied; they must outlive the reader; NULL with size 0
 * allowed), named @p name in messages ("<buffer>" when NULL). A failed open leaves nothing to
 * close. */
sps_status sps_mm_open_buffer(sps_context *ctx, sps_mm_reader *r, const void *data, size_t size,
                              const char *name);
/* Close and free everything (safe on a reader whose open failed or was never called after zeroing). */
void sps_mm_close(sps_mm_reader *r);
/* Make the next block current; afterwards cur == end means the end of the file. */
sps_status sps_mm_refill(sps_mm_reader *r);

/*
 * Report a decoding failure found ahead of the parser (a corrupt or truncated compressed
 * stream, trailing data) as at @p line and return its status; SPS_SUCCESS when there is
 * none, or when @p corrupt_only and the failure is not corruption.
 */
sps_status sps_mm_take_pending(sps_mm_reader *r, int64_t line, int corrupt_only);

/*
 * Record "path:line: message" on the context and return @p code; when the decoder has
 * already found the stream corrupt, that is reported instead, as the likely cause (the text
 * decoded before a failed check may be wrong too).
 */
sps_status sps_mm_error(sps_mm_reader *r, sps_status code, int64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * Read the banner, the comment and blank lines after it, and the size line, leaving cur at
 * the first line after the size line. Refuses a missing or malformed banner, unknown
 * words, and a bad, negative or overflowing size line (SPS_ERR_IO, SPS_ERR_SIZE).
 */
sps_status sps_mm_read_header(sps_mm_reader *r, sps_mm_header *h);

/* One parsed data line. */
typedef struct sps_mm_entry {
  int64_t i, j; /* 1-based indices as written (j = 1 for array files) */
  double v;     /* value; 1.0 for pattern files */
} sps_mm_entry;

/*
 * Parse the line at @p p (inside the current block) into @p e: "i j v", "i j" (pattern) or
 * "v" (array). Sets *blank for a blank or comment line. Returns the start of the next line,
 * or NULL after recording an error for @p line (bad number, trailing text, NaN/Inf unless
 * allowed). Indices are not range-checked here.
 */
const char *sps_mm_parse_line(sps_mm_reader *r, const sps_mm_header *h, const char *p, int64_t line,
                              unsigned flags, sps_mm_entry *e, int *blank);

/*
 * Parse a decimal floating-point token starting at @p p and ending at a blank, '\r', '\n'
 * or '\0'. The result is the correctly rounded double (exact fast path when the decimal
 * significand has at most 19 digits and the power of ten is exact, strtod otherwise).
 * Returns the end of the token, or NULL when the token is not a number. With
 * @p integer_only, a token with a point or exponent is refused.
 */
const char *sps_mm_parse_double(const char *p, double *v, int integer_only);

/*
 * One rank's rows of a square Matrix Market matrix (core/mm_read.c): part `part` of `nparts`
 * contiguous blocks, rows [floor(part n / nparts), floor((part+1) n / nparts)), as CSR with
 * original column indices (a symmetric file's mirrored entries included; rows unsorted). The
 * whole file is read and checked as sps_matrix_read_mm checks it, keeping only these rows'
 * entries. The arrays are freed with sps_mm_rows_free.
 */
typedef struct sps_mm_rows {
  int64_t nrows, ncols;  /* the whole matrix */
  sps_symmetry symmetry; /* as declared */
  int64_t first, n;      /* rows [first, first + n) */
  int64_t *rowptr;       /* n + 1 */
  int64_t *colind;
  double *values;
} sps_mm_rows;
sps_status sps_mm_read_rows(sps_context *ctx, const char *path, unsigned flags, int nparts,
                            int part, sps_mm_rows *out);
void sps_mm_rows_free(sps_mm_rows *rows);

#endif /* SPS_CORE_MM_SCAN_H */
