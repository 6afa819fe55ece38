/* cpu_vs_gpu.c: the same solves on the CPU and the CUDA backend, on every square shared matrix, must agree in reason, iterations, true residual and x.
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each method on each matrix is a case (the matrix is
 * read only by a shard with one of its cases). */
#include "../testlib.h"

/*
 * Each case solves A x = b, b = A x* with x* uniform in [-1, 1) from a fixed seed (built once
 * on the host and uploaded to both contexts), x_0 = 0, rtol 1e-8, at most 20,000 iterations,
 * no preconditioner, GMRES restart 30: CG on the symmetric matrices, GMRES and BiCGSTAB on the
 * others; and with the defaults (the automatic method and preconditioner, which include the
 * GPU's triangular solves and factorisations). Both backends sum every reduction with
 * compensated sums of rounded products and apply the same updates in the same order
 * (core/compensated_sum.h, doc/design.md), so the two runs are meant to agree to the bit; a
 * compensated sum may still round differently when its value lies within about n^2 u^2 of a
 * rounding boundary, after which the runs drift apart. The checks:
 *   - both: the true residual each backend reports (sps_solver_get_residual) equals
 *     ||b - A x|| recomputed here on the host from its downloaded x, within that host sum's
 *     rounding bound (sps_test_residual_norm), so neither reports a residual its x does not
 *     have;
 *   - the same reason, the same automatic choice, iterations within max(3, 2% of the CPU's);
 *   - when the residual histories are identical (the design's promise): x and the reported
 *     residual identical to the bit;
 *   - when they differ (the rounding-boundary case; the diagnostics say where): a converged
 *     run's host-recomputed relative residual must be <= rtol (to its rounding bound), and
 *     ||x_cpu - x_gpu|| / ||x_cpu|| is reported.
 * Without a GPU (or SPS_MATRICES) the test skips.
 */
typedef struct pair_case {
  const char *file;
  int symmetric; /* CG; otherwise GMRES and BiCGSTAB */
  int negate;    /* solve with -A (laplacian7pt_100 is stored negative definite) */
} pair_case;

static const pair_case cases[] = {
    {"1138_bus.mtx.gz", 1, 0},      {"bcsstk13.mtx.gz", 1, 0},  {"bcsstk14.mtx.gz", 1, 0},
    {"G3_circuit.mtx.gz", 1, 0},    {"laplacian7pt_100.mtx.gz", 1, 1},
    {"nos3.mtx.gz", 1, 0},          {"add20.mtx.gz", 0, 0},     {"add32.mtx.gz", 0, 0},
    {"adder_dcop_05.mtx.gz", 0, 0}, {"ani5_crop.mtx.gz", 0, 0}, {"olm1000.mtx.gz", 0, 0},
    {"orsirr_1.mtx.gz", 0, 0},      {"orsreg_1.mtx.gz", 0, 0},  {"rajat12.mtx.gz", 0, 0},
    {"rdb3200l.mtx.gz", 0, 0},      {"sherman3.mtx.gz", 0, 0},  {"sherman5.mtx.gz", 0, 0},
    {"watt_2.mtx.gz", 0, 0},
};

#define RTOL 1e-8

typedef struct run_result {
  sps_reason reason;
  sps_solver_type method; /* what finished the solve (the automatic choice's) */
  sps_precond_type pc;
  int its;
  double *hist; /* its + 1 norms, owned */
  int nhist;
  double *x;    /* the solution, downloaded (owned) */
  double rabs;  /* the true ||b - A x|| the solver reports */
} run_result;

/* Read the matrix in ctx (negated when asked). */
static sps_matrix *load(sps_context *ctx, const char *path, int negate)
{
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS)
    sps_bail("%s: %s", path, sps_context_last_error(ctx));
  if (negate && sps_matrix_scale(A, -1.0) != SPS_SUCCESS) sps_bail("%s: scale failed", path);
  return A;
}

/* type SPS_SOLVER_AUTO: the defaults (automatic method and preconditioner); otherwise the
 * method without a preconditioner. */
