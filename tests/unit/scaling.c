/* scaling.c: norms and solves whatever the scale of the data: ||v|| for entries from subnormal to 1e300 (exact values, NaN and Inf), b scaled by 2^k solved as exactly 2^k times the unscaled solve, b of 1e-300 to 1e300, subnormal b, A scaled by 1e150 and 1e-150; and, with a GPU, the same bits there as on the CPU.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each norm test, each configuration (and scale of b
 * or A) and each CPU-against-GPU comparison is a case. */
#include <float.h>

#include "model_problems.h"

#define N_MAX 4096

/* ||c 1_16|| = 4c exactly: the norm of a constant vector of any finite size. */
static void test_norm_constants(sps_context *ctx)
{
  static const double cs[] = {1.0,    1e-200, 1e200,       1e-300, 1e300,
                              1e-310, 0x1p-1074, DBL_MAX / 4, DBL_MIN};
  sps_vector *v;
  if (sps_vector_create(ctx, &v, 16)) sps_bail("vector");
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
    double nrm = -1.0;
    sps_vector_fill(v, cs[k]);
    sps_status st = sps_vector_norm2(v, &nrm);
    sps_ok(st == SPS_SUCCESS && nrm == 4.0 * cs[k], "||%g * ones(16)|| = %.17g, expected 4c = %.17g",
           cs[k], nrm, 4.0 * cs[k]);
  }
  sps_vector_destroy(&v);
}

/* ||(3c, 4c)|| = 5c to the last bits, and NaN and Inf propagate. */
static void test_norm_pythagoras(sps_context *ctx)
{
  sps_vector *v;
  if (sps_vector_create(ctx, &v, 2)) sps_bail("vector");
  static const double cs[] = {1e-300, 1e-200, 1e200, 1e300};
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
    const double h[2] = {3.0 * cs[k], 4.0 * cs[k]};
    double nrm;
    sps_vector_upload(v, h, 2);
    sps_vector_norm2(v, &nrm);
    const double want = 5.0 * cs[k];
    sps_ok(fabs(nrm - want) <= 2.0 * DBL_EPSILON * want, "||(3c, 4c)|| = 5c for c = %g (got %.17g)",
           cs[k], nrm);
  }
  const double hm[2] = {-DBL_MAX, 0x1p-1074};
  double m;
  sps_vector_upload(v, hm, 2);
  sps_vector_norm2(v, &m);
  sps_ok(m == DBL_MAX, "||(-DBL_MAX, 2^-1074)|| = DBL_MAX exactly (%.17g)", m);
  const double hn[2] = {NAN, 1.0}, hi[2] = {INFINITY, 1e-300}, hb[2] = {INFINITY, NAN};
  double a, b, c;
  sps_vector_upload(v, hn, 2);
  sps_vector_norm2(v, &a);
  sps_vector_upload(v, hi, 2);
  sps_vector_norm2(v, &b);
  sps_vector_upload(v, hb, 2);
  sps_vector_norm2(v, &c);
  sps_ok(isnan(a) && isinf(b) && b > 0 && isnan(c), "||(NaN, 1)|| = NaN, ||(Inf, 1e-300)|| = Inf, "
                                                     "||(Inf, NaN)|| = NaN (%g %g %g)",
         a, b, c);
  sps_vector_destroy(&v);
}

/* ||2^e x|| = 2^e ||x|| to the bit, inside and outside the range summed without scaling. */
static void test_norm_power_of_two(sps_context *ctx)
{
  enum { n = 1000 };
  static double x[n], y[n];
  sps_rng rng = {7};
  for (int i = 0; i < n; i++) x[i] = sps_rng_uniform(&rng);
  sps_vector *v;
  if (sps_vector_create(ctx, &v, n)) sps_bail("vector");
  double base;
  sps_vector_upload(v, x, n);
  sps_vector_norm2(v, &base);
  static const int es[] = {-1000, -700, -400, -100, 100, 400, 600, 900};
  for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) {
    for (int i = 0; i < n; i++) y[i] = ldexp(x[i], es[k]);
    double nrm;
    sps_vector_upload(v, y, n);
    sps_vector_norm2(v, &nrm);
    sps_ok(nrm == ldexp(base, es[k]), "||2^%d x|| = 2^%d ||x|| bit for bit (%.17g vs %.17g)",
           es[k], es[k], nrm, ldexp(base, es[k]));
  }
  sps_vector_destroy(&v);
}

