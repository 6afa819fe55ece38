/* mm_source.c: the bytes under the Matrix Market scanner: a file or a memory buffer, plain or gzip, xz or bzip2 compressed, handed out in blocks of whole lines. */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_scan.h"

#ifdef SPS_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef SPS_HAVE_LZMA
#include <lzma.h>
#endif
#ifdef SPS_HAVE_BZIP2
#include <bzlib.h>
#endif

/*
 * Bytes of text per block: the first is MM_BLOCK_MIN, and the block doubles while the data
 * fills it, up to MM_BLOCK, so small inputs cost small buffers. MM_BLOCK is also the longest
 * line accepted (the Matrix Market definition limits lines to 1024 characters): a longer one
 * is refused rather than buffered, so a file without line ends is never read whole.
 */
#define MM_BLOCK_MIN ((size_t)64 << 10)
#define MM_BLOCK ((size_t)4 << 20)
/* Bytes of a file read at a time into the compressed input buffer. */
#define MM_INPUT ((size_t)256 << 10)
/* The most memory the xz decoder may use (xz -9 needs 65 MiB); more is refused. */
#define MM_XZ_MEMLIMIT ((uint64_t)256 << 20)

typedef enum { CODEC_PLAIN, CODEC_GZIP, CODEC_XZ, CODEC_BZIP2 } mm_codec;


struct sps_mm_pipe {
  /* The raw bytes: a file read into in[], or a caller's buffer used as in[] directly. */
  FILE *fp;
  const unsigned char *in;
  unsigned char *in_buf; /* owned input buffer of a file, MM_INPUT bytes */
  size_t in_pos, in_len;
  int in_eof;          /* no raw byte is left beyond in[in_pos, in_len) */
  uint64_t in_consumed; /* raw bytes before in[0], for messages */
  int64_t in_total;     /* the file's or buffer's size (0 when unknown), for the progress callback */
  mm_codec codec;
  int stream_end; /* the current compressed stream (gzip member, bzip2 stream) has ended */
#ifdef SPS_HAVE_ZLIB
  z_stream z;
  int z_live;
#endif
#ifdef SPS_HAVE_LZMA
  lzma_stream x;
  int x_live;
#endif
#ifdef SPS_HAVE_BZIP2
  bz_stream b;
  int b_live;
#endif
  /* The text: buf[0, cap) plus one byte for an appended '\n' and one for '\0'. */
  char *buf;
  size_t cap;
  size_t carry_off; /* the partial last line of the previous block: buf[carry_off, +carry_len) */
  size_t carry_len;
  int eof;  /* the decoder has given its last byte */
  int grow; /* the last block was filled: double it before the next */
  /*
   * A decoding failure (truncated or corrupt stream, trailing data) found while filling a
   * block. The text decoded before it is handed out first, in whole lines, so the message
   * can name the line the parser reached; then the failure is reported.
   */
  sps_status pending;
  int pending_has_line; /* prefix the message with the line reached */
  int pending_corrupt;  /* the stream is corrupt: text decoded before may be wrong too */
  char pending_msg[512];
};

/* Record a decoding failure to report once the text before it has been read. */
static void set_pending(struct sps_mm_pipe *pp, sps_status code, int with_line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void set_pending(struct sps_mm_pipe *pp, sps_status code, int with_line, const char *fmt, ...)
{
  if (pp->pending) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pp->pending_msg, sizeof pp->pending_msg, fmt, ap);
  va_end(ap);
  pp->pending = code;
  pp->pending_has_line = with_line;
  pp->eof = 1;
}

/*
 * Make at least @p want raw bytes available in in[in_pos, in_len) when the source has them,
 * reading from the file; returns the bytes available. A read error becomes pending.
 */
static size_t raw_avail(struct sps_mm_pipe *pp, size_t want)
{
  size_t have = pp->in_len - pp->in_pos;
  if (have >= want || pp->in_eof) return have;
  /* Only a file gets here: a buffer is entirely in in[] and in_eof from the start. */
  if (have) memmove(pp->in_buf, pp->in_buf + pp->in_pos, have);
  pp->in_consumed += pp->in_pos;
  pp->in_pos = 0;
  pp->in_len = have;
  while (pp->in_len < want && !pp->in_eof) {
    size_t got = fread(pp->in_buf + pp->in_len, 1, MM_INPUT - pp->in_len, pp->fp);
    pp->in_len += got;
    if (got == 0) {
      if (ferror(pp->fp))
        set_pending(pp, SPS_ERR_IO, 1, "read error: %s", strerror(errno ? errno : EIO));
      pp->in_eof = 1;
    }
  }
  return pp->in_len - pp->in_pos;
}

