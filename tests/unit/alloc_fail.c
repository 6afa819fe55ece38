/* alloc_fail.c: the allocation-failure loop: for each operation (reading a matrix, plain and gzipped, and a vector; each SpMV plan; each SpMM plan; each solver with each preconditioner, set up and solved; solve_many with each batched method, block CG, one column at a time and the automatic choice; with MPI, the distributed operations on one rank; the spsolve command's main path) the k-th host allocation is made to fail, k = 1, 2, ..., until the operation succeeds; every failure must return SPS_ERR_HOST_MEMORY (the command: exit status 3) and leave no block allocated. */
#include <fcntl.h>
#include <unistd.h>

#include "model_problems.h"
#include "../../core/cpu_simd.h"
#include "../../core/internal.h" /* the allocation-failure hook */
#ifdef SPS_HAVE_MPI
#include "../mpi/dist_ops.h"
#endif

/* The spsolve command, compiled into this program with its main renamed (tests/alloc.mk). */
#undef main
int sps_cli_main(int argc, char **argv);

/* The loop stops with a hard error past this many allocations in one operation. */
#define K_MAX 100000

/* An operation: makes what it needs from env, destroys all it made, returns the first
 * failing status (or SPS_SUCCESS). */
typedef sps_status (*operation)(void *env);

static long total_runs = 0, total_ops = 0;

/*
 * Run op with the k-th allocation failing, k = 1, 2, ..., until it succeeds with no failure
 * injected. Each run must return SPS_ERR_HOST_MEMORY when the failure fired (SPS_SUCCESS when
 * it did not: k is past the last allocation) and leave the count of live blocks where it was.
 * *allocs gets the number of allocations of the successful run.
 */
static void alloc_loop(const char *name, operation op, void *env, long *allocs)
{
  const long base = sps_test_alloc_live();
  long k = 1, bad_k = 0, leak_k = 0, leaked = 0;
  sps_status bad_st = SPS_SUCCESS;
  for (;; k++) {
    if (k > K_MAX) sps_bail("%s: more than %d allocations", name, K_MAX);
    sps_test_alloc_fail_at(k);
    const sps_status st = op(env);
    const int fired = sps_test_alloc_fired();
    const long count = sps_test_alloc_count();
    sps_test_alloc_fail_at(0);
    total_runs++;
    const long live = sps_test_alloc_live() - base;
    if (!bad_k && st != (fired ? SPS_ERR_HOST_MEMORY : SPS_SUCCESS)) {
      bad_k = k;
      bad_st = st;
    }
    if (!leak_k && live != 0) {
      leak_k = k;
      leaked = live;
    }
    if (!fired) {
      *allocs = count;
      break;
    }
  }
  total_ops++;
  sps_ok(bad_k == 0 && leak_k == 0,
         "%s: %ld allocations; failing each (k = 1..%ld) returned SPS_ERR_HOST_MEMORY and freed "
         "everything%s",
         name, *allocs, k - 1, bad_k || leak_k ? " -- NOT SO:" : "");
  if (bad_k) sps_diag("  k = %ld returned %s", bad_k, sps_status_name(bad_st));
  if (leak_k) sps_diag("  k = %ld left %ld blocks allocated", leak_k, leaked);
}

/* Reading a Matrix Market file into a new context. */
typedef struct read_env {
  const char *path;
  int vector;
} read_env;

static sps_status op_read(void *e)
{
  const read_env *r = e;
  sps_context *ctx = NULL;
  sps_matrix *A = NULL;
  sps_vector *v = NULL;
  sps_status st = sps_context_create(&ctx, SPS_DEVICE_CPU, 0);
  if (!st) st = r->vector ? sps_vector_read_mm(ctx, &v, r->path, 0) : sps_matrix_read_mm(ctx, &A, r->path, 0);
  sps_vector_destroy(&v);
  sps_matrix_destroy(&A);
  if (sps_context_destroy(&ctx)) return SPS_ERR_BUSY;
  return st;
}

