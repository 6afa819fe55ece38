/* spmv_check.h: shared checks of the SpMV variant tests: the matrix list, the per-row tolerance and the CPU and GPU comparisons.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): with spmv_case_per_matrix set (the variant programs'
 * bodies below set it), spmv_for_each_matrix makes each matrix a case, read only by its shard. */
#ifndef SPS_TESTS_SPMV_CHECK_H
#define SPS_TESTS_SPMV_CHECK_H

#include <float.h>

#include "../testlib.h"
#include "../../core/internal.h" /* sps_matrix_drop_offsets32 */

/*
 * Tolerance. Two sums of the same len_i products in different orders differ by at most
 * about 2*len_i*eps*sum_j |a_ij x_j| (each is within len_i*eps of the exact sum), and the
 * scaling by alpha, the beta*y_i term and a fused multiply-add add a few roundings, so
 * row i passes when
 *   |y_i - yref_i| <= 2*(len_i + 2)*eps*(|alpha|*sum_j |a_ij x_j| + |beta*y0_i|).
 * A row whose bound is zero (no entries, beta = 0) must match exactly (both are 0).
 */
static inline double spmv_row_bound(const int64_t *rowptr, const int32_t *colind,
                                    const double *values, int64_t i, double alpha,
                                    const double *x, double beta, const double *y0)
{
  double s = 0.0;
  for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) s += fabs(values[k] * x[colind[k]]);
  double mag = fabs(alpha) * s + (beta == 0.0 ? 0.0 : fabs(beta * y0[i]));
  return 2.0 * (double)(rowptr[i + 1] - rowptr[i] + 2) * DBL_EPSILON * mag;
}

/* The plain double CSR loop every CPU variant is compared with. */
static inline void spmv_plain(const sps_matrix *A, double alpha, const double *x, double beta,
                              const double *y0, double *y)
{
  int64_t m;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_test_csr(A, &m, &rp, &ci, &va);
  sps_csr_matvec_host(m, rp, ci, va, x, y); /* y <- A x, then alpha A x + beta y0 (y is not y0) */
  for (int64_t i = 0; i < m; i++) y[i] = beta == 0.0 ? alpha * y[i] : alpha * y[i] + beta * y0[i];
}

/* Rows of y outside the tolerance against yref (NaN counts as outside); worst ratio in *worst. */
static inline int64_t spmv_compare(const sps_matrix *A, double alpha, const double *x, double beta,
                                   const double *y0, const double *y, const double *yref,
                                   double *worst, int64_t *worst_row)
{
  int64_t m, bad = 0;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_size(A, &m, NULL, NULL);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  *worst = 0.0;
  *worst_row = -1;
  for (int64_t i = 0; i < m; i++) {
    double err = fabs(y[i] - yref[i]);
    double tol = spmv_row_bound(rp, ci, va, i, alpha, x, beta, y0);
    if (err <= tol) continue;
    /* Outside the tolerance, or NaN: keep the worst (a NaN is the worst). */
    double ratio = isnan(err) ? INFINITY : (tol > 0.0 ? err / tol : INFINITY);
    if (bad++ == 0 || ratio > *worst) {
      *worst = ratio;
      *worst_row = i;
    }
  }
  return bad;
}

/* Rows where y and yref differ in any bit; the largest |y - yref| / |yref| in *maxrel. */
static inline int64_t spmv_bit_mismatches(int64_t m, const double *y, const double *yref,
                                          double *maxrel)
{
  int64_t bad = 0;
  *maxrel = 0.0;
  for (int64_t i = 0; i < m; i++) {
    if (memcmp(&y[i], &yref[i], sizeof *y) == 0) continue;
    bad++;
    double rel = fabs(y[i] - yref[i]) / (yref[i] != 0.0 ? fabs(yref[i]) : 1.0);
    if (isnan(rel) || rel > *maxrel) *maxrel = isnan(rel) ? INFINITY : rel;
  }
  return bad;
}

