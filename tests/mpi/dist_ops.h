/* dist_ops.h: the distributed operations the allocation-failure loops run (tests/mpi/alloc_fail on several ranks, tests/unit/alloc_fail on one): each makes what it needs on a communicator, destroys all it made and returns the first failing status. */
#ifndef SPS_DIST_OPS_H
#define SPS_DIST_OPS_H

#include <mpi.h>

#include "spsolve_mpi.h"

/* What an operation works on: the communicator, a matrix (its file, rank 0's copy, this
 * rank's rows), and what to do. The matrix is read before the failure loop runs. */
typedef struct dist_env {
  MPI_Comm comm;
  const char *path;        /* a Matrix Market matrix (square, SPD) */
  const sps_matrix *A0;    /* rank 0: the matrix to scatter; NULL elsewhere */
  int64_t nlocal;          /* this rank's contiguous block of its rows, global columns */
  const int64_t *rp, *ci;
  const double *va;
  int what;                /* DIST_OP_* */
  sps_solver_type method;
  sps_precond_type precond;
  int pipelined;
} dist_env;

enum {
  DIST_OP_CONTEXT,   /* create and destroy a context */
  DIST_OP_LOCAL,     /* a matrix from local rows */
  DIST_OP_SCATTER,   /* a matrix scattered from rank 0 (contiguous), vectors scattered, gathered */
  DIST_OP_METIS,     /* the same partitioned by METIS (SPS_ERR_UNSUPPORTED without it) */
  DIST_OP_READ,      /* a matrix read by every rank */
  DIST_OP_SPMV,      /* an SpMV plan (AUTO) set up and applied, with a timeline */
  DIST_OP_SOLVE      /* a solver set up and run */
};

/* The ranks' agreement in the caller's code, as a program of the library needs it around its
 * own local steps: 1 when some rank failed (and *st a failure on every rank). */
static inline int dist_op_failed(MPI_Comm comm, sps_status *st)
{
  int bad = *st != SPS_SUCCESS;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
  if (bad && !*st) *st = SPS_ERR_HOST_MEMORY;
  return bad;
}

static inline sps_status dist_op(void *e)
{
  const dist_env *v = e;
  sps_context *ctx = NULL;
  sps_matrix *A = NULL;
  sps_vector *x = NULL, *y = NULL;
  sps_spmv_plan *plan = NULL;
  sps_solver *s = NULL;
  double *g = NULL;
  int rank;
  MPI_Comm_rank(v->comm, &rank);
  sps_status st = sps_context_create_mpi(&ctx, v->comm, SPS_DEVICE_CPU, -1);
  if (st || v->what == DIST_OP_CONTEXT) goto done;
  switch (v->what) {
  case DIST_OP_SCATTER:
  case DIST_OP_METIS:
    st = sps_matrix_scatter(ctx, &A, 0, rank == 0 ? v->A0 : NULL,
                            v->what == DIST_OP_METIS ? SPS_PARTITION_METIS : SPS_PARTITION_CONTIGUOUS);
    break;
  case DIST_OP_READ:
    st = sps_matrix_read_mm_dist(ctx, &A, v->path, 0);
    break;
  default:
    st = sps_matrix_create_dist_csr(ctx, &A, v->nlocal, v->rp, v->ci, v->va);
    break;
  }
  if (st) goto done;
  int64_t nl, n;
  sps_matrix_get_size(A, &nl, NULL, NULL);
  sps_dist_info f;
  sps_matrix_get_dist_info(A, &f);
  n = f.rows;
  st = sps_vector_create(ctx, &x, nl);
  if (!st) st = sps_vector_create(ctx, &y, nl);
  /* one rank's failure must not leave the others in the next collective call */
  if (dist_op_failed(v->comm, &st)) goto done;
  if (v->what == DIST_OP_SCATTER || v->what == DIST_OP_METIS) {
    g = calloc((size_t)n, sizeof *g);
    if (!g) return SPS_ERR_STATE;
    for (int64_t i = 0; i < n; i++) g[i] = 1.0 + (double)(i % 7);
    st = sps_vector_scatter(A, 0, g, x);
    if (!st) st = sps_vector_gather(A, 0, x, g);
  } else if (v->what == DIST_OP_SPMV) {
    st = sps_context_set_timeline(ctx, 64);
    if (!st) st = sps_spmv_plan_create(ctx, &plan, A, SPS_SPMV_AUTO);
    if (dist_op_failed(v->comm, &st)) goto done;
    st = sps_spmv_plan_setup(plan);
    if (!st) st = sps_vector_fill(x, 1.0);
    if (!st) st = sps_spmv_apply(plan, 1.0, x, 0.0, y);
  } else if (v->what == DIST_OP_SOLVE) {
    st = sps_solver_create(ctx, &s, v->method);
    if (!st) st = sps_solver_set_precond(s, v->precond);
    if (!st) st = sps_solver_set_pipelined(s, v->pipelined);
    if (dist_op_failed(v->comm, &st)) goto done;
    st = sps_solver_setup(s, A);
    if (!st) st = sps_vector_fill(y, 1.0);
    if (!st) st = sps_solver_solve(s, y, x);
    sps_reason r = SPS_REASON_NONE;
    if (!st) sps_solver_get_reason(s, &r);
    if (!st && r <= 0) st = SPS_ERR_STATE; /* a solve that should converge and did not */
  }
done:
  free(g);
  sps_solver_destroy(&s);
  sps_spmv_plan_destroy(&plan);
  sps_vector_destroy(&x);
  sps_vector_destroy(&y);
  sps_matrix_destroy(&A);
  if (sps_context_destroy(&ctx)) st = SPS_ERR_BUSY;
  return st;
}

#endif /* SPS_DIST_OPS_H */
