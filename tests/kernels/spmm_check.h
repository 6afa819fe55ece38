/* spmm_check.h: shared checks of the SpMM variant tests: the k list, one SpMM through the API, the column-by-column comparison with the SpMV reference and the per-variant program body.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix is a case (spmv_for_each_matrix). */
#ifndef SPS_TESTS_SPMM_CHECK_H
#define SPS_TESTS_SPMM_CHECK_H

#include "spmv_check.h"

/* The column counts every matrix is tried with, and the shorter list of the larger matrices. */
static const int64_t spmm_ks[] = {1, 2, 3, 4, 7, 8, 16, 32, 33, 64};
static const int64_t spmm_ks_large[] = {1, 2, 8, 33};
/* Matrices with more entries or columns than these take spmm_ks_large. */
#define SPS_SPMM_SMALL_NNZ 50000
#define SPS_SPMM_SMALL_COLS 50000

/* Column-major host blocks (leading dimension = rows) of random values from a seed. */
static inline void spmm_random_block(uint64_t seed, int64_t rows, int64_t k, double *out)
{
  sps_rng rng = {seed};
  for (int64_t i = 0; i < rows * k; i++)
    out[i] = sps_rng_uniform(&rng);
}

static inline double *spmm_alloc(int64_t count)
{
  double *p = (double *)malloc((size_t)(count > 0 ? count : 1) * sizeof *p);
  if (!p) sps_bail("out of memory");
  return p;
}

/*
 * Y <- alpha*A*X + beta*Y0 with an SpMM plan of `kind` for k columns on A's context (X, Y0, Y
 * column-major host blocks); Y0 replaced by NaN when beta = 0 (it must not be read). Returns
 * the setup status (its message in *msg); on success Y holds the result and *used the variant
 * that ran. With `shifted`, the device blocks are views (sps_multivector_wrap) that start one
 * double into blocks of k + 1 columns: 8-byte aligned, not 16, so the kernels take their
 * 8-byte loads (sps_spmm_xy_vec gives 1) where the blocks of sps_multivector_create get 16-byte
 * ones. The blocks have a row more than the views, which span n*ld doubles from their start
 * (sps_multivector_wrap's storage).
 */
static inline sps_status spmm_apply_at(sps_context *ctx, const sps_matrix *A, sps_spmm_kind kind,
                                       int64_t k, double alpha, const double *X, double beta,
                                       const double *Y0, double *Y, sps_spmm_kind *used,
                                       const char **msg, int shifted)
{
  static char buf[1024];
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_spmm_plan *plan = NULL;
  sps_multivector *mx = NULL, *my = NULL;
  sps_status st = sps_spmm_plan_create(ctx, &plan, A, k);
  if (!st) st = sps_spmm_plan_set_kind(plan, kind);
  if (!st) st = sps_spmm_plan_setup(plan);
  snprintf(buf, sizeof buf, "%s", st ? sps_context_last_error(ctx) : "");
  *msg = buf;
  if (st) {
    sps_spmm_plan_destroy(&plan);
    return st;
  }
  if (used) sps_spmm_plan_get_kind(plan, used, NULL);
  double *yin = spmm_alloc(m * k);
  for (int64_t i = 0; i < m * k; i++)
    yin[i] = beta == 0.0 ? NAN : Y0[i];
  sps_multivector *bx = NULL, *by = NULL; /* the blocks the shifted views lie in */
  if (shifted) {
    double *dx, *dy;
    int64_t ldx, ldy;
    if (sps_multivector_create(ctx, &bx, n + 1, k + 1) ||
        sps_multivector_create(ctx, &by, m + 1, k + 1) ||
        sps_multivector_get_data(bx, &dx, &ldx) || sps_multivector_get_data(by, &dy, &ldy) ||
        sps_multivector_wrap(ctx, &mx, n, k, n > 0 ? dx + 1 : dx, ldx) ||
        sps_multivector_wrap(ctx, &my, m, k, m > 0 ? dy + 1 : dy, ldy))
      sps_bail("shifted multivectors: %s", sps_context_last_error(ctx));
  } else if (sps_multivector_create(ctx, &mx, n, k) || sps_multivector_create(ctx, &my, m, k)) {
    sps_bail("multivectors: %s", sps_context_last_error(ctx));
  }
  if (sps_multivector_upload(mx, X, n, k) || sps_multivector_upload(my, yin, m, k))
    sps_bail("multivector setup: %s", sps_context_last_error(ctx));
  st = sps_spmm_apply(plan, alpha, mx, beta, my);
  if (st)
    sps_bail("sps_spmm_apply (%s, k %lld): %s", sps_spmm_kind_name(kind), (long long)k,
             sps_context_last_error(ctx));
  if (sps_context_synchronize(ctx) || sps_multivector_download(my, Y, m, k))
    sps_bail("after sps_spmm_apply: %s", sps_context_last_error(ctx));
  free(yin);
  sps_multivector_destroy(&mx);
  sps_multivector_destroy(&my);
  sps_multivector_destroy(&bx);
  sps_multivector_destroy(&by);
  sps_spmm_plan_destroy(&plan);
  return SPS_SUCCESS;
}