/*
 * Whether a variant's row sums are compensated (csr-scalar, csr-vector, ell, merge,
 * blockwise, binned): its y must then be bitwise csr-scalar's, CPU or GPU. coo and hyb (atomics)
 * and cusparse (the library) are held to the tolerance only.
 */
static inline int spmv_kind_compensated(sps_spmv_kind kind)
{
  return kind == SPS_SPMV_CSR_SCALAR || kind == SPS_SPMV_CSR_VECTOR || kind == SPS_SPMV_ELL ||
         kind == SPS_SPMV_MERGE || kind == SPS_SPMV_BLOCKWISE || kind == SPS_SPMV_BINNED;
}

/* A matrix on ctx from host CSR arrays (columns may be unsorted); bails on failure. */
static inline sps_matrix *spmv_make(sps_context *ctx, int64_t m, int64_t n, const int64_t *rp,
                                    const int32_t *ci, const double *va)
{
  sps_matrix *A = NULL;
  sps_status st = sps_matrix_create_csr(ctx, &A, m, n, rp, ci, va);
  if (st != SPS_SUCCESS) sps_bail("sps_matrix_create_csr: %s", sps_context_last_error(ctx));
  return A;
}

/* A copy of A (host CSR) on another context. */
static inline sps_matrix *spmv_copy_to(sps_context *ctx, const sps_matrix *A)
{
  int64_t m, n;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  return spmv_make(ctx, m, n, rp, ci, va);
}

/*
 * Synthetic case `which` (0, 1, ...) built in memory on ctx with its name; NULL past the
 * last. Rows have lengths drawn from each case's law; columns and values are random.
 */
