/* spmv_tune.c: TUNE through the API on the device of SPS_TEST_DEVICE: the candidate list, the timed choice and its table, a correct product, the disk cache by sps_context_set_cache_dir (hit without timing, values ignored, one key per structure, off), the source and reasoning of every way of choosing.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each group of checks in main is a case (the cache's
 * sequence is one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "spmv_internal.h"
#include "testlib.h"

/* The structure hash of the cache key: the same for any thread count, changed by one column
 * index, blind to the values (it never reads them: the matrix here has none). */
static void hash_checks(void)
{
  const int64_t n = 1000000, per = 5; /* 20 MB of column indices: 40 chunks of the hash */
  struct sps_matrix M;
  memset(&M, 0, sizeof M);
  M.nrows = M.ncols = n;
  M.nnz = n * per;
  M.rowptr = malloc((size_t)(n + 1) * sizeof *M.rowptr);
  M.colind = malloc((size_t)M.nnz * sizeof *M.colind);
  if (!M.rowptr || !M.colind) sps_bail("out of memory");
  for (int64_t i = 0; i <= n; i++)
    M.rowptr[i] = i * per;
  for (int64_t q = 0; q < M.nnz; q++)
    M.colind[q] = (int32_t)((q * 7919) % n);
  uint64_t h1 = sps_spmv_structure_hash(&M), hn = h1;
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  h1 = sps_spmv_structure_hash(&M);
  omp_set_num_threads(threads > 1 ? threads : 4);
  hn = sps_spmv_structure_hash(&M);
  omp_set_num_threads(threads);
#endif
  sps_ok(h1 == hn, "the structure hash is the same with 1 thread and with several (%016llx)",
         (unsigned long long)h1);
  M.colind[M.nnz / 2 + 3] ^= 1;
  const uint64_t hc = sps_spmv_structure_hash(&M);
  M.colind[M.nnz / 2 + 3] ^= 1;
  M.rowptr[n / 2] += 1;
  const uint64_t hr = sps_spmv_structure_hash(&M);
  sps_ok(hc != h1 && hr != h1 && hc != hr, "one column index or one row offset changes it");
  free(M.rowptr);
  free(M.colind);
}

/* A 2-D five-point Laplacian on a k x k grid, with its values scaled by s; and when dense_row,
 * row 0 full (an uneven matrix, which ELL's padding refuses). */
