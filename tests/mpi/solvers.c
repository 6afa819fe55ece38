/* solvers.c: each Krylov method on 1 .. P ranks against the single-process solve: with a preconditioner that does not depend on the partition (none, jacobi), the same iterations, reason, residual history and x to the bit, the rows spread in contiguous blocks and by METIS; with the per-rank ones (ic0, ilu0, ilut, bjacobi) the single-process bits on one rank and convergence to the tolerance, checked on b - Ax formed apart, on more; the automatic choice; on CUDA, the same bits over each transport (MPI, NCCL). */
#include "mpitest.h"

typedef struct config {
  const char *matrix;
  sps_solver_type method;
  sps_precond_type precond;
  int pipelined;
  int restart;
  sps_orthog orthog;
  int per_rank; /* the preconditioner depends on the partition */
} config;

static const config configs[] = {
    {"nos3.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_NONE, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_NONE, 1, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 1, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_BICGSTAB, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"bcsstk14.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"bcsstk14.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 1, 30, SPS_ORTHOG_CGS2, 0},
    {"1138_bus.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"orsreg_1.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_NONE, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"orsreg_1.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_MGS, 0},
    {"orsreg_1.mtx.gz", SPS_SOLVER_BICGSTAB, SPS_PRECOND_NONE, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"orsreg_1.mtx.gz", SPS_SOLVER_BICGSTAB, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"watt_2.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"watt_2.mtx.gz", SPS_SOLVER_BICGSTAB, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"add20.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_JACOBI, 0, 50, SPS_ORTHOG_CGS2, 0},
    {"add20.mtx.gz", SPS_SOLVER_BICGSTAB, SPS_PRECOND_JACOBI, 0, 30, SPS_ORTHOG_CGS2, 0},
    {"nos3.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_IC0, 0, 30, SPS_ORTHOG_CGS2, 1},
    {"bcsstk14.mtx.gz", SPS_SOLVER_CG, SPS_PRECOND_BJACOBI, 0, 30, SPS_ORTHOG_CGS2, 1},
    {"orsreg_1.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0, 30, SPS_ORTHOG_CGS2, 1},
    {"add20.mtx.gz", SPS_SOLVER_GMRES, SPS_PRECOND_ILUT, 0, 30, SPS_ORTHOG_CGS2, 1},
    {"nos3.mtx.gz", SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0, 30, SPS_ORTHOG_CGS2, 1},
    {"orsreg_1.mtx.gz", SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0, 30, SPS_ORTHOG_CGS2, 1},
};

#define RTOL 1e-8
#define MAXIT 20000

/* SPS_TEST_MAXIT=K (tests/sanitize-gpu.sh, for the tools that slow a solve a thousandfold):
 * every solve stops after at most K iterations. The distributed solves must still give the
 * single process's reason, iterations, history and x to the bit, which needs no convergence.
 * The per-rank preconditioners' check on more than one rank is convergence: capped, it becomes
 * a stop within K iterations with a true residual formed apart below the start's (1, from
 * x = 0); their solves over each transport must still give the first distributed solve's bits
 * (so distributed CG with a preconditioner that is not diagonal, whose (r, z) close runs only
 * there, runs under the tools). */
static int maxit = MAXIT;

/* What a solve gives, on rank 0 (x in the original numbering). */
typedef struct result {
  sps_status st;
  sps_reason reason;
  int iterations;
  sps_solver_type method;
  sps_precond_type precond;
  double *x, *hist;
  int nhist;
  int per_rank; /* 1: a distributed solve's with a per-rank preconditioner */
} result;

static void result_free(result *r)
{
  free(r->x);
  free(r->hist);
  memset(r, 0, sizeof *r);
}

static sps_solver *make_solver(sps_context *ctx, const config *c)
{
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, c->method) || sps_solver_set_precond(s, c->precond) ||
      sps_solver_set_tolerances(s, RTOL, 0.0) || sps_solver_set_max_iterations(s, maxit) ||
      sps_solver_set_restart(s, c->restart) || sps_solver_set_orthogonalization(s, c->orthog) ||
      sps_solver_set_pipelined(s, c->pipelined) || sps_solver_set_history(s, 1) ||
      sps_solver_set_zero_guess(s, 1))
    sps_bail("solver settings: %s", sps_context_last_error(ctx));
  return s;
}

/* The solve's outcome into r (x and the history copied on rank 0). */
static void collect(sps_solver *s, result *r, int64_t n, int copy_x, const double *x)
{
  sps_solver_get_reason(s, &r->reason);
  sps_solver_get_iterations(s, &r->iterations);
  sps_solver_get_method(s, &r->method, &r->precond);
  const double *h;
  sps_solver_get_history(s, &h, &r->nhist);
  r->hist = malloc((size_t)(r->nhist > 0 ? r->nhist : 1) * sizeof *r->hist);
  if (!r->hist) sps_bail("out of host memory");
  if (r->nhist) memcpy(r->hist, h, (size_t)r->nhist * sizeof *h);
  if (copy_x) {
    r->x = malloc((size_t)n * sizeof *r->x);
    if (!r->x) sps_bail("out of host memory");
    memcpy(r->x, x, (size_t)n * sizeof *x);
  }
}

/* The single-process solve on A0's own (CPU) context. */
static void serial_solve(sps_context *sctx, const config *c, const sps_matrix *A0, int64_t n,
                         const double *b, result *r)
{
  sps_solver *s = make_solver(sctx, c);
  sps_vector *vb = NULL, *vx = NULL;
  double *x = malloc((size_t)n * sizeof *x);
  if (!x || sps_vector_create(sctx, &vb, n) || sps_vector_create(sctx, &vx, n) ||
      sps_vector_upload(vb, b, n))
    sps_bail("serial objects");
  r->st = sps_solver_setup(s, A0);
  if (!r->st) r->st = sps_solver_solve(s, vb, vx);
  if (r->st) sps_bail("serial solve: %s", sps_context_last_error(sctx));
  sps_vector_download(vx, x, n);
  collect(s, r, n, 1, x);
  free(x);
  sps_solver_destroy(&s);
  sps_vector_destroy(&vb);
  sps_vector_destroy(&vx);
}

/* ||b - A x|| / ||b|| in plain double on the host, apart from the library. */
static double true_residual(const sps_matrix *A, int64_t n, const double *b, const double *x)
{
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(A, &rp, &ci, &va);
  double *ax = malloc((size_t)n * sizeof *ax);
  if (!ax) sps_bail("out of host memory");
  sps_csr_matvec_host(n, rp, ci, va, x, ax);
  double rr = 0.0, bb = 0.0;
  for (int64_t i = 0; i < n; i++) {
    rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    bb += b[i] * b[i];
  }
  free(ax);
  return sqrt(rr / bb);
}

/*
 * The same solve again over each transport a distributed CUDA context has (the halo over NCCL
 * with MPI's or NCCL's reductions, then MPI for both): ref's iterations, history and x to the
 * bit every time (ref: the single process's, or with a per-rank preconditioner the first
 * distributed solve's, whose transport was AUTO's). Skipped where NCCL cannot serve (one GPU for both
 * ranks, a build without NCCL).
 */
static void transport_checks(MPI_Comm comm, sps_context *dctx, const sps_matrix *A, sps_solver *s,
                             sps_vector *vb, sps_vector *vx, int64_t n, double *x,
                             const result *ref, const char *what)
{
  static const sps_transport pairs[3][2] = {{SPS_TRANSPORT_NCCL, SPS_TRANSPORT_MPI},
                                            {SPS_TRANSPORT_NCCL, SPS_TRANSPORT_NCCL},
                                            {SPS_TRANSPORT_MPI, SPS_TRANSPORT_MPI}};
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int k = 0; k < 3; k++) {
    sps_status st = sps_context_set_transport(dctx, pairs[k][0], pairs[k][1]);
    if (st == SPS_ERR_UNSUPPORTED) {
      if (rank == 0) sps_skip("%s, halo %s, reductions %s: %s", what, sps_transport_name(pairs[k][0]),
                              sps_transport_name(pairs[k][1]), sps_context_last_error(dctx));
      continue;
    }
    if (!st) st = sps_solver_solve(s, vb, vx);
    if (st) sps_bail("%s: transport %d: %s", what, k, sps_context_last_error(dctx));
    if (sps_vector_gather(A, 0, vx, x)) sps_bail("%s: gather", what);
    result got;
    memset(&got, 0, sizeof got);
    collect(s, &got, n, 0, NULL);
    const int64_t dx = rank == 0 ? mpitest_first_diff(n, x, ref->x) : -1;
    const int64_t dh = got.nhist == ref->nhist ? mpitest_first_diff(got.nhist, got.hist, ref->hist) : 0;
    mpi_ok(comm, got.iterations == ref->iterations && got.reason == ref->reason && dx < 0 && dh < 0,
           "%s, halo over %s, reductions over %s: %d iterations, history and x equal to the "
           "%s bits%s", what, sps_transport_name(pairs[k][0]),
           sps_transport_name(pairs[k][1]), got.iterations,
           ref->per_rank ? "first distributed solve's" : "single process's", dx >= 0 ? " -- x differs" : dh >= 0 ? " -- the history differs" : "");
    result_free(&got);
  }
  if (sps_context_set_transport(dctx, SPS_TRANSPORT_AUTO, SPS_TRANSPORT_AUTO))
    sps_bail("transport back to auto: %s", sps_context_last_error(dctx));
}

static void run_config(sps_device_kind dev, const config *c)
{
  char path[1024], name[160];
  snprintf(name, sizeof name, "%s %s%s+%s", c->matrix, c->pipelined ? "pipelined " : "",
           sps_solver_type_name(c->method), sps_precond_type_name(c->precond));
  if (c->method == SPS_SOLVER_GMRES && c->orthog == SPS_ORTHOG_MGS)
    snprintf(name + strlen(name), sizeof name - strlen(name), " (MGS)");
  sps_context *sctx;
  if (sps_context_create(&sctx, SPS_DEVICE_CPU, 0)) sps_bail("serial context");
  sps_matrix *A0 = NULL;
  if (sps_matrix_read_mm(sctx, &A0, mpitest_data(c->matrix, path, sizeof path), 0))
    sps_bail("%s: %s", path, sps_context_last_error(sctx));
  int64_t n;
  sps_matrix_get_size(A0, &n, NULL, NULL);
  /* b = A x* for a seeded x*, formed apart from the library */
  const int64_t *rp;
  const int32_t *ci;
  const double *va;
  sps_matrix_get_csr(A0, &rp, &ci, &va);
  double *xs = mpitest_random(n, 5), *b = malloc((size_t)n * sizeof *b);
  double *x = malloc((size_t)n * sizeof *x);
  if (!b || !x) sps_bail("out of host memory");
  sps_csr_matvec_host(n, rp, ci, va, xs, b);
  result ref;
  memset(&ref, 0, sizeof ref);
  serial_solve(sctx, c, A0, n, b, &ref);
  if (mpitest_rank == 0)
    sps_diag("%s: single process %d iterations, %s", name, ref.iterations, sps_reason_name(ref.reason));
  for (int k = 1; k <= mpitest_size; k++) {
    MPI_Comm comm = mpitest_first(k);
    if (comm == MPI_COMM_NULL) continue;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sps_context *dctx = mpitest_context(comm, dev);
    for (int part = 0; part < 2; part++) {
      char what[320];
      snprintf(what, sizeof what, "%s, %d rank%s, %s", name, size, size == 1 ? "" : "s",
               part ? "metis" : "contiguous");
      sps_matrix *A = NULL;
      sps_status st = sps_matrix_scatter(dctx, &A, 0, rank == 0 ? A0 : NULL,
                                         part ? SPS_PARTITION_METIS : SPS_PARTITION_CONTIGUOUS);
      if (st == SPS_ERR_UNSUPPORTED && part) {
        if (rank == 0) sps_skip("%s: built without METIS", what);
        continue;
      }
      if (st) sps_bail("%s: scatter: %s", what, sps_context_last_error(dctx));
      int64_t nl;
      sps_matrix_get_size(A, &nl, NULL, NULL);
      sps_solver *s = make_solver(dctx, c);
      sps_vector *vb = NULL, *vx = NULL;
      if (sps_vector_create(dctx, &vb, nl) || sps_vector_create(dctx, &vx, nl) ||
          sps_vector_scatter(A, 0, b, vb))
        sps_bail("%s: vectors: %s", what, sps_context_last_error(dctx));
      st = sps_solver_setup(s, A);
      if (!st) st = sps_solver_solve(s, vb, vx);
      if (st) sps_bail("%s: solve: %s", what, sps_context_last_error(dctx));
      if (sps_vector_gather(A, 0, vx, x)) sps_bail("%s: gather", what);
      result got;
      memset(&got, 0, sizeof got);
      collect(s, &got, n, 0, NULL);
      if (!c->per_rank || size == 1) {
        int64_t dx = rank == 0 ? mpitest_first_diff(n, x, ref.x) : -1;
        int64_t dh = got.nhist == ref.nhist ? mpitest_first_diff(got.nhist, got.hist, ref.hist) : 0;
        mpi_ok(comm,
               got.iterations == ref.iterations && got.reason == ref.reason && dx < 0 && dh < 0 &&
                   got.method == ref.method && got.precond == ref.precond,
               "%s: %d iterations (single process %d), %s, history and x equal to the bit%s", what,
               got.iterations, ref.iterations, sps_reason_name(got.reason),
               dx >= 0 ? " -- x differs" : dh >= 0 ? " -- the history differs" : "");
      } else {
        const double rel = rank == 0 ? true_residual(A0, n, b, x) : 0.0;
        double relv = rel;
        MPI_Bcast(&relv, 1, MPI_DOUBLE, 0, comm);
        if (maxit == MAXIT)
          mpi_ok(comm, got.reason > 0 && relv <= 1.0001 * RTOL && got.method == ref.method,
                 "%s: per-rank preconditioner: %s in %d iterations (single process %d), "
                 "||b - Ax||/||b|| = %.3g formed apart, method %s", what,
                 sps_reason_name(got.reason), got.iterations, ref.iterations, relv,
                 sps_solver_type_name(got.method));
        else
          mpi_ok(comm,
                 (got.reason > 0 || got.reason == SPS_DIVERGED_MAX_ITERATIONS) &&
                     got.iterations <= maxit && relv < 1.0 && got.method == ref.method,
                 "%s: per-rank preconditioner, capped at %d iterations: %s after %d, "
                 "||b - Ax||/||b|| = %.3g formed apart (below 1, the start's), method %s", what,
                 maxit, sps_reason_name(got.reason), got.iterations, relv,
                 sps_solver_type_name(got.method));
      }
      if (dev == SPS_DEVICE_CUDA && size > 1 && !part) {
        /* per-rank preconditioners: the bits of this distributed solve, over every transport */
        result dref;
        memset(&dref, 0, sizeof dref);
        if (c->per_rank) collect(s, &dref, n, rank == 0, x);
        dref.per_rank = c->per_rank;
        transport_checks(comm, dctx, A, s, vb, vx, n, x, c->per_rank ? &dref : &ref, what);
        result_free(&dref);
      }
      result_free(&got);
      sps_solver_destroy(&s);
      sps_vector_destroy(&vb);
      sps_vector_destroy(&vx);
      sps_matrix_destroy(&A);
    }
    if (sps_context_destroy(&dctx)) sps_bail("context destroy: objects left");
    MPI_Comm_free(&comm);
  }
  mpitest_barrier();
  result_free(&ref);
  free(xs);
  free(b);
  free(x);
  sps_matrix_destroy(&A0);
  sps_context_destroy(&sctx);
}

int main(int argc, char **argv)
{
  mpitest_init(&argc, &argv);
  const sps_device_kind dev = mpitest_device();
  const char *e = getenv("SPS_TEST_MAXIT");
  if (e && *e) {
    char *end;
    const long k = strtol(e, &end, 10);
    if (*end || k < 1 || k > MAXIT) sps_bail("SPS_TEST_MAXIT=%s: not an integer in 1..%d", e, MAXIT);
    maxit = (int)k;
  }
  /* a configuration is a case: SPS_TEST_SHARD=i/k (the same on every rank) runs every k-th */
  for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++)
    if (sps_case()) run_config(dev, &configs[k]);
  return mpitest_done();
}