static inline sps_matrix *spmv_synthetic(sps_context *ctx, int which, const char **name)
{
  sps_rng rng = {0x5eed0000u + (uint64_t)which};
  int64_t m = 0, n = 0;
  int64_t *len = NULL;
  int unsorted = 0;
  /* Row lengths of each case; len[i] <= n. */
#define SPS_LEN_ALLOC(rows)                                                                   \
  do {                                                                                        \
    m = (rows);                                                                               \
    len = (int64_t *)calloc((size_t)(m > 0 ? m : 1), sizeof *len);                            \
    if (!len) sps_bail("out of memory");                                                      \
  } while (0)
  switch (which) {
  case 0:
    *name = "random 37 x 37 with empty rows";
    n = 37;
    SPS_LEN_ALLOC(37);
    for (int64_t i = 0; i < m; i++) len[i] = (int64_t)(sps_rng_next(&rng) % 10);
    break;
  case 1:
    *name = "one row holding most nonzeros (200 x 6000, row 17 has 5000)";
    n = 6000;
    SPS_LEN_ALLOC(200);
    for (int64_t i = 0; i < m; i++) len[i] = (int64_t)(sps_rng_next(&rng) % 4);
    len[17] = 5000;
    break;
  case 2:
    *name = "a single dense row (1 x 3000)";
    n = 3000;
    SPS_LEN_ALLOC(1);
    len[0] = 3000;
    break;
  case 3:
    *name = "a single column (500 x 1, some rows empty)";
    n = 1;
    SPS_LEN_ALLOC(500);
    for (int64_t i = 0; i < m; i++) len[i] = sps_rng_next(&rng) % 5 != 0;
    break;
  case 4:
    *name = "nnz = 0 (10 x 10)";
    n = 10;
    SPS_LEN_ALLOC(10);
    break;
  case 5:
    *name = "nrows = 0 (0 x 5)";
    n = 5;
    SPS_LEN_ALLOC(0);
    break;
  case 6:
    *name = "ncols = 0 (5 x 0)";
    n = 0;
    SPS_LEN_ALLOC(5);
    break;
  case 7:
    *name = "rectangular 50 x 300";
    n = 300;
    SPS_LEN_ALLOC(50);
    for (int64_t i = 0; i < m; i++) len[i] = 1 + (int64_t)(sps_rng_next(&rng) % 40);
    break;
  case 8:
    *name = "rectangular 300 x 50";
    n = 50;
    SPS_LEN_ALLOC(300);
    for (int64_t i = 0; i < m; i++) len[i] = (int64_t)(sps_rng_next(&rng) % 6);
    break;
  case 9:
    *name = "ash219-like 219 x 85, 2 per row";
    n = 85;
    SPS_LEN_ALLOC(219);
    for (int64_t i = 0; i < m; i++) len[i] = 2;
    break;
  case 10:
    *name = "unsorted input 100 x 100 (columns given in descending order)";
    n = 100;
    SPS_LEN_ALLOC(100);
    for (int64_t i = 0; i < m; i++) len[i] = 1 + (int64_t)(sps_rng_next(&rng) % 12);
    unsorted = 1;
    break;
  case 11:
    *name = "rows longer than 1024 (300 x 5000; rows of 1500, 2000, 4097)";
    n = 5000;
    SPS_LEN_ALLOC(300);
    for (int64_t i = 0; i < m; i++) len[i] = (int64_t)(sps_rng_next(&rng) % 8);
    len[3] = 1500;
    len[150] = 2000;
    len[299] = 4097;
    break;
  case 12:
    *name = "a row longer than 100,000 (2000 x 200000; row 1000 has 150000)";
    n = 200000;
    SPS_LEN_ALLOC(2000);
    for (int64_t i = 0; i < m; i++) len[i] = (int64_t)(sps_rng_next(&rng) % 6);
    len[1000] = 150000;
    break;
  case 13:
    *name = "tridiagonal 1000 x 1000";
    n = 1000;
    SPS_LEN_ALLOC(1000);
    break;
  case 14:
    *name = "power-law row lengths (5000 x 5000, 1 to 3000)";
    n = 5000;
    SPS_LEN_ALLOC(5000);
    for (int64_t i = 0; i < m; i++) {
      double u = 0.5 * (sps_rng_uniform(&rng) + 1.0) + 1e-9;
      double l = pow(u, -1.5);
      len[i] = l > 3000.0 ? 3000 : (int64_t)l;
    }
    break;
  default:
    *name = NULL;
    return NULL;
  }
#undef SPS_LEN_ALLOC
  int64_t *rp = (int64_t *)calloc((size_t)m + 1, sizeof *rp);
  if (!rp) sps_bail("out of memory");
  if (which == 13)
    for (int64_t i = 0; i < m; i++) len[i] = (i > 0) + 1 + (i < m - 1);
  for (int64_t i = 0; i < m; i++) rp[i + 1] = rp[i] + len[i];
  int64_t nnz = rp[m];
  int32_t *ci = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
  double *va = (double *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *va);
  if (!ci || !va) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    /* Distinct columns: a random start and stride coprime with n walk len[i] <= n columns. */
    int64_t start = n > 0 ? (int64_t)(sps_rng_next(&rng) % (uint64_t)n) : 0;
    int64_t stride = 1;
    if (which == 13) start = i > 0 ? i - 1 : 0;
    else if (n > 2 && len[i] < n / 2) stride = 1 + 2 * (int64_t)(sps_rng_next(&rng) % 3);
    if (stride > 1 && n % stride == 0) stride = 1;
    for (int64_t k = 0; k < len[i]; k++) {
      int64_t c = (start + k * stride) % (n > 0 ? n : 1);
      ci[rp[i] + (unsorted ? len[i] - 1 - k : k)] = (int32_t)c;
      va[rp[i] + k] = sps_rng_uniform(&rng);
    }
  }
  sps_matrix *A = spmv_make(ctx, m, n, rp, ci, va);
  free(len);
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* Whether ell must refuse A: width (longest row) times rows exceeds 3 nnz. */
static inline int spmv_ell_refuses(const sps_matrix *A)
{
  int64_t m, nnz, maxlen = 0;
  const int64_t *rp;
  sps_matrix_get_size(A, &m, NULL, &nnz);
  sps_matrix_get_csr(A, &rp, NULL, NULL);
  for (int64_t i = 0; i < m; i++)
    if (rp[i + 1] - rp[i] > maxlen) maxlen = rp[i + 1] - rp[i];
  return maxlen * m > 3 * nnz;
}