/* One configuration of the solves below. */
typedef struct config {
  const char *solver;
  sps_precond_type precond;
  int spd;  /* on the Laplacian (else the convection-diffusion operator) */
  int mgs;  /* GMRES with modified Gram-Schmidt: the host-driven loop */
} config;

static const config configs[] = {
    {"cg", SPS_PRECOND_NONE, 1, 0},       {"cg", SPS_PRECOND_JACOBI, 1, 0},
    {"cg", SPS_PRECOND_IC0, 1, 0},        {"gmres", SPS_PRECOND_NONE, 0, 0},
    {"gmres", SPS_PRECOND_ILU0, 0, 0},    {"gmres", SPS_PRECOND_NONE, 0, 1},
    {"bicgstab", SPS_PRECOND_NONE, 0, 0}, {"bicgstab", SPS_PRECOND_ILU0, 0, 0},
    {"auto", SPS_PRECOND_AUTO, 0, 0},
};

static const char *config_name(const config *c, char *buf, size_t len)
{
  snprintf(buf, len, "%s+%s%s", c->solver, sps_precond_type_name(c->precond), c->mgs ? " (MGS)" : "");
  return buf;
}

/* The outcome of one solve. */
typedef struct outcome {
  sps_status st;
  sps_reason reason;
  int its;
  double res_abs, res_rel;
  double x[N_MAX];
  double hist[N_MAX];
  int nhist;
} outcome;

/* The divergence tolerance of the solves (the default but in test_cpu_vs_gpu). */
static double solve_dtol = 1e5;

static void solve(sps_context *ctx, const config *c, const sps_matrix *A, const double *b,
                  outcome *o)
{
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  sps_solver *s;
  sps_vector *vb, *vx;
  if (sps_solver_create_by_name(ctx, &s, c->solver) || sps_vector_create(ctx, &vb, n) ||
      sps_vector_create(ctx, &vx, n))
    sps_bail("create: %s", sps_context_last_error(ctx));
  sps_solver_set_precond(s, c->precond);
  sps_solver_set_history(s, 1);
  sps_solver_set_max_iterations(s, 2000);
  sps_solver_set_dtol(s, solve_dtol);
  if (c->mgs) sps_solver_set_orthogonalization(s, SPS_ORTHOG_MGS);
  sps_vector_upload(vb, b, n);
  o->st = sps_solver_setup(s, A);
  if (!o->st) o->st = sps_solver_solve(s, vb, vx);
  sps_solver_get_reason(s, &o->reason);
  sps_solver_get_iterations(s, &o->its);
  sps_solver_get_residual(s, &o->res_abs, &o->res_rel);
  sps_vector_download(vx, o->x, n);
  const double *h;
  sps_solver_get_history(s, &h, &o->nhist);
  if (o->nhist > N_MAX) o->nhist = N_MAX;
  memcpy(o->hist, h, (size_t)o->nhist * sizeof *h);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
}

/*
 * b = 2^k b0: the solve runs on a scaled system whose iterates are those of b0's solve times
 * a power of two, so reason, iterations, every history entry and every entry of x equal
 * b0's times 2^k to the bit (without the scaling, 2^-664 b0 has ||b|| = 0 and 2^997 b0 a
 * NaN residual), and the true relative residual equals b0's to rounding.
 */