/* Uncompressed bytes: the raw bytes left in in[], then (files) straight from the file. */
static size_t decode_plain(struct sps_mm_pipe *pp, char *dst, size_t n)
{
  size_t done = 0;
  size_t have = pp->in_len - pp->in_pos;
  if (have) {
    done = have < n ? have : n;
    memcpy(dst, pp->in + pp->in_pos, done);
    pp->in_pos += done;
  }
  if (done < n && pp->fp && !pp->in_eof) {
    const size_t need = n - done;
    const size_t got = fread(dst + done, 1, need, pp->fp);
    done += got;
    if (got < need) {
      if (ferror(pp->fp))
        set_pending(pp, SPS_ERR_IO, 1, "read error: %s", strerror(errno ? errno : EIO));
      pp->in_eof = 1;
    }
  } else if (done < n) {
    pp->in_eof = 1;
  }
  if (done == 0) pp->eof = 1;
  return done;
}

#if defined(SPS_HAVE_ZLIB) || defined(SPS_HAVE_LZMA) || defined(SPS_HAVE_BZIP2)
static const char *const codec_name[] = {"plain", "gzip", "xz", "bzip2"};

/* The bytes after a finished stream: another stream with @p magic, the end, or trailing data. */
static int next_stream(struct sps_mm_pipe *pp, const unsigned char *magic, size_t mlen)
{
  size_t have = raw_avail(pp, mlen);
  if (pp->pending) return 0;
  if (have == 0) {
    pp->eof = 1;
    return 0;
  }
  if (have >= mlen && memcmp(pp->in + pp->in_pos, magic, mlen) == 0) return 1;
  set_pending(pp, SPS_ERR_IO, 0,
              "trailing data after the end of the %s stream at byte %llu (data that is not "
              "another %s stream)",
              codec_name[pp->codec], (unsigned long long)(pp->in_consumed + pp->in_pos),
              codec_name[pp->codec]);
  return 0;
}

static void set_truncated(struct sps_mm_pipe *pp)
{
  set_pending(pp, SPS_ERR_IO, 1,
              "the %s stream is truncated: the file ends inside the compressed data",
              codec_name[pp->codec]);
}
#endif

#ifdef SPS_HAVE_ZLIB
/* gzip: members one after another, as gzip(1) reads them; anything else after one is refused. */
static size_t decode_gzip(struct sps_mm_pipe *pp, char *dst, size_t n)
{
  static const unsigned char magic[2] = {0x1f, 0x8b};
  z_stream *z = &pp->z;
  z->next_out = (Bytef *)dst;
  z->avail_out = (uInt)(n < (1u << 30) ? n : (1u << 30));
  const uInt want = z->avail_out;
  while (z->avail_out > 0 && !pp->eof) {
    if (pp->stream_end) {
      if (!next_stream(pp, magic, sizeof magic)) break;
      inflateReset(z);
      pp->stream_end = 0;
    }
    size_t have = raw_avail(pp, 1);
    if (pp->pending) break;
    if (have == 0) {
      set_truncated(pp);
      break;
    }
    z->next_in = (Bytef *)(pp->in + pp->in_pos);
    z->avail_in = (uInt)(have < (1u << 30) ? have : (1u << 30));
    int ret = inflate(z, Z_NO_FLUSH);
    pp->in_pos += (size_t)(z->next_in - (pp->in + pp->in_pos));
    if (ret == Z_STREAM_END) {
      pp->stream_end = 1;
    } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) {
      set_pending(pp, SPS_ERR_IO, 1, "the gzip stream is corrupt (zlib: %s)",
                  z->msg ? z->msg : "invalid data");
      pp->pending_corrupt = 1;
    } else if (ret == Z_MEM_ERROR) {
      set_pending(pp, SPS_ERR_HOST_MEMORY, 1, "out of memory in zlib");
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      set_pending(pp, SPS_ERR_IO, 1, "the gzip stream cannot be decoded (zlib error %d)", ret);
    }
  }
  return want - z->avail_out;
}
#endif

