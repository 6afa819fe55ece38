/* cpu_vs_gpu.c: the same solves on the CPU and the CUDA backend, on every square shared matrix, must agree in reason and iteration count. */
#include "../testlib.h"

/*
 * Each case solves A x = b, b = A x* with x* uniform in [-1, 1) from a fixed seed (built once
 * on the host and uploaded to both contexts), x_0 = 0, rtol 1e-8, at most 20,000 iterations,
 * no preconditioner, GMRES restart 30: CG on the symmetric matrices, GMRES and BiCGSTAB on the
 * others; and with the defaults (the automatic method and preconditioner, which include the
 * GPU's triangular solves and factorisations). The CPU and the GPU run must end with the same
 * reason, the same automatic choice and iteration counts within max(3, 2% of the CPU's). Both backends sum every reduction with compensated sums of rounded
 * products and apply the same updates in the same order (core/compensated_sum.h), so the two
 * runs usually agree to the bit; the diagnostics say where the residual histories first
 * differ, if they do. Without a GPU (or SPS_MATRICES) the test skips.
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

typedef struct run_result {
  sps_reason reason;
  sps_solver_type method; /* what finished the solve (the automatic choice's) */
  sps_precond_type pc;
  int its;
  double *hist; /* its + 1 norms, owned */
  int nhist;
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
  run_result out = {SPS_REASON_NONE, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, -1, NULL, 0};
  sps_vector *vb = NULL, *vx = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &vb, n) || sps_vector_upload(vb, b, n) ||
      sps_vector_create(ctx, &vx, n) || sps_solver_create(ctx, &s, type) ||
      sps_solver_set_tolerances(s, 1e-8, 0.0) || sps_solver_set_max_iterations(s, 20000) ||
      sps_solver_set_restart(s, 30) || sps_solver_set_history(s, 1) ||
      (type != SPS_SOLVER_AUTO && sps_solver_set_precond(s, SPS_PRECOND_NONE)) ||
      sps_solver_setup(s, A) || sps_solver_solve(s, vb, vx))
    sps_bail("%s: %s", sps_solver_type_name(type), sps_context_last_error(ctx));
  const double *h = NULL;
  sps_solver_get_reason(s, &out.reason);
  sps_solver_get_iterations(s, &out.its);
  sps_solver_get_method(s, &out.method, &out.pc);
  sps_solver_get_history(s, &h, &out.nhist);
  out.hist = malloc((size_t)(out.nhist > 0 ? out.nhist : 1) * sizeof(double));
  if (!out.hist) sps_bail("out of host memory");
  for (int k = 0; k < out.nhist; k++)
    out.hist[k] = h[k];
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  return out;
}

static void compare(const char *file, sps_solver_type type, const run_result *c,
                    const run_result *g)
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
}

static void run_case(sps_context *cpu, sps_context *gpu, const char *dir, const pair_case *pc)
{
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
  const sps_solver_type cg_types[] = {SPS_SOLVER_CG, SPS_SOLVER_AUTO};
  const sps_solver_type ns_types[] = {SPS_SOLVER_GMRES, SPS_SOLVER_BICGSTAB, SPS_SOLVER_AUTO};
  const sps_solver_type *types = pc->symmetric ? cg_types : ns_types;
  const int ntypes = pc->symmetric ? 2 : 3;
  for (int t = 0; t < ntypes; t++) {
    run_result c = solve(cpu, Ac, types[t], b, n), g = solve(gpu, Ag, types[t], b, n);
    compare(pc->file, types[t], &c, &g);
    free(c.hist);
    free(g.hist);
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