/* Random x (ncols) and y0 (nrows) from a seed. */
static inline void spmv_random_vectors(uint64_t seed, int64_t n, double *x, int64_t m, double *y0)
{
  sps_rng rng = {seed};
  for (int64_t j = 0; j < n; j++) x[j] = sps_rng_uniform(&rng);
  for (int64_t i = 0; i < m; i++) y0[i] = sps_rng_uniform(&rng);
}

static const double spmv_alphas[2] = {1.0, 2.5};
static const double spmv_betas[2] = {0.0, -0.75};

/*
 * y <- alpha*A*x + beta*y0 with a plan of `kind` (tpr threads per row) on A's context; y0
 * replaced by NaN when beta = 0 (it must not be read). Returns the setup status; on success
 * y holds the result. The plan's message goes to *msg (static buffer).
 */
static inline sps_status spmv_apply_once(sps_context *ctx, const sps_matrix *A, sps_spmv_kind kind,
                                         int tpr, double alpha, const double *x, double beta,
                                         const double *y0, double *y, const char **msg)
{
  static char buf[1024];
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_spmv_plan *plan = NULL;
  sps_vector *vx = NULL, *vy = NULL;
  sps_status st = sps_spmv_plan_create(ctx, &plan, A, kind);
  if (st == SPS_SUCCESS && tpr) st = sps_spmv_plan_set_threads_per_row(plan, tpr);
  if (st == SPS_SUCCESS) st = sps_spmv_plan_setup(plan);
  snprintf(buf, sizeof buf, "%s", st ? sps_context_last_error(ctx) : "");
  *msg = buf;
  if (st != SPS_SUCCESS) {
    sps_spmv_plan_destroy(&plan);
    return st;
  }
  double *yin = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *yin);
  if (!yin) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) yin[i] = beta == 0.0 ? NAN : y0[i];
  if (sps_vector_create(ctx, &vx, n) || sps_vector_create(ctx, &vy, m) ||
      sps_vector_upload(vx, x, n) || sps_vector_upload(vy, yin, m))
    sps_bail("vector setup: %s", sps_context_last_error(ctx));
  st = sps_spmv_apply(plan, alpha, vx, beta, vy);
  if (st != SPS_SUCCESS) sps_bail("sps_spmv_apply: %s", sps_context_last_error(ctx));
  if (sps_context_synchronize(ctx) || sps_vector_download(vy, y, m))
    sps_bail("after sps_spmv_apply: %s", sps_context_last_error(ctx));
  free(yin);
  sps_vector_destroy(&vx);
  sps_vector_destroy(&vy);
  sps_spmv_plan_destroy(&plan);
  return SPS_SUCCESS;
}

/*
 * Check one matrix. With gpu == NULL: the variant on the CPU against the plain CSR loop.
 * With a CUDA context: the variant on the GPU against its CPU reference (the same variant on
 * the CPU context; csr-scalar for cusparse, which has none), twice: on the matrix as made
 * (int32 device row offsets, which every matrix with nnz <= INT32_MAX has) and on a copy
 * without them (sps_matrix_drop_offsets32), whose kernels read the int64 offsets as they do
 * for nnz > INT32_MAX. For each (alpha, beta) of (1, 0) and (2.5, -0.75), seeded random x and
 * y0. ell's refusals are checked against its rule (status SPS_ERR_UNSUPPORTED and a message
 * naming the sizes). On the GPU the compensated variants (spmv_kind_compensated) must also
 * give the CPU csr-scalar reference's y bit for bit in every row.
 */