static inline sps_status spmm_apply_once(sps_context *ctx, const sps_matrix *A, sps_spmm_kind kind,
                                         int64_t k, double alpha, const double *X, double beta,
                                         const double *Y0, double *Y, sps_spmm_kind *used,
                                         const char **msg)
{
  return spmm_apply_at(ctx, A, kind, k, alpha, X, beta, Y0, Y, used, msg, 0);
}

/* Entries of the m x k blocks Y and Yref that differ in any bit; the largest relative
 * difference in *maxrel. */
static inline int64_t spmm_bit_mismatches(int64_t m, int64_t k, const double *Y, const double *Yref,
                                          double *maxrel)
{
  return spmv_bit_mismatches(m * k, Y, Yref, maxrel);
}

/* Rows outside spmv_compare's per-row tolerance against the plain CSR loop, over all columns. */
static inline int64_t spmm_tolerance_misses(const sps_matrix *A, int64_t k, double alpha,
                                            const double *X, double beta, const double *Y0,
                                            const double *Y, double *worst)
{
  int64_t m, n, bad = 0;
  sps_matrix_get_size(A, &m, &n, NULL);
  double *yp = spmm_alloc(m);
  *worst = 0.0;
  for (int64_t j = 0; j < k; j++) {
    double w;
    int64_t row;
    spmv_plain(A, alpha, X + j * n, beta, Y0 + j * m, yp);
    bad += spmv_compare(A, alpha, X + j * n, beta, Y0 + j * m, Y + j * m, yp, &w, &row);
    if (w > *worst) *worst = w;
  }
  free(yp);
  return bad;
}

/*
 * The reference SpMM against the SpMV reference: column j of Y (spmm-csr on the CPU) must be
 * csr-scalar's y for column j of X, bit for bit. Returns the differing entries.
 */
static inline int64_t spmm_vs_spmv(sps_context *cpu, const sps_matrix *A, int64_t k, double alpha,
                                   const double *X, double beta, const double *Y0, const double *Y)
{
  int64_t m, n, bad = 0;
  sps_matrix_get_size(A, &m, &n, NULL);
  double *y = spmm_alloc(m);
  for (int64_t j = 0; j < k; j++) {
    const char *msg;
    if (spmv_apply_once(cpu, A, SPS_SPMV_CSR_SCALAR, 0, alpha, X + j * n, beta, Y0 + j * m, y,
                        &msg) != SPS_SUCCESS)
      sps_bail("csr-scalar: %s", msg);
    double maxrel;
    bad += spmv_bit_mismatches(m, y, Y + j * m, &maxrel);
  }
  free(y);
  return bad;
}

static const double spmm_alphas[2] = {1.0, 2.5};
static const double spmm_betas[2] = {0.0, -0.75};

/* The arguments of the per-matrix check. */
typedef struct spmm_check_args {
  sps_context *gpu; /* NULL: CPU checks */
  sps_spmm_kind kind;
} spmm_check_args;

