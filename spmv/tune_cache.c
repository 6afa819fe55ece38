/* tune_cache.c: the disk cache of TUNE's results: the key (matrix structure, device, version), one checksummed text file per key, atomic replacement. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spmv_internal.h"
#include "threads_per_row.h"

/* The first line of every entry, and the version of the format below it. */
#define CACHE_MAGIC "# spsolve SpMV tuning result (spmv=tune); safe to delete"
#define CACHE_FORMAT 1
/* An entry is a few hundred bytes; anything longer than this is not one. */
#define CACHE_MAX_BYTES 16384

/* SplitMix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

/*
 * A 64-bit hash of @p bytes bytes: chunks of 512 KiB hashed word by word (rotate, xor,
 * multiply), each finalised with its index and length, summed. The sum does not depend on the
 * order of the chunks' completion, so the threads may take them in any order and every
 * thread count gives the same hash; the index keeps the position of each chunk in it.
 */
static uint64_t hash_bytes(const void *data, size_t bytes, uint64_t seed)
{
  const unsigned char *p = data;
  const size_t chunk = (size_t)1 << 19;
  const int64_t nchunks = (int64_t)((bytes + chunk - 1) / chunk);
  uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) if (nchunks > 8)
  for (int64_t c = 0; c < nchunks; c++) {
    const size_t begin = (size_t)c * chunk;
    const size_t end = bytes - begin > chunk ? begin + chunk : bytes;
    uint64_t h = mix64(seed ^ (uint64_t)c);
    size_t i = begin;
    for (; i + 8 <= end; i += 8) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      h = (rotl64(h, 27) ^ w) * 0x9e3779b97f4a7c15ull;
    }
    if (i < end) {
      uint64_t w = 0;
      memcpy(&w, p + i, end - i);
      h = (rotl64(h, 27) ^ w ^ 0xff) * 0x9e3779b97f4a7c15ull;
    }
    sum += mix64(h ^ (uint64_t)(end - begin));
  }
  return mix64(sum ^ (uint64_t)bytes);
}

/* FNV-1a over a string: for the short key strings and the checksum of an entry. */
static uint64_t hash_text(const char *s, size_t len)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t sps_spmv_structure_hash(const sps_matrix *A)
{
  const uint64_t hr =
      hash_bytes(A->rowptr, (size_t)(A->nrows + 1) * sizeof *A->rowptr, 0x726f77707472ull);
  const uint64_t hc =
      A->nnz > 0 ? hash_bytes(A->colind, (size_t)A->nnz * sizeof *A->colind, 0x636f6c696e64ull) : 0;
  return mix64(hr ^ rotl64(hc, 17) ^ (uint64_t)A->nrows ^ rotl64((uint64_t)A->ncols, 32));
}

/* The cache directory: the context's, else $SPSOLVE_CACHE_DIR (empty: off), else
 * $XDG_CACHE_HOME/spsolve (an absolute path, as the XDG specification asks), else
 * $HOME/.cache/spsolve; "" when off or when the path would not fit. */
static void cache_dir(const sps_context *ctx, char *buf, size_t len)
{
  int w = 0;
  const char *e;
  buf[0] = '\0';
  if (ctx->cache_dir_set)
    w = snprintf(buf, len, "%s", ctx->cache_dir);
  else if ((e = getenv("SPSOLVE_CACHE_DIR")) != NULL)
    w = snprintf(buf, len, "%s", e);
  else if ((e = getenv("XDG_CACHE_HOME")) != NULL && e[0] == '/')
    w = snprintf(buf, len, "%s/spsolve", e);
  else if ((e = getenv("HOME")) != NULL && e[0] != '\0')
    w = snprintf(buf, len, "%s/.cache/spsolve", e);
  if (w < 0 || (size_t)w >= len) buf[0] = '\0';
}