static sps_matrix *grid(sps_context *ctx, int k, double s, int dense_row)
{
  const int64_t n = (int64_t)k * k;
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(5 * n + n) * sizeof *ci);
  double *va = malloc((size_t)(5 * n + n) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of memory");
  int64_t nz = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = i / k, c = i % k;
    if (dense_row && i == 0) {
      for (int64_t j = 0; j < n; j++) {
        ci[nz] = (int32_t)j;
        va[nz++] = s * (j == 0 ? 4.0 : -1e-3);
      }
    } else {
      if (r > 0) ci[nz] = (int32_t)(i - k), va[nz++] = -s;
      if (c > 0) ci[nz] = (int32_t)(i - 1), va[nz++] = -s;
      ci[nz] = (int32_t)i, va[nz++] = 4.0 * s;
      if (c < k - 1) ci[nz] = (int32_t)(i + 1), va[nz++] = -s;
      if (r < k - 1) ci[nz] = (int32_t)(i + k), va[nz++] = -s;
    }
    rp[i + 1] = nz;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, va) != SPS_SUCCESS)
    sps_bail("matrix: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* y = A x through the plan, compared with the host product row by row within
 * (2 len + 4) eps sum |a_ij x_j|. */
static int product_ok(sps_context *ctx, sps_spmv_plan *p, const sps_matrix *A)
{
  int64_t m;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_test_csr(A, &m, &rp, &ci, &va);
  double *xh = malloc((size_t)(m ? m : 1) * sizeof *xh),
         *yh = malloc((size_t)(m ? m : 1) * sizeof *yh);
  sps_vector *x = NULL, *y = NULL;
  sps_rng rng = {7};
  for (int64_t i = 0; i < m; i++)
    xh[i] = 2.0 * sps_rng_uniform(&rng) - 1.0;
  int ok = sps_vector_create(ctx, &x, m) == SPS_SUCCESS &&
           sps_vector_create(ctx, &y, m) == SPS_SUCCESS &&
           sps_vector_upload(x, xh, m) == SPS_SUCCESS && sps_vector_fill(y, NAN) == SPS_SUCCESS &&
           sps_spmv_apply(p, 1.0, x, 0.0, y) == SPS_SUCCESS &&
           sps_vector_download(y, yh, m) == SPS_SUCCESS;
  for (int64_t i = 0; ok && i < m; i++) {
    double ref = 0.0, mag = 0.0;
    for (int64_t q = rp[i]; q < rp[i + 1]; q++) {
      ref += va[q] * xh[ci[q]];
      mag += fabs(va[q] * xh[ci[q]]);
    }
    if (!(fabs(yh[i] - ref) <= (double)(2 * (rp[i + 1] - rp[i]) + 4) * 0x1.0p-52 * mag)) ok = 0;
  }
  sps_vector_destroy(&x);
  sps_vector_destroy(&y);
  free(xh);
  free(yh);
  return ok;
}

/* FNV-1a 64, the checksum of a cache entry. */
static uint64_t fnv1a(const char *s, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

/*
 * The entry parser on damaged entries whose checksum is made valid again (so the damage
 * reaches the parser): bytes replaced, lines cut short or doubled, fields emptied. Each read
 * must either refuse the entry or return a variant of this device with valid threads per row
 * and at most SPS_SPMV_MAX_CANDIDATES candidates; under the sanitizers, without a finding.
 */
static void mutated_entries(sps_context *ctx, const sps_matrix *A, sps_device_kind dev)
{
  sps_spmv_cache_key key;
  sps_spmv_cache_key_make(ctx, A, &key);
  char orig[16384], text[40000], why[512];
  FILE *f = fopen(key.path, "r");
  if (!f) sps_bail("cannot read the entry %s", key.path);
  const size_t n = fread(orig, 1, sizeof orig - 1, f);
  fclose(f);
  orig[n] = '\0';
  const char *sum = strstr(orig, "\nchecksum ");
  if (!sum) sps_bail("the entry has no checksum line");
  const size_t body = (size_t)(sum - orig) + 1;
  static const char alphabet[] = " \n0123456789abcdefxyz-.+eEnaNinf%#\t\001\377";
  sps_rng rng = {2024};
  int accepted = 0, refused = 0, bad = 0;
  for (int t = 0; t < 3000; t++) {
    size_t len = 0;
    for (size_t i = 0; i < body && len < sizeof text - 2 * sizeof orig; i++) {
      const uint64_t r = sps_rng_next(&rng) % 1000;
      if (r < 4) continue; /* drop a byte */
      if (r < 8) {         /* replace it */
        text[len++] = alphabet[sps_rng_next(&rng) % (sizeof alphabet - 1)];
        continue;
      }
      if (r < 9 && orig[i] == '\n') { /* double the rest of the line before */
        size_t b = i;
        while (b > 0 && orig[b - 1] != '\n') b--;
        memcpy(text + len, orig + b, i - b);
        len += i - b;
      }
      text[len++] = orig[i];
    }
    if (t % 7 == 0) len = len * (sps_rng_next(&rng) % 100) / 100; /* cut short */
    len += (size_t)snprintf(text + len, sizeof text - len, "checksum %016llx\n",
                            (unsigned long long)fnv1a(text, len));
    if (!(f = fopen(key.path, "w"))) sps_bail("cannot write %s", key.path);
    fwrite(text, 1, len, f);
    fclose(f);
    sps_spmv_choice_info got;
    memset(&got, 0, sizeof got);
    if (sps_spmv_cache_read(&key, dev, &got, why, sizeof why)) {
      accepted++;
      bad += !sps_spmv_kind_is_variant(got.kind) || !sps_spmv_kind_available(got.kind, dev) ||
             got.threads_per_row < 0 || got.threads_per_row > 32 || got.candidate_count < 0 ||
             got.candidate_count > SPS_SPMV_MAX_CANDIDATES;
    } else {
      refused++;
      bad += why[0] == '\0';
    }
  }
  if (!(f = fopen(key.path, "w"))) sps_bail("cannot write %s", key.path);
  fwrite(orig, 1, n, f);
  fclose(f);
  sps_ok(bad == 0 && refused > 0,
         "3000 damaged entries with a valid checksum: %d refused with a reason, %d read as a "
         "valid choice, %d wrong",
         refused, accepted, bad);
}

/* A plan of @p kind on A, set up; its choice in *info. */
static sps_spmv_plan *plan_on(sps_context *ctx, const sps_matrix *A, sps_spmv_kind kind, int tpr,
                              sps_spmv_choice_info *info)
{
  sps_spmv_plan *p = NULL;
  if (sps_spmv_plan_create(ctx, &p, A, kind) ||
      (tpr && sps_spmv_plan_set_threads_per_row(p, tpr)) || sps_spmv_plan_setup(p))
    sps_bail("plan %s: %s", sps_spmv_kind_name(kind), sps_context_last_error(ctx));
  if (sps_spmv_plan_get_choice(p, info)) sps_bail("get_choice");
  return p;
}

static int entries(const char *dir)
{
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -c '^spmv-[0-9a-f]*\\.txt$'", dir);
  FILE *f = popen(cmd, "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
  }
  return n;
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  sps_device_kind dev;
  sps_context_get_device(ctx, &dev, NULL);
  const int gpu = dev == SPS_DEVICE_CUDA;
  char dir[256];
  snprintf(dir, sizeof dir, "%s/spmv-tune-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) sps_bail("mkdtemp failed");
  char cache[300];
  snprintf(cache, sizeof cache, "%s/cache", dir);

  if (sps_case()) {
    sps_ok(!sps_spmv_kind_is_variant(SPS_SPMV_AUTO) && !sps_spmv_kind_is_variant(SPS_SPMV_TUNE) &&
               sps_spmv_kind_is_variant(SPS_SPMV_CSR_SCALAR) &&
               !sps_spmv_kind_is_variant((sps_spmv_kind)-1) &&
               !sps_spmv_kind_is_variant(SPS_SPMV_KIND_COUNT),
           "auto and tune are ways of choosing, not variants");
    sps_spmv_kind k;
    sps_ok(sps_spmv_kind_from_name("tune", &k) == SPS_SUCCESS && k == SPS_SPMV_TUNE &&
               sps_spmv_kind_available(SPS_SPMV_TUNE, SPS_DEVICE_CPU),
           "'tune' names SPS_SPMV_TUNE, available everywhere");
    hash_checks();
    sps_ok(strcmp(sps_spmv_source_name(SPS_SPMV_SOURCE_CACHE), "cache") == 0 &&
               sps_spmv_source_name(SPS_SPMV_SOURCE_COUNT) == NULL,
           "source names");
  }

  sps_matrix *L = grid(ctx, 40, 1.0, 0);  /* even rows */
  sps_matrix *L2 = grid(ctx, 40, 3.0, 0); /* the same structure, other values */
  sps_matrix *U = grid(ctx, 40, 1.0, 1);  /* one dense row */
  sps_matrix *Z = NULL;                   /* no nonzeros */
  {
    int64_t rp[4] = {0, 0, 0, 0};
    if (sps_matrix_create_csr(ctx, &Z, 3, 3, rp, NULL, NULL))
      sps_bail("empty matrix: %s", sps_context_last_error(ctx));
  }

  sps_spmv_choice_info info, info2;
  sps_spmv_plan *p = NULL;
  const int cc = sps_spmv_context_cc(ctx);

  /* The candidate list. */
  if (sps_case()) {
    sps_spmv_choice list[SPS_SPMV_MAX_CANDIDATES], rule;
    for (int u = 0; u < 2; u++) {
      const sps_matrix *A = u ? U : L;
      const int n = sps_spmv_candidates(A, dev, cc, list, SPS_SPMV_MAX_CANDIDATES);
      sps_spmv_select(A, dev, cc, &rule);
      int distinct = 1, available = 1, has_ell = 0, has_cusparse = 0, vectors = 0;
      for (int a = 0; a < n; a++) {
        available &=
            sps_spmv_kind_is_variant(list[a].kind) && sps_spmv_kind_available(list[a].kind, dev);
        has_ell |= list[a].kind == SPS_SPMV_ELL;
        has_cusparse |= list[a].kind == SPS_SPMV_CUSPARSE;
        vectors += list[a].kind == SPS_SPMV_CSR_VECTOR;
        for (int b = 0; b < a; b++)
          distinct &= !(list[a].kind == list[b].kind && list[a].tpr == list[b].tpr);
      }
      const char *name = u ? "one dense row" : "grid";
      sps_ok(n >= 6 && list[0].kind == rule.kind, "%s: %d candidates, AUTO's pick %s first", name,
             n, sps_spmv_kind_name(rule.kind));
      sps_ok(distinct && available, "%s: each candidate once, each a variant of this device", name);
      sps_ok(vectors >= 2, "%s: csr-vector with two or more threads per row (%d)", name, vectors);
      sps_ok(has_ell == !u, "%s: ell %s (padding %s)", name, u ? "left out" : "listed",
             u ? "over its limit" : "within its limit");
      sps_ok(has_cusparse == gpu, "%s: cusparse listed on a GPU only", name);
    }
    sps_ok(sps_spmv_candidates(L, dev, cc, list, 1) == 1 &&
               sps_spmv_candidates(L, dev, cc, list, 0) == 0,
           "the list stops at max");
  }

  /* The ways of choosing other than tune: their source and reasoning. */
  if (sps_case()) {
    p = plan_on(ctx, L, SPS_SPMV_AUTO, 0, &info);
    sps_ok(info.requested == SPS_SPMV_AUTO &&
               info.source ==
                   (sps_spmv_have_model(cc) ? SPS_SPMV_SOURCE_MODEL : SPS_SPMV_SOURCE_RULE) &&
               info.why[0] && info.candidate_count == 0 && info.tune_seconds == 0.0,
           "auto: source %s, why '%s'", sps_spmv_have_model(cc) ? "model" : "rule", info.why);
    sps_spmv_plan_destroy(&p);
    p = plan_on(ctx, U, SPS_SPMV_AUTO, 0, &info);
    {
      /* With a model for this GPU, its pick and its tree path; else the rule's blockwise. */
      sps_spmv_choice sel;
      sps_spmv_select(U, dev, cc, &sel);
      const int model = sps_spmv_have_model(cc);
      sps_ok(!gpu || (model ? info.kind == sel.kind && strncmp(info.why, "model sm", 8) == 0
                            : info.kind == SPS_SPMV_BLOCKWISE &&
                                  strstr(info.why, "max_len>4*mean_len+8") != NULL),
             "auto on uneven rows: %s, why '%s'", sps_spmv_kind_name(info.kind), info.why);
    }
    sps_spmv_plan_destroy(&p);
    p = plan_on(ctx, L, SPS_SPMV_COO, 0, &info);
    sps_ok(info.source == SPS_SPMV_SOURCE_USER && info.kind == SPS_SPMV_COO,
           "a named variant: source user");
    sps_spmv_plan_destroy(&p);
  }

  /* Tune without a cache: turned off in every shard, the check in one. */
  const sps_status off = sps_context_set_cache_dir(ctx, "");
  if (sps_case() || off) sps_ok(off == SPS_SUCCESS, "sps_context_set_cache_dir(\"\")");
  if (sps_case()) {
    p = plan_on(ctx, L, SPS_SPMV_TUNE, 0, &info);
    sps_ok(info.source == SPS_SPMV_SOURCE_TUNE && info.requested == SPS_SPMV_TUNE &&
               strcmp(info.cache_note, "off") == 0 && info.cache_file[0] == '\0',
           "tune with the cache off: source tune, cache %s", info.cache_note);
    int used = 0, fastest = 1;
    double chosen = NAN;
    for (int a = 0; a < info.candidate_count; a++) {
      const sps_spmv_candidate *c = &info.candidates[a];
      if (c->status == SPS_SUCCESS && c->kind == info.kind &&
          c->threads_per_row == info.threads_per_row) {
        used++;
        chosen = c->seconds;
      }
    }
    for (int a = 0; a < info.candidate_count; a++)
      if (info.candidates[a].status == SPS_SUCCESS && info.candidates[a].seconds < chosen)
        fastest = 0;
    sps_ok(info.timed >= 6 && info.timed == info.candidate_count && used == 1 && fastest &&
               chosen > 0,
           "tune: %d candidates timed, the fastest (%s, %.3g us) in use", info.timed,
           sps_spmv_kind_name(info.kind), 1e6 * chosen);
    sps_spmv_kind kind;
    int tpr;
    sps_spmv_plan_get_kind(p, &kind, &tpr);
    sps_ok(kind == info.kind && (kind != SPS_SPMV_CSR_VECTOR || tpr == info.threads_per_row),
           "sps_spmv_plan_get_kind agrees with the choice");
    sps_ok(info.tune_seconds > 0 && info.tune_spmv_equivalents >= info.timed,
           "tune: cost %.3g s, %.0f SpMV-equivalents", info.tune_seconds,
           info.tune_spmv_equivalents);
    sps_ok(product_ok(ctx, p, L), "the tuned plan computes A x");
    sps_spmv_plan_destroy(&p);
  }

  /* A left-out candidate leaves no message behind: the last error stays the earlier one. */
  if (sps_case()) {
    sps_spmv_plan *bad = NULL;
    sps_spmv_plan_create(ctx, &bad, L, (sps_spmv_kind)99);
    char before[1024];
    snprintf(before, sizeof before, "%s", sps_context_last_error(ctx));
    p = plan_on(ctx, U, SPS_SPMV_TUNE, 0, &info);
    int left_out = 0;
    for (int a = 0; a < info.candidate_count; a++)
      left_out += info.candidates[a].status != SPS_SUCCESS;
    sps_ok(product_ok(ctx, p, U), "tune on one dense row: %s computes A x",
           sps_spmv_kind_name(info.kind));
    sps_ok(strcmp(before, sps_context_last_error(ctx)) == 0,
           "the tuning keeps the context's last error message (%d candidates left out)", left_out);
    sps_spmv_plan_destroy(&p);
  }

  if (sps_case()) {
    p = plan_on(ctx, Z, SPS_SPMV_TUNE, 0, &info);
    sps_ok(product_ok(ctx, p, Z) && info.candidate_count >= 1, "tune on a matrix without nonzeros");
    sps_spmv_plan_destroy(&p);
  }
  if (sps_case()) {
    int64_t rp0[1] = {0};
    sps_matrix *E = NULL;
    if (sps_matrix_create_csr(ctx, &E, 0, 0, rp0, NULL, NULL))
      sps_bail("0 x 0: %s", sps_context_last_error(ctx));
    p = plan_on(ctx, E, SPS_SPMV_TUNE, 0, &info);
    sps_ok(info.source == SPS_SPMV_SOURCE_TUNE && sps_spmv_kind_is_variant(info.kind),
           "tune on a 0 x 0 matrix: %s", sps_spmv_kind_name(info.kind));
    sps_spmv_plan_destroy(&p);
    sps_matrix_destroy(&E);
  }

  if (sps_case()) {
    p = plan_on(ctx, L, SPS_SPMV_TUNE, 4, &info);
    int vec4 = 0, vec_other = 0;
    for (int a = 0; a < info.candidate_count; a++)
      if (info.candidates[a].kind == SPS_SPMV_CSR_VECTOR) {
        vec4 += info.candidates[a].threads_per_row == 4;
        vec_other += info.candidates[a].threads_per_row != 4;
      }
    sps_ok(vec4 == 1 && vec_other == 0,
           "threads per row set on the plan: csr-vector timed with 4 only");
    sps_spmv_plan_destroy(&p);
  }

  if (sps_case()) {
    p = plan_on(ctx, L, SPS_SPMV_TUNE, 0, &info);
    if (sps_spmv_plan_setup(p) || sps_spmv_plan_get_choice(p, &info2)) sps_bail("second setup");
    int vec_other = 0;
    for (int a = 0; a < info2.candidate_count; a++)
      vec_other += info2.candidates[a].kind == SPS_SPMV_CSR_VECTOR;
    sps_ok(info2.candidate_count == info.candidate_count && vec_other >= 2 && product_ok(ctx, p, L),
           "a second setup tunes the full list again, not restricted by the first pick");
    sps_spmv_plan_destroy(&p);
  }

  /* The cache, one case: stored, then a hit without timing, for the same structure with other
   * values; another structure; damaged entries; the solver's getter, which finds the entry. */
  if (sps_case()) {
    sps_ok(sps_context_set_cache_dir(ctx, cache) == SPS_SUCCESS, "sps_context_set_cache_dir(dir)");
    p = plan_on(ctx, L, SPS_SPMV_TUNE, 0, &info);
    sps_ok(info.source == SPS_SPMV_SOURCE_TUNE && strcmp(info.cache_note, "stored") == 0 &&
               strncmp(info.cache_file, cache, strlen(cache)) == 0 && entries(cache) == 1,
           "the first tuning stores one entry in the directory (%s)", info.cache_note);
    sps_spmv_plan_destroy(&p);
    p = plan_on(ctx, L2, SPS_SPMV_TUNE, 0, &info2);
    sps_ok(info2.source == SPS_SPMV_SOURCE_CACHE && info2.timed == 0 &&
               strcmp(info2.cache_note, "hit") == 0 &&
               strcmp(info2.cache_file, info.cache_file) == 0,
           "the same structure with other values: a cache hit, nothing timed");
    sps_ok(info2.kind == info.kind && info2.threads_per_row == info.threads_per_row &&
               info2.candidate_count == info.candidate_count,
           "the hit gives the tuned choice (%s) and its table", sps_spmv_kind_name(info2.kind));
    sps_ok(product_ok(ctx, p, L2), "the plan from the cache computes A x");
    sps_spmv_plan_destroy(&p);
    p = plan_on(ctx, U, SPS_SPMV_TUNE, 0, &info2);
    sps_ok(info2.source == SPS_SPMV_SOURCE_TUNE && strcmp(info2.cache_file, info.cache_file) != 0 &&
               entries(cache) == 2,
           "another structure has another key: tuned, a second entry");
    sps_spmv_plan_destroy(&p);

    mutated_entries(ctx, L, dev);

    /* The solver's getter, before and after setup. */
    sps_solver *s = NULL;
    if (sps_solver_create(ctx, &s, SPS_SOLVER_CG) || sps_solver_set_spmv(s, SPS_SPMV_TUNE, 0))
      sps_bail("solver: %s", sps_context_last_error(ctx));
    sps_ok(sps_solver_get_spmv_choice(s, &info) == SPS_SUCCESS && info.requested == SPS_SPMV_TUNE &&
               info.source == SPS_SPMV_SOURCE_NONE,
           "the solver before setup: requested tune, no source");
    if (sps_solver_setup(s, L)) sps_bail("setup: %s", sps_context_last_error(ctx));
    sps_ok(sps_solver_get_spmv_choice(s, &info) == SPS_SUCCESS &&
               info.source == SPS_SPMV_SOURCE_CACHE,
           "the solver after setup: its SpMV from the cache");
    sps_solver_destroy(&s);
  }

  /* Bad arguments. */
  if (sps_case()) {
    char longpath[1000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    sps_ok(sps_context_set_cache_dir(ctx, longpath) == SPS_ERR_ARGUMENT &&
               sps_context_set_cache_dir(NULL, "x") == SPS_ERR_ARGUMENT &&
               sps_spmv_plan_get_choice(NULL, &info) == SPS_ERR_ARGUMENT &&
               sps_solver_get_spmv_choice(NULL, &info) == SPS_ERR_ARGUMENT,
           "bad arguments: SPS_ERR_ARGUMENT");
    sps_ok(sps_context_set_cache_dir(ctx, NULL) == SPS_SUCCESS,
           "NULL restores the default directory");
  }

  sps_matrix_destroy(&L);
  sps_matrix_destroy(&L2);
  sps_matrix_destroy(&U);
  sps_matrix_destroy(&Z);
  sps_context_destroy(&ctx);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) sps_diag("could not remove %s", dir);
  return sps_done();
}