/*
 * Check one matrix for every k of the list and both (alpha, beta). CPU (gpu NULL): the variant's
 * CPU reference must give the reference SpMM's bits (spmm-csr on the CPU) and stay within the
 * per-row tolerance of the plain loop; for spmm-csr itself, its columns must be the csr-scalar
 * SpMV's bit for bit. GPU: the variant on the GPU must give its CPU reference's bits
 * (cusparse-spmm: within the tolerance of the plain loop). spmm-sputnik and spmm-balanced, on
 * either, also from blocks aligned to 8 bytes only (spmm_apply_at's shifted views), where they
 * load one double at a time instead of two.
 */
static inline void spmm_check_matrix(sps_context *cpu, sps_context *gpu, const sps_matrix *A,
                                     const char *name, sps_spmm_kind kind)
{
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  const char *kname = sps_spmm_kind_name(kind);
  const int large = nnz > SPS_SPMM_SMALL_NNZ || n > SPS_SPMM_SMALL_COLS;
  const int64_t *ks = large ? spmm_ks_large : spmm_ks;
  const int nk = large ? (int)(sizeof spmm_ks_large / sizeof *spmm_ks_large)
                       : (int)(sizeof spmm_ks / sizeof *spmm_ks);
  sps_matrix *Ag = gpu ? spmv_copy_to(gpu, A) : NULL;
  const char *dev = gpu ? " (GPU)" : "";
  /* the kernels whose loads follow the blocks' alignment run on shifted blocks too */
  const int shift = kind == SPS_SPMM_SPUTNIK || kind == SPS_SPMM_BALANCED;
  for (int ki = 0; ki < nk; ki++) {
    const int64_t k = ks[ki];
    double *X = spmm_alloc(n * k), *Y0 = spmm_alloc(m * k), *Y = spmm_alloc(m * k);
    double *Yref = spmm_alloc(m * k);
    int64_t bits = 0, misses = 0, spmv_bits = 0, shift_bits = 0;
    double worst_tol = 0.0, maxrel = 0.0;
    sps_status st = SPS_SUCCESS;
    const char *msg = "";
    if (kind == SPS_SPMM_SPMV && k != 1) {
      /* spmm-spmv serves one column only. */
      sps_status rs = spmm_apply_once(gpu ? gpu : cpu, gpu ? Ag : A, kind, k, 1.0, X, 0.0, Y0, Y,
                                      NULL, &msg);
      if (ki == 1)
        sps_ok(rs == SPS_ERR_UNSUPPORTED && strstr(msg, "k = 1 only"),
               "%s%s refuses k = %lld: \"%s\"", kname, dev, (long long)k, msg);
      free(X);
      free(Y0);
      free(Y);
      free(Yref);
      continue;
    }
    for (int p = 0; p < 2 && !st; p++) {
      const double alpha = spmm_alphas[p], beta = spmm_betas[p];
      spmm_random_block(0x5B11u + 97u * (uint64_t)k + (uint64_t)p, n, k, X);
      spmm_random_block(0xB0B0u + 31u * (uint64_t)k + (uint64_t)p, m, k, Y0);
      st = spmm_apply_once(gpu ? gpu : cpu, gpu ? Ag : A, kind, k, alpha, X, beta, Y0, Y, NULL,
                           &msg);
      if (st) break;
      /* The bits to match: on the GPU the variant's CPU reference (none for cusparse-spmm);
       * on the CPU the reference SpMM. */
      const sps_spmm_kind rk = gpu ? kind : SPS_SPMM_CSR;
      if (rk != SPS_SPMM_CUSPARSE) {
        const char *rmsg;
        if (spmm_apply_once(cpu, A, rk, k, alpha, X, beta, Y0, Yref, NULL, &rmsg) != SPS_SUCCESS)
          sps_bail("CPU reference %s on %s: %s", sps_spmm_kind_name(rk), name, rmsg);
        double mr;
        bits += spmm_bit_mismatches(m, k, Y, Yref, &mr);
        if (mr > maxrel) maxrel = mr;
        if (shift) {
          /* the same product from 8-byte-aligned blocks: the kernels' 8-byte loads */
          if (spmm_apply_at(gpu ? gpu : cpu, gpu ? Ag : A, kind, k, alpha, X, beta, Y0, Y, NULL,
                            &msg, 1))
            sps_bail("%s on %s, k %lld, shifted blocks: %s", kname, name, (long long)k, msg);
          shift_bits += spmm_bit_mismatches(m, k, Y, Yref, &mr);
        }
      }
      double w;
      misses += spmm_tolerance_misses(A, k, alpha, X, beta, Y0, Y, &w);
      if (w > worst_tol) worst_tol = w;
      if (!gpu && kind == SPS_SPMM_CSR) spmv_bits += spmm_vs_spmv(cpu, A, k, alpha, X, beta, Y0, Y);
    }
    if (st) {
      sps_ok(0, "%s%s on %s, k %lld: setup failed: %s", kname, dev, name, (long long)k, msg);
    } else {
      if (kind != SPS_SPMM_CUSPARSE)
        sps_ok(bits == 0,
               "%s%s on %s (%lld x %lld, nnz %lld), k %lld: bitwise the %s (%lld entries differ, "
               "max rel %.3g)",
               kname, dev, name, (long long)m, (long long)n, (long long)nnz, (long long)k,
               gpu ? "CPU reference of the variant" : "reference SpMM", (long long)bits, maxrel);
      sps_ok(misses == 0,
             "%s%s on %s, k %lld: within the per-row tolerance of the plain loop for alpha 1 "
             "beta 0 (Y NaN on entry) and alpha 2.5 beta -0.75 (%lld rows off, worst %.3g x tol)",
             kname, dev, name, (long long)k, (long long)misses, worst_tol);
      if (shift)
        sps_ok(shift_bits == 0,
               "%s%s on %s, k %lld: from blocks 8-byte aligned (8-byte loads), bitwise the %s too "
               "(%lld entries differ)",
               kname, dev, name, (long long)k,
               gpu ? "CPU reference of the variant" : "reference SpMM", (long long)shift_bits);
      if (!gpu && kind == SPS_SPMM_CSR)
        sps_ok(spmv_bits == 0,
               "reference SpMM on %s, k %lld: every column is the csr-scalar SpMV's bit for bit "
               "(%lld entries differ)",
               name, (long long)k, (long long)spmv_bits);
    }
    free(X);
    free(Y0);
    free(Y);
    free(Yref);
  }
  sps_matrix_destroy(&Ag);
}

