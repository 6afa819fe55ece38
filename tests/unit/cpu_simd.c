/* cpu_simd.c: every vector kernel table of the CPU backend that this processor runs (generic, AVX2, AVX-512F) gives bit for bit the scalar loops it replaces, and the backend gives the same bits under each.
 *
 * Against plain scalar loops written here in the order core/cpu_simd.h promises:
 *   - dot_cols: each column's compensated sum continued from a nonzero state (hi, lo) by
 *     sps_csum_add over i = 0, 1, ..., with and without x.x first; the sums of two calls on
 *     consecutive row ranges equal those of one call on their union; k = 1 .. 40 columns (past
 *     the 16 of one AVX-512 pass, and not multiples of the vector width), n = 0 .. 1031 rows
 *     (past and short of the 8 x 8 tiles);
 *   - gemv_n: y_i + alpha * (plain sum over j in order), and the compensated y.y in order i;
 *   - axpby (b = 0 does not read y: NaN there does not propagate), scale_into_two,
 *     bicgstab_direction.
 * Values of mixed signs and magnitudes 1e-8 .. 1e8, and cancelling columns (v and -v(1 + d)),
 * so that another order of a sum would show in its bits; a check that the sums of two orders
 * do differ on these data makes sure the comparison could fail. Inputs with NaN, Inf and -0.0
 * are compared with NaN equal to NaN.
 * Then, for each instruction set, the backend's gemv_t / gemv_n / axpby through the ops table
 * (the OpenMP split included, on the threads OMP_NUM_THREADS gives) against the generic table.
 */
#include "../../core/cpu_simd.h"
#include "../../core/internal.h"
#include "../testlib.h"

#define NMAX 1031
#define KMAX 40

/* a and b equal bit for bit, a NaN equal to any NaN. */
static int same(double a, double b)
{
  if (a != a || b != b) return a != a && b != b;
  return memcmp(&a, &b, sizeof a) == 0;
}

static int64_t count_diff(int64_t n, const double *a, const double *b)
{
  int64_t d = 0;
  for (int64_t i = 0; i < n; i++)
    d += !same(a[i], b[i]);
  return d;
}

/* Mixed signs and magnitudes 1e-8 .. 1e8. */
static double scaled(sps_rng *r)
{
  return (sps_rng_uniform(r) < 0.0 ? -1.0 : 1.0) * pow(10.0, 8.0 * sps_rng_uniform(r));
}

static double V[NMAX * (KMAX + 1)], x[NMAX], y0v[NMAX], h[KMAX];

/* V's columns: random, and every third one the negative of the one before times (1 + d), so
 * that its products cancel those of its neighbour against x. */
static void fill(uint64_t seed)
{
  sps_rng r = {seed};
  for (int64_t i = 0; i < NMAX; i++) {
    x[i] = scaled(&r);
    y0v[i] = scaled(&r);
  }
  for (int c = 0; c <= KMAX; c++)
    for (int64_t i = 0; i < NMAX; i++)
      V[i + (int64_t)c * NMAX] =
          c % 3 == 2 ? -V[i + (int64_t)(c - 1) * NMAX] * (1.0 + 1e-6 * sps_rng_uniform(&r))
                     : scaled(&r);
  for (int c = 0; c < KMAX; c++)
    h[c] = scaled(&r);
}

/* The scalar reference of dot_cols. */
static void ref_dot_cols(int64_t n, int k, int with_xx, double *hi, double *lo)
{
  for (int j = 0; j < k + with_xx; j++) {
    const double *col = with_xx && j == 0 ? x : V + (int64_t)(j - with_xx) * NMAX;
    sps_csum s;
    s.hi = hi[j];
    s.lo = lo[j];
    for (int64_t i = 0; i < n; i++)
      sps_csum_add(&s, col[i] * x[i]);
    hi[j] = s.hi;
    lo[j] = s.lo;
  }
}