static run_result solve(sps_context *ctx, const sps_matrix *A, sps_solver_type type,
                        const double *b, int64_t n)
{
  run_result out = {SPS_REASON_NONE, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, -1, NULL, 0, NULL, -1.0};
  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, type) ||
      sps_solver_set_tolerances(s, RTOL, 0.0) || sps_solver_set_max_iterations(s, 20000) ||
      sps_solver_set_restart(s, 30) || sps_solver_set_history(s, 1) ||
      (type != SPS_SOLVER_AUTO && sps_solver_set_precond(s, SPS_PRECOND_NONE)) ||
      sps_solver_setup(s, A) || sps_solver_solve(s, vb, vx))
    sps_bail("%s: %s", sps_solver_type_name(type), sps_context_last_error(ctx));
  const double *h = NULL;
  sps_solver_get_reason(s, &out.reason);
  sps_solver_get_iterations(s, &out.its);
  sps_solver_get_method(s, &out.method, &out.pc);
  sps_solver_get_history(s, &h, &out.nhist);
  sps_solver_get_residual(s, &out.rabs, NULL);
  out.hist = malloc((size_t)(out.nhist > 0 ? out.nhist : 1) * sizeof(double));
  out.x = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!out.hist || !out.x) sps_bail("out of host memory");
  for (int k = 0; k < out.nhist; k++)
    out.hist[k] = h[k];
  if (sps_vector_download(vx, out.x, n) != SPS_SUCCESS)
    sps_bail("download: %s", sps_context_last_error(ctx));
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  return out;
}

/* The reported residual against the host's from the downloaded x; returns the host's and its
 * rounding bound in *bound. */
static double check_residual(const char *file, const char *name, const char *where,
                             const sps_matrix *A, const double *b, const run_result *r,
                             double *bound_out)
{
  double bound = 0.0;
  const double host = sps_test_residual_norm(A, b, r->x, &bound);
  *bound_out = bound;
  sps_ok(fabs(r->rabs - host) <= bound,
         "%s %s: %s reports ||b - Ax|| = %.6g, the host recomputes %.6g from its x (within %.2g)",
         file, name, where, r->rabs, host, bound);
  return host;
}

static void compare(const char *file, sps_solver_type type, const sps_matrix *A, const double *b,
                    int64_t n, const run_result *c, const run_result *g)
{
  const char *name = sps_solver_type_name(type);
  int first = -1, common = c->nhist < g->nhist ? c->nhist : g->nhist;
  for (int k = 0; k < common && first < 0; k++)
    if (c->hist[k] != g->hist[k]) first = k;
  if (first < 0 && c->nhist != g->nhist) first = common;
  if (first < 0)
    sps_diag("%s %s: %s, %d iterations on both; residual histories identical", file, name,
             sps_reason_name(c->reason), c->its);
  else
    sps_diag("%s %s: CPU %s %d, GPU %s %d iterations; histories first differ at %d (%.17g vs "
             "%.17g)",
             file, name, sps_reason_name(c->reason), c->its, sps_reason_name(g->reason), g->its,
             first, first < c->nhist ? c->hist[first] : NAN,
             first < g->nhist ? g->hist[first] : NAN);
  const int tol = c->its / 50 > 3 ? c->its / 50 : 3;
  sps_ok(c->reason == g->reason, "%s %s: reason CPU %s, GPU %s", file, name,
         sps_reason_name(c->reason), sps_reason_name(g->reason));
  sps_ok(abs(c->its - g->its) <= tol, "%s %s: iterations CPU %d, GPU %d (within %d)", file,
         name, c->its, g->its, tol);
  if (type == SPS_SOLVER_AUTO)
    sps_ok(c->method == g->method && c->pc == g->pc, "%s defaults: CPU chose %s+%s, GPU %s+%s",
           file, sps_solver_type_name(c->method), sps_precond_type_name(c->pc),
           sps_solver_type_name(g->method), sps_precond_type_name(g->pc));
  double ec = 0.0, eg = 0.0;
  const double hc = check_residual(file, name, "CPU", A, b, c, &ec);
  const double hg = check_residual(file, name, "GPU", A, b, g, &eg);
  double dx = 0.0;
  for (int64_t i = 0; i < n; i++)
    dx += (c->x[i] - g->x[i]) * (c->x[i] - g->x[i]);
  dx = sqrt(dx) / sps_test_norm2(c->x, n);
  if (first < 0 && c->reason == g->reason && c->its == g->its) {
    int64_t diff = 0;
    for (int64_t i = 0; i < n; i++)
      if (memcmp(&c->x[i], &g->x[i], sizeof(double)) != 0) diff++;
    sps_ok(diff == 0 && memcmp(&c->rabs, &g->rabs, sizeof(double)) == 0,
           "%s %s: identical histories, so x is identical to the bit (%lld of %lld entries "
           "differ) and so is the reported residual (%.17g, %.17g)",
           file, name, (long long)diff, (long long)n, c->rabs, g->rabs);
  } else {
    sps_diag("%s %s: the histories differ; ||x_cpu - x_gpu|| / ||x_cpu|| = %.3g, host "
             "residuals %.6g and %.6g",
             file, name, dx, hc, hg);
    const double bn = sps_test_norm2(b, n);
    if (c->reason > 0)
      sps_ok(hc <= RTOL * bn + ec, "%s %s: CPU converged to a host-recomputed %.3g <= rtol",
             file, name, hc / bn);
    if (g->reason > 0)
      sps_ok(hg <= RTOL * bn + eg, "%s %s: GPU converged to a host-recomputed %.3g <= rtol",
             file, name, hg / bn);
  }
}

