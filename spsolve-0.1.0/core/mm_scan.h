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
 * (a final line without one gets it appended) and *end is '\0', so parsers scan without
 * bounds checks. `line` counts the lines consumed, so the one at cur is line + 1. With two
 * OpenMP threads available, a second thread decompresses the next block while the
 * caller parses this one.
 */
typedef struct sps_mm_reader {
  sps_context *ctx;
  const char *path;
  struct sps_mm_pipe *pipe;
  char *cur, *end;
  int64_t line;
} sps_mm_reader;

/* Open @p path (plain or gzip); the message names the file and gives strerror on failure. */
sps_status sps_mm_open(sps_context *ctx, sps_mm_reader *r, const char *path);
/* Close and free everything (safe on a reader whose open failed or was never called after zeroing). */
void sps_mm_close(sps_mm_reader *r);
/* Make the next block current; afterwards cur == end means the end of the file. */
sps_status sps_mm_refill(sps_mm_reader *r);

/* Record "path:line: message" on the context and return @p code. */
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

#endif /* SPS_CORE_MM_SCAN_H */