#ifdef SPS_HAVE_LZMA
static sps_status xz_start(struct sps_mm_pipe *pp)
{
  lzma_stream init = LZMA_STREAM_INIT;
  pp->x = init;
  lzma_ret ret = lzma_stream_decoder(&pp->x, MM_XZ_MEMLIMIT, 0);
  if (ret != LZMA_OK) return ret == LZMA_MEM_ERROR ? SPS_ERR_HOST_MEMORY : SPS_ERR_IO;
  pp->x_live = 1;
  return SPS_SUCCESS;
}

/* xz: streams one after another, as xz(1) reads them (stream padding is not accepted). */
static size_t decode_xz(struct sps_mm_pipe *pp, char *dst, size_t n)
{
  static const unsigned char magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  lzma_stream *x = &pp->x;
  x->next_out = (uint8_t *)dst;
  x->avail_out = n;
  while (x->avail_out > 0 && !pp->eof) {
    if (pp->stream_end) {
      if (!next_stream(pp, magic, sizeof magic)) break;
      uint8_t *out = x->next_out;
      size_t avail = x->avail_out;
      lzma_end(x);
      pp->x_live = 0;
      if (xz_start(pp) != SPS_SUCCESS) {
        set_pending(pp, SPS_ERR_HOST_MEMORY, 1, "out of memory in liblzma");
        break;
      }
      x->next_out = out;
      x->avail_out = avail;
      pp->stream_end = 0;
    }
    size_t have = raw_avail(pp, 1);
    if (pp->pending) break;
    x->next_in = pp->in + pp->in_pos;
    x->avail_in = have;
    lzma_ret ret = lzma_code(x, have == 0 ? LZMA_FINISH : LZMA_RUN);
    pp->in_pos += (size_t)(x->next_in - (pp->in + pp->in_pos));
    if (ret == LZMA_STREAM_END) {
      pp->stream_end = 1;
    } else if (ret == LZMA_BUF_ERROR) {
      set_truncated(pp);
    } else if (ret == LZMA_MEMLIMIT_ERROR) {
      set_pending(pp, SPS_ERR_IO, 1,
                  "the xz stream needs more than %llu MiB of memory to decompress",
                  (unsigned long long)(MM_XZ_MEMLIMIT >> 20));
    } else if (ret == LZMA_MEM_ERROR) {
      set_pending(pp, SPS_ERR_HOST_MEMORY, 1, "out of memory in liblzma");
    } else if (ret != LZMA_OK) {
      set_pending(pp, SPS_ERR_IO, 1, "the xz stream is corrupt (liblzma error %d%s)", (int)ret,
                  ret == LZMA_DATA_ERROR      ? ": data error"
                  : ret == LZMA_FORMAT_ERROR  ? ": not an xz stream"
                  : ret == LZMA_OPTIONS_ERROR ? ": unsupported options"
                                              : "");
      pp->pending_corrupt = 1;
    }
  }
  return n - x->avail_out;
}
#endif

#ifdef SPS_HAVE_BZIP2
/* bzip2: streams one after another, as bzip2(1) reads them. */
static size_t decode_bzip2(struct sps_mm_pipe *pp, char *dst, size_t n)
{
  static const unsigned char magic[3] = {'B', 'Z', 'h'};
  bz_stream *b = &pp->b;
  b->next_out = dst;
  b->avail_out = (unsigned)(n < (1u << 30) ? n : (1u << 30));
  const unsigned want = b->avail_out;
  while (b->avail_out > 0 && !pp->eof) {
    if (pp->stream_end) {
      if (!next_stream(pp, magic, sizeof magic)) break;
      BZ2_bzDecompressEnd(b);
      pp->b_live = 0;
      char *out = b->next_out;
      unsigned avail = b->avail_out;
      memset(b, 0, sizeof *b);
      if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK) {
        set_pending(pp, SPS_ERR_HOST_MEMORY, 1, "out of memory in libbz2");
        break;
      }
      pp->b_live = 1;
      b->next_out = out;
      b->avail_out = avail;
      pp->stream_end = 0;
    }
    size_t have = raw_avail(pp, 1);
    if (pp->pending) break;
    if (have == 0) {
      set_truncated(pp);
      break;
    }
    b->next_in = (char *)(pp->in + pp->in_pos);
    b->avail_in = (unsigned)(have < (1u << 30) ? have : (1u << 30));
    int ret = BZ2_bzDecompress(b);
    pp->in_pos += (size_t)((const unsigned char *)b->next_in - (pp->in + pp->in_pos));
    if (ret == BZ_STREAM_END) {
      pp->stream_end = 1;
    } else if (ret == BZ_MEM_ERROR) {
      set_pending(pp, SPS_ERR_HOST_MEMORY, 1, "out of memory in libbz2");
    } else if (ret != BZ_OK) {
      set_pending(pp, SPS_ERR_IO, 1, "the bzip2 stream is corrupt (libbz2 error %d%s)", ret,
                  ret == BZ_DATA_ERROR         ? ": data error"
                  : ret == BZ_DATA_ERROR_MAGIC ? ": not a bzip2 stream"
                                               : "");
      pp->pending_corrupt = 1;
    }
  }
  return want - b->avail_out;
}
#endif

