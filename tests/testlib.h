/* testlib.h: the small test harness of spsolve's test programs: TAP lines, exit codes 0 pass, 1 fail, 77 skip, 99 hard error. */
#ifndef SPS_TESTLIB_H
#define SPS_TESTLIB_H

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <execinfo.h>
#endif

#include "spsolve.h"
#include "../core/csr_matvec.h"
#include "../core/splitmix64.h"

#define SPS_TEST_PASS 0
#define SPS_TEST_FAIL 1
#define SPS_TEST_SKIP 77
#define SPS_TEST_ERROR 99

static int sps_test_count_ = 0;
static int sps_test_failed_ = 0;

/* Print "ok N - msg" or "not ok N - msg"; returns cond. */
static inline int sps_ok(int cond, const char *fmt, ...)
{
  va_list ap;
  sps_test_count_++;
  if (!cond) sps_test_failed_++;
  printf("%s %d - ", cond ? "ok" : "not ok", sps_test_count_);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

/* A check that cannot run here: "ok N # SKIP reason" (TAP), counted but never failing. */
static inline void sps_skip(const char *fmt, ...)
{
  va_list ap;
  sps_test_count_++;
  printf("ok %d # SKIP ", sps_test_count_);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* A diagnostic line. */
static inline void sps_diag(const char *fmt, ...)
{
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* Skip the whole program (exit 77) with a reason. */
static inline void sps_skip_all(const char *why)
{
  printf("1..0 # SKIP %s\n", why);
  fflush(stdout);
  exit(SPS_TEST_SKIP);
}

/* A failure of the test itself, not of the code under test (exit 99). */
static inline void sps_bail(const char *fmt, ...)
{
  va_list ap;
  printf("Bail out! ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  exit(SPS_TEST_ERROR);
}

/*
 * Shards of a long program (a run under compute-sanitizer's racecheck takes hours in one
 * process): with SPS_TEST_SHARD=i/k in the environment (0 <= i < k), a loop that asks
 * sps_case() at the top of each case runs only the cases c = i, i + k, i + 2k, ... of the
 * program, counted in the order they are met, so the k shards together run every case once.
 * Unset, every case runs. A malformed value is a hard error (exit 99), never a silent full run.
 */
static int sps_case_next_ = 0, sps_case_ran_ = 0, sps_shard_ = -1, sps_shards_ = 1;
static inline int sps_case(void)
{
  if (sps_shard_ < 0) {
    const char *e = getenv("SPS_TEST_SHARD");
    sps_shard_ = 0;
    if (e && *e) {
      char tail;
      if (sscanf(e, "%d/%d%c", &sps_shard_, &sps_shards_, &tail) != 2 || sps_shards_ < 1 ||
          sps_shard_ < 0 || sps_shard_ >= sps_shards_) {
        printf("Bail out! SPS_TEST_SHARD=\"%s\": expected i/k with 0 <= i < k\n", e);
        exit(SPS_TEST_ERROR);
      }
    }
  }
  const int run = sps_case_next_++ % sps_shards_ == sps_shard_;
  sps_case_ran_ += run;
  return run;
}

/* Print the plan and return the exit code: 0 when every check passed, 1 otherwise. A sharded
 * program also says how many of its cases ran ("# cases: ran M of N"; N is the same in every
 * shard, which tests/shard-check.sh checks). */
static inline int sps_done(void)
{
  if (sps_case_next_ > 0) sps_diag("cases: ran %d of %d", sps_case_ran_, sps_case_next_);
  printf("1..%d\n", sps_test_count_);
  if (sps_test_failed_) printf("# %d of %d checks failed\n", sps_test_failed_, sps_test_count_);
  return sps_test_failed_ ? SPS_TEST_FAIL : SPS_TEST_PASS;
}

/* A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) says where the program was before it dies as it
 * would have: the last check printed, the case, and the call stack (glibc's backtrace: offsets
 * into the binary, for addr2line -f -e BINARY), on standard output after the TAP lines, so a
 * log of a run under a tool that only says "the application returned an error" keeps it.
 * Installed before main, and only where the signal has no handler yet (a sanitizer build's
 * runtime keeps its own). Only write and glibc's backtrace functions run in the handler
 * (backtrace is called once before main, so that its first call, which may allocate, is not
 * made there). */
static void sps_test_crash_put_(const char *text)
{
  (void)!write(STDOUT_FILENO, text, strlen(text));
}

static void sps_test_crash_put_int_(int v)
{
  char buf[16];
  int k = (int)sizeof buf;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  buf[--k] = '\0';
  do {
    buf[--k] = (char)('0' + u % 10);
    u /= 10;
  } while (u && k > 1);
  if (v < 0) buf[--k] = '-';
  sps_test_crash_put_(buf + k);
}

static void sps_test_crash_(int sig)
{
  /* stdout holds nothing unwritten: sps_ok and sps_diag flush each line */
  sps_test_crash_put_("Bail out! signal ");
  sps_test_crash_put_int_(sig);
  sps_test_crash_put_(" after check ");
  sps_test_crash_put_int_(sps_test_count_);
  sps_test_crash_put_(", in case ");
  sps_test_crash_put_int_(sps_case_next_ - 1);
  sps_test_crash_put_(" (SPS_TEST_SHARD counts cases from 0); the call stack:\n");
#if defined(__GLIBC__)
  void *frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), STDOUT_FILENO);
#endif
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void sps_test_crash_install_(void)
{
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sps_test_crash_;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
#if defined(__GLIBC__)
  void *warm[1];
  (void)backtrace(warm, 1); /* loads libgcc now: backtrace's first call may allocate */
#endif
}

/* Deterministic random numbers (splitmix64, core/splitmix64.h), never rand(). */
typedef struct sps_rng {
  uint64_t s;
} sps_rng;

static inline uint64_t sps_rng_next(sps_rng *r)
{
  return sps_splitmix64_next(&r->s);
}

/* Uniform in [-1, 1). */
static inline double sps_rng_uniform(sps_rng *r)
{
  return sps_splitmix64_sym(&r->s);
}

/* Directory of the bundled test matrices (tests/data), from SPS_TEST_DATA. */
static inline const char *sps_test_data_dir(void)
{
  const char *d = getenv("SPS_TEST_DATA");
  return d && *d ? d : "tests/data";
}

/* Directory of the shared real matrices, from SPS_MATRICES; NULL when absent. */
static inline const char *sps_test_matrices_dir(void)
{
  const char *d = getenv("SPS_MATRICES");
  if (!d || !*d) return NULL;
  char probe[4096];
  snprintf(probe, sizeof probe, "%s/MANIFEST.tsv", d);
  FILE *f = fopen(probe, "r");
  if (!f) return NULL;
  fclose(f);
  return d;
}

/* A CUDA context when a GPU is usable, else skip the program (77). */
static inline sps_context *sps_test_cuda_context_or_skip(void)
{
  sps_context *ctx = NULL;
  if (!sps_have_cuda()) sps_skip_all("built without CUDA");
  int count = 0;
  sps_cuda_device_query(&count, NULL, 0);
  if (count <= 0) sps_skip_all("no usable CUDA device");
  if (sps_context_create(&ctx, SPS_DEVICE_CUDA, 0) != SPS_SUCCESS)
    sps_bail("CUDA context creation failed: %s", sps_context_create_error());
  return ctx;
}

/* The context of SPS_TEST_DEVICE: "cuda" (skip 77 without a GPU) or the CPU, the default. */
static inline sps_context *sps_test_context(void)
{
  const char *dev = getenv("SPS_TEST_DEVICE");
  if (dev && strcmp(dev, "cuda") == 0) return sps_test_cuda_context_or_skip();
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  return ctx;
}

/* A's row count and borrowed host CSR arrays. */
static inline void sps_test_csr(const sps_matrix *A, int64_t *m, const int64_t **rp,
                                const int32_t **ci, const double **va)
{
  sps_matrix_get_size(A, m, NULL, NULL);
  sps_matrix_get_csr(A, rp, ci, va);
}

/* y <- A x on the host by the plain row loop (core/csr_matvec.h), from A's borrowed CSR arrays. */
static inline void sps_test_host_mv(const sps_matrix *A, const double *x, double *y)
{
  int64_t m;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_test_csr(A, &m, &rp, &ci, &va);
  sps_csr_matvec_host(m, rp, ci, va, x, y);
}

/* ||v||_2 by the plain loop. */
static inline double sps_test_norm2(const double *v, int64_t n)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

/*
 * ||b - A x||_2 on the host by the plain loop, and in *bound how far rounding can move it from
 * the exact value: ||e||_2 with e_i = (len_i + 2) eps (|b_i| + sum_j |a_ij x_j|), the error of
 * a sum of len_i + 1 rounded terms (each within len_i eps of exact, plus the product's own
 * rounding), and 2 eps of the final norm.
 */
static inline double sps_test_residual_norm(const sps_matrix *A, const double *b, const double *x,
                                            double *bound)
{
  int64_t m;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_test_csr(A, &m, &rp, &ci, &va);
  double *ax = malloc((size_t)(m ? m : 1) * sizeof(double));
  if (!ax) sps_bail("out of host memory");
  sps_csr_matvec_host(m, rp, ci, va, x, ax);
  double rr = 0.0, ee = 0.0;
  for (int64_t i = 0; i < m; i++) {
    double mag = fabs(b[i]);
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      mag += fabs(va[k] * x[ci[k]]);
    const double ri = b[i] - ax[i], ei = (double)(rp[i + 1] - rp[i] + 2) * DBL_EPSILON * mag;
    rr += ri * ri;
    ee += ei * ei;
  }
  free(ax);
  const double rn = sqrt(rr);
  if (bound) *bound = sqrt(ee) + 2.0 * DBL_EPSILON * rn;
  return rn;
}

#endif /* SPS_TESTLIB_H */
