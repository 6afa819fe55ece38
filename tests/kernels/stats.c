/* stats.c: tests of the statistics kernel: its CPU reference (the integer sums behind
 * sps_matrix_stats) against a plain serial loop and, built with SPS_TEST_GPU, the GPU kernel
 * against that reference, word for word.
 *
 * Matrices: random rows with empty ones, rows longer than 64 and 1024 and a row of 10^5
 * spread over many tiles of the kernel, columns far from the diagonal (up to INT32_MAX - 1),
 * rectangular shapes, 0 rows, nnz = 0 over many rows, and one of 10^6 rows beyond the kernel's
 * grid (several tiles per block). For each, with and without the column pass: the sums must
 * equal the serial loop's exactly (CPU) or the CPU reference's (GPU, all SPS_STATS_WORDS
 * words, from the int32 device row offsets and again from the int64 ones of a copy without
 * them, the path of nnz > INT32_MAX); on the GPU sps_matrix_get_stats must also give the CPU
 * matrix's statistics bit for bit (bar seconds), and AUTO's statistics (no
 * SPS_STATS_SHORT_BLOCKS) leave short_blocks -1.
 * The GPU build prints, as diagnostics, the time of AUTO's statistics against one csr-scalar
 * SpMV on the largest matrix.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix with and without the column pass is a
 * case (the matrices are made in every shard), and the 128-bit addition one.
 */
#include "../../spmv/ref/kernels.h"
#include "../../spmv/spmv_internal.h"
#include "../testlib.h"
#include "../../core/internal.h" /* sps_matrix_drop_offsets32 */

/* Sums by the plain serial loop, in 128-bit integers (a GCC extension, in the test only). */
__extension__ typedef unsigned __int128 u128;

static void plain_sums(int64_t m, const int64_t *rp, const int32_t *ci, int columns,
                       sps_stats_sums *out)
{
  const int64_t nnz = m > 0 ? rp[m] : 0;
  const int64_t k = m > 0 ? (nnz + m / 2) / m : 0;
  int64_t s1 = 0, mn = INT64_MAX, mx = 0;
  u128 s2 = 0, dist = 0;
  uint64_t empty = 0, o32 = 0, o1024 = 0, lr = 0, lb = 0, win = 0;
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = rp[i + 1] - rp[i];
    s1 += len - k;
    s2 += (u128)((len - k) * (len - k));
    if (len < mn) mn = len;
    if (len > mx) mx = len;
    empty += len == 0;
    o32 += len > 32;
    o1024 += len > 1024;
    if (len > 64) {
      lr++;
      lb += (uint64_t)((len + 8191) / 8192);
    }
    if (!columns) continue;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      dist += (u128)(ci[p] > i ? ci[p] - i : i - ci[p]);
      win += p == rp[i] || ci[p] / 32 != ci[p - 1] / 32;
    }
  }
  memset(out, 0, sizeof *out);
  out->s1 = (uint64_t)s1;
  out->s2_lo = (uint64_t)s2;
  out->s2_hi = (uint64_t)(s2 >> 64);
  out->min_inv = m > 0 ? ~(uint64_t)mn : 0;
  out->max_len = (uint64_t)mx;
  out->empty = empty;
  out->over32 = o32;
  out->over1024 = o1024;
  out->long_rows = lr;
  out->long_blocks = lb;
  out->dist_lo = (uint64_t)dist;
  out->dist_hi = (uint64_t)(dist >> 64);
  out->windows = win;
}

/* The first word where two sums differ, or -1. */
static int sums_differ(const sps_stats_sums *a, const sps_stats_sums *b)
{
  const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
  for (int w = 0; w < SPS_STATS_WORDS; w++)
    if (x[w] != y[w]) return w;
  return -1;
}

static const char *const word_names[SPS_STATS_WORDS] = {
    "s1",       "s2_lo",     "s2_hi",       "min_inv", "max_len", "empty",  "over32",
    "over1024", "long_rows", "long_blocks", "dist_lo", "dist_hi", "windows"};