void sps_spmv_cache_key_make(const sps_context *ctx, const sps_matrix *A, sps_spmv_cache_key *key)
{
  memset(key, 0, sizeof *key);
  cache_dir(ctx, key->dir, sizeof key->dir);
  if (!key->dir[0]) return; /* off: no key, and no pass over the matrix for its hash */
  sps_context_device_key(ctx, key->device, sizeof key->device);
  for (char *p = key->device; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  const uint64_t hs = sps_spmv_structure_hash(A);
  snprintf(key->matrix, sizeof key->matrix, "%lld %lld %lld %016llx", (long long)A->nrows,
           (long long)A->ncols, (long long)A->nnz, (unsigned long long)hs);
  const char *version = sps_version();
  const uint64_t name = mix64(hs ^ hash_text(key->device, strlen(key->device)) ^
                              rotl64(hash_text(version, strlen(version)), 21) ^
                              rotl64(hash_text(key->matrix, strlen(key->matrix)), 42));
  int w = snprintf(key->path, sizeof key->path, "%s/spmv-%016llx.txt", key->dir,
                   (unsigned long long)name);
  if (w < 0 || (size_t)w >= sizeof key->path) key->dir[0] = key->path[0] = '\0';
}

/* Split off the next line of *text (at most one '\n' removed); NULL at the end. */
static char *next_line(char **text)
{
  char *s = *text;
  if (!s || !*s) return NULL;
  char *nl = strchr(s, '\n');
  if (nl) {
    *nl = '\0';
    *text = nl + 1;
  } else {
    *text = s + strlen(s);
  }
  return s;
}

/* The line is "WORD rest": the rest, or NULL. */
static const char *field(const char *line, const char *word)
{
  const size_t n = strlen(word);
  if (strncmp(line, word, n) != 0 || line[n] != ' ') return NULL;
  return line + n + 1;
}

/* A variant's name (not auto or tune) available on the device, with a valid tpr. */
static int parse_choice(const char *s, sps_device_kind device, sps_spmv_kind *kind, int *tpr,
                        const char **rest)
{
  char name[64];
  int used = 0;
  if (sscanf(s, "%63s %d%n", name, tpr, &used) != 2) return 0;
  if (sps_spmv_kind_from_name(name, kind) != SPS_SUCCESS || !sps_spmv_kind_is_variant(*kind) ||
      !sps_spmv_kind_available(*kind, device) || !sps_spmv_tpr_valid(*tpr))
    return 0;
  if (*kind == SPS_SPMV_CSR_VECTOR && *tpr == 0) return 0;
  if (*kind != SPS_SPMV_CSR_VECTOR && *tpr != 0) return 0;
  if (rest) *rest = s + used;
  return 1;
}

#define BAD(...)                                                                                   \
  do {                                                                                             \
    snprintf(why, whylen, __VA_ARGS__);                                                            \
    return 0;                                                                                      \
  } while (0)

int sps_spmv_cache_read(const sps_spmv_cache_key *key, sps_device_kind device,
                        sps_spmv_choice_info *info, char *why, size_t whylen)
{
  char text[CACHE_MAX_BYTES + 1];
  why[0] = '\0';
  if (!key->dir[0]) return 0;
  FILE *f = fopen(key->path, "r");
  if (!f) {
    if (errno != ENOENT) BAD("cannot read %s: %s", key->path, strerror(errno));
    return 0;
  }
  const size_t n = fread(text, 1, CACHE_MAX_BYTES, f);
  const int more = fgetc(f) != EOF;
  fclose(f);
  if (more) BAD("%s is longer than an entry", key->path);
  text[n] = '\0';
  if (strlen(text) != n) BAD("%s holds a NUL byte", key->path);
  /* The last line is "checksum HEX" over every byte before it. */
  if (n == 0 || text[n - 1] != '\n') BAD("%s is truncated", key->path);
  text[n - 1] = '\0';
  char *last = strrchr(text, '\n');
  const size_t body = last ? (size_t)(last - text) + 1 : 0;
  const char *sum = field(text + body, "checksum");
  char want[32];
  snprintf(want, sizeof want, "%016llx", (unsigned long long)hash_text(text, body));
  if (!sum || strcmp(sum, want) != 0) BAD("%s is truncated or corrupted (checksum)", key->path);
  text[body] = '\0';

  sps_spmv_choice_info got;
  memset(&got, 0, sizeof got);
  int format = 0, have_version = 0, have_device = 0, have_matrix = 0, have_choice = 0;
  char *cursor = text;
  const char *line, *v;
  int lineno = 0;
  while ((line = next_line(&cursor)) != NULL) {
    lineno++;
    if (lineno == 1) {
      if (strcmp(line, CACHE_MAGIC) != 0) BAD("%s is not an spsolve cache entry", key->path);
    } else if ((v = field(line, "format"))) {
      format = atoi(v);
    } else if ((v = field(line, "version"))) {
      if (strcmp(v, sps_version()) != 0)
        BAD("%s was written by spsolve %s, this is %s", key->path, v, sps_version());
      have_version = 1;
    } else if ((v = field(line, "device"))) {
      if (strcmp(v, key->device) != 0) BAD("%s was measured on another device (%s)", key->path, v);
      have_device = 1;
    } else if ((v = field(line, "matrix"))) {
      if (strcmp(v, key->matrix) != 0) BAD("%s is for another matrix structure", key->path);
      have_matrix = 1;
    } else if ((v = field(line, "choice"))) {
      if (!parse_choice(v, device, &got.kind, &got.threads_per_row, NULL))
        BAD("%s names no usable variant", key->path);
      have_choice = 1;
    } else if ((v = field(line, "candidate"))) {
      if (got.candidate_count >= SPS_SPMV_MAX_CANDIDATES)
        BAD("%s lists too many candidates", key->path);
      sps_spmv_candidate *c = &got.candidates[got.candidate_count];
      const char *rest;
      int status = 0, used = 0;
      char secs[64];
      if (!parse_choice(v, device, &c->kind, &c->threads_per_row, &rest) ||
          sscanf(rest, " %63s %d%n", secs, &status, &used) != 2)
        BAD("%s has a malformed candidate line", key->path);
      c->seconds = strtod(secs, NULL);
      c->status = (sps_status)status;
      rest += used;
      if (*rest == ' ') rest++;
      snprintf(c->note, sizeof c->note, "%s", rest);
      got.candidate_count++;
    } else {
      BAD("%s has an unknown line %d", key->path, lineno);
    }
  }
  if (format != CACHE_FORMAT) BAD("%s has format %d, not %d", key->path, format, CACHE_FORMAT);
  if (!have_version || !have_device || !have_matrix || !have_choice)
    BAD("%s lacks a line", key->path);
  info->kind = got.kind;
  info->threads_per_row = got.threads_per_row;
  info->candidate_count = got.candidate_count;
  memcpy(info->candidates, got.candidates, sizeof got.candidates);
  return 1;
}

/* Make @p dir and its missing parents (mode 0700, as the XDG specification asks). */
static int make_dirs(const char *dir, char *why, size_t whylen)
{
  char path[1100];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      const char c = *p;
      *p = '\0';
      if (mkdir(path, 0700) != 0 && errno != EEXIST)
        BAD("cannot make %s: %s", path, strerror(errno));
      *p = c;
      if (!c) break;
    }
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) BAD("%s is not a directory", dir);
  return 1;
}