static void test_power_of_two_rhs(sps_context *ctx, sps_matrix *L, sps_matrix *C)
{
  static outcome ref, got;
  static double b0[N_MAX], b[N_MAX];
  int64_t n;
  sps_matrix_get_size(L, &n, NULL, NULL);
  sps_rng rng = {11};
  for (int64_t i = 0; i < n; i++) b0[i] = sps_rng_uniform(&rng);
  static const int ks[] = {-664, 664, -997, 997, -1000};
  char name[64];
  for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
    if (!sps_case()) continue;
    const config *c = &configs[ci];
    const sps_matrix *A = c->spd ? L : C;
    solve(ctx, c, A, b0, &ref);
    if (ref.st || ref.reason <= 0)
      sps_bail("%s on b0: status %d, %s", config_name(c, name, sizeof name), ref.st,
               sps_reason_name(ref.reason));
    for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++) {
      const int k = ks[kk];
      for (int64_t i = 0; i < n; i++) b[i] = ldexp(b0[i], k);
      solve(ctx, c, A, b, &got);
      int same_x = 1, same_h = got.nhist == ref.nhist;
      for (int64_t i = 0; i < n; i++) same_x = same_x && got.x[i] == ldexp(ref.x[i], k);
      for (int i = 0; same_h && i < ref.nhist; i++) same_h = got.hist[i] == ldexp(ref.hist[i], k);
      /* The final residual is recomputed on the user's b and x: near 2^-1000 its entries are
       * subnormal, so it agrees to rounding there, not to the bit. */
      sps_ok(got.st == SPS_SUCCESS && got.reason == ref.reason && got.its == ref.its && same_x &&
                 same_h && fabs(got.res_rel - ref.res_rel) <= 1e-6 * ref.res_rel,
             "%s, b = 2^%d b0: %s in %d iterations (b0: %s in %d), x %s, history %s, relres "
             "%.3e (b0 %.3e)",
             config_name(c, name, sizeof name), k, sps_reason_name(got.reason), got.its,
             sps_reason_name(ref.reason), ref.its, same_x ? "= 2^k x0" : "differs",
             same_h ? "= 2^k h0" : "differs", got.res_rel, ref.res_rel);
    }
  }
}

/* b = c * ones for c far from 1: converged, with the true residual checked on the host. */
static void test_extreme_rhs(sps_context *ctx, sps_matrix *L, sps_matrix *C)
{
  static outcome got;
  static double b[N_MAX];
  int64_t n;
  sps_matrix_get_size(L, &n, NULL, NULL);
  static const double cs[] = {1e-200, 1e200, 1e-300, 1e300, 1e-310};
  char name[64];
  for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
    const config *c = &configs[ci];
    const sps_matrix *A = c->spd ? L : C;
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
      if (!sps_case()) continue;
      for (int64_t i = 0; i < n; i++) b[i] = cs[k];
      solve(ctx, c, A, b, &got);
      const double rel = sps_test_relres(A, b, got.x);
      sps_ok(got.st == SPS_SUCCESS && got.reason == SPS_CONVERGED_RTOL && rel <= 1.0001e-8 &&
                 fabs(rel - got.res_rel) <= 1e-3 * rel,
             "%s, b = %g ones: %s in %d iterations, relres %.3e (host %.3e)",
             config_name(c, name, sizeof name), cs[k], sps_reason_name(got.reason), got.its,
             got.res_rel, rel);
    }
  }
}

/*
 * Subnormal b: not b = 0. b_i = (1 + i%3) 2^-1074 has a solution whose entries lie among
 * the subnormals, which no double x solves to rtol 1e-8: the reason must say so
 * (DIVERGED_RANGE) unless the host confirms convergence, and must never be ZERO_RHS.
 */
static void test_subnormal_rhs(sps_context *ctx, sps_matrix *L, sps_matrix *C)
{
  static outcome got;
  static double b[N_MAX];
  int64_t n;
  sps_matrix_get_size(L, &n, NULL, NULL);
  char name[64];
  for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
    const config *c = &configs[ci];
    const sps_matrix *A = c->spd ? L : C;
    if (!sps_case()) continue;
    for (int64_t i = 0; i < n; i++) b[i] = (double)(1 + i % 3) * 0x1p-1074;
    solve(ctx, c, A, b, &got);
    const double rel = sps_test_relres(A, b, got.x);
    const int honest = (got.reason > 0 && got.reason != SPS_CONVERGED_ZERO_RHS && rel <= 1e-8) ||
                       (got.reason == SPS_DIVERGED_RANGE && !(rel <= 1e-8));
    int nonzero = 0;
    for (int64_t i = 0; i < n; i++) nonzero += got.x[i] != 0.0;
    sps_ok(got.st == SPS_SUCCESS && honest && nonzero > 0 && fabs(rel - got.res_rel) <= 1e-9 + 1e-6 * rel,
           "%s, b of subnormals: %s, relres %.3e (host %.3e), %d nonzero entries of x",
           config_name(c, name, sizeof name), sps_reason_name(got.reason), got.res_rel, rel,
           nonzero);
  }
}