/* An SpMV plan of one variant: create, set up, apply. */
typedef struct plan_env {
  sps_context *ctx;
  const sps_matrix *A;
  sps_spmv_kind kind;
} plan_env;

static sps_status op_plan(void *e)
{
  const plan_env *p = e;
  int64_t n;
  sps_matrix_get_size(p->A, &n, NULL, NULL);
  sps_spmv_plan *plan = NULL;
  sps_vector *x = NULL, *y = NULL;
  sps_status st = sps_spmv_plan_create(p->ctx, &plan, p->A, p->kind);
  if (!st) st = sps_spmv_plan_setup(plan);
  if (!st) st = sps_vector_create(p->ctx, &x, n);
  if (!st) st = sps_vector_create(p->ctx, &y, n);
  if (!st) st = sps_vector_fill(x, 1.0);
  if (!st) st = sps_spmv_apply(plan, 1.0, x, 0.0, y);
  sps_vector_destroy(&x);
  sps_vector_destroy(&y);
  sps_spmv_plan_destroy(&plan);
  return st;
}

/* An SpMM plan of one variant for 5 columns (1 for spmm-spmv): create, set up, upload, apply,
 * download. */
typedef struct spmm_env {
  sps_context *ctx;
  const sps_matrix *A;
  sps_spmm_kind kind;
} spmm_env;

static sps_status op_spmm(void *e)
{
  const spmm_env *p = e;
  const sps_spmm_kind kind = p->kind;
  int64_t n;
  sps_matrix_get_size(p->A, &n, NULL, NULL);
  double h[64 * 5];
  for (int i = 0; i < 64 * 5; i++) h[i] = 1.0 + 0.01 * i;
  const int64_t k = kind == SPS_SPMM_SPMV ? 1 : 5; /* spmm-spmv serves one column */
  sps_spmm_plan *plan = NULL;
  sps_multivector *x = NULL, *y = NULL;
  sps_status st = sps_spmm_plan_create(p->ctx, &plan, p->A, k);
  if (!st) st = sps_spmm_plan_set_kind(plan, kind);
  if (!st) st = sps_spmm_plan_setup(plan);
  if (!st) st = sps_multivector_create(p->ctx, &x, n, k);
  if (!st) st = sps_multivector_create(p->ctx, &y, n, k);
  if (!st) st = sps_multivector_upload(x, h, n, k);
  if (!st) st = sps_spmm_apply(plan, 1.0, x, 0.0, y);
  if (!st) st = sps_multivector_download(y, h, n, k);
  sps_multivector_destroy(&x);
  sps_multivector_destroy(&y);
  sps_spmm_plan_destroy(&plan);
  return st;
}

/* A solver: create, set, set up, solve (it must converge), destroy. */
typedef struct solver_env {
  sps_context *ctx;
  const sps_matrix *A;
  sps_solver_type type;
  sps_precond_type precond;
  int flexible, mgs, history, restart;
  const char *param;
  double value;
  long solve_allocs; /* allocations of the last solve */
  const char *param2; /* a second parameter (NULL: none) */
  double value2;
  int pipelined;       /* CG: the pipelined variant */
} solver_env;

