/* spmv_binned.c: tests of the binned SpMV variant: its CPU reference against a plain CSR loop and,
 * built with SPS_TEST_GPU, its GPU kernel against that reference bit for bit.
 *
 * Every matrix of spmv_check.h's list, and matrices built to fill every bin of the variant:
 * empty rows, short rows of every length 1..32 (and runs of more than a tile's 1024 rows),
 * warp rows of 33..1024, long rows of one part (1025..8192) and of several (9000, 20000,
 * 50000 and 150000 entries), runs of long rows with no short row between them, and tiles cut
 * by their nonzero budget. For each, (alpha, beta) = (1, 0) with NaN in y and (2.5, -0.75):
 * the per-row tolerance 2*(len_i + 2)*eps*(|alpha| sum_j |a_ij x_j| + |beta y_i|) against a
 * plain double CSR product (CPU) or the CPU reference (GPU); on the GPU also bitwise equality
 * with the CPU binned reference (same orders: no tie may differ) and with the CPU csr-scalar
 * reference. One plan applied twice must give the same bits (the arrival counters of the
 * long rows reset), apply before setup gives SPS_ERR_STATE and x aliasing y
 * SPS_ERR_ARGUMENT.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each matrix is a case, and each of the two errors.
 */
#include "spmv_check.h"

/* Columns of the binned cases: prime, so any stride below it walks distinct columns. */
#define BN_NCOLS 200003

/*
 * Binned case `which` on ctx (NULL past the last), its name in *name. Values of mixed signs
 * and magnitudes 1e-3 .. 1e3.
 */
static sps_matrix *bn_case(sps_context *ctx, int which, const char **name)
{
  sps_rng rng = {0xB1BBEDu + (uint64_t)which};
  int64_t m;
  switch (which) {
  case 0:
    *name = "every bin: empty rows, 1..32, 33..1024, 1025..8192, 9000..150000 entries";
    m = 30000;
    break;
  case 1:
    *name = "power-law rows (20000 rows, 1 to 30000 entries, P(len >= k) = 1/k)";
    m = 20000;
    break;
  case 2:
    *name = "small with every bin (700 rows: tiles of the lowered budget)";
    m = 700;
    break;
  case 3:
    *name = "even short rows (5000 rows of 1, then 3000 of 32: tiles cut by rows and by nonzeros)";
    m = 8000;
    break;
  default:
    *name = NULL;
    return NULL;
  }
  const int64_t n = BN_NCOLS;
  int64_t *rp = (int64_t *)calloc((size_t)m + 1, sizeof *rp);
  if (!rp) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    int64_t len = 0;
    const uint64_t u = sps_rng_next(&rng);
    switch (which) {
    case 0:
      if (i >= 2000 && i < 3500)
        len = 0; /* more than a tile of empty rows */
      else if (i >= 5000 && i < 6200)
        len = 33 + (int64_t)(u % 100); /* a run of warp rows with no short row */
      else if (i >= 8000 && i < 8040)
        len = 1025 + (int64_t)(u % 7000); /* consecutive long rows of one part */
      else if (i % 97 == 5)
        len = 33 + (int64_t)(u % 992); /* warp rows scattered among short ones */
      else if (i % 1999 == 7)
        len = 1025 + (int64_t)(u % 7168); /* long rows of one part */
      else
        len = (int64_t)(u % 34); /* 0..33 */
      break;
    case 1: {
      const double v = 0.5 * (sps_rng_uniform(&rng) + 1.0) + 1e-12;
      const double l = floor(1.0 / v);
      len = l > 30000.0 ? 30000 : (int64_t)l;
      break;
    }
    case 2:
      len = (int64_t)(u % 12);
      if (i % 50 == 3) len = 33 + (int64_t)(u % 200);
      if (i == 100 || i == 101) len = 2000;
      if (i == 400) len = 17000;
      break;
    default:
      len = i < 5000 ? 1 : 32;
      break;
    }
    rp[i + 1] = rp[i] + len;
  }
  if (which == 0) {
    /* Rows of several parts, one of more than 100,000 entries, two of them adjacent. */
    static const int64_t rows[] = {10, 11, 12000, 20001, 29999};
    static const int64_t lens[] = {9000, 20000, 50000, 150000, 8193};
    int64_t *len = (int64_t *)malloc((size_t)m * sizeof *len);
    if (!len) sps_bail("out of memory");
    for (int64_t i = 0; i < m; i++)
      len[i] = rp[i + 1] - rp[i];
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
      len[rows[r]] = lens[r];
    for (int64_t i = 0; i < m; i++)
      rp[i + 1] = rp[i] + len[i];
    free(len);
  }
  const int64_t nnz = rp[m];
  int32_t *ci = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
  double *va = (double *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *va);
  if (!ci || !va) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++) {
    const int64_t len = rp[i + 1] - rp[i];
    const int64_t start = (int64_t)(sps_rng_next(&rng) % (uint64_t)n);
    const int64_t stride = len * 4 < n ? 1 + (int64_t)(sps_rng_next(&rng) % 3) : 1;
    for (int64_t k = 0; k < len; k++) {
      ci[rp[i] + k] = (int32_t)((start + k * stride) % n);
      const double s = sps_rng_uniform(&rng) < 0.0 ? -1.0 : 1.0;
      va[rp[i] + k] = s * pow(10.0, 3.0 * sps_rng_uniform(&rng));
    }
  }
  sps_matrix *A = spmv_make(ctx, m, n, rp, ci, va);
  free(rp);
  free(ci);
  free(va);
  return A;
}

