/* bjacobi.c: tests of the block Jacobi preconditioner through the public API.
 *
 * Convergence, the block size it reports, exact inverses, zero diagonals, singular blocks,
 * the parameter's range and the negated operator.
 *
 * Runs on the context of SPS_TEST_DEVICE (the CPU by default; "cuda" runs it on the GPU and
 * skips without one). Right-hand sides are b = A x* for a seeded random x*; the true relative
 * residual ||b - A x|| / ||b|| is computed on the host.
 *
 * Sharded by SPS_TEST_SHARD (tests/testlib.h): each test function is one case, each matrix of
 * test_exact one.
 */
#include "../testlib.h"

/* What one solve did. */
typedef struct outcome {
  sps_status setup; /* the setup's status (nothing else is set when it failed) */
  sps_reason reason;
  int iterations;
  double relres; /* true relative residual */
  sps_precond_info info;
  sps_solver_type method;
} outcome;

/* A preconditioner and its block size (-1: the parameter is not set). */
static outcome solve(sps_context *ctx, const sps_matrix *A, sps_solver_type method,
                     sps_precond_type precond, int block, int maxit)
{
  outcome o;
  memset(&o, 0, sizeof o);
  int64_t n;
  sps_matrix_get_size(A, &n, NULL, NULL);
  double *xs = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *b = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *x = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *r = malloc((size_t)(n ? n : 1) * sizeof(double));
  if (!xs || !b || !x || !r) sps_bail("out of host memory");
  sps_rng rng = {20261124u};
  for (int64_t i = 0; i < n; i++)
    xs[i] = sps_rng_uniform(&rng);
  sps_test_host_mv(A, xs, b);
  sps_solver *s = NULL;
  sps_vector *vb = NULL, *vx = NULL;
  if (sps_solver_create(ctx, &s, method) || sps_solver_set_precond(s, precond) ||
      sps_solver_set_tolerances(s, 1e-8, 0.0) || sps_solver_set_max_iterations(s, maxit) ||
      (block >= 0 && sps_solver_set_precond_param(s, "bjacobi.block", block)) ||
      sps_vector_create(ctx, &vb, n) || sps_vector_create(ctx, &vx, n) ||
      sps_vector_upload(vb, b, n) || sps_vector_fill(vx, 0.0))
    sps_bail("solver preparation: %s", sps_context_last_error(ctx));
  o.setup = sps_solver_setup(s, A);
  if (o.setup == SPS_SUCCESS) {
    if (sps_solver_solve(s, vb, vx) || sps_solver_get_reason(s, &o.reason) ||
        sps_solver_get_iterations(s, &o.iterations) || sps_solver_get_precond_info(s, &o.info) ||
        sps_solver_get_method(s, &o.method, NULL) || sps_vector_download(vx, x, n))
      sps_bail("solve: %s", sps_context_last_error(ctx));
    sps_test_host_mv(A, x, r);
    for (int64_t i = 0; i < n; i++)
      r[i] = b[i] - r[i];
    const double nb = sps_test_norm2(b, n);
    o.relres = nb > 0.0 ? sps_test_norm2(r, n) / nb : sps_test_norm2(r, n);
  }
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
  sps_solver_destroy(&s);
  free(xs);
  free(b);
  free(x);
  free(r);
  return o;
}

static int converged(const outcome *o)
{
  return o->setup == SPS_SUCCESS &&
         (o->reason == SPS_CONVERGED_RTOL || o->reason == SPS_CONVERGED_ATOL) && o->relres <= 1e-7;
}

static sps_matrix *read_bundled(sps_context *ctx, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", sps_test_data_dir(), name);
  sps_matrix *A = NULL;
  if (sps_matrix_read_mm(ctx, &A, path, 0) != SPS_SUCCESS)
    sps_bail("%s: %s", path, sps_context_last_error(ctx));
  return A;
}

/* A matrix from host triplets of a dense row-major n x n array (zeros left out). */
static sps_matrix *from_dense(sps_context *ctx, int64_t n, const double *a)
{
  int64_t *rp = calloc((size_t)n + 1, sizeof *rp);
  int32_t *ci = malloc((size_t)(n > 0 ? n * n : 1) * sizeof *ci);
  double *va = malloc((size_t)(n > 0 ? n * n : 1) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of host memory");
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = 0; j < n; j++)
      if (a[i * n + j] != 0.0) {
        ci[k] = (int32_t)j;
        va[k++] = a[i * n + j];
      }
    rp[i + 1] = k;
  }
  sps_matrix *A = NULL;
  if (sps_matrix_create_csr(ctx, &A, n, n, rp, ci, va) != SPS_SUCCESS)
    sps_bail("sps_matrix_create_csr: %s", sps_context_last_error(ctx));
  free(rp);
  free(ci);
  free(va);
  return A;
}

/*
 * GMRES on bcsstk14 (1806 rows, 3 unknowns a node): without a preconditioner it does not
 * reach 1e-8 in 1000 iterations; block Jacobi with the size chosen from the matrix (3, the
 * peak of the captured weight) does, in fewer iterations than Jacobi. CG with blocks of 6
 * (an explicit size) converges faster than with Jacobi: M is symmetric positive definite.
 */