/*
 * Case `which` on ctx, with its name; NULL past the last. Row lengths from the case's law,
 * columns distinct and sorted (a random start and a stride, or a random window), values 1.
 */
static sps_matrix *make_case(sps_context *ctx, int which, const char **name)
{
  sps_rng rng = {0x57a75000u + (uint64_t)which};
  int64_t m = 0, n = 0;
  int spread = 0; /* columns anywhere in [0, n) rather than near the diagonal */
  switch (which) {
  case 0:
    *name = "random 37 x 37, empty rows";
    m = n = 37;
    break;
  case 1:
    *name = "0 x 5";
    m = 0;
    n = 5;
    break;
  case 2:
    *name = "nnz = 0, 1000 x 1000";
    m = n = 1000;
    break;
  case 3:
    *name = "nnz = 0, 300000 x 7 (many tiles of row ends only)";
    m = 300000;
    n = 7;
    break;
  case 4:
    *name = "rows > 64 and > 1024, 3000 x 5000, columns anywhere";
    m = 3000;
    n = 5000;
    spread = 1;
    break;
  case 5:
    *name = "a row of 100000 among short ones, 20000 x 200000";
    m = 20000;
    n = 200000;
    break;
  case 6:
    *name = "columns far from the diagonal, 5000 x INT32_MAX";
    m = 5000;
    n = INT32_MAX;
    spread = 1;
    break;
  case 7:
    *name = "rectangular 70000 x 300";
    m = 70000;
    n = 300;
    break;
  case 8:
    *name = "power-law rows, 100000 x 100000";
    m = n = 100000;
    spread = 1;
    break;
  case 9:
    *name = "banded, 1000000 x 1000000 (7 per row, some empty)";
    m = n = 1000000;
    break;
  default:
    *name = NULL;
    return NULL;
  }
  int64_t *rp = calloc((size_t)m + 1, sizeof *rp);
  if (!rp) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    int64_t len = 0;
    const uint64_t u = sps_rng_next(&rng);
    switch (which) {
    case 0:
      len = (int64_t)(u % 6);
      break;
    case 4:
      len = u % 10 == 0   ? 65 + (int64_t)(u % 1000)
            : u % 97 == 0 ? 1025 + (int64_t)(u % 3000)
                          : (int64_t)(u % 5);
      break;
    case 5:
      len = i == 12345 ? 100000 : (int64_t)(u % 4);
      break;
    case 6:
      len = (int64_t)(u % 9);
      break;
    case 7:
      len = (int64_t)(u % 12);
      break;
    case 8: {
      double x = 0.5 * (sps_rng_uniform(&rng) + 1.0) + 1e-9, l = pow(x, -1.6);
      len = l > 8000.0 ? 8000 : (int64_t)l;
      break;
    }
    case 9:
      len = u % 50 == 0 ? 0 : 7;
      break;
    default:
      break;
    }
    if (len > n) len = n;
    rp[i + 1] = rp[i] + len;
  }
  const int64_t nnz = rp[m];
  int32_t *ci = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
  double *va = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *va);
  if (!ci || !va) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = rp[i + 1] - rp[i];
    if (len == 0) continue;
    /* Distinct increasing columns: a start and a stride that keep them below n. */
    int64_t stride = len > 1 ? 1 + (int64_t)(sps_rng_next(&rng) % 40) : 1;
    if (stride * (len - 1) >= n) stride = (n - 1) / (len > 1 ? len - 1 : 1);
    if (stride < 1) stride = 1;
    const int64_t room = n - stride * (len - 1); /* starts in [0, room) */
    int64_t start;
    if (spread)
      start = (int64_t)(sps_rng_next(&rng) % (uint64_t)room);
    else {
      start = i - stride * len / 2;
      if (start < 0) start = 0;
      if (start >= room) start = room - 1;
    }
    for (int64_t q = 0; q < len; q++) {
      ci[rp[i] + q] = (int32_t)(start + q * stride);
      va[rp[i] + q] = 1.0;
    }
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, m, n, rp, ci, va) != SPS_SUCCESS)
    sps_bail("%s: sps_matrix_create_csr: %s", *name, sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

#ifdef SPS_TEST_GPU
/* Statistics equal bit for bit but for seconds. */
/* Equal but for the cost and short_blocks: the blockwise partition lowers its block budget on
 * a GPU for small matrices (spmv/blockwise.c), so the short-row block count depends on the
 * matrix's device by design; it is checked against that device's partition instead. */
static int stats_equal(const sps_matrix_stats *a, const sps_matrix_stats *b)
{
  sps_matrix_stats x = *a, y = *b;
  x.seconds = y.seconds = 0.0;
  x.short_blocks = y.short_blocks = 0;
  return memcmp(&x, &y, sizeof x) == 0;
}
#endif

int main(void)
{
  sps_context *cpu = NULL;
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
#ifdef SPS_TEST_GPU
  sps_context *gpu = sps_test_cuda_context_or_skip();
#endif
  const char *name;
  sps_matrix *A;
  for (int which = 0; (A = make_case(cpu, which, &name)) != NULL; which++) {
    int64_t m, n, nnz;
    const int64_t *rp;
    const int32_t *ci;
    sps_matrix_get_size(A, &m, &n, &nnz);
    sps_matrix_get_csr(A, &rp, &ci, NULL);
    for (int columns = 1; columns >= 0; columns--) {
      if (!sps_case()) continue;
      sps_stats_sums ref;
      if (sps_spmv_stats_sums(A, columns, 0, &ref) != SPS_SUCCESS)
        sps_bail("%s: host sums failed", name);
#ifndef SPS_TEST_GPU
      sps_stats_sums want;
      plain_sums(m, rp, ci, columns, &want);
      const int w = sums_differ(&ref, &want);
      sps_ok(w < 0,
             "%s (%lld x %lld, nnz %lld)%s: the CPU reference's sums are the serial loop's%s%s",
             name, (long long)m, (long long)n, (long long)nnz, columns ? "" : ", no columns",
             w < 0 ? "" : ", not ", w < 0 ? "" : word_names[w]);
#else
      (void)plain_sums;
      sps_matrix *Ag = NULL;
      const double *va;
      sps_matrix_get_csr(A, NULL, NULL, &va);
      if (sps_matrix_create_csr(gpu, &Ag, m, n, rp, ci, va) != SPS_SUCCESS)
        sps_bail("%s on the GPU: %s", name, sps_context_last_error(gpu));
      if (!sps_spmv_stats_on_device(Ag)) sps_bail("%s: no device arrays", name);
      sps_stats_sums got;
      sps_status st = sps_spmv_stats_sums(Ag, columns, 1, &got);
      if (st != SPS_SUCCESS) sps_bail("%s: device sums: %s", name, sps_context_last_error(gpu));
      const int w = sums_differ(&got, &ref);
      sps_ok(w < 0, "%s (%lld x %lld, nnz %lld)%s: the GPU's %d words are the CPU reference's%s%s",
             name, (long long)m, (long long)n, (long long)nnz, columns ? "" : ", no columns",
             SPS_STATS_WORDS, w < 0 ? "" : "; first differing: ", w < 0 ? "" : word_names[w]);
      if (w >= 0)
        sps_diag("%s: GPU %llu, CPU %llu", word_names[w], (unsigned long long)((uint64_t *)&got)[w],
                 (unsigned long long)((uint64_t *)&ref)[w]);
      /* The kernel on the int64 row offsets (those of nnz > INT32_MAX), from a copy without
       * the int32 ones. */
      sps_matrix *Ag64 = NULL;
      if (sps_matrix_create_csr(gpu, &Ag64, m, n, rp, ci, va) != SPS_SUCCESS)
        sps_bail("%s on the GPU: %s", name, sps_context_last_error(gpu));
      sps_matrix_drop_offsets32(Ag64);
      if (sps_spmv_stats_sums(Ag64, columns, 1, &got) != SPS_SUCCESS)
        sps_bail("%s: device sums (int64 offsets): %s", name, sps_context_last_error(gpu));
      const int w64 = sums_differ(&got, &ref);
      sps_ok(w64 < 0,
             "%s%s: the GPU's %d words from the int64 row offsets are the CPU reference's%s%s",
             name, columns ? "" : ", no columns", SPS_STATS_WORDS,
             w64 < 0 ? "" : "; first differing: ", w64 < 0 ? "" : word_names[w64]);
      sps_matrix_destroy(&Ag64);
      if (columns) {
        sps_matrix_stats sc, sg, fast;
        sps_matrix_get_stats(A, &sc);
        sps_ok(sps_matrix_get_stats(Ag, &sg) == SPS_SUCCESS && stats_equal(&sg, &sc),
               "%s: sps_matrix_get_stats on the GPU matrix equals the CPU matrix's (all but "
               "short_blocks)",
               name);
        int64_t sb = -2, lb = -2, lr = -2;
        sps_spmv_blockwise_count(Ag, &sb, &lb, &lr);
        sps_ok(sg.short_blocks == sb && sg.long_blocks == lb && sg.long_rows == lr,
               "%s: short_blocks on the GPU matrix is the GPU partition's (%lld; CPU %lld)", name,
               (long long)sg.short_blocks, (long long)sc.short_blocks);
        sps_ok(sps_spmv_stats_compute(Ag, SPS_STATS_COLUMNS, &fast) == SPS_SUCCESS &&
                   fast.short_blocks == -1 && fast.long_blocks == sg.long_blocks &&
                   fast.var_len == sg.var_len && fast.windows_per_row == sg.windows_per_row,
               "%s: AUTO's statistics leave short_blocks -1 and agree on the rest", name);
        if (which == 9) {
          /* AUTO's statistics against one csr-scalar SpMV (wall clock, synchronised). */
          double t_stats = 1e30, t_spmv = 1e30;
          sps_spmv_plan *plan = NULL;
          sps_vector *x = NULL, *y = NULL;
          if (sps_spmv_plan_create(gpu, &plan, Ag, SPS_SPMV_CSR_SCALAR) ||
              sps_spmv_plan_setup(plan) || sps_vector_create(gpu, &x, n) ||
              sps_vector_create(gpu, &y, m) || sps_vector_fill(x, 1.0))
            sps_bail("SpMV setup: %s", sps_context_last_error(gpu));
          for (int r = 0; r < 20; r++) {
            sps_spmv_stats_compute(Ag, SPS_STATS_COLUMNS, &fast);
            if (fast.seconds < t_stats) t_stats = fast.seconds;
            sps_context_synchronize(gpu);
            const double t0 = sps_wtime();
            sps_spmv_apply(plan, 1.0, x, 0.0, y);
            sps_context_synchronize(gpu);
            if (sps_wtime() - t0 < t_spmv) t_spmv = sps_wtime() - t0;
          }
          sps_diag("%s: AUTO's statistics %.1f us, one csr-scalar SpMV %.1f us (both wall clock, "
                   "synchronised, best of 20): %.2f SpMV-equivalents",
                   name, 1e6 * t_stats, 1e6 * t_spmv, t_stats / t_spmv);
          sps_vector_destroy(&x);
          sps_vector_destroy(&y);
          sps_spmv_plan_destroy(&plan);
        }
      }
      sps_matrix_destroy(&Ag);
#endif
    }
    sps_matrix_destroy(&A);
  }
  /* The 128-bit addition carries into the high word. */
  if (sps_case()) {
    uint64_t lo = UINT64_MAX - 1, hi = 7;
    sps_u128_add(&lo, &hi, 5);
    sps_ok(lo == 3 && hi == 8, "sps_u128_add carries: (7, 2^64 - 2) + 5 = (8, 3)");
  }
#ifdef SPS_TEST_GPU
  sps_context_destroy(&gpu);
#endif
  sps_context_destroy(&cpu);
  return sps_done();
}
