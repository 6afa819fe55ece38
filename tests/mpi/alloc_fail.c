/* alloc_fail.c: the allocation-failure loop on several ranks: for each distributed operation (a context, a matrix from local rows, scattered contiguously and by METIS, read by every rank, an SpMV plan, each method with the per-rank preconditioners), the k-th host allocation of every rank is made to fail, k = 1, 2, ..., until no rank's fires; each time every rank must return SPS_ERR_HOST_MEMORY (whichever rank failed) and leave no block allocated. */
#include "mpitest.h"

#include "../../core/internal.h" /* the allocation-failure hook */
#include "dist_ops.h"

#define K_MAX 20000

static void alloc_loop_mpi(const char *name, dist_env *env)
{
  const long base = sps_test_alloc_live();
  long k = 1, bad_k = 0, leak_k = 0, allocs = 0;
  sps_status bad_st = SPS_SUCCESS;
  for (;; k++) {
    if (k > K_MAX) sps_bail("%s: more than %d allocations", name, K_MAX);
    sps_test_alloc_fail_at(k);
    const sps_status st = dist_op(env);
    int fired = sps_test_alloc_fired();
    const long count = sps_test_alloc_count();
    sps_test_alloc_fail_at(0);
    MPI_Allreduce(MPI_IN_PLACE, &fired, 1, MPI_INT, MPI_MAX, env->comm);
    const long live = sps_test_alloc_live() - base;
    if (!bad_k && st != (fired ? SPS_ERR_HOST_MEMORY : SPS_SUCCESS)) {
      bad_k = k;
      bad_st = st;
    }
    if (!leak_k && live != 0) leak_k = k;
    if (!fired) {
      allocs = count;
      break;
    }
  }
  long most = allocs;
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_LONG, MPI_MAX, env->comm);
  mpi_ok(env->comm, bad_k == 0 && leak_k == 0,
         "%s: up to %ld allocations a rank; failing the k-th on every rank (k = 1..%ld) returned "
         "SPS_ERR_HOST_MEMORY everywhere and freed everything%s",
         name, most, k - 1, bad_k || leak_k ? " -- NOT SO on some rank" : "");
  if (bad_k) fprintf(stderr, "rank %d: k = %ld returned %s\n", mpitest_rank, bad_k, sps_status_name(bad_st));
  if (leak_k) fprintf(stderr, "rank %d: k = %ld left blocks allocated\n", mpitest_rank, leak_k);
}

int main(int argc, char **argv)
{
  mpitest_init(&argc, &argv);
  char path[1024];
  mpitest_data("nos3.mtx.gz", path, sizeof path);
  /* the matrix, read before the loops: rank 0's whole copy and every rank's block of rows */
  sps_context *sctx;
  sps_matrix *A0 = NULL;
  if (sps_context_create(&sctx, SPS_DEVICE_CPU, 0) || sps_matrix_read_mm(sctx, &A0, path, 0))
    sps_bail("nos3");
  int64_t n;
  const int64_t *frp;
  const int32_t *fci;
  const double *fva;
  sps_matrix_get_size(A0, &n, NULL, NULL);
  sps_matrix_get_csr(A0, &frp, &fci, &fva);
  const int64_t lo = (int64_t)mpitest_rank * n / mpitest_size, hi = (int64_t)(mpitest_rank + 1) * n / mpitest_size;
  int64_t *rp = malloc((size_t)(hi - lo + 1) * sizeof *rp), *ci = malloc((size_t)(frp[hi] - frp[lo]) * sizeof *ci);
  double *va = malloc((size_t)(frp[hi] - frp[lo]) * sizeof *va);
  if (!rp || !ci || !va) sps_bail("out of host memory");
  for (int64_t i = lo; i <= hi; i++) rp[i - lo] = frp[i] - frp[lo];
  for (int64_t k = frp[lo]; k < frp[hi]; k++) {
    ci[k - frp[lo]] = fci[k];
    va[k - frp[lo]] = fva[k];
  }
  dist_env base = {MPI_COMM_WORLD, path, mpitest_rank == 0 ? A0 : NULL, hi - lo, rp, ci, va,
                   DIST_OP_CONTEXT, SPS_SOLVER_CG, SPS_PRECOND_NONE, 0};
  struct {
    const char *name;
    int what;
    sps_solver_type method;
    sps_precond_type precond;
    int pipelined;
  } ops[] = {
      {"a distributed context", DIST_OP_CONTEXT, 0, 0, 0},
      {"a matrix from local rows", DIST_OP_LOCAL, 0, 0, 0},
      {"a matrix scattered in contiguous blocks, a vector scattered and gathered", DIST_OP_SCATTER, 0, 0, 0},
      {"a matrix scattered by METIS, a vector scattered and gathered", DIST_OP_METIS, 0, 0, 0},
      {"a matrix read by every rank", DIST_OP_READ, 0, 0, 0},
      {"an SpMV plan (AUTO) with a timeline", DIST_OP_SPMV, 0, 0, 0},
      {"cg + jacobi", DIST_OP_SOLVE, SPS_SOLVER_CG, SPS_PRECOND_JACOBI, 0},
      {"pipelined cg + none", DIST_OP_SOLVE, SPS_SOLVER_CG, SPS_PRECOND_NONE, 1},
      {"cg + ic0 on each rank's block", DIST_OP_SOLVE, SPS_SOLVER_CG, SPS_PRECOND_IC0, 0},
      {"gmres + ilu0 on each rank's block", DIST_OP_SOLVE, SPS_SOLVER_GMRES, SPS_PRECOND_ILU0, 0},
      {"bicgstab + bjacobi", DIST_OP_SOLVE, SPS_SOLVER_BICGSTAB, SPS_PRECOND_BJACOBI, 0},
      {"gmres + ilut on each rank's block", DIST_OP_SOLVE, SPS_SOLVER_GMRES, SPS_PRECOND_ILUT, 0},
      {"auto + auto", DIST_OP_SOLVE, SPS_SOLVER_AUTO, SPS_PRECOND_AUTO, 0},
  };
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    dist_env e = base;
    e.what = ops[o].what;
    e.method = ops[o].method;
    e.precond = ops[o].precond;
    e.pipelined = ops[o].pipelined;
    if (e.what == DIST_OP_METIS) {
      /* without METIS the scatter is refused before any allocation: nothing to loop over */
      const sps_status st = dist_op(&e);
      if (st == SPS_ERR_UNSUPPORTED) {
        if (mpitest_rank == 0) sps_skip("%s: built without METIS", ops[o].name);
        continue;
      }
    }
    alloc_loop_mpi(ops[o].name, &e);
  }
  free(rp);
  free(ci);
  free(va);
  sps_matrix_destroy(&A0);
  sps_context_destroy(&sctx);
  return mpitest_done();
}