/* The GPU kernel against the CPU binned reference, bit for bit, on both (alpha, beta). */
static void bn_bitwise(sps_context *cpu, sps_context *gpu, const sps_matrix *A, const char *name)
{
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_matrix *Ag = spmv_copy_to(gpu, A);
  double *x = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  double *y0 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y0);
  double *y = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
  double *yref = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *yref);
  if (!x || !y0 || !y || !yref) sps_bail("out of memory");
  for (int p = 0; p < 2; p++) {
    const double alpha = spmv_alphas[p], beta = spmv_betas[p];
    spmv_random_vectors(0xB1Bu + (uint64_t)p, n, x, m, y0);
    const char *msg;
    if (spmv_apply_once(gpu, Ag, SPS_SPMV_BINNED, 0, alpha, x, beta, y0, y, &msg))
      sps_bail("binned (GPU) on %s: %s", name, msg);
    if (spmv_apply_once(cpu, A, SPS_SPMV_BINNED, 0, alpha, x, beta, y0, yref, &msg))
      sps_bail("binned (CPU) on %s: %s", name, msg);
    double maxrel;
    const int64_t bad = spmv_bit_mismatches(m, y, yref, &maxrel);
    sps_ok(bad == 0,
           "binned (GPU) on %s, alpha %g beta %g: bitwise equal to the CPU binned reference "
           "(%lld of %lld rows differ, max rel diff %.3g)",
           name, alpha, beta, (long long)bad, (long long)m, maxrel);
  }
  free(x);
  free(y0);
  free(y);
  free(yref);
  sps_matrix_destroy(&Ag);
}

/* One plan applied twice gives the same bits (the long rows' counters are reset). */
static void bn_repeat(sps_context *ctx, const sps_matrix *A, const char *name)
{
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_matrix *Ac = spmv_copy_to(ctx, A);
  sps_spmv_plan *plan = NULL;
  sps_vector *vx = NULL, *vy = NULL;
  double *x = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  double *y0 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y0);
  double *y1 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y1);
  double *y2 = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof *y2);
  if (!x || !y0 || !y1 || !y2) sps_bail("out of memory");
  spmv_random_vectors(0xAB1u, n, x, m, y0);
  if (sps_spmv_plan_create(ctx, &plan, Ac, SPS_SPMV_BINNED) || sps_spmv_plan_setup(plan) ||
      sps_vector_create(ctx, &vx, n) || sps_vector_create(ctx, &vy, m) ||
      sps_vector_upload(vx, x, n))
    sps_bail("binned plan on %s: %s", name, sps_context_last_error(ctx));
  for (int r = 0; r < 3; r++)
    if (sps_spmv_apply(plan, 1.0, vx, 0.0, vy) || sps_context_synchronize(ctx) ||
        sps_vector_download(vy, r == 0 ? y1 : y2, m))
      sps_bail("binned apply on %s: %s", name, sps_context_last_error(ctx));
  double maxrel;
  sps_device_kind dev = SPS_DEVICE_CPU;
  sps_context_get_device(ctx, &dev, NULL);
  const int64_t bad = spmv_bit_mismatches(m, y2, y1, &maxrel);
  sps_ok(bad == 0,
         "binned%s on %s: the third apply of one plan gives the first one's bits (%lld rows "
         "differ)",
         dev == SPS_DEVICE_CUDA ? " (GPU)" : "", name, (long long)bad);
  free(x);
  free(y0);
  free(y1);
  free(y2);
  sps_vector_destroy(&vx);
  sps_vector_destroy(&vy);
  sps_spmv_plan_destroy(&plan);
  sps_matrix_destroy(&Ac);
}

/* x and y the same vector: SPS_ERR_ARGUMENT, as for every variant. */
static void bn_alias(sps_context *ctx)
{
  const int64_t rp[3] = {0, 1, 2};
  const int32_t ci[2] = {0, 1};
  const double va[2] = {1.0, 2.0};
  sps_matrix *A = spmv_make(ctx, 2, 2, rp, ci, va);
  sps_spmv_plan *plan = NULL;
  sps_vector *x = NULL;
  if (sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_BINNED) || sps_spmv_plan_setup(plan) ||
      sps_vector_create(ctx, &x, 2))
    sps_bail("plan or vector: %s", sps_context_last_error(ctx));
  const sps_status st = sps_spmv_apply(plan, 1.0, x, 0.0, x);
  sps_ok(st == SPS_ERR_ARGUMENT, "binned: x aliasing y gives SPS_ERR_ARGUMENT (got %s: %s)",
         sps_status_name(st), sps_context_last_error(ctx));
  sps_spmv_plan_destroy(&plan);
  sps_vector_destroy(&x);
  sps_matrix_destroy(&A);
}

int main(void)
{
  sps_context *cpu = NULL, *gpu = NULL;
#ifdef SPS_TEST_GPU
  gpu = sps_test_cuda_context_or_skip();
#endif
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  sps_context *own = gpu ? gpu : cpu;
  spmv_case_per_matrix = 1;
  if (sps_case()) spmv_check_state(own, SPS_SPMV_BINNED);
  if (sps_case()) bn_alias(own);
  spmv_check_args a = {gpu, SPS_SPMV_BINNED, 0};
  spmv_for_each_matrix(cpu, 1, 1, 0, SPS_SPMV_SMALL_NNZ, spmv_check_fn, &a);
  for (int w = 0;; w++) {
    const char *name;
    sps_matrix *A = bn_case(cpu, w, &name);
    if (!A) break;
    if (sps_case()) {
      spmv_check_matrix(cpu, gpu, A, name, SPS_SPMV_BINNED, 0);
      if (gpu) bn_bitwise(cpu, gpu, A, name);
      bn_repeat(own, A, name);
    }
    sps_matrix_destroy(&A);
  }
  sps_context_destroy(&gpu);
  sps_context_destroy(&cpu);
  return sps_done();
}