static void check_dot_cols(const sps_cpu_kernels *K)
{
  static const int64_t ns[] = {0, 1, 7, 8, 9, 15, 64, 100, 517, NMAX};
  static const int ks[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, KMAX};
  int64_t bad = 0, cases = 0;
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
      for (int xx = 0; xx < 2; xx++) {
        const int64_t n = ns[a];
        const int k = ks[b], total = k + xx;
        double hi[KMAX + 17], lo[KMAX + 17], rhi[KMAX + 17], rlo[KMAX + 17];
        sps_rng r = {(uint64_t)(n * 131 + k * 7 + xx)};
        for (int j = 0; j < KMAX + 17; j++) {
          /* a running state, as a sum continued from an earlier range */
          rhi[j] = hi[j] = scaled(&r);
          rlo[j] = lo[j] = 1e-17 * rhi[j] * sps_rng_uniform(&r);
        }
        const int64_t cut = n / 3;
        K->dot_cols(cut, k, V, NMAX, x, xx, hi, lo);
        K->dot_cols(n - cut, k, V + cut, NMAX, x + cut, xx, hi, lo);
        ref_dot_cols(n, k, xx, rhi, rlo);
        bad += count_diff(total, hi, rhi) + count_diff(total, lo, rlo);
        /* entries past the columns are left alone */
        for (int j = total; j < KMAX + 17; j++)
          bad += !same(hi[j], rhi[j]);
        cases++;
      }
  sps_ok(bad == 0,
         "%s dot_cols: %lld cases (n up to %d, k up to %d, with and without x.x, "
         "two row ranges): %lld entries differ from the scalar TwoSums",
         K->name, (long long)cases, NMAX, KMAX, (long long)bad);
}

static void check_gemv_n(const sps_cpu_kernels *K)
{
  static const int64_t ns[] = {0, 1, 3, 8, 31, 32, 33, 100, NMAX};
  static const int ks[] = {1, 2, 5, 16, 31, KMAX};
  static double y[NMAX], yr[NMAX];
  int64_t bad = 0, badyy = 0, cases = 0;
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
      for (int with_yy = 0; with_yy < 2; with_yy++) {
        const int64_t n = ns[a];
        const int k = ks[b];
        const double alpha = with_yy ? -1.0 : 0.625;
        memcpy(y, y0v, sizeof y);
        memcpy(yr, y0v, sizeof yr);
        sps_csum yy = {1.5, 1e-17}, ryy = yy;
        K->gemv_n(n, k, alpha, V, NMAX, h, y, with_yy ? &yy : NULL);
        for (int64_t i = 0; i < n; i++) {
          double s = 0.0;
          for (int j = 0; j < k; j++)
            s += V[i + (int64_t)j * NMAX] * h[j];
          yr[i] += alpha * s;
          if (with_yy) sps_csum_add(&ryy, yr[i] * yr[i]);
        }
        bad += count_diff(NMAX, y, yr);
        badyy += !same(yy.hi, ryy.hi) || !same(yy.lo, ryy.lo);
        cases++;
      }
  sps_ok(bad == 0 && badyy == 0,
         "%s gemv_n: %lld cases: %lld entries of y and %lld sums y.y differ from the scalar loop",
         K->name, (long long)cases, (long long)bad, (long long)badyy);
}

static void check_elementwise(const sps_cpu_kernels *K)
{
  static double y[NMAX], yr[NMAX], a2[NMAX], b2[NMAX], xs[NMAX];
  int64_t bad = 0;
  memcpy(xs, x, sizeof xs);
  /* special values among the inputs */
  xs[3] = NAN, xs[5] = INFINITY, xs[6] = -INFINITY, xs[9] = -0.0, xs[10] = 0.0;
  static const int64_t ns[] = {0, 1, 5, 8, 13, 64, NMAX};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    const int64_t n = ns[a];
    for (int withb = 0; withb < 2; withb++) {
      const double bb = withb ? -0.75 : 0.0;
      memcpy(y, y0v, sizeof y);
      y[0] = NAN; /* must not reach the result when b = 0 */
      memcpy(yr, y, sizeof yr);
      K->axpby(n, 2.5, xs, bb, y);
      for (int64_t i = 0; i < n; i++)
        yr[i] = bb == 0.0 ? 2.5 * xs[i] : 2.5 * xs[i] + bb * yr[i];
      bad += count_diff(NMAX, y, yr);
    }
    memset(a2, 0, sizeof a2);
    memset(b2, 0, sizeof b2);
    K->scale_into_two(n, 0.1, xs, a2, b2);
    for (int64_t i = 0; i < n; i++)
      yr[i] = xs[i] * 0.1;
    bad += count_diff(n, a2, yr) + count_diff(n, b2, yr);
    memcpy(y, y0v, sizeof y);
    memcpy(yr, y0v, sizeof yr);
    K->bicgstab_direction(n, 0.3, -1.7, xs, V, y);
    for (int64_t i = 0; i < n; i++)
      yr[i] = xs[i] + 0.3 * (yr[i] - -1.7 * V[i]);
    bad += count_diff(NMAX, y, yr);
  }
  sps_ok(bad == 0,
         "%s axpby, scale_into_two, bicgstab_direction (NaN, Inf, -0 among the "
         "inputs): %lld entries differ from the scalar loops",
         K->name, (long long)bad);
}

