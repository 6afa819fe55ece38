/* spmv_csr_sliced.c: csr-scalar on the CPU backend through its sliced copy (SELL-8; spmv/ref/csr_sliced*.c) gives bit for bit the CSR loop's y (sps_ref_csr_scalar), under each instruction set this processor runs.
 *
 * For AVX2 and AVX-512F in turn (skipped where the processor lacks them) a csr-scalar plan is
 * set up on every matrix of spmv_check.h's list (synthetic edge cases: empty rows, a dense row,
 * rectangular shapes, nnz = 0; the bundled and the shared matrices) and on seeded random ones
 * built so that another order of a row's sum would show: values of mixed signs and magnitudes
 * 1e-8 .. 1e8, rows of 0 to 40 entries (slices of very different lengths, masked steps), rows
 * of cancelling pairs, 4099 rows (several OpenMP chunks). Every y_i is compared bit for bit
 * (NaN equal to NaN) with sps_ref_csr_scalar's for (alpha, beta) = (1, 0) with NaN in y,
 * (2.5, -0.75) and (-1, 1), and with x holding NaN, Inf and -0.0. The plan must have taken
 * the layout its rule gives (checked, so that the comparison is of the sliced kernel): slices
 * where the padding allows and none past twice the entries, the rows sorted by length within
 * windows of 256 where that cuts the padding by a tenth (the lanes then write rows out of
 * order; some plans of each instruction set must be of each kind). After sps_matrix_scale() the plan gives the scaled
 * matrix's product (the copy is refreshed).
 */
#include "spmv_check.h"

#include "../../core/cpu_simd.h"
#include "../../spmv/ref/kernels.h"
#include "../../spmv/spmv_internal.h"

static int same(double a, double b)
{
  if (a != a || b != b) return a != a && b != b;
  return memcmp(&a, &b, sizeof a) == 0;
}

/* Entries of the slices of 8 lanes with padding, for the lanes' lengths len (m of them). */
static int64_t padded_entries(const int64_t *len, int64_t m)
{
  int64_t padded = 0;
  for (int64_t s = 0; s < (m + 7) / 8; s++) {
    int64_t w = 0;
    for (int64_t i = 8 * s; i < 8 * s + 8 && i < m; i++)
      if (len[i] > w) w = len[i];
    padded += 8 * w;
  }
  return padded;
}

static int longer_first(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x < y) - (x > y);
}

/* The layout the csr-scalar plan of A should take (sps_spmv_csr_scalar_layout), computed here
 * from the rule of spmv/csr_scalar.c: the padded entries with the rows in order, and with the
 * rows sorted by length within windows of 256; sorted where that is at least a tenth fewer;
 * slices (1 in order, 2 sorted) where the chosen count is within twice nnz (plus 8), else 0. */
static int expect_layout(const sps_matrix *A)
{
  int64_t m, nnz;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_test_csr(A, &m, &rp, &ci, &va);
  sps_matrix_get_size(A, NULL, NULL, &nnz);
  if (m == 0) return 0;
  int64_t *len = malloc((size_t)m * sizeof *len);
  if (!len) sps_bail("out of memory");
  for (int64_t i = 0; i < m; i++)
    len[i] = rp[i + 1] - rp[i];
  const int64_t plain = padded_entries(len, m);
  for (int64_t w0 = 0; w0 < m; w0 += 256)
    qsort(len + w0, (size_t)(m - w0 < 256 ? m - w0 : 256), sizeof *len, longer_first);
  const int64_t sorted = padded_entries(len, m);
  free(len);
  const int sort = sorted < plain && 10 * sorted <= 9 * plain;
  return (sort ? sorted : plain) <= 2 * nnz + 8 ? 1 + sort : 0;
}

typedef struct args {
  const char *isa;
  int64_t sliced, sorted, plans, bad_rows, cases;
} args;

/* y of the plan against sps_ref_csr_scalar on A's CSR arrays, for the three (alpha, beta) and
 * two x; the count of differing rows goes to a->bad_rows. */