static sps_status op_solver(void *e)
{
  solver_env *v = e;
  int64_t n;
  sps_matrix_get_size(v->A, &n, NULL, NULL);
  sps_solver *s = NULL;
  sps_vector *b = NULL, *x = NULL;
  sps_status st = sps_solver_create(v->ctx, &s, v->type);
  if (!st) st = sps_solver_set_precond(s, v->precond);
  if (!st && v->flexible) st = sps_solver_set_flexible(s, 1);
  if (!st && v->mgs) st = sps_solver_set_orthogonalization(s, SPS_ORTHOG_MGS);
  if (!st && v->history) st = sps_solver_set_history(s, 1);
  if (!st && v->restart) st = sps_solver_set_restart(s, v->restart);
  if (!st && v->param) st = sps_solver_set_precond_param(s, v->param, v->value);
  if (!st && v->param2) st = sps_solver_set_precond_param(s, v->param2, v->value2);
  if (!st && v->pipelined) st = sps_solver_set_pipelined(s, 1);
  if (!st) st = sps_vector_create(v->ctx, &b, n);
  if (!st) st = sps_vector_create(v->ctx, &x, n);
  if (!st) st = sps_vector_fill(b, 1.0);
  if (!st) st = sps_solver_setup(s, v->A);
  const long before = sps_test_alloc_count();
  if (!st) st = sps_solver_solve(s, b, x);
  v->solve_allocs = sps_test_alloc_count() - before;
  sps_reason r = SPS_REASON_NONE;
  if (!st) sps_solver_get_reason(s, &r);
  if (!st && r <= 0) st = SPS_ERR_STATE; /* a solve that should converge and did not */
  sps_vector_destroy(&b);
  sps_vector_destroy(&x);
  sps_solver_destroy(&s);
  return st;
}

/* Many right-hand sides: create, set (columns, block CG), set up, solve_many (every column must
 * converge), destroy. */
typedef struct many_env {
  sps_context *ctx;
  const sps_matrix *A;
  sps_solver_type type;
  sps_precond_type precond;
  int k, block, mgs, history, restart;
  long solve_allocs; /* allocations of the last solve_many */
} many_env;

static sps_status op_many(void *e)
{
  many_env *v = e;
  int64_t n;
  sps_matrix_get_size(v->A, &n, NULL, NULL);
  double h[64 * 8];
  for (int i = 0; i < 64 * 8; i++) h[i] = 1.0 + 0.01 * (i % 97) - 0.3 * (i / 64);
  sps_solver *s = NULL;
  sps_multivector *B = NULL, *X = NULL;
  sps_status st = sps_solver_create(v->ctx, &s, v->type);
  if (!st) st = sps_solver_set_precond(s, v->precond);
  if (!st) st = sps_solver_set_columns(s, v->k);
  if (!st && v->block) st = sps_solver_set_block(s, 1);
  if (!st && v->mgs) st = sps_solver_set_orthogonalization(s, SPS_ORTHOG_MGS);
  if (!st && v->history) st = sps_solver_set_history(s, 1);
  if (!st && v->restart) st = sps_solver_set_restart(s, v->restart);
  if (!st) st = sps_multivector_create(v->ctx, &B, n, v->k);
  if (!st) st = sps_multivector_create(v->ctx, &X, n, v->k);
  if (!st) st = sps_multivector_upload(B, h, n, v->k);
  if (!st) st = sps_solver_setup(s, v->A);
  const long before = sps_test_alloc_count();
  if (!st) st = sps_solver_solve_many(s, B, X);
  v->solve_allocs = sps_test_alloc_count() - before;
  sps_many_report r;
  if (!st) st = sps_solver_get_many_report(s, &r);
  if (!st && r.converged != v->k) st = SPS_ERR_STATE; /* columns that should converge */
  sps_multivector_destroy(&B);
  sps_multivector_destroy(&X);
  sps_solver_destroy(&s);
  return st;
}

/* The spsolve command on argv, its output and messages sent to files: 0 (converged) maps to
 * SPS_SUCCESS, exit status 3 with a message about host memory to SPS_ERR_HOST_MEMORY, anything
 * else to SPS_ERR_STATE. */
typedef struct cli_env {
  int argc;
  char **argv;
  int last_code;
  char last_message[512];
} cli_env;