static inline void spmm_check_fn(sps_context *cpu, const sps_matrix *A, const char *name, void *arg)
{
  const spmm_check_args *a = (const spmm_check_args *)arg;
  spmm_check_matrix(cpu, a->gpu, A, name, a->kind);
}

/*
 * The body of a variant's test program: every matrix of spmv_check.h's list (synthetic edge
 * cases, the bundled matrices, the shared ones of at most SPS_SPMV_SMALL_NNZ entries when
 * SPS_MATRICES is set). CPU build: the CPU reference; SPS_TEST_GPU: the GPU kernel, exit 77
 * without a GPU. cusparse-spmm on the CPU: refused.
 */
static inline int spmm_variant_main(sps_spmm_kind kind)
{
  sps_context *cpu = NULL, *gpu = NULL;
#ifdef SPS_TEST_GPU
  gpu = sps_test_cuda_context_or_skip();
#endif
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  spmv_case_per_matrix = 1;
  if (!gpu && kind == SPS_SPMM_CUSPARSE) {
    const int64_t rp[2] = {0, 0};
    sps_matrix *A = spmv_make(cpu, 1, 1, rp, NULL, NULL);
    sps_spmm_plan *plan = NULL;
    if (sps_spmm_plan_create(cpu, &plan, A, 4)) sps_bail("%s", sps_context_last_error(cpu));
    sps_status st = sps_spmm_plan_set_kind(plan, kind);
    if (sps_case())
      sps_ok(!sps_spmm_kind_available(kind, SPS_DEVICE_CPU) && st == SPS_ERR_UNSUPPORTED,
             "cusparse-spmm is refused on the CPU backend (%s: %s)", sps_status_name(st),
             sps_context_last_error(cpu));
    sps_spmm_plan_destroy(&plan);
    sps_matrix_destroy(&A);
  } else {
    spmm_check_args a = {gpu, kind};
    spmv_for_each_matrix(cpu, 1, 1, 0, SPS_SPMV_SMALL_NNZ, spmm_check_fn, &a);
  }
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}

#endif /* SPS_TESTS_SPMM_CHECK_H */