/*
 * A scaled by 1e150 (b = A x*, about 1e151, and b = ones, x about 1e-150) and by 1e-150
 * (b = ones, x about 1e150): converged, checked on the host, x close to x*.
 */
static void test_scaled_matrix(sps_context *ctx)
{
  static outcome got;
  static double b[N_MAX], xs[N_MAX];
  char name[64];
  static const double scales[] = {1e150, 1e-150};
  for (size_t si = 0; si < 2; si++)
    for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
      if (!sps_case()) continue;
      const config *c = &configs[ci];
      sps_matrix *A = sps_test_conv_diff_or_bail(ctx, 12, c->spd ? 0.0 : 0.5, 4.0, 1.0);
      if (sps_matrix_scale(A, scales[si])) sps_bail("scale");
      int64_t n;
      sps_matrix_get_size(A, &n, NULL, NULL);
      for (int rhs = 0; rhs < 2; rhs++) {
        if (scales[si] < 1.0 && rhs == 0) continue;
        sps_rng rng = {3};
        for (int64_t i = 0; i < n; i++) xs[i] = sps_rng_uniform(&rng);
        if (rhs == 0)
          sps_test_host_mv(A, xs, b);
        else
          for (int64_t i = 0; i < n; i++) b[i] = 1.0;
        solve(ctx, c, A, b, &got);
        const double rel = sps_test_relres(A, b, got.x);
        double err = 0.0;
        if (rhs == 0) {
          static double d[N_MAX];
          for (int64_t i = 0; i < n; i++) d[i] = got.x[i] - xs[i];
          err = sps_test_norm2_scaled(d, n) / sps_test_norm2_scaled(xs, n);
        }
        char errtext[48] = "";
        if (rhs == 0) snprintf(errtext, sizeof errtext, ", error ||x - x*||/||x*|| %.1e", err);
        sps_ok(got.st == SPS_SUCCESS && got.reason == SPS_CONVERGED_RTOL && rel <= 1.0001e-8 &&
                   err <= 1e-6,
               "%s, A scaled by %g, b = %s: %s in %d iterations, relres %.3e (host %.3e)%s",
               config_name(c, name, sizeof name), scales[si], rhs == 0 ? "A x*" : "ones",
               sps_reason_name(got.reason), got.its, got.res_rel, rel, errtext);
      }
      sps_matrix_destroy(&A);
    }
}

/* The same bits on a GPU as on the CPU: norms of extreme vectors, and scaled or diverging
 * solves (the dtol test inside the device-driven batches), reason, iterations and history. */
