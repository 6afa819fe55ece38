/* spmv_dot.c: csr-scalar's product with the dot product of its input and output in one pass (sps_spmv_apply_dot, spmv/ref/csr_sliced.c: what CG forms (p, Ap) with on the CPU) gives y with the bits of the product alone and the sum with the bits of the CPU backend's dot of x and y.
 *
 * For AVX2 and AVX-512F in turn (the instruction sets with a sliced copy; skipped where the
 * processor lacks them) and 1, 2 and 3 OpenMP threads, on every square matrix of
 * spmv_check.h's list (synthetic edge cases, the bundled matrices, the shared ones up to 10^6
 * entries) and on seeded random ones of 8,193 to 40,003 rows (past SPS_OMP_MIN, so the threads'
 * parts cut through slices, and rows of 0 to 40 entries of mixed signs and magnitudes):
 * - the plan says it fuses the dot exactly where it should: a sliced copy, A square, and one
 *   thread or more than SPS_OMP_MIN rows;
 * - where it does, for alpha = 1 and -1 (the solver's sign), y equals sps_spmv_apply_raw's bit
 *   for bit, and fl(hi + lo) of the returned sum equals the backend's dot of x and that y;
 * - a rectangular matrix is refused with SPS_ERR_UNSUPPORTED, x and y left alone.
 */
#include "spmv_check.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../../core/cpu_simd.h"
#include "../../core/omp_csum.h"
#include "../../spmv/spmv_internal.h"

static int same(double a, double b)
{
  if (a != a || b != b) return a != a && b != b;
  return memcmp(&a, &b, sizeof a) == 0;
}

typedef struct args {
  const char *isa;
  int threads;
  int64_t fused, plans, bad_rows, bad_dots, wrong_choice;
} args;

static void check(sps_context *ctx, const sps_matrix *A, const char *name, void *arg)
{
  args *a = arg;
  int64_t m, n;
  sps_matrix_get_size(A, &m, &n, NULL);
  sps_spmv_plan *plan = NULL;
  if (sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_CSR_SCALAR) || sps_spmv_plan_setup(plan))
    sps_bail("%s: plan: %s", name, sps_context_last_error(ctx));
  a->plans++;
  const int fuses = sps_spmv_plan_fuses_dot(plan);
  const int want = plan->data != NULL && m == n && (a->threads == 1 || m > SPS_OMP_MIN);
  if (fuses != want) {
    a->wrong_choice++;
    sps_ok(0, "%s (%s, %d threads, %lld x %lld, %s): fuses the dot %d, expected %d", name, a->isa,
           a->threads, (long long)m, (long long)n, plan->data ? "sliced" : "CSR", fuses, want);
  }
  if (m != n) {
    double x0 = 1.0, y0 = 2.0;
    sps_csum s = {3.0, 4.0};
    sps_status st = sps_spmv_apply_dot(plan, 1.0, &x0, &y0, &s);
    if (st != SPS_ERR_UNSUPPORTED || y0 != 2.0 || s.hi != 3.0)
      sps_ok(0, "%s: a %lld x %lld matrix: apply_dot returned %s (expected SPS_ERR_UNSUPPORTED)",
             name, (long long)m, (long long)n, sps_status_name(st));
  }
  if (!fuses) {
    sps_spmv_plan_destroy(&plan);
    return;
  }
  a->fused++;
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x), *y1 = malloc((size_t)(m ? m : 1) * 8),
         *y2 = malloc((size_t)(m ? m : 1) * 8);
  if (!x || !y1 || !y2) sps_bail("out of memory");
  sps_rng r = {0xD07u + (uint64_t)m};
  for (int64_t j = 0; j < n; j++)
    x[j] = (sps_rng_uniform(&r) < 0.0 ? -1.0 : 1.0) * pow(10.0, 3.0 * sps_rng_uniform(&r));
  for (int c = 0; c < 2; c++) {
    const double alpha = c ? -1.0 : 1.0;
    for (int64_t i = 0; i < m; i++) y1[i] = y2[i] = NAN;
    double d1 = 0.0;
    sps_csum s = sps_csum_zero();
    if (sps_spmv_apply_raw(plan, alpha, x, 0.0, y1) || ctx->be->dot(ctx, m, x, y1, &d1) ||
        sps_spmv_apply_dot(plan, alpha, x, y2, &s))
      sps_bail("%s: %s", name, sps_context_last_error(ctx));
    int64_t bad = 0;
    for (int64_t i = 0; i < m; i++) bad += !same(y1[i], y2[i]);
    const double d2 = sps_csum_value(s);
    a->bad_rows += bad;
    a->bad_dots += !same(d1, d2);
    if (bad || !same(d1, d2))
      sps_ok(0, "%s (%s, %d threads, alpha %g): %lld of %lld rows differ from the product alone; "
             "dot %.17g against the backend's %.17g",
             name, a->isa, a->threads, alpha, (long long)bad, (long long)m, d2, d1);
  }
  free(x);
  free(y1);
  free(y2);
  sps_spmv_plan_destroy(&plan);
}