static void run_case(sps_context *cpu, sps_context *gpu, const char *dir, const pair_case *pc)
{
  const sps_solver_type cg_types[] = {SPS_SOLVER_CG, SPS_SOLVER_AUTO};
  const sps_solver_type ns_types[] = {SPS_SOLVER_GMRES, SPS_SOLVER_BICGSTAB, SPS_SOLVER_AUTO};
  const sps_solver_type *types = pc->symmetric ? cg_types : ns_types;
  const int ntypes = pc->symmetric ? 2 : 3;
  int run[3] = {0, 0, 0}, any = 0;
  for (int t = 0; t < ntypes; t++) {
    run[t] = sps_case();
    any |= run[t];
  }
  if (!any) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, pc->file);
  sps_matrix *Ac = load(cpu, path, pc->negate), *Ag = load(gpu, path, pc->negate);
  int64_t n;
  sps_matrix_get_size(Ac, &n, NULL, NULL);
  double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  if (!xs || !b) sps_bail("out of host memory");
  sps_rng rng = {0x5eed5eedull};
  for (int64_t i = 0; i < n; i++)
    xs[i] = sps_rng_uniform(&rng);
  sps_test_host_mv(Ac, xs, b);
  for (int t = 0; t < ntypes; t++) {
    if (!run[t]) continue;
    run_result c = solve(cpu, Ac, types[t], b, n), g = solve(gpu, Ag, types[t], b, n);
    compare(pc->file, types[t], Ac, b, n, &c, &g);
    free(c.hist);
    free(g.hist);
    free(c.x);
    free(g.x);
  }
  free(xs);
  free(b);
  sps_matrix_destroy(&Ac);
  sps_matrix_destroy(&Ag);
}

int main(int argc, char **argv)
{
  const char *dir = sps_test_matrices_dir();
  if (!dir) sps_skip_all("SPS_MATRICES is not set (the shared real matrices)");
  sps_context *gpu = sps_test_cuda_context_or_skip();
  sps_context *cpu = NULL;
  if (sps_context_create(&cpu, SPS_DEVICE_CPU, 0) != SPS_SUCCESS)
    sps_bail("CPU context: %s", sps_context_create_error());
  char dev[128];
  sps_context_get_device_name(gpu, dev, sizeof dev);
  sps_diag("device: %s", dev);
  /* An optional argument selects the cases whose file name contains it. */
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    if (argc < 2 || strstr(cases[k].file, argv[1])) run_case(cpu, gpu, dir, &cases[k]);
  sps_context_destroy(&cpu);
  sps_context_destroy(&gpu);
  return sps_done();
}