static void test_bcsstk14(sps_context *ctx)
{
  sps_matrix *A = read_bundled(ctx, "bcsstk14.mtx.gz");
  const outcome none = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_NONE, -1, 1000);
  const outcome jac = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, -1, 1000);
  const outcome bj = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_BJACOBI, -1, 1000);
  sps_ok(!converged(&none), "bcsstk14: GMRES without a preconditioner: no convergence in 1000");
  sps_ok(converged(&jac), "bcsstk14: GMRES with Jacobi converges (%d iterations)", jac.iterations);
  sps_ok(converged(&bj) && bj.iterations < jac.iterations,
         "bcsstk14: GMRES with block Jacobi converges in fewer iterations (%d, relres %.2e)",
         bj.iterations, bj.relres);
  sps_ok(bj.info.type == SPS_PRECOND_BJACOBI && bj.info.block_size == 3 &&
             bj.info.nnz_factors == 602 * 9 && bj.info.replaced_pivots == 0,
         "bcsstk14: chosen block size %d (3 expected), %lld stored entries, %lld replaced",
         bj.info.block_size, (long long)bj.info.nnz_factors, (long long)bj.info.replaced_pivots);
  const outcome cgj = solve(ctx, A, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, -1, 3000);
  const outcome cgb = solve(ctx, A, SPS_SOLVER_CG, SPS_PRECOND_BJACOBI, 6, 3000);
  sps_ok(converged(&cgb) && converged(&cgj) && cgb.iterations < cgj.iterations &&
             cgb.info.block_size == 6 && cgb.info.nnz_factors == 301 * 36,
         "bcsstk14: CG with blocks of 6 converges in %d iterations (Jacobi %d)", cgb.iterations,
         cgj.iterations);
  sps_matrix_destroy(&A);
}

/*
 * With blocks that cover the whole matrix, M^-1 = A^-1 and GMRES converges in one
 * iteration: a dense nonsymmetric 40 x 40 matrix with zeros on its diagonal but in the last
 * row of each block (the LU must pivot) as one block, and block-diagonal matrices whose blocks are
 * those of the preconditioner, including a shorter last block (100 rows in blocks of 64 and of 7).
 * A block size larger than n is cut to n.
 */
static void test_exact(sps_context *ctx)
{
  static const struct {
    int64_t n;
    int bs;
  } cases[] = {{40, 40}, {40, 64}, {100, 64}, {100, 7}, {5, 2}};
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    if (!sps_case()) continue;
    const int64_t n = cases[c].n;
    const int bs = cases[c].bs;
    double *a = calloc((size_t)(n * n), sizeof *a);
    if (!a) sps_bail("out of host memory");
    sps_rng rng = {777u + (uint64_t)c};
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++)
        if (i / bs == j / bs && (i != j || i % bs == bs - 1 || i == n - 1))
          a[i * n + j] = sps_rng_uniform(&rng) + 0.25;
    sps_matrix *A = from_dense(ctx, n, a);
    const outcome o = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_BJACOBI, bs, 10);
    const int eff = bs < n ? bs : (int)n;
    sps_ok(converged(&o) && o.iterations == 1 && o.info.block_size == eff && o.relres <= 1e-10,
           "exact blocks, n = %lld, bs = %d: one GMRES iteration (%d, relres %.2e, block %d)",
           (long long)n, bs, o.iterations, o.relres, o.info.block_size);
    sps_matrix_destroy(&A);
    free(a);
  }
}

/*
 * A zero diagonal: P A with A diagonally dominant (a_ii = 4 + i/n, a_{i,i+-2} = -1, a
 * random entry a_{i,i+-3}) and P swapping the rows 2k and 2k + 1, so that (P A)_ii = 0
 * everywhere. Jacobi refuses it; block Jacobi with blocks of 2 (the pairs [[0, d], [d', 0]])
 * and with the chosen size makes GMRES converge.
 */
static void test_zero_diagonal(sps_context *ctx)
{
  const int64_t n = 300;
  double *a = calloc((size_t)(n * n), sizeof *a);
  if (!a) sps_bail("out of host memory");
  sps_rng rng = {4242u};
  for (int64_t i = 0; i < n; i++) {
    const int64_t row = i ^ 1; /* A's row i is P A's row i ^ 1 */
    a[row * n + i] = 4.0 + (double)i / (double)n;
    if (i >= 2) a[row * n + i - 2] = -1.0;
    if (i + 2 < n) a[row * n + i + 2] = -1.0;
    if (i >= 3) a[row * n + i - 3] = 0.5 * sps_rng_uniform(&rng);
    if (i + 3 < n) a[row * n + i + 3] = 0.5 * sps_rng_uniform(&rng);
  }
  int zero = 1;
  for (int64_t i = 0; i < n; i++)
    zero &= a[i * n + i] == 0.0;
  if (!zero) sps_bail("the test matrix has a nonzero diagonal entry");
  sps_matrix *A = from_dense(ctx, n, a);
  const outcome jac = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, -1, 1000);
  sps_ok(jac.setup == SPS_ERR_UNSUPPORTED, "zero diagonal: Jacobi refuses it (%s)",
         sps_status_name(jac.setup));
  const outcome b2 = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_BJACOBI, 2, 1000);
  sps_ok(converged(&b2) && b2.info.replaced_pivots == 0,
         "zero diagonal: block Jacobi with blocks of 2 converges (%d iterations, %lld replaced)",
         b2.iterations, (long long)b2.info.replaced_pivots);
  const outcome b0 = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_BJACOBI, 0, 1000);
  sps_ok(converged(&b0), "zero diagonal: block Jacobi with the chosen size %d converges (%d)",
         b0.info.block_size, b0.iterations);
  sps_matrix_destroy(&A);
  free(a);
}