static inline void spmv_check_matrix(sps_context *cpu, sps_context *gpu, const sps_matrix *A,
                                     const char *name, sps_spmv_kind kind, int tpr)
{
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  const char *kname = sps_spmv_kind_name(kind);
  /* the matrices the variant runs on: A itself on the CPU; on the GPU the two copies */
  const sps_matrix *runs[2] = {A, NULL};
  sps_matrix *Ag = NULL, *Ag64 = NULL;
  static const char *const devs[2] = {" (GPU)", " (GPU, int64 offsets)"};
  int nruns = 1;
  if (gpu) {
    Ag = spmv_copy_to(gpu, A);
    Ag64 = spmv_copy_to(gpu, A);
    sps_matrix_drop_offsets32(Ag64);
    const int32_t *r32 = NULL, *r32_64 = NULL;
    sps_matrix_get_device_csr(Ag, NULL, &r32, NULL, NULL);
    sps_matrix_get_device_csr(Ag64, NULL, &r32_64, NULL, NULL);
    if (!r32 || r32_64) sps_bail("%s: the GPU copies' int32 offsets are not as meant", name);
    runs[0] = Ag;
    runs[1] = Ag64;
    nruns = 2;
  }
  double *x = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  double *y0 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y0);
  double *y = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
  double *yref = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *yref);
  double *ycs = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *ycs);
  if (!x || !y0 || !y || !yref || !ycs) sps_bail("out of memory");
  /* ell refuses A by its padding rule: then each run checks the refusal, once */
  const int ell_refuses = kind == SPS_SPMV_ELL && spmv_ell_refuses(A);
  int refused = 0;
  for (int p = 0; p < 2 && !refused; p++) {
    double alpha = spmv_alphas[p], beta = spmv_betas[p];
    spmv_random_vectors(0xC0FFEEu + (uint64_t)p, n, x, m, y0);
    const char *msg;
    /* The reference, once for both GPU runs: the variant's CPU reference (csr-scalar for
     * cusparse) on the GPU, the plain loop on the CPU; and the CPU csr-scalar's bits for the
     * compensated variants on the GPU. */
    if (gpu) {
      sps_spmv_kind rk = kind == SPS_SPMV_CUSPARSE ? SPS_SPMV_CSR_SCALAR : kind;
      if (!ell_refuses &&
          spmv_apply_once(cpu, A, rk, tpr, alpha, x, beta, y0, yref, &msg) != SPS_SUCCESS)
        sps_bail("CPU reference %s on %s: %s", sps_spmv_kind_name(rk), name, msg);
      if (spmv_kind_compensated(kind) &&
          spmv_apply_once(cpu, A, SPS_SPMV_CSR_SCALAR, 0, alpha, x, beta, y0, ycs, &msg) !=
              SPS_SUCCESS)
        sps_bail("CPU reference csr-scalar on %s: %s", name, msg);
    } else {
      spmv_plain(A, alpha, x, beta, y0, yref);
    }
    for (int r = 0; r < nruns; r++) {
      const char *dev = gpu ? devs[r] : "";
      sps_status st =
          spmv_apply_once(gpu ? gpu : cpu, runs[r], kind, tpr, alpha, x, beta, y0, y, &msg);
      if (ell_refuses) {
        sps_ok(st == SPS_ERR_UNSUPPORTED && strstr(msg, "padded size") && strstr(msg, "3 x nnz"),
               "%s%s refuses %s (%lld x %lld, nnz %lld): \"%s\"", kname, dev, name,
               (long long)m, (long long)n, (long long)nnz, msg);
        refused = 1;
        continue;
      }
      if (st != SPS_SUCCESS) {
        sps_ok(0, "%s%s tpr %d setup on %s: %s", kname, dev, tpr, name, msg);
        refused = 1;
        continue;
      }
      if (gpu && spmv_kind_compensated(kind)) {
        /* The GPU's compensated sums must give the CPU csr-scalar reference's bits. */
        double maxrel;
        int64_t nbits = spmv_bit_mismatches(m, y, ycs, &maxrel);
        sps_ok(nbits == 0,
               "%s%s tpr %d on %s, alpha %g beta %g: bitwise equal to the CPU csr-scalar "
               "reference (%lld of %lld rows differ, max rel diff %.3g)",
               kname, dev, tpr, name, alpha, beta, (long long)nbits, (long long)m, maxrel);
      }
      double worst;
      int64_t row;
      int64_t bad = spmv_compare(A, alpha, x, beta, y0, y, yref, &worst, &row);
      if (bad)
        sps_ok(0,
               "%s%s tpr %d on %s, alpha %g beta %g: %lld rows off, worst row %lld: y %.17g ref "
               "%.17g (%.3g x tol)",
               kname, dev, tpr, name, alpha, beta, (long long)bad, (long long)row, y[row],
               yref[row], worst);
      else
        sps_ok(1, "%s%s tpr %d on %s (%lld x %lld, nnz %lld), alpha %g beta %g%s", kname, dev,
               tpr, name, (long long)m, (long long)n, (long long)nnz, alpha, beta,
               beta == 0.0 ? " (y NaN on entry)" : "");
    }
  }
  free(x);
  free(y0);
  free(y);
  free(yref);
  free(ycs);
  sps_matrix_destroy(&Ag);
  sps_matrix_destroy(&Ag64);
}