static void test_cpu_vs_gpu(void)
{
  int count = 0;
  sps_cuda_device_query(&count, NULL, 0);
  sps_context *gpu = NULL, *cpu = NULL;
  if (!sps_have_cuda() || count <= 0 || sps_context_create(&gpu, SPS_DEVICE_CUDA, 0)) {
    if (sps_case()) sps_ok(1, "CPU against GPU # SKIP no usable CUDA device");
    return;
  }
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0)) sps_bail("CPU context");
  enum { n = 100000 };
  static double x[n], y[n];
  sps_rng rng = {17};
  for (int i = 0; i < n; i++) x[i] = sps_rng_uniform(&rng);
  sps_vector *vc, *vg;
  if (sps_vector_create(cpu, &vc, n) || sps_vector_create(gpu, &vg, n)) sps_bail("vectors");
  static const int es[] = {0, -1000, -700, 300, 900};
  for (int k = 0; k < 6; k++) {
    if (!sps_case()) continue;
    for (int i = 0; i < n; i++) y[i] = k < 5 ? ldexp(x[i], es[k]) : x[i] * 0x1p-1060;
    double a, b;
    sps_vector_upload(vc, y, n);
    sps_vector_upload(vg, y, n);
    sps_vector_norm2(vc, &a);
    sps_vector_norm2(vg, &b);
    sps_ok(!memcmp(&a, &b, sizeof a), "||x|| on the GPU = on the CPU, bit for bit, for %s (%.17g)",
           k < 5 ? "x scaled by a power of two" : "subnormal x", a);
  }
  sps_vector_destroy(&vc);
  sps_vector_destroy(&vg);

  static outcome oc, og;
  static double b[N_MAX];
  struct {
    config c;
    double conv, d, dtol;
    int k;
  } cases[] = {
      {{"cg", SPS_PRECOND_IC0, 1, 0}, 0.0, 4.0, 1e5, -997},
      {{"gmres", SPS_PRECOND_ILU0, 0, 0}, 0.5, 4.0, 1e5, 997},
      {{"bicgstab", SPS_PRECOND_ILU0, 0, 0}, 0.5, 4.0, 1e5, -664},
      {{"cg", SPS_PRECOND_NONE, 0, 0}, 0.5, 4.0, 10.0, 0},
      {{"bicgstab", SPS_PRECOND_NONE, 0, 0}, 2.0, 0.5, 10.0, 0},
  };
  char name[64];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (!sps_case()) continue;
    sps_matrix *Ac = sps_test_conv_diff_or_bail(cpu, 10, cases[k].conv, cases[k].d, 1.0);
    sps_matrix *Ag = sps_test_conv_diff_or_bail(gpu, 10, cases[k].conv, cases[k].d, 1.0);
    sps_rng r2 = {23};
    for (int i = 0; i < 100; i++) b[i] = ldexp(cases[k].k ? sps_rng_uniform(&r2) : 1.0, cases[k].k);
    solve_dtol = cases[k].dtol;
    solve(cpu, &cases[k].c, Ac, b, &oc);
    solve(gpu, &cases[k].c, Ag, b, &og);
    solve_dtol = 1e5;
    int same = oc.nhist == og.nhist && !memcmp(oc.hist, og.hist, (size_t)oc.nhist * sizeof *oc.hist) &&
               !memcmp(oc.x, og.x, 100 * sizeof *oc.x);
    sps_ok(oc.st == SPS_SUCCESS && og.st == SPS_SUCCESS && oc.reason == og.reason &&
               oc.its == og.its && same,
           "%s, b = %s%d, dtol %g: CPU %s in %d, GPU %s in %d, history and x %s",
           config_name(&cases[k].c, name, sizeof name), cases[k].k ? "b0 times 2^" : "ones, k = ",
           cases[k].k, cases[k].dtol,
           sps_reason_name(oc.reason), oc.its, sps_reason_name(og.reason), og.its,
           same ? "the same bits" : "differ");
    sps_matrix_destroy(&Ac);
    sps_matrix_destroy(&Ag);
  }
  if (sps_context_destroy(&gpu) || sps_context_destroy(&cpu)) sps_bail("objects left alive");
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  if (sps_case()) test_norm_constants(ctx);
  if (sps_case()) test_norm_pythagoras(ctx);
  if (sps_case()) test_norm_power_of_two(ctx);
  sps_matrix *L = sps_test_conv_diff_or_bail(ctx, 12, 0.0, 4.0, 1.0);
  sps_matrix *C = sps_test_conv_diff_or_bail(ctx, 12, 0.5, 4.0, 1.0);
  test_power_of_two_rhs(ctx, L, C);
  test_extreme_rhs(ctx, L, C);
  test_subnormal_rhs(ctx, L, C);
  test_scaled_matrix(ctx);
  test_cpu_vs_gpu();
  sps_matrix_destroy(&L);
  sps_matrix_destroy(&C);
  if (sps_context_destroy(&ctx) != SPS_SUCCESS) sps_bail("context destroy: objects left alive");
  return sps_done();
}