/* Append printf output to buf at *len, keeping the count within cap. */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
  if (*len >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  const int w = vsnprintf(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  *len = w < 0 ? cap : *len + (size_t)w;
}

int sps_spmv_cache_write(const sps_spmv_cache_key *key, const sps_spmv_choice_info *info, char *why,
                         size_t whylen)
{
  char text[CACHE_MAX_BYTES];
  size_t len = 0;
  why[0] = '\0';
  if (!key->dir[0]) BAD("the cache is off");
  put(text, sizeof text, &len, "%s\nformat %d\nversion %s\ndevice %s\nmatrix %s\nchoice %s %d\n",
      CACHE_MAGIC, CACHE_FORMAT, sps_version(), key->device, key->matrix,
      sps_spmv_kind_name(info->kind), info->threads_per_row);
  for (int k = 0; k < info->candidate_count; k++) {
    const sps_spmv_candidate *c = &info->candidates[k];
    char note[sizeof c->note];
    snprintf(note, sizeof note, "%s", c->note);
    for (char *p = note; *p; p++)
      if (*p == '\n' || *p == '\r') *p = ' ';
    char secs[32] = "nan";
    if (isfinite(c->seconds)) snprintf(secs, sizeof secs, "%.6e", c->seconds);
    put(text, sizeof text, &len, "candidate %s %d %s %d %s\n", sps_spmv_kind_name(c->kind),
        c->threads_per_row, secs, (int)c->status, note);
  }
  if (len >= sizeof text - 64) BAD("the entry would be too long");
  put(text, sizeof text, &len, "checksum %016llx\n", (unsigned long long)hash_text(text, len));
  if (!make_dirs(key->dir, why, whylen)) return 0;
  char tmp[1300];
  snprintf(tmp, sizeof tmp, "%s/.spmv-tune.XXXXXX", key->dir);
  const int fd = mkstemp(tmp);
  if (fd < 0) BAD("cannot write in %s: %s", key->dir, strerror(errno));
  int ok = 1;
  for (size_t done = 0; ok && done < len;) {
    const ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
      ok = 0;
    } else {
      done += (size_t)w;
    }
  }
  if (ok && fsync(fd) != 0) {
    snprintf(why, whylen, "cannot sync %s: %s", tmp, strerror(errno));
    ok = 0;
  }
  if (close(fd) != 0 && ok) {
    snprintf(why, whylen, "cannot close %s: %s", tmp, strerror(errno));
    ok = 0;
  }
  /* rename() replaces the entry in one step: a reader sees the old file or the new one, and
   * of two writers at once the second rename wins with a complete entry. */
  if (ok && rename(tmp, key->path) != 0) {
    snprintf(why, whylen, "cannot rename %s to %s: %s", tmp, key->path, strerror(errno));
    ok = 0;
  }
  if (!ok) {
    unlink(tmp);
    return 0;
  }
  const int dfd = open(key->dir, O_RDONLY);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  return 1;
}