static sps_status op_cli(void *e)
{
  cli_env *c = e;
  fflush(stdout);
  fflush(stderr);
  const int out = dup(1), err = dup(2);
  FILE *msg = tmpfile();
  const int devnull = open("/dev/null", O_WRONLY);
  if (out < 0 || err < 0 || !msg || devnull < 0) sps_bail("cannot redirect the command's output");
  dup2(devnull, 1);
  dup2(fileno(msg), 2);
  c->last_code = sps_cli_main(c->argc, c->argv);
  fflush(stdout);
  fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  close(devnull);
  rewind(msg);
  const size_t got = fread(c->last_message, 1, sizeof c->last_message - 1, msg);
  c->last_message[got] = '\0';
  fclose(msg);
  if (c->last_code == 0) return SPS_SUCCESS;
  if (c->last_code == 3 && strstr(c->last_message, "host memory")) return SPS_ERR_HOST_MEMORY;
  return SPS_ERR_STATE;
}

/* Write A as a plain Matrix Market coordinate file. */
static void write_matrix(const sps_matrix *A, const char *path)
{
  int64_t n, nnz;
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_size(A, &n, NULL, &nnz);
  sps_matrix_get_csr(A, &rp, &ci, &va);
  FILE *f = fopen(path, "w");
  if (!f) sps_bail("cannot write %s", path);
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", (long long)n,
          (long long)n, (long long)nnz);
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      fprintf(f, "%lld %d %.17g\n", (long long)i + 1, ci[k] + 1, va[k]);
  if (fclose(f)) sps_bail("cannot write %s", path);
}

