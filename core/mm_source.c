/* mm_source.c: reads a plain or gzip-compressed file in large blocks cut at line ends, for the Matrix Market scanner. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_scan.h"

#ifdef SPS_HAVE_ZLIB
#include <zlib.h>
#endif

/* Bytes requested from the decompressor per block. */
#define MM_BLOCK (4u << 20)

struct sps_mm_pipe {
#ifdef SPS_HAVE_ZLIB
  gzFile gz;
#else
  FILE *fp;
#endif
  char *buf;
  size_t cap;       /* usable bytes of buf; one more is kept for an appended '\n' */
  size_t carry_off; /* the partial last line of the previous read: buf[carry_off, +carry_len) */
  size_t carry_len;
  int eof;
};

#ifndef SPS_HAVE_ZLIB
static int has_gz_suffix(const char *path)
{
  size_t n = strlen(path);
  return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}
#endif

sps_status sps_mm_open(sps_context *ctx, sps_mm_reader *r, const char *path)
{
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  r->path = path;
  struct sps_mm_pipe *pp = NULL;
  SPS_CHECK(sps_host_calloc(ctx, (void **)&pp, 1, sizeof *pp, "Matrix Market reader"));
  r->pipe = pp;
  sps_status st = sps_host_alloc(ctx, (void **)&pp->buf, MM_BLOCK + 1, 1, "Matrix Market read buffer");
  if (st) return st;
  pp->cap = MM_BLOCK;
#ifdef SPS_HAVE_ZLIB
  errno = 0;
  pp->gz = gzopen(path, "rb");
  if (!pp->gz)
    SPS_FAIL(ctx, SPS_ERR_IO, "%s: cannot open: %s", path,
             errno ? strerror(errno) : "out of memory in zlib");
  gzbuffer(pp->gz, 1u << 18);
#else
  pp->fp = fopen(path, "rb");
  if (!pp->fp) SPS_FAIL(ctx, SPS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  unsigned char magic[2] = {0, 0};
  size_t got = fread(magic, 1, 2, pp->fp);
  if (has_gz_suffix(path) || (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b))
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
             "%s: the file is gzip-compressed and this build has no zlib (configure --with-zlib)",
             path);
  rewind(pp->fp);
#endif
  return SPS_SUCCESS;
}

void sps_mm_close(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  if (!pp) return;
#ifdef SPS_HAVE_ZLIB
  if (pp->gz) gzclose(pp->gz);
#else
  if (pp->fp) fclose(pp->fp);
#endif
  sps_host_free(pp->buf);
  sps_host_free(pp);
  r->pipe = NULL;
  r->cur = r->end = NULL;
}

/* Read up to n bytes; 0 at the end of the file. */
static sps_status read_raw(sps_mm_reader *r, char *dst, size_t n, size_t *got)
{
  struct sps_mm_pipe *pp = r->pipe;
#ifdef SPS_HAVE_ZLIB
  if (n > (1u << 30)) n = 1u << 30;
  int k = gzread(pp->gz, dst, (unsigned)n);
  int zerr = Z_OK;
  const char *zmsg = gzerror(pp->gz, &zerr);
  if (k < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
    /* zlib prefixes its message with the path. */
    size_t pl = strlen(r->path);
    if (zerr != Z_ERRNO && strncmp(zmsg, r->path, pl) == 0 && zmsg[pl] == ':') zmsg += pl + 1;
    while (*zmsg == ' ') zmsg++;
    SPS_FAIL(r->ctx, SPS_ERR_IO, "%s: read error after line %lld: %s", r->path,
             (long long)r->line, zerr == Z_ERRNO ? strerror(errno) : zmsg);
  }
  *got = (size_t)k;
#else
  *got = fread(dst, 1, n, pp->fp);
  if (*got < n && ferror(pp->fp))
    SPS_FAIL(r->ctx, SPS_ERR_IO, "%s: read error after line %lld: %s", r->path, (long long)r->line,
             strerror(errno));
#endif
  return SPS_SUCCESS;
}

sps_status sps_mm_refill(sps_mm_reader *r)
{
  struct sps_mm_pipe *pp = r->pipe;
  size_t len = pp->carry_len;
  if (len) memmove(pp->buf, pp->buf + pp->carry_off, len);
  pp->carry_len = 0;
  for (;;) {
    if (pp->eof) {
      if (len && pp->buf[len - 1] != '\n') pp->buf[len++] = '\n';
      r->cur = pp->buf;
      r->end = pp->buf + len;
      return SPS_SUCCESS;
    }
    if (len == pp->cap) {
      /* One line longer than the buffer: grow it. */
      void *nb = pp->buf;
      if (sps_host_realloc(r->ctx, &nb, 2 * pp->cap + 1, 1, "Matrix Market line buffer"))
        return sps_mm_error(r, SPS_ERR_HOST_MEMORY, r->line + 1, "cannot allocate a line buffer of %zu bytes",
                            2 * pp->cap + 1);
      pp->buf = nb;
      pp->cap *= 2;
    }
    size_t got = 0;
    SPS_CHECK(read_raw(r, pp->buf + len, pp->cap - len, &got));
    if (got == 0) {
      pp->eof = 1;
      continue;
    }
    size_t old = len;
    len += got;
    char *p = pp->buf + len;
    while (p > pp->buf + old && p[-1] != '\n') p--;
    if (p > pp->buf + old) {
      size_t cut = (size_t)(p - pp->buf);
      pp->carry_off = cut;
      pp->carry_len = len - cut;
      r->cur = pp->buf;
      r->end = pp->buf + cut;
      return SPS_SUCCESS;
    }
  }
}