/* The backend's operations through the ops table, under the instruction set in use. */
static void backend_results(sps_context *ctx, double *out, int64_t n, int k)
{
  const sps_backend *be = ctx->be;
  double hh[KMAX];
  static double w[NMAX];
  memcpy(w, y0v, sizeof w);
  if (be->gemv_t(ctx, n, k, V, NMAX, x, hh) || be->gemv_n(ctx, n, k, -1.0, V, NMAX, hh, w) ||
      be->axpby(ctx, n, 0.5, x, -2.0, w))
    sps_bail("backend op: %s", sps_context_last_error(ctx));
  memcpy(out, hh, (size_t)k * sizeof(double));
  memcpy(out + k, w, (size_t)n * sizeof(double));
}

int main(void)
{
  fill(0xC0FFEEu);
  /* the data make the order of a sum visible: one column's plain sum in two orders differs */
  {
    double f = 0.0, r = 0.0;
    for (int64_t i = 0; i < NMAX; i++)
      f += V[i + 2 * NMAX] * x[i] + V[i + NMAX] * x[i];
    for (int64_t i = NMAX - 1; i >= 0; i--)
      r += V[i + 2 * NMAX] * x[i] + V[i + NMAX] * x[i];
    sps_ok(!same(f, r), "the test data make a sum's order visible (forward %.17g, backward %.17g)",
           f, r);
  }
  const sps_cpu_isa start = sps_cpu_isa_current();
  sps_diag("instruction set in use: %s", sps_cpu_isa_name(start));
  sps_context *ctx = NULL;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  static double ref[KMAX + NMAX], got[KMAX + NMAX];
  for (int isa = 0; isa < SPS_CPU_ISA_COUNT; isa++) {
    if (!sps_cpu_isa_supported((sps_cpu_isa)isa)) {
      sps_skip("%s: not supported by this processor or build", sps_cpu_isa_name((sps_cpu_isa)isa));
      continue;
    }
    const sps_cpu_kernels *K = sps_cpu_kernels_for((sps_cpu_isa)isa);
    sps_ok(strcmp(K->name, sps_cpu_isa_name((sps_cpu_isa)isa)) == 0, "table %s is named %s",
           sps_cpu_isa_name((sps_cpu_isa)isa), K->name);
    check_dot_cols(K);
    check_gemv_n(K);
    check_elementwise(K);
    if (sps_test_cpu_isa_set((sps_cpu_isa)isa) != 0) sps_bail("cannot select %s", K->name);
    char dev[128];
    sps_context_get_device_name(ctx, dev, sizeof dev);
    sps_ok(strstr(dev, K->name) != NULL, "the device name says the instruction set: %s", dev);
    int64_t bad = 0;
    for (int k = 1; k <= KMAX; k += 13) {
      backend_results(ctx, got, NMAX, k);
      sps_test_cpu_isa_set(SPS_CPU_ISA_GENERIC);
      backend_results(ctx, ref, NMAX, k);
      sps_test_cpu_isa_set((sps_cpu_isa)isa);
      bad += count_diff(k + NMAX, got, ref);
    }
    sps_ok(bad == 0,
           "%s: the backend's gemv_t, gemv_n and axpby give the generic table's bits "
           "(%lld entries differ)",
           K->name, (long long)bad);
  }
  sps_ok(sps_test_cpu_isa_set((sps_cpu_isa)SPS_CPU_ISA_COUNT) != 0,
         "an instruction set that does not exist is refused");
  sps_test_cpu_isa_set(start);
  sps_context_destroy(&ctx);
  return sps_done();
}