static void check(sps_context *ctx, const sps_matrix *A, const char *name, void *arg)
{
  args *a = arg;
  int64_t m, n, nnz;
  sps_matrix_get_size(A, &m, &n, &nnz);
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  sps_spmv_plan *plan = NULL;
  if (sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(plan))
    sps_bail("%s: plan: %s", name, sps_context_last_error(ctx));
  static const char *const layout_name[] = {"the CSR loop", "slices, rows in order",
                                             "slices, rows sorted in windows"};
  const int has = sps_spmv_csr_scalar_layout(plan), want = expect_layout(A);
  a->plans++;
  a->sliced += has > 0;
  a->sorted += has == 2;
  if (has != want)
    sps_ok(0, "%s (%s): %s, expected %s", name, a->isa, layout_name[has], layout_name[want]);
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x), *y = malloc((size_t)(m ? m : 1) * 8),
         *yr = malloc((size_t)(m ? m : 1) * 8), *y0 = malloc((size_t)(m ? m : 1) * 8);
  if (!x || !y || !yr || !y0) sps_bail("out of memory");
  sps_vector *xv = NULL, *yv = NULL;
  if (sps_vector_wrap(ctx, &xv, n, x) || sps_vector_wrap(ctx, &yv, m, y)) sps_bail("wrap");
  static const double ab[3][2] = {{1.0, 0.0}, {2.5, -0.75}, {-1.0, 1.0}};
  sps_rng r = {0x51CEDu + (uint64_t)m};
  for (int special = 0; special < 2; special++) {
    for (int64_t j = 0; j < n; j++)
      x[j] = (sps_rng_uniform(&r) < 0.0 ? -1.0 : 1.0) * pow(10.0, 2.0 * sps_rng_uniform(&r));
    if (special && n > 3) x[0] = NAN, x[n / 2] = INFINITY, x[n - 1] = -0.0, x[1] = -INFINITY;
    for (int64_t i = 0; i < m; i++)
      y0[i] = sps_rng_uniform(&r);
    for (int c = 0; c < 3; c++) {
      const double alpha = ab[c][0], beta = ab[c][1];
      for (int64_t i = 0; i < m; i++)
        y[i] = yr[i] = beta == 0.0 ? NAN : y0[i];
      if (sps_spmv_apply(plan, alpha, xv, beta, yv))
        sps_bail("apply: %s", sps_context_last_error(ctx));
      sps_ref_csr_scalar(m, rp, ci, va, alpha, x, beta, yr);
      int64_t bad = 0;
      for (int64_t i = 0; i < m; i++)
        bad += !same(y[i], yr[i]);
      a->bad_rows += bad;
      a->cases++;
      if (bad)
        sps_ok(0, "%s (%s, %s): %lld of %lld rows differ from the CSR loop, alpha %g beta %g%s",
               name, a->isa, has ? "sliced" : "CSR", (long long)bad, (long long)m, alpha, beta,
               special ? ", x with NaN, Inf, -0" : "");
    }
  }
  sps_vector_destroy(&xv);
  sps_vector_destroy(&yv);
  sps_spmv_plan_destroy(&plan);
  free(x);
  free(y);
  free(yr);
  free(y0);
}

/* Random m x 3001 matrix `which`: rows of 0..maxlen entries of mixed magnitudes; with cancel,
 * pairs v, -v(1 + d) in each row. */