int main(void)
{
#ifdef SPS_HAVE_MPI
  /* one rank, without a launcher (a singleton) */
  MPI_Init(NULL, NULL);
#endif
  sps_context *ctx;
  if (sps_context_create(&ctx, SPS_DEVICE_CPU, 0)) sps_bail("CPU context");
  sps_matrix *L = sps_test_conv_diff_or_bail(ctx, 8, 0.0, 4.0, 1.0); /* SPD, n = 64 */
  sps_matrix *C = sps_test_conv_diff_or_bail(ctx, 8, 0.5, 4.0, 1.0); /* nonsymmetric */
  long allocs;

  /* Reading: a plain file, a gzipped one, a vector. */
  char dir[] = "/tmp/spsolve-alloc-XXXXXX";
  if (!mkdtemp(dir)) sps_bail("mkdtemp");
  char plain[64], vec[64], out[64];
  snprintf(plain, sizeof plain, "%s/L.mtx", dir);
  snprintf(vec, sizeof vec, "%s/b.mtx", dir);
  snprintf(out, sizeof out, "%s/x.mtx", dir);
  write_matrix(L, plain);
  sps_vector *vb;
  if (sps_vector_create(ctx, &vb, 64) || sps_vector_fill(vb, 1.0) || sps_vector_write_mm(vb, vec))
    sps_bail("vector file");
  sps_vector_destroy(&vb);
  read_env rp = {plain, 0};
  alloc_loop("read a plain .mtx matrix (64 x 64)", op_read, &rp, &allocs);
  char gz[4096];
  snprintf(gz, sizeof gz, "%s/nos3.mtx.gz", sps_test_data_dir());
  read_env rg = {gz, 0};
#ifdef SPS_HAVE_ZLIB
  alloc_loop("read a gzipped matrix (nos3.mtx.gz)", op_read, &rg, &allocs);
#else
  (void)rg;
  sps_diag("built without zlib: no gzipped matrix to read");
#endif
  read_env rv = {vec, 1};
  alloc_loop("read a Matrix Market vector", op_read, &rv, &allocs);

  /* Each SpMV variant of the CPU, and AUTO. */
  for (int k = 0; k < SPS_SPMV_KIND_COUNT; k++) {
    if (!sps_spmv_kind_available((sps_spmv_kind)k, SPS_DEVICE_CPU)) continue;
    plan_env pe = {ctx, C, (sps_spmv_kind)k};
    char name[96];
    snprintf(name, sizeof name, "SpMV plan %s: create, setup, apply", sps_spmv_kind_name((sps_spmv_kind)k));
    alloc_loop(name, op_plan, &pe, &allocs);
  }

  /* csr-scalar's sliced copy (spmv/csr_scalar.c), made under each instruction set of the
   * CPU kernels that has one and that this processor runs (AVX2, AVX-512F). */
  {
    const sps_cpu_isa isa0 = sps_cpu_isa_current();
    for (int isa = SPS_CPU_ISA_AVX2; isa < SPS_CPU_ISA_COUNT; isa++) {
      if (sps_test_cpu_isa_set((sps_cpu_isa)isa) != 0) {
        sps_diag("%s not run here: no sliced csr-scalar under it", sps_cpu_isa_name((sps_cpu_isa)isa));
        continue;
      }
      plan_env pe = {ctx, C, SPS_SPMV_CSR_SCALAR};
      char name[96];
      snprintf(name, sizeof name, "SpMV plan csr-scalar, sliced (%s): create, setup, apply",
               sps_cpu_isa_name((sps_cpu_isa)isa));
      alloc_loop(name, op_plan, &pe, &allocs);
    }
    sps_test_cpu_isa_set(isa0);
  }

  /* Each SpMM variant of the CPU, and AUTO (n = 64 <= the buffer of op_spmm). */
  for (int k = 0; k < SPS_SPMM_KIND_COUNT; k++) {
    if (!sps_spmm_kind_available((sps_spmm_kind)k, SPS_DEVICE_CPU)) continue;
    spmm_env pe = {ctx, C, (sps_spmm_kind)k};
    char name[96];
    snprintf(name, sizeof name, "SpMM plan %s (k = %d): create, setup, upload, apply, download",
             sps_spmm_kind_name((sps_spmm_kind)k), k == SPS_SPMM_SPMV ? 1 : 5);
    alloc_loop(name, op_spmm, &pe, &allocs);
  }

  /* Each method with each preconditioner, on the SPD matrix (CG, IC(0) and Chebyshev need
   * it); then GMRES's other work spaces and the automatic choice on the nonsymmetric one. */
  static const sps_solver_type types[] = {SPS_SOLVER_CG, SPS_SOLVER_GMRES, SPS_SOLVER_BICGSTAB,
                                          SPS_SOLVER_AUTO};
  static const sps_precond_type pcs[] = {SPS_PRECOND_NONE, SPS_PRECOND_JACOBI, SPS_PRECOND_ILU0,
                                         SPS_PRECOND_IC0,  SPS_PRECOND_ILUT,   SPS_PRECOND_BJACOBI,
                                         SPS_PRECOND_CHEBY, SPS_PRECOND_AMG,    SPS_PRECOND_AUTO};
  long solve_allocs_named = 0;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t p = 0; p < sizeof pcs / sizeof pcs[0]; p++) {
      solver_env se = {ctx, L, types[t], pcs[p], 0, 0, 0, 0, NULL, 0.0, 0, NULL, 0.0, 0};
      char name[96];
      snprintf(name, sizeof name, "%s + %s: setup and solve", sps_solver_type_name(types[t]),
               sps_precond_type_name(pcs[p]));
      alloc_loop(name, op_solver, &se, &allocs);
      if (pcs[p] != SPS_PRECOND_AUTO && types[t] != SPS_SOLVER_AUTO)
        solve_allocs_named += se.solve_allocs;
    }
  sps_ok(solve_allocs_named == 0,
         "the solves with a named method and preconditioner allocated nothing (%ld allocations)",
         solve_allocs_named);
  struct {
    const char *name;
    solver_env se;
  } more[] = {
      {"gmres + ilu0, flexible", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 1, 0, 0, 0, NULL, 0, 0, NULL, 0, 0}},
      {"gmres + ilu0, MGS (host-driven)", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0, 1, 0, 0, NULL, 0, 0, NULL, 0, 0}},
      {"gmres + none, history, restart 100 > n", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 0, 0, 1, 100, NULL, 0, 0, NULL, 0, 0}},
      {"gmres + ilu0 with matching and scaling", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0, 0, 0, 0, "matching", 1, 0, NULL, 0, 0}},
      {"gmres + ilu0, multicolor ordering", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0, 0, 0, 0, "ordering", 1, 0, NULL, 0, 0}},
      {"bicgstab + ilut, history", {ctx, C, SPS_SOLVER_BICGSTAB, SPS_PRECOND_ILUT, 0, 0, 1, 0, NULL, 0, 0, NULL, 0, 0}},
      {"auto + auto on the nonsymmetric matrix", {ctx, C, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0, 0, 0, 0, NULL, 0, 0, NULL, 0, 0}},
      {"cg + amg, coarse size 4 (a hierarchy of several levels)", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, NULL, 0, 0}},
      {"gmres + amg on the nonsymmetric matrix, coarse size 4", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, NULL, 0, 0}},
      {"cg + amg, classical, coarse size 4", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.coarsening", 1, 0}},
      {"cg + amg, aggregation, coarse size 4", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.coarsening", 0, 0}},
      {"cg + amg, aggregation with truncated P", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarsening", 0, 0, "amg.interp_max", 3, 0}},
      {"cg + amg, multicolour Gauss-Seidel", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.smoother", 2, 0}},
      {"gmres + amg, Gauss-Seidel on the nonsymmetric matrix (colouring with its transpose)", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.smoother", 2, 0}},
      {"cg + amg, aggressive classical coarsening", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.aggressive", 1, 0}},
      {"cg + amg, filtered coarse operators", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_AMG, 0, 0, 0, 0, "amg.coarse_size", 4, 0, "amg.filter", 0.02, 0}},
      {"pipelined cg + none, history", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_NONE, 0, 0, 1, 0, NULL, 0, 0, NULL, 0, 1}},
      {"pipelined cg + ic0", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_IC0, 0, 0, 0, 0, NULL, 0, 0, NULL, 0, 1}},
  };
  for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
    alloc_loop(more[k].name, op_solver, &more[k].se, &allocs);

  /* sps_solver_solve_many: each batched method, block CG, one at a time, the automatic choice. */
  struct {
    const char *name;
    many_env me;
  } many[] = {
      {"solve_many, cg + none, 5 columns", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_NONE, 5, 0, 0, 0, 0, 0}},
      {"solve_many, cg + jacobi, 8 columns, history", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 8, 0, 0, 1, 0, 0}},
      {"solve_many, cg + ic0, 3 columns", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_IC0, 3, 0, 0, 0, 0, 0}},
      {"solve_many, gmres + ilu0, 4 columns", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 4, 0, 0, 0, 0, 0}},
      {"solve_many, gmres(10) + none, 6 columns, history", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 6, 0, 0, 1, 10, 0}},
      {"solve_many, bicgstab + ilu0, 3 columns", {ctx, C, SPS_SOLVER_BICGSTAB, SPS_PRECOND_ILU0, 3, 0, 0, 0, 0, 0}},
      {"solve_many, block cg + jacobi, 4 columns, history", {ctx, L, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 4, 1, 0, 1, 0, 0}},
      {"solve_many, gmres MGS (one column at a time), 3 columns", {ctx, C, SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 3, 0, 1, 0, 0, 0}},
      {"solve_many, auto + auto, 3 columns", {ctx, C, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 3, 0, 0, 0, 0, 0}},
  };
  long many_solve_allocs = 0;
  for (size_t k = 0; k < sizeof many / sizeof many[0]; k++) {
    alloc_loop(many[k].name, op_many, &many[k].me, &allocs);
    if (many[k].me.type != SPS_SOLVER_AUTO) many_solve_allocs += many[k].me.solve_allocs;
  }
  sps_ok(many_solve_allocs == 0,
         "solve_many with a named method and preconditioner allocated nothing (%ld allocations)",
         many_solve_allocs);