/* Up to n bytes of text; 0 only at the end (clean, or with a pending failure). */
static size_t decode(struct sps_mm_pipe *pp, char *dst, size_t n)
{
  if (pp->eof) return 0;
  switch (pp->codec) {
#ifdef SPS_HAVE_ZLIB
  case CODEC_GZIP:
    return decode_gzip(pp, dst, n);
#endif
#ifdef SPS_HAVE_LZMA
  case CODEC_XZ:
    return decode_xz(pp, dst, n);
#endif
#ifdef SPS_HAVE_BZIP2
  case CODEC_BZIP2:
    return decode_bzip2(pp, dst, n);
#endif
  default:
    return decode_plain(pp, dst, n);
  }
}

/* The compression of data starting with @p p (n bytes), from its magic number. */
static int sniff(const unsigned char *p, size_t n, const char **name)
{
  static const unsigned char xz[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  static const unsigned char zstd[4] = {0x28, 0xb5, 0x2f, 0xfd};
  static const unsigned char zip[4] = {'P', 'K', 0x03, 0x04};
  static const unsigned char lz4[4] = {0x04, 0x22, 0x4d, 0x18};
  *name = NULL;
  if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) return CODEC_GZIP;
  if (n >= 6 && memcmp(p, xz, 6) == 0) return CODEC_XZ;
  if (n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9')
    return CODEC_BZIP2;
  if (n >= 4 && memcmp(p, zstd, 4) == 0) *name = "zstd";
  if (n >= 4 && memcmp(p, zip, 4) == 0) *name = "zip";
  if (n >= 4 && memcmp(p, lz4, 4) == 0) *name = "lz4";
  if (n >= 2 && p[0] == 0x1f && p[1] == 0x9d) *name = "compress (.Z)";
  return -1;
}

/* The suffix of @p name that names a compression, or NULL. */
static const char *compression_suffix(const char *name)
{
  static const char *const suffixes[] = {".gz", ".xz", ".bz2", ".zst", ".zip", ".lz4", ".Z"};
  size_t n = strlen(name);
  for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
    size_t s = strlen(suffixes[k]);
    if (n > s && strcmp(name + n - s, suffixes[k]) == 0) return suffixes[k];
  }
  return NULL;
}

/* Choose the decoder from the first bytes and start it. */
static sps_status start_decoder(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  sps_context *ctx = r->ctx;
  const char *other;
  size_t have = raw_avail(pp, 6);
  if (pp->pending) SPS_FAIL(ctx, pp->pending, "%s: %s", r->path, pp->pending_msg);
  int codec = sniff(pp->in + pp->in_pos, have, &other);
  if (other)
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "%s: the data is %s-compressed, which is not supported (gzip, xz and bzip2 are, "
             "when the library is built with zlib, liblzma and libbz2); decompress it first",
             r->path, other);
  if (codec < 0) {
    pp->codec = CODEC_PLAIN;
    r->suffix = compression_suffix(r->path);
    return SPS_SUCCESS;
  }
  pp->codec = (mm_codec)codec;
  switch (pp->codec) {
  case CODEC_GZIP:
#ifdef SPS_HAVE_ZLIB
    if (inflateInit2(&pp->z, 15 + 16) != Z_OK)
      SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: out of memory in zlib", r->path);
    pp->z_live = 1;
    return SPS_SUCCESS;
#else
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "%s: the file is gzip-compressed and this build has no zlib (configure --with-zlib)",
             r->path);
#endif
  case CODEC_XZ:
#ifdef SPS_HAVE_LZMA
    if (xz_start(pp) != SPS_SUCCESS)
      SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: cannot start the xz decoder (liblzma)", r->path);
    return SPS_SUCCESS;