/*
 * Singular blocks, blocks of 2 on 8 rows: [[1, 1], [1, 1]] (one pivot replaced), a zero
 * block (both replaced: it becomes the identity), [[2, 0], [0, 2]] and [[0, 3], [3, 0]]
 * (pivoting, none replaced), with couplings outside the blocks that make A nonsingular.
 * Setup counts 3 replaced pivots and GMRES still converges; a finite result, never NaN.
 */
static void test_singular_blocks(sps_context *ctx)
{
  const int64_t n = 8;
  double a[64] = {0};
  const double blocks[4][4] = {{1, 1, 1, 1}, {0, 0, 0, 0}, {2, 0, 0, 2}, {0, 3, 3, 0}};
  for (int b = 0; b < 4; b++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        a[(2 * b + i) * n + 2 * b + j] = blocks[b][2 * i + j];
  /* couplings: rows 0..3 to the columns 2..5 beside their blocks */
  a[0 * n + 2] = 1.0;
  a[1 * n + 3] = -1.0;
  a[2 * n + 0] = 1.0;
  a[3 * n + 1] = 2.0;
  a[2 * n + 5] = 0.5;
  a[3 * n + 4] = 0.25;
  sps_matrix *A = from_dense(ctx, n, a);
  const outcome o = solve(ctx, A, SPS_SOLVER_GMRES, SPS_PRECOND_BJACOBI, 2, 50);
  sps_ok(o.setup == SPS_SUCCESS && o.info.replaced_pivots == 3,
         "singular blocks: setup succeeds and replaces 3 pivots (%lld)",
         (long long)o.info.replaced_pivots);
  sps_ok(o.setup == SPS_SUCCESS && o.reason != SPS_DIVERGED_NAN && isfinite(o.relres) &&
             o.relres <= 1e-6,
         "singular blocks: GMRES converges anyway (%s, %d iterations, relres %.2e)",
         sps_reason_name(o.reason), o.iterations, o.relres);
  sps_matrix_destroy(&A);
}

/* The parameter's range: integers 0 to 64; anything else is SPS_ERR_ARGUMENT. */
static void test_parameter(sps_context *ctx)
{
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_GMRES)) sps_bail("solver creation");
  static const double bad[] = {-1.0, 65.0, 2.5, 1e9, NAN};
  for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++) {
    const sps_status st = sps_solver_set_precond_param(s, "bjacobi.block", bad[k]);
    sps_ok(st == SPS_ERR_ARGUMENT && strstr(sps_context_last_error(ctx), "bjacobi.block") != NULL,
           "bjacobi.block = %g is refused (%s)", bad[k], sps_status_name(st));
  }
  static const double good[] = {0.0, 1.0, 64.0};
  for (int k = 0; k < (int)(sizeof good / sizeof good[0]); k++)
    sps_ok(sps_solver_set_precond_param(s, "bjacobi.block", good[k]) == SPS_SUCCESS,
           "bjacobi.block = %g is accepted", good[k]);
  sps_solver_destroy(&s);
}

/*
 * The negated operator: -nos3 (symmetric, negative diagonal) with the method chosen
 * automatically is solved by CG as (-A) x = -b; block Jacobi must then invert the blocks of
 * -A (positive definite), so CG converges and the info reports the negation.
 */
static void test_negated(sps_context *ctx)
{
  sps_matrix *A = read_bundled(ctx, "nos3.mtx.gz");
  if (sps_matrix_scale(A, -1.0)) sps_bail("scale: %s", sps_context_last_error(ctx));
  const outcome o = solve(ctx, A, SPS_SOLVER_AUTO, SPS_PRECOND_BJACOBI, 0, 3000);
  sps_ok(converged(&o) && o.method == SPS_SOLVER_CG && o.info.negated == 1 && o.info.block_size > 1,
         "-nos3: CG with block Jacobi (blocks of %d) on the negated operator converges (%d, "
         "negated %d)",
         o.info.block_size, o.iterations, o.info.negated);
  sps_matrix_destroy(&A);
}

int main(void)
{
  sps_context *ctx = sps_test_context();
  if (sps_case()) test_bcsstk14(ctx);
  test_exact(ctx); /* a case per matrix */
  if (sps_case()) test_zero_diagonal(ctx);
  if (sps_case()) test_singular_blocks(ctx);
  if (sps_case()) test_parameter(ctx);
  if (sps_case()) test_negated(ctx);
  sps_context_destroy(&ctx);
  return sps_done();
}