#ifdef SPS_HAVE_MPI
  /* The distributed operations on one rank (tests/mpi/alloc_fail runs them on several). */
  {
    const int64_t *frp;
    const int32_t *fci;
    const double *fva;
    int64_t n;
    sps_matrix_get_size(L, &n, NULL, NULL);
    sps_matrix_get_csr(L, &frp, &fci, &fva);
    int64_t *ci = malloc((size_t)frp[n] * sizeof *ci);
    if (!ci) sps_bail("out of host memory");
    for (int64_t k = 0; k < frp[n]; k++) ci[k] = fci[k];
    static const struct {
      const char *name;
      int what;
      sps_solver_type method;
      sps_precond_type precond;
      int pipelined;
    } dops[] = {
        {"distributed (1 rank): a context", DIST_OP_CONTEXT, 0, 0, 0},
        {"distributed (1 rank): a matrix from local rows", DIST_OP_LOCAL, 0, 0, 0},
        {"distributed (1 rank): a matrix scattered, a vector scattered and gathered", DIST_OP_SCATTER, 0, 0, 0},
        {"distributed (1 rank): a matrix read by every rank", DIST_OP_READ, 0, 0, 0},
        {"distributed (1 rank): an SpMV plan with a timeline", DIST_OP_SPMV, 0, 0, 0},
        {"distributed (1 rank): cg + jacobi", DIST_OP_SOLVE, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0},
        {"distributed (1 rank): pipelined cg + ic0", DIST_OP_SOLVE, SPS_SOLVER_CG, SPS_PRECOND_IC0, 1},
        {"distributed (1 rank): gmres + ilu0", DIST_OP_SOLVE, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0},
        {"distributed (1 rank): auto + auto", DIST_OP_SOLVE, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0},
    };
    for (size_t o = 0; o < sizeof dops / sizeof dops[0]; o++) {
      dist_env de = {MPI_COMM_WORLD, plain, L, n, frp, ci, fva, dops[o].what, dops[o].method,
                     dops[o].precond, dops[o].pipelined};
      alloc_loop(dops[o].name, dist_op, &de, &allocs);
    }
    free(ci);
  }