/* Most stored entries of a shared matrix checked by the per-variant programs (the two big ones go to spmv_large). */
#define SPS_SPMV_SMALL_NNZ 1000000

/*
 * Call fn(ctx, A, name, arg) for every matrix of the list: the synthetic cases, the bundled
 * matrices of tests/data, and the shared matrices of $SPS_MATRICES (from MANIFEST.tsv) with
 * at most max_nnz stored entries (or at least min_nnz, for the large-matrix program). With
 * spmv_case_per_matrix set, each matrix is one case (sps_case), and fn must not ask sps_case()
 * itself; left 0 (programs whose checks sum over the matrices), every matrix goes to fn.
 */
typedef void (*spmv_matrix_fn)(sps_context *ctx, const sps_matrix *A, const char *name, void *arg);
static int spmv_case_per_matrix = 0;

static inline void spmv_read_and_call(sps_context *ctx, const char *path, const char *name,
                                      spmv_matrix_fn fn, void *arg)
{
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS)
    sps_bail("reading %s: %s", path, sps_context_last_error(ctx));
  fn(ctx, A, name, arg);
  sps_matrix_destroy(&A);
}

static inline void spmv_for_each_matrix(sps_context *ctx, int synthetic, int bundled,
                                        long long min_nnz, long long max_nnz, spmv_matrix_fn fn,
                                        void *arg)
{
  char path[4096], line[4096];
  for (int w = 0; synthetic; w++) {
    const char *name;
    sps_matrix *A = spmv_synthetic(ctx, w, &name);
    if (!A) break;
    if (!spmv_case_per_matrix || sps_case()) fn(ctx, A, name, arg);
    sps_matrix_destroy(&A);
  }
  if (bundled) {
    static const char *const files[] = {"1138_bus", "add20", "ash219", "bcsstk14",
                                        "nos3",     "orsreg_1", "watt_2"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
      snprintf(path, sizeof path, "%s/%s.mtx.gz", sps_test_data_dir(), files[f]);
      if (!spmv_case_per_matrix || sps_case()) spmv_read_and_call(ctx, path, files[f], fn, arg);
    }
  }
  const char *dir = sps_test_matrices_dir();
  if (!dir) {
    sps_diag("SPS_MATRICES unset: the shared matrices are not checked");
    return;
  }
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *mf = fopen(path, "r");
  if (!mf) sps_bail("cannot open %s", path);
  while (fgets(line, sizeof line, mf)) {
    char file[1024];
    long long rows, cols, stored;
    if (sscanf(line, "%1023s %lld %lld %lld", file, &rows, &cols, &stored) != 4) continue;
    if (stored < min_nnz || stored > max_nnz) continue;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!spmv_case_per_matrix || sps_case()) spmv_read_and_call(ctx, path, file, fn, arg);
  }
  fclose(mf);
}

