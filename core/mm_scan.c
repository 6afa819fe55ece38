/* mm_scan.c: the Matrix Market scanner: header words, size line, entry lines and a correctly rounded fast decimal parser. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mm_scan.h"

static inline int is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

static inline int is_delim(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0';
}

static inline const char *skip_blanks(const char *p)
{
  while (is_blank(*p)) p++;
  return p;
}

/* Length of the token at p (up to the next delimiter), for messages. */
static int token_len(const char *p)
{
  int n = 0;
  while (!is_delim(p[n]) && n < 64) n++;
  return n;
}

sps_status sps_mm_error(sps_mm_reader *r, sps_status code, int64_t line, const char *fmt, ...)
{
  sps_status pending = sps_mm_take_pending(r, line, 1);
  if (pending != SPS_SUCCESS) return pending;
  char msg[SPS_ERRMSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sps_error_set(r->ctx, code, "%s:%lld: %s", r->path, (long long)line, msg);
}

/* The exact powers of ten representable as doubles. */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* strtod on a copy of the token [p, p + len), which must be consumed entirely. */
static const char *parse_double_slow(const char *p, size_t len, double *v, int integer_only)
{
  char small[128];
  char *buf = small;
  if (len == 0) return NULL;
  if (integer_only) {
    size_t k = (p[0] == '+' || p[0] == '-') ? 1 : 0;
    if (k == len) return NULL;
    for (; k < len; k++)
      if (p[k] < '0' || p[k] > '9') return NULL;
  }
  if (len >= sizeof small) {
    buf = malloc(len + 1);
    if (!buf) return NULL;
  }
  memcpy(buf, p, len);
  buf[len] = '\0';
  char *endp;
  double d = strtod(buf, &endp);
  int whole = endp == buf + len;
  if (buf != small) free(buf);
  if (!whole) return NULL;
  *v = d;
  return p + len;
}

/*
 * Fast path (Clinger): a decimal m * 10^e with m < 2^53 and |e| <= 22 is m times or divided
 * by an exact power of ten, one IEEE operation on exact operands, hence correctly rounded.
 * Everything else (more than 19 significant digits, large exponents, nan, inf, hex) goes
 * to strtod.
 */
const char *sps_mm_parse_double(const char *p, double *v, int integer_only)
{
  const char *s = p;
  int neg = 0;
  if (*s == '+' || *s == '-') {
    neg = *s == '-';
    s++;
  }
  uint64_t m = 0;
  int nd = 0, e10 = 0, any = 0, dropped = 0;
  while (*s == '0') {
    s++;
    any = 1;
  }
  while ((unsigned)(*s - '0') < 10u) {
    if (nd < 19) {
      m = m * 10 + (uint64_t)(*s - '0');
      nd++;
    } else {
      dropped = 1;
      e10++;
    }
    s++;
    any = 1;
  }
  if (*s == '.') {
    if (integer_only) goto slow;
    s++;
    if (nd == 0)
      while (*s == '0') {
        e10--;
        s++;
        any = 1;
      }
    while ((unsigned)(*s - '0') < 10u) {
      if (nd < 19) {
        m = m * 10 + (uint64_t)(*s - '0');
        nd++;
        e10--;
      } else {
        dropped = 1;
      }
      s++;
      any = 1;
    }
  }
  if (!any) goto slow;
  if (*s == 'e' || *s == 'E') {
    if (integer_only) goto slow;
    s++;
    int eneg = 0;
    if (*s == '+' || *s == '-') {
      eneg = *s == '-';
      s++;
    }
    if ((unsigned)(*s - '0') >= 10u) goto slow;
    int ex = 0;
    while ((unsigned)(*s - '0') < 10u) {
      if (ex < 100000) ex = ex * 10 + (*s - '0');
      s++;
    }
    e10 += eneg ? -ex : ex;
  }
  if (!is_delim(*s) || dropped) goto slow;
  if (m == 0) {
    *v = neg ? -0.0 : 0.0;
    return s;
  }
  if (m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
    double d = (double)m;
    d = e10 < 0 ? d / pow10_exact[-e10] : d * pow10_exact[e10];
    *v = neg ? -d : d;
    return s;
  }
slow:
  s = p;
  while (!is_delim(*s)) s++;
  return parse_double_slow(p, (size_t)(s - p), v, integer_only);
}

/*
 * A signed decimal integer of at most 18 significant digits (so it fits int64_t with room to
 * spare); returns the end, or NULL when there is no digit or when there are more digits,
 * which also sets *too_big. The digits accumulate in an unsigned integer, whose wrap-around
 * on a long digit string is defined (and then ignored), so no input can overflow.
 */
static const char *parse_int(const char *p, int64_t *v, int *too_big)
{
  int neg = 0;
  *too_big = 0;
  if (*p == '+' || *p == '-') {
    neg = *p == '-';
    p++;
  }
  const char *start = p;
  while (*p == '0') p++;
  const char *sig = p;
  uint64_t x = 0;
  while ((unsigned)(*p - '0') < 10u) {
    x = x * 10 + (uint64_t)(*p - '0');
    p++;
  }
  if (p == start) return NULL;
  if (p - sig > 18) {
    *too_big = 1;
    return NULL;
  }
  *v = neg ? -(int64_t)x : (int64_t)x;
  return p;
}

/* The next line [*b, *e) (*e at its '\n'); 0 at the end of the file. */
static sps_status next_line(sps_mm_reader *r, const char **b, const char **e, int *got)
{
  *got = 0;
  if (r->cur == r->end) {
    SPS_CHECK(sps_mm_refill(r));
    if (r->cur == r->end) return SPS_SUCCESS;
  }
  const char *nl = memchr(r->cur, '\n', (size_t)(r->end - r->cur));
  *b = r->cur;
  *e = nl;
  r->cur = (char *)nl + 1;
  r->line++;
  *got = 1;
  return SPS_SUCCESS;
}

/* Split [b, e) into at most max blank-separated words; returns the count (max + 1 if more). */
static int split_words(const char *b, const char *e, const char **w, int *len, int max)
{
  int n = 0;
  const char *p = b;
  for (;;) {
    while (p < e && is_blank(*p)) p++;
    if (p >= e) return n;
    if (n == max) return max + 1;
    w[n] = p;
    while (p < e && !is_blank(*p)) p++;
    len[n] = (int)(p - w[n]);
    n++;
  }
}

static int word_is(const char *w, int len, const char *word)
{
  return (size_t)len == strlen(word) && strncasecmp(w, word, (size_t)len) == 0;
}

sps_status sps_mm_read_header(sps_mm_reader *r, sps_mm_header *h)
{
  const char *b, *e;
  int got;
  memset(h, 0, sizeof *h);
  SPS_CHECK(next_line(r, &b, &e, &got));
  if (!got) return sps_mm_error(r, SPS_ERR_IO, 1, "empty file: missing the %%%%MatrixMarket banner");
  const int64_t bl = r->line;
  const char *w[6];
  int len[6];
  int nw = split_words(b, e, w, len, 5);
  if (nw < 1 || !word_is(w[0], len[0], "%%MatrixMarket"))
    return sps_mm_error(r, SPS_ERR_IO, bl,
                        "missing banner: the first line must start with %%%%MatrixMarket");
  if (nw != 5)
    return sps_mm_error(r, SPS_ERR_IO, bl,
                        "malformed banner: expected '%%%%MatrixMarket matrix <format> <field> "
                        "<symmetry>'");
  if (!word_is(w[1], len[1], "matrix"))
    return sps_mm_error(r, SPS_ERR_IO, bl, "unknown object '%.*s' in the banner (expected matrix)",
                        len[1], w[1]);
  if (word_is(w[2], len[2], "coordinate"))
    h->format = SPS_MM_COORDINATE;
  else if (word_is(w[2], len[2], "array"))
    h->format = SPS_MM_ARRAY;
  else
    return sps_mm_error(r, SPS_ERR_IO, bl,
                        "unknown format '%.*s' in the banner (expected coordinate or array)",
                        len[2], w[2]);
  if (word_is(w[3], len[3], "real") || word_is(w[3], len[3], "double"))
    h->field = SPS_MM_REAL;
  else if (word_is(w[3], len[3], "integer"))
    h->field = SPS_MM_INTEGER;
  else if (word_is(w[3], len[3], "pattern"))
    h->field = SPS_MM_PATTERN;
  else if (word_is(w[3], len[3], "complex"))
    h->field = SPS_MM_COMPLEX;
  else
    return sps_mm_error(r, SPS_ERR_IO, bl,
                        "unknown field '%.*s' in the banner (expected real, integer, pattern or "
                        "complex)",
                        len[3], w[3]);
  if (word_is(w[4], len[4], "general"))
    h->symm = SPS_MM_GENERAL;
  else if (word_is(w[4], len[4], "symmetric"))
    h->symm = SPS_MM_SYMMETRIC;
  else if (word_is(w[4], len[4], "skew-symmetric"))
    h->symm = SPS_MM_SKEW;
  else if (word_is(w[4], len[4], "hermitian"))
    h->symm = SPS_MM_HERMITIAN;
  else
    return sps_mm_error(r, SPS_ERR_IO, bl,
                        "unknown symmetry '%.*s' in the banner (expected general, symmetric, "
                        "skew-symmetric or hermitian)",
                        len[4], w[4]);
  if (h->format == SPS_MM_ARRAY && h->field == SPS_MM_PATTERN)
    return sps_mm_error(r, SPS_ERR_IO, bl, "an array file cannot have the pattern field");

  /* Comment and blank lines, then the size line. */
  for (;;) {
    SPS_CHECK(next_line(r, &b, &e, &got));
    if (!got)
      return sps_mm_error(r, SPS_ERR_IO, r->line + 1, "the file ends before the size line");
    const char *q = skip_blanks(b);
    if (q < e && *q != '%') break;
  }
  h->size_line = r->line;
  const int want = h->format == SPS_MM_COORDINATE ? 3 : 2;
  const char *expect = want == 3 ? "'rows columns entries'" : "'rows columns'";
  nw = split_words(b, e, w, len, 3);
  if (nw != want)
    return sps_mm_error(r, SPS_ERR_IO, h->size_line, "malformed size line: expected %s", expect);
  int64_t sz[3];
  static const char *what[3] = {"row count", "column count", "entry count"};
  for (int k = 0; k < want; k++) {
    int big;
    const char *t = parse_int(w[k], &sz[k], &big);
    if (big)
      return sps_mm_error(r, SPS_ERR_SIZE, h->size_line, "%s %.*s is too large", what[k], len[k],
                          w[k]);
    if (!t || t != w[k] + len[k])
      return sps_mm_error(r, SPS_ERR_IO, h->size_line,
                          "malformed size line: %s '%.*s' is not an integer (expected %s)",
                          what[k], len[k], w[k], expect);
    if (sz[k] < 0)
      return sps_mm_error(r, SPS_ERR_IO, h->size_line, "negative %s %lld", what[k],
                          (long long)sz[k]);
  }
  h->nrows = sz[0];
  h->ncols = sz[1];
  if (h->format == SPS_MM_COORDINATE) {
    h->nnz = sz[2];
  } else {
    if (h->ncols != 0 && h->nrows > INT64_MAX / h->ncols)
      return sps_mm_error(r, SPS_ERR_SIZE, h->size_line, "array of %lld x %lld values is too large",
                          (long long)h->nrows, (long long)h->ncols);
    h->nnz = h->nrows * h->ncols;
  }
  if (h->symm != SPS_MM_GENERAL && h->nrows != h->ncols)
    return sps_mm_error(r, SPS_ERR_IO, h->size_line,
                        "a %s matrix must be square, not %lld x %lld",
                        h->symm == SPS_MM_SKEW ? "skew-symmetric" : "symmetric",
                        (long long)h->nrows, (long long)h->ncols);
  return SPS_SUCCESS;
}

const char *sps_mm_parse_line(sps_mm_reader *r, const sps_mm_header *h, const char *p, int64_t line,
                              unsigned flags, sps_mm_entry *e, int *blank)
{
  const char *q = skip_blanks(p), *t;
  int big;
  *blank = 0;
  if (*q == '\n' || *q == '%') {
    *blank = 1;
    while (*q != '\n') q++;
    return q + 1;
  }
  if (h->format == SPS_MM_COORDINATE) {
    t = parse_int(q, &e->i, &big);
    if (t && *t == '\n') {
      sps_mm_error(r, SPS_ERR_IO, line, "missing column index");
      return NULL;
    }
    if (!t || !is_blank(*t)) {
      sps_mm_error(r, SPS_ERR_IO, line, big ? "row index '%.*s' is too large" : "bad row index '%.*s'",
                   token_len(q), q);
      return NULL;
    }
    q = skip_blanks(t);
    if (*q == '\n') {
      sps_mm_error(r, SPS_ERR_IO, line, "missing column index");
      return NULL;
    }
    t = parse_int(q, &e->j, &big);
    if (!t || !is_delim(*t)) {
      sps_mm_error(r, SPS_ERR_IO, line,
                   big ? "column index '%.*s' is too large" : "bad column index '%.*s'",
                   token_len(q), q);
      return NULL;
    }
    q = skip_blanks(t);
  } else {
    e->i = e->j = 0;
  }
  if (h->field == SPS_MM_PATTERN) {
    e->v = 1.0;
  } else {
    if (*q == '\n') {
      sps_mm_error(r, SPS_ERR_IO, line, "missing value");
      return NULL;
    }
    t = sps_mm_parse_double(q, &e->v, h->field == SPS_MM_INTEGER);
    if (!t) {
      sps_mm_error(r, SPS_ERR_IO, line, "bad %s value '%.*s'",
                   h->field == SPS_MM_INTEGER ? "integer" : "real", token_len(q), q);
      return NULL;
    }
    if (!isfinite(e->v) && !(flags & SPS_MM_ALLOW_NONFINITE)) {
      sps_mm_error(r, SPS_ERR_IO, line,
                   "value '%.*s' is not finite (pass SPS_MM_ALLOW_NONFINITE to accept NaN and Inf)",
                   token_len(q), q);
      return NULL;
    }
    q = skip_blanks(t);
  }
  if (*q != '\n') {
    sps_mm_error(r, SPS_ERR_IO, line, "unexpected text '%.*s' after the entry", token_len(q), q);
    return NULL;
  }
  return q + 1;
}