#endif

  /* The command's main path: read A and b, solve, write x; then the defaults (b = A x*). */
  char *argv1[] = {"spsolve", "--device", "cpu", "-q", "--rhs", vec, "-o", out, plain, NULL};
  char *argv2[] = {"spsolve", "--device", "cpu", "--json", "--history", plain, NULL};
  char *argv3[] = {"spsolve", "--device", "cpu", "--json", "--history", "--nrhs", "3", "-o", out, plain, NULL};
  cli_env c1 = {9, argv1, 0, ""}, c2 = {6, argv2, 0, ""}, c3 = {10, argv3, 0, ""};
  alloc_loop("spsolve --rhs b.mtx -o x.mtx A.mtx (exit status 3 on each failure)", op_cli, &c1,
             &allocs);
  alloc_loop("spsolve --json --history A.mtx (exit status 3 on each failure)", op_cli, &c2, &allocs);
  alloc_loop("spsolve --json --history --nrhs 3 -o X.mtx A.mtx (exit status 3 on each failure)",
             op_cli, &c3, &allocs);

  sps_diag("%ld operations, %ld runs with the k-th allocation failing or none", total_ops,
           total_runs);
  sps_matrix_destroy(&L);
  sps_matrix_destroy(&C);
  remove(plain);
  remove(vec);
  remove(out);
  rmdir(dir);
  if (sps_context_destroy(&ctx)) sps_bail("context destroy: %s", sps_context_last_error(ctx));
  sps_ok(sps_test_alloc_live() == 0, "no host block left allocated at the end (%ld)",
         sps_test_alloc_live());
#ifdef SPS_HAVE_MPI
  MPI_Finalize();
#endif
  return sps_done();
}