/* A random square matrix of m rows of 0..maxlen entries of mixed signs and magnitudes. */
static sps_matrix *random_square(sps_context *ctx, int64_t m, int maxlen, uint64_t seed)
{
  sps_rng r = {seed};
  int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)(m * maxlen + 1) * sizeof *ci);
  double *va = malloc((size_t)(m * maxlen + 1) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of memory");
  rp[0] = 0;
  for (int64_t i = 0; i < m; i++) {
    const int len = (int)((sps_rng_next(&r) >> 11) % (uint64_t)(maxlen + 1));
    const int64_t start = (int64_t)((sps_rng_next(&r) >> 11) % (uint64_t)(m - maxlen));
    for (int k = 0; k < len; k++) {
      ci[rp[i] + k] = (int32_t)(start + k);
      va[rp[i] + k] =
          (sps_rng_uniform(&r) < 0.0 ? -1.0 : 1.0) * pow(10.0, 6.0 * sps_rng_uniform(&r));
    }
    rp[i + 1] = rp[i] + len;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, m, m, rp, ci, va))
    sps_bail("create: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

int main(void)
{
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  int isas = 0;
  for (int isa = SPS_CPU_ISA_AVX2; isa < SPS_CPU_ISA_COUNT; isa++) {
    const char *name = sps_cpu_isa_name((sps_cpu_isa)isa);
    if (sps_test_cpu_isa_set((sps_cpu_isa)isa) != 0) {
      sps_skip("%s: not supported by this processor or build", name);
      continue;
    }
    isas++;
    for (int t = 1; t <= 3; t++) {
#ifdef _OPENMP
      omp_set_num_threads(t);
#else
      if (t > 1) break;
#endif
      args a = {name, t, 0, 0, 0, 0, 0};
      spmv_for_each_matrix(ctx, 1, 1, 0, SPS_SPMV_SMALL_NNZ, check, &a);
      static const struct {
        int64_t m;
        int maxlen;
      } rnd[] = {{8193, 12}, {9001, 40}, {20003, 3}, {40003, 9}};
      for (size_t k = 0; k < sizeof rnd / sizeof rnd[0]; k++) {
        char nm[96];
        snprintf(nm, sizeof nm, "random %lld rows of 0..%d", (long long)rnd[k].m, rnd[k].maxlen);
        sps_matrix *A = random_square(ctx, rnd[k].m, rnd[k].maxlen, 31 + k);
        check(ctx, A, nm, &a);
        sps_matrix_destroy(&A);
      }
      sps_ok(a.fused > 0 && a.bad_rows == 0 && a.bad_dots == 0 && a.wrong_choice == 0,
             "%s, %d thread%s: %lld of %lld plans fuse the dot, each as chosen; products and dots "
             "the bits of the two apart (%lld rows, %lld dots differ)",
             name, t, t > 1 ? "s" : "", (long long)a.fused, (long long)a.plans,
             (long long)a.bad_rows, (long long)a.bad_dots);
    }
  }
  if (!isas) sps_skip_all("no instruction set with a sliced copy (AVX2, AVX-512F) here");
  sps_context_destroy(&ctx);
  return sps_done();
}