static sps_matrix *random_matrix(sps_context *ctx, int64_t m, int maxlen, int cancel, uint64_t seed)
{
  const int64_t n = 3001;
  sps_rng r = {seed};
  int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(m * maxlen + 1) * sizeof *ci);
  double *va = malloc((size_t)(m * maxlen + 1) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of memory");
  rp[0] = 0;
  for (int64_t i = 0; i < m; i++) {
    const int len = (int)((sps_rng_next(&r) >> 11) % (uint64_t)(maxlen + 1));
    const int64_t start = (int64_t)((sps_rng_next(&r) >> 11) % (uint64_t)(n - maxlen));
    for (int k = 0; k < len; k++) {
      const int64_t e = rp[i] + k;
      ci[e] = (int32_t)(start + k);
      va[e] = cancel && k % 2 == 1
                  ? -va[e - 1] * (1.0 + 1e-7 * sps_rng_uniform(&r))
                  : (sps_rng_uniform(&r) < 0.0 ? -1.0 : 1.0) * pow(10.0, 8.0 * sps_rng_uniform(&r));
    }
    rp[i + 1] = rp[i] + len;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, m, n, rp, ci, va))
    sps_bail("create: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

int main(void)
{
  const sps_cpu_isa start = sps_cpu_isa_current();
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  for (int isa = SPS_CPU_ISA_AVX2; isa < SPS_CPU_ISA_COUNT; isa++) {
    const char *name = sps_cpu_isa_name((sps_cpu_isa)isa);
    if (sps_test_cpu_isa_set((sps_cpu_isa)isa) != 0) {
      sps_skip("%s: not supported by this processor or build", name);
      continue;
    }
    args a = {name, 0, 0, 0, 0, 0};
    spmv_for_each_matrix(ctx, 1, 1, 0, SPS_SPMV_SMALL_NNZ, check, &a);
    static const struct {
      int64_t m;
      int maxlen, cancel;
    } rnd[] = {{1, 5, 0},     {7, 3, 0},     {8, 9, 1},   {9, 17, 0},
               {1000, 40, 1}, {4099, 12, 1}, {4099, 7, 0}};
    for (size_t k = 0; k < sizeof rnd / sizeof rnd[0]; k++) {
      char nm[96];
      snprintf(nm, sizeof nm, "random %lld rows of 0..%d%s", (long long)rnd[k].m, rnd[k].maxlen,
               rnd[k].cancel ? ", cancelling pairs" : "");
      sps_matrix *A = random_matrix(ctx, rnd[k].m, rnd[k].maxlen, rnd[k].cancel, 17 + k);
      check(ctx, A, nm, &a);
      sps_matrix_destroy(&A);
    }
    sps_ok(a.bad_rows == 0 && a.sliced > a.sorted && a.sorted > 0,
           "%s: %lld plans (%lld from slices, %lld of them with sorted rows), %lld products: %lld "
           "rows differ from the CSR loop",
           name, (long long)a.plans, (long long)a.sliced, (long long)a.sorted, (long long)a.cases,
           (long long)a.bad_rows);

    /* sps_matrix_scale after setup: the plan multiplies by the scaled matrix */
    sps_matrix *A = random_matrix(ctx, 300, 12, 0, 99);
    sps_spmv_plan *plan = NULL;
    if (sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(plan))
      sps_bail("plan: %s", sps_context_last_error(ctx));
    int64_t m, n;
    sps_matrix_get_size(A, &m, &n, NULL);
    double *x = malloc((size_t)n * 8), *y = malloc((size_t)m * 8), *yr = malloc((size_t)m * 8);
    if (!x || !y || !yr) sps_bail("out of memory");
    for (int64_t j = 0; j < n; j++)
      x[j] = 1.0 + 1e-3 * (double)j;
    sps_vector *xv = NULL, *yv = NULL;
    if (sps_vector_wrap(ctx, &xv, n, x) || sps_vector_wrap(ctx, &yv, m, y)) sps_bail("wrap");
    sps_spmv_apply(plan, 1.0, xv, 0.0, yv);
    sps_matrix_scale(A, -3.0);
    sps_spmv_apply(plan, 1.0, xv, 0.0, yv);
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    sps_matrix_get_csr(A, &rp, &ci, &va);
    sps_ref_csr_scalar(m, rp, ci, va, 1.0, x, 0.0, yr);
    int64_t bad = 0;
    for (int64_t i = 0; i < m; i++)
      bad += !same(y[i], yr[i]);
    sps_ok(plan->data != NULL && bad == 0,
           "%s: after sps_matrix_scale(A, -3) the plan gives the scaled product (%lld rows differ)",
           name, (long long)bad);
    sps_vector_destroy(&xv);
    sps_vector_destroy(&yv);
    sps_spmv_plan_destroy(&plan);
    sps_matrix_destroy(&A);
    free(x);
    free(y);
    free(yr);
  }
  sps_test_cpu_isa_set(start);
  sps_context_destroy(&ctx);
  return sps_done();
}