#else
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "%s: the file is xz-compressed and this build has no liblzma (install liblzma and "
             "configure --with-lzma), or decompress it first",
             r->path);
#endif
  case CODEC_BZIP2:
#ifdef SPS_HAVE_BZIP2
    if (BZ2_bzDecompressInit(&pp->b, 0, 0) != BZ_OK)
      SPS_FAIL(ctx, SPS_ERR_HOST_MEMORY, "%s: out of memory in libbz2", r->path);
    pp->b_live = 1;
    return SPS_SUCCESS;
#else
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "%s: the file is bzip2-compressed and this build has no libbz2 (install libbz2 "
             "and configure --with-bzip2), or decompress it first",
             r->path);
#endif
  default:
    return SPS_SUCCESS;
  }
}

static sps_status new_pipe(sps_context *ctx, sps_mm_reader *r, const char *name)
{
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  r->path = name;
  struct sps_mm_pipe *pp = NULL;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&pp, 1, sizeof *pp, "Matrix Market reader"));
  r->pipe = pp;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&pp->buf, MM_BLOCK_MIN + 2, 1, "Matrix Market read buffer"));
  pp->cap = MM_BLOCK_MIN;
  return SPS_SUCCESS;
}

static sps_status open_file(sps_context *ctx, sps_mm_reader *r, const char *path)
{
  SPS_CHECK(new_pipe(ctx, r, path));
  struct sps_mm_pipe *pp = r->pipe;
  SPS_CHECK(sps_host_alloc(ctx, (void **)&pp->in_buf, MM_INPUT, 1, "Matrix Market input buffer"));
  pp->in = pp->in_buf;
  errno = 0;
  pp->fp = fopen(path, "rb");
  if (!pp->fp) SPS_FAIL(ctx, SPS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  if (ctx->read_progress && fstat(fileno(pp->fp), &sb) == 0 && S_ISREG(sb.st_mode))
    pp->in_total = (int64_t)sb.st_size;
  return start_decoder(r);
}

static sps_status open_buffer(sps_context *ctx, sps_mm_reader *r, const void *data, size_t size,
                              const char *name)
{
  SPS_CHECK(new_pipe(ctx, r, name));
  struct sps_mm_pipe *pp = r->pipe;
  pp->in = data;
  pp->in_len = size;
  pp->in_total = (int64_t)size;
  pp->in_eof = 1;
  return start_decoder(r);
}

sps_status sps_mm_open(sps_context *ctx, sps_mm_reader *r, const char *path)
{
  const sps_status st = open_file(ctx, r, path);
  if (st != SPS_SUCCESS) sps_mm_close(r);
  return st;
}

sps_status sps_mm_open_buffer(sps_context *ctx, sps_mm_reader *r, const void *data, size_t size,
                              const char *name)
{
  const sps_status st = open_buffer(ctx, r, data ? data : "", size, name ? name : "<buffer>");
  if (st != SPS_SUCCESS) sps_mm_close(r);
  return st;
}

void sps_mm_close(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  if (!pp) return;
#ifdef SPS_HAVE_ZLIB
  if (pp->z_live) inflateEnd(&pp->z);
#endif
#ifdef SPS_HAVE_LZMA
  if (pp->x_live) lzma_end(&pp->x);
#endif
#ifdef SPS_HAVE_BZIP2
  if (pp->b_live) BZ2_bzDecompressEnd(&pp->b);
#endif
  if (pp->fp) fclose(pp->fp);
  sps_host_free(pp->in_buf);
  sps_host_free(pp->buf);
  sps_host_free(pp);
  r->pipe = NULL;
  r->cur = r->end = NULL;
}

sps_status sps_mm_take_pending(sps_mm_reader *r, int64_t line, int corrupt_only)
{
  struct sps_mm_pipe *pp = r->pipe;
  if (!pp || !pp->pending || (corrupt_only && !pp->pending_corrupt)) return SPS_SUCCESS;
  sps_status code = pp->pending;
  pp->pending = SPS_SUCCESS; /* reported once */
  if (pp->pending_has_line)
    return sps_error_set(r->ctx, code, "%s:%lld: %s", r->path, (long long)line, pp->pending_msg);
  return sps_error_set(r->ctx, code, "%s: %s", r->path, pp->pending_msg);
}

/* Whether the text at p (n bytes, after blanks) can still begin with the banner. */
static int banner_possible(const char *p, size_t n)
{
  static const char banner[] = "%%matrixmarket";
  size_t k = 0;
  while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r')) k++;
  for (size_t i = 0; k < n && i < sizeof banner - 1; i++, k++) {
    char c = p[k];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != banner[i]) return 0;
  }
  return 1;
}