/* The arguments of the per-matrix check. */
typedef struct spmv_check_args {
  sps_context *gpu; /* NULL: CPU checks */
  sps_spmv_kind kind;
  int tpr;
} spmv_check_args;

static inline void spmv_check_fn(sps_context *cpu, const sps_matrix *A, const char *name, void *arg)
{
  const spmv_check_args *a = (const spmv_check_args *)arg;
  spmv_check_matrix(cpu, a->gpu, A, name, a->kind, a->tpr);
}

/* sps_spmv_apply before setup must return SPS_ERR_STATE. */
static inline void spmv_check_state(sps_context *ctx, sps_spmv_kind kind)
{
  const int64_t rp[3] = {0, 1, 2};
  const int32_t ci[2] = {0, 1};
  const double va[2] = {1.0, 2.0};
  sps_matrix *A = spmv_make(ctx, 2, 2, rp, ci, va);
  sps_spmv_plan *plan = NULL;
  sps_vector *x = NULL, *y = NULL;
  if (sps_spmv_plan_create(ctx, &plan, A, kind) || sps_vector_create(ctx, &x, 2) ||
      sps_vector_create(ctx, &y, 2))
    sps_bail("plan or vectors: %s", sps_context_last_error(ctx));
  sps_status st = sps_spmv_apply(plan, 1.0, x, 0.0, y);
  sps_ok(st == SPS_ERR_STATE, "%s: apply before setup gives SPS_ERR_STATE (got %s: %s)",
         sps_spmv_kind_name(kind), sps_status_name(st), sps_context_last_error(ctx));
  sps_spmv_plan_destroy(&plan);
  sps_vector_destroy(&x);
  sps_vector_destroy(&y);
  sps_matrix_destroy(&A);
}

/*
 * The body of a variant's test program. CPU build: the variant's reference against the plain
 * CSR loop on every matrix (always runs). With SPS_TEST_GPU: the GPU variant against the CPU
 * reference (exit 77 without a GPU). tprs lists the threads per row to try (0 = the variant's
 * own choice), ntpr entries. Cases: the state check, then each threads per row and matrix.
 */
static inline int spmv_variant_main(sps_spmv_kind kind, const int *tprs, int ntpr)
{
  sps_context *cpu = NULL, *gpu = NULL;
#ifdef SPS_TEST_GPU
  gpu = sps_test_cuda_context_or_skip();
#endif
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  sps_context *own = gpu ? gpu : cpu;
  spmv_case_per_matrix = 1;
  if (!gpu && kind == SPS_SPMV_CUSPARSE) {
    /* cusparse has no CPU reference: the CPU backend must refuse it. */
    const int64_t rp[2] = {0, 0};
    sps_matrix *A = spmv_make(cpu, 1, 1, rp, NULL, NULL);
    sps_spmv_plan *plan = NULL;
    sps_status st = sps_spmv_plan_create(cpu, &plan, A, kind);
    if (sps_case())
      sps_ok(!sps_spmv_kind_available(kind, SPS_DEVICE_CPU) && st == SPS_ERR_UNSUPPORTED && !plan,
             "cusparse is refused on the CPU backend (%s: %s)", sps_status_name(st),
             sps_context_last_error(cpu));
    sps_matrix_destroy(&A);
  } else {
    if (sps_case()) spmv_check_state(own, kind);
    for (int t = 0; t < ntpr; t++) {
      spmv_check_args a = {gpu, kind, tprs[t]};
      spmv_for_each_matrix(cpu, 1, 1, 0, SPS_SPMV_SMALL_NNZ, spmv_check_fn, &a);
    }
  }
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}

#endif /* SPS_TESTS_SPMV_CHECK_H */