/* Double the block (at most MM_BLOCK), keeping the carried partial line. */
static sps_status grow_block(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  size_t cap = 2 * pp->cap < MM_BLOCK ? 2 * pp->cap : MM_BLOCK;
  void *nb = pp->buf;
  if (sps_host_realloc(r->ctx, &nb, cap + 2, 1, "Matrix Market read buffer"))
    return sps_error_set(r->ctx, SPS_ERR_HOST_MEMORY,
                         "%s: Matrix Market read buffer: cannot allocate %zu bytes of host memory",
                         r->path, cap + 2);
  pp->buf = nb;
  pp->cap = cap;
  return SPS_SUCCESS;
}

/* The caller's read progress, once a block: the raw bytes taken from the file so far. */
static sps_status report_progress(sps_mm_reader *r)
{
  sps_context *ctx = r->ctx;
  if (!ctx->read_progress) return SPS_SUCCESS;
  const struct sps_mm_pipe *pp = r->pipe;
  const int64_t bytes =
      pp->fp ? (int64_t)ftello(pp->fp) : (int64_t)(pp->in_consumed + pp->in_pos);
  if (ctx->read_progress(ctx->read_progress_user, bytes, pp->in_total))
    return sps_error_set(ctx, SPS_ERR_INTERRUPTED, "%s: reading interrupted at line %lld",
                         r->path, (long long)r->line);
  return SPS_SUCCESS;
}

sps_status sps_mm_refill(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  SPS_CHECK(report_progress(r));
  if (pp->grow) {
    pp->grow = 0;
    SPS_CHECK(grow_block(r));
  }
  size_t len = pp->carry_len;
  if (len) memmove(pp->buf, pp->buf + pp->carry_off, len);
  pp->carry_len = 0;
  for (;;) {
    if (pp->eof) {
      if (pp->pending) {
        /* The text before the failure has been read; a partial last line is not handed out. */
        r->cur = r->end = pp->buf;
        return sps_mm_take_pending(r, r->line + 1, 0);
      }
      if (len && pp->buf[len - 1] != '\n') pp->buf[len++] = '\n';
      pp->buf[len] = '\0';
      r->cur = pp->buf;
      r->end = pp->buf + len;
      return SPS_SUCCESS;
    }
    if (len == pp->cap && pp->cap < MM_BLOCK) {
      SPS_CHECK(grow_block(r));
      continue;
    }
    if (len == pp->cap) {
      if (r->line == 0 && !banner_possible(pp->buf, len))
        return sps_mm_error(r, SPS_ERR_IO, 1,
                            "missing banner: the first line must start with %%%%MatrixMarket");
      return sps_mm_error(r, SPS_ERR_IO, r->line + 1,
                          "line longer than %zu MiB (a Matrix Market line has at most 1024 "
                          "characters)",
                          MM_BLOCK >> 20);
    }
    size_t got = decode(pp, pp->buf + len, pp->cap - len);
    if (got == 0) continue; /* decode sets eof */
    size_t old = len;
    len += got;
    /* The data fills the block: read more at a time next time (fewer, larger refills). */
    const int full = len == pp->cap;
    if (r->line == 0 && old == 0 && !banner_possible(pp->buf, len))
      return sps_mm_error(r, SPS_ERR_IO, 1, "missing banner: the first line must start with "
                                            "%%%%MatrixMarket%s%s%s",
                          r->suffix ? " (the name ends in " : "", r->suffix ? r->suffix : "",
                          r->suffix ? " but the data is not compressed that way: a corrupt or "
                                      "misnamed file?)"
                                    : "");
    char *p = pp->buf + len;
    while (p > pp->buf + old && p[-1] != '\n') p--;
    if (p > pp->buf + old) {
      size_t cut = (size_t)(p - pp->buf);
      pp->carry_off = cut;
      pp->carry_len = len - cut;
      r->cur = pp->buf;
      r->end = pp->buf + cut;
      pp->grow = full && pp->cap < MM_BLOCK;
      return SPS_SUCCESS;
    }
  }
}
