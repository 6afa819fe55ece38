/* api.c: the distributed C API: bad arguments (on every rank or on one only, refused on every rank with that rank's message), a local failure (memory) and an MPI failure agreed on by all ranks with nothing leaked, the local-rows constructor on a 1-D Laplacian with its partition facts, the halo and reduction clocks, and the timeline. */
#include "mpitest.h"

#include "../../core/comm.h" /* the failure hooks of the tests */

/* The rows [lo, hi) of the n x n 1-D Laplacian (2 on the diagonal, -1 beside it), in CSR with
 * global columns, each row's entries in descending column order. */
static void laplacian_rows(int64_t n, int64_t lo, int64_t hi, int64_t **rp, int64_t **ci, double **va)
{
  *rp = malloc((size_t)(hi - lo + 1) * sizeof **rp);
  *ci = malloc((size_t)(3 * (hi - lo) + 1) * sizeof **ci);
  *va = malloc((size_t)(3 * (hi - lo) + 1) * sizeof **va);
  if (!*rp || !*ci || !*va) sps_bail("out of host memory");
  int64_t k = 0;
  (*rp)[0] = 0;
  for (int64_t i = lo; i < hi; i++) {
    if (i + 1 < n) {
      (*ci)[k] = i + 1;
      (*va)[k++] = -1.0;
    }
    (*ci)[k] = i;
    (*va)[k++] = 2.0;
    if (i > 0) {
      (*ci)[k] = i - 1;
      (*va)[k++] = -1.0;
    }
    (*rp)[i - lo + 1] = k;
  }
}

/* st is `want` on every rank of comm and the message names `rank R` when R >= 0. */
static void expect(MPI_Comm comm, sps_context *ctx, sps_status st, sps_status want, int rank_named,
                   const char *what)
{
  const char *msg = ctx ? sps_context_last_error(ctx) : sps_context_create_error();
  char tag[32] = "";
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  /* one rank agrees with itself: its message keeps its words */
  if (size == 1) rank_named = -1;
  if (rank_named >= 0) snprintf(tag, sizeof tag, "rank %d: ", rank_named);
  char m0[200];
  snprintf(m0, sizeof m0, "%s", msg);
  mpi_ok(comm, st == want && (rank_named < 0 || strncmp(msg, tag, strlen(tag)) == 0),
         "%s: %s on every rank (%s here)%s%s%s", what, sps_status_name(want), sps_status_name(st),
         rank_named >= 0 ? " (\"" : "", rank_named >= 0 ? m0 : "", rank_named >= 0 ? "\")" : "");
}

static void bad_arguments(MPI_Comm comm, sps_device_kind dev)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int last = size - 1;
  sps_context *ctx = NULL;
  expect(comm, NULL, sps_context_create_mpi(NULL, comm, dev, -1), SPS_ERR_ARGUMENT, -1,
         "sps_context_create_mpi without ctx");
  expect(comm, NULL, sps_context_create_mpi(&ctx, MPI_COMM_NULL, dev, -1), SPS_ERR_ARGUMENT, -1,
         "sps_context_create_mpi on MPI_COMM_NULL");
  expect(comm, NULL, sps_context_create_mpi(&ctx, comm, (sps_device_kind)99, -1), SPS_ERR_ARGUMENT,
         0, "sps_context_create_mpi with an unknown device kind");
  mpi_ok(comm, ctx == NULL, "a failed creation leaves ctx NULL");
  sps_context *serial = NULL;
  if (sps_context_create(&serial, SPS_DEVICE_CPU, 0)) sps_bail("serial context");
  MPI_Comm got = MPI_COMM_WORLD;
  int gr = -1, gs = -1;
  sps_context_get_comm(serial, &got, &gr, &gs);
  mpi_ok(comm, got == MPI_COMM_NULL && gr == 0 && gs == 1,
         "sps_context_get_comm of a serial context: MPI_COMM_NULL, rank 0 of 1");
  ctx = mpitest_context(comm, dev);
  sps_context_get_comm(ctx, &got, &gr, &gs);
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(got, comm, &cmp);
  mpi_ok(comm, gr == rank && gs == size && cmp == MPI_CONGRUENT,
         "sps_context_get_comm: rank %d of %d on a duplicate of the communicator", gr, gs);
  /* local rows: the 1-D Laplacian of 10 rows per rank */
  const int64_t n = 10 * size, lo = 10 * rank, hi = lo + 10;
  int64_t *rp, *ci;
  double *va;
  laplacian_rows(n, lo, hi, &rp, &ci, &va);
  sps_matrix *A = NULL;
  expect(comm, serial, sps_matrix_create_dist_csr(serial, &A, 10, rp, ci, va), SPS_ERR_ARGUMENT,
         -1, "sps_matrix_create_dist_csr on a context without a communicator");
  expect(comm, ctx, sps_matrix_create_dist_csr(ctx, &A, rank == last ? -1 : 10, rp, ci, va),
         SPS_ERR_SIZE, last, "local rows: a negative row count on the last rank only");
  const int64_t keep = ci[0];
  if (rank == 0) ci[0] = n;
  expect(comm, ctx, sps_matrix_create_dist_csr(ctx, &A, 10, rp, ci, va), SPS_ERR_ARGUMENT, 0,
         "local rows: a column index out of range on rank 0 only");
  ci[0] = keep;
  expect(comm, ctx, sps_matrix_create_dist_csr(ctx, &A, 10, rp, rank == last ? NULL : ci, va),
         SPS_ERR_ARGUMENT, last, "local rows: colind NULL on the last rank only");
  mpi_ok(comm, A == NULL, "the refused constructions leave A NULL");
  /* the rows given twice: two ranks both claim row 0 is impossible through this API, but a
   * rank that repeats a column sums it */
  /* scatter: a root out of range, A0 NULL or rectangular on the root */
  sps_matrix *A0 = NULL, *R = NULL;
  {
    const int64_t rrp[] = {0, 1, 2};
    const int32_t rci[] = {0, 2};
    const double rva[] = {1.0, 2.0};
    if (sps_matrix_create_csr(serial, &R, 2, 3, rrp, rci, rva)) sps_bail("rectangular");
  }
  expect(comm, ctx, sps_matrix_scatter(ctx, &A, size, NULL, SPS_PARTITION_CONTIGUOUS),
         SPS_ERR_ARGUMENT, 0, "sps_matrix_scatter with root = the rank count");
  expect(comm, ctx, sps_matrix_scatter(ctx, &A, 0, NULL, SPS_PARTITION_CONTIGUOUS),
         SPS_ERR_ARGUMENT, 0, "sps_matrix_scatter with A0 NULL on the root");
  expect(comm, ctx, sps_matrix_scatter(ctx, &A, 0, rank == 0 ? R : NULL, SPS_PARTITION_CONTIGUOUS),
         SPS_ERR_SIZE, 0, "sps_matrix_scatter of a rectangular A0");
  expect(comm, ctx, sps_matrix_read_mm_dist(ctx, &A, "/nonexistent/spsolve-mpi-test.mtx", 0),
         SPS_ERR_IO, 0, "sps_matrix_read_mm_dist of a missing file");
  sps_matrix_destroy(&R);
  (void)A0;
  /* a good matrix, then vectors and solves with bad arguments */
  if (sps_matrix_create_dist_csr(ctx, &A, 10, rp, ci, va)) sps_bail("laplacian: %s", sps_context_last_error(ctx));
  sps_vector *b = NULL, *x = NULL, *wrong = NULL;
  if (sps_vector_create(ctx, &b, 10) || sps_vector_create(ctx, &x, 10) ||
      sps_vector_create(ctx, &wrong, rank == last ? 9 : 10))
    sps_bail("vectors");
  double *global = mpitest_random(n, 3);
  expect(comm, ctx, sps_vector_scatter(A, 0, global, wrong), SPS_ERR_SIZE, last,
         "sps_vector_scatter into a vector of the wrong length on the last rank only");
  expect(comm, ctx, sps_vector_scatter(A, 0, NULL, b), SPS_ERR_ARGUMENT, 0,
         "sps_vector_scatter without the global vector on the root");
  sps_matrix *serial_A = NULL;
  {
    const int64_t srp[] = {0, 1};
    const int32_t sci[] = {0};
    const double sva[] = {1.0};
    if (sps_matrix_create_csr(serial, &serial_A, 1, 1, srp, sci, sva)) sps_bail("serial matrix");
    sps_vector *sv = NULL;
    sps_vector_create(serial, &sv, 1);
    expect(comm, serial, sps_vector_scatter(serial_A, 0, global, sv), SPS_ERR_ARGUMENT, -1,
           "sps_vector_scatter with a matrix that is not distributed");
    sps_vector_destroy(&sv);
    sps_matrix_destroy(&serial_A);
  }
  int64_t rows[10];
  expect(comm, ctx, sps_matrix_get_rows(A, rows, 9), SPS_ERR_SIZE, -1,
         "sps_matrix_get_rows with room for 9 of 10 rows");
  sps_solver *s = NULL;
  if (sps_solver_create(ctx, &s, SPS_SOLVER_CG)) sps_bail("solver");
  sps_solver_set_precond(s, SPS_PRECOND_CHEBY);
  expect(comm, ctx, sps_solver_setup(s, A), SPS_ERR_UNSUPPORTED, 0,
         "CG with Chebyshev on a distributed matrix");
  sps_solver_set_precond(s, SPS_PRECOND_AMG);
  expect(comm, ctx, sps_solver_setup(s, A), SPS_ERR_UNSUPPORTED, 0,
         "CG with AMG on a distributed matrix");
  sps_solver_set_precond(s, SPS_PRECOND_JACOBI);
  if (sps_solver_setup(s, A)) sps_bail("setup: %s", sps_context_last_error(ctx));
  sps_vector_fill(b, 1.0);
  expect(comm, ctx, sps_solver_solve(s, rank == last ? wrong : b, x), SPS_ERR_SIZE, last,
         "a solve with b of the wrong length on the last rank only");
  sps_reason reason = SPS_REASON_NONE;
  const sps_status again = sps_solver_solve(s, b, x);
  sps_solver_get_reason(s, &reason);
  mpi_ok(comm, again == SPS_SUCCESS && reason > 0, "after the refused solve the solver still solves (%s)",
         sps_reason_name(reason));
  /* a memory failure on one rank only, at setup: every rank fails with its message, nothing
   * is left allocated, and the next setup works */
  const long live = sps_test_alloc_live();
  if (rank == last) sps_test_alloc_fail_at(3);
  const sps_status st = sps_solver_setup(s, A);
  sps_test_alloc_fail_at(0);
  expect(comm, ctx, st, SPS_ERR_HOST_MEMORY, last,
         "the third allocation of a setup failing on the last rank only");
  mpi_ok(comm, sps_test_alloc_live() <= live, "the failed setup left no block allocated");
  mpi_ok(comm, sps_solver_setup(s, A) == SPS_SUCCESS && sps_solver_solve(s, b, x) == SPS_SUCCESS,
         "the next setup and solve work");
  /* an MPI failure inside a solve: the same reduction on every rank */
  if (size > 1) {
    sps_vector_fill(x, 0.0);
    sps_test_mpi_fail_at(5);
    const sps_status sm = sps_solver_solve(s, b, x);
    sps_test_mpi_fail_at(0);
    expect(comm, ctx, sm, SPS_ERR_MPI, -1, "the fifth reduction of a solve failing in MPI");
    sps_vector_fill(x, 0.0);
    mpi_ok(comm, sps_solver_solve(s, b, x) == SPS_SUCCESS, "the next solve works");
  } else if (rank == 0) {
    sps_skip("an MPI failure inside a solve: one rank makes no exchange");
  }
  mpi_ok(comm, sps_context_destroy(&ctx) == SPS_ERR_BUSY && ctx != NULL,
         "a distributed context with live objects is not destroyed");
  sps_solver_destroy(&s);
  sps_vector_destroy(&b);
  sps_vector_destroy(&x);
  sps_vector_destroy(&wrong);
  sps_matrix_destroy(&A);
  mpi_ok(comm, sps_context_destroy(&ctx) == SPS_SUCCESS && ctx == NULL,
         "with its objects destroyed, it is");
  sps_context_destroy(&serial);
  free(rp);
  free(ci);
  free(va);
  free(global);
}

/* The local-rows constructor on the 1-D Laplacian: the partition facts, a CG solve, and the
 * clocks and timeline of the distributed work. */
static void local_rows(MPI_Comm comm, sps_device_kind dev)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  sps_context *ctx = mpitest_context(comm, dev);
  /* ranks hold 30, 31, 32, ... rows */
  int64_t n = 0, lo = 0;
  for (int r = 0; r < size; r++) {
    if (r == rank) lo = n;
    n += 30 + r;
  }
  const int64_t nl = 30 + rank, hi = lo + nl;
  int64_t *rp, *ci;
  double *va;
  laplacian_rows(n, lo, hi, &rp, &ci, &va);
  sps_matrix *A = NULL;
  if (sps_matrix_create_dist_csr(ctx, &A, nl, rp, ci, va)) sps_bail("laplacian: %s", sps_context_last_error(ctx));
  sps_dist_info f;
  sps_matrix_get_dist_info(A, &f);
  const int nb = (rank > 0) + (rank < size - 1);
  int64_t rows[64];
  sps_matrix_get_rows(A, rows, nl);
  int rows_ok = 1;
  for (int64_t i = 0; i < nl; i++) rows_ok = rows_ok && rows[i] == lo + i;
  mpi_ok(comm,
         f.ranks == size && f.rows == n && f.nnz == 3 * n - 2 && f.first_row == lo &&
             f.rows_local == nl && f.halo_local == nb && f.neighbors_local == nb &&
             f.halo_total == 2 * (size - 1) && f.cut_nnz == 2 * (size - 1) && !f.reordered &&
             f.rows_min == 30 && f.rows_max == 30 + size - 1 && rows_ok &&
             f.overlap_rows == (rank == 0 ? (size > 1 ? nl - 1 : nl) : 0),
         "1-D Laplacian from local rows, %d ranks: %lld rows, %lld entries, halo %lld of %lld, "
         "rows kept in the given order, %lld rows before the first boundary row",
         size, (long long)f.rows, (long long)f.nnz, (long long)f.halo_local,
         (long long)f.halo_total, (long long)f.overlap_rows);
  /* x* = (1, ..., 1): b = A x* is 1 on the first row, 1 on the last, 0 elsewhere */
  double bl[64], xl[64];
  for (int64_t i = 0; i < nl; i++) bl[i] = (lo + i == 0 || lo + i == n - 1) ? 1.0 : 0.0;
  sps_vector *b = NULL, *x = NULL;
  sps_solver *s = NULL;
  if (sps_vector_create(ctx, &b, nl) || sps_vector_create(ctx, &x, nl) ||
      sps_vector_upload(b, bl, nl) || sps_solver_create(ctx, &s, SPS_SOLVER_CG) ||
      sps_solver_set_precond(s, SPS_PRECOND_NONE) || sps_solver_set_tolerances(s, 1e-12, 0.0) ||
      sps_solver_setup(s, A))
    sps_bail("solve objects: %s", sps_context_last_error(ctx));
  sps_context_reset_comm_times(ctx);
  if (sps_context_set_timeline(ctx, 100000)) sps_bail("timeline");
  sps_reason reason;
  int its;
  if (sps_solver_solve(s, b, x) || sps_vector_download(x, xl, nl)) sps_bail("solve");
  sps_solver_get_reason(s, &reason);
  sps_solver_get_iterations(s, &its);
  double err = 0.0;
  for (int64_t i = 0; i < nl; i++) err = fmax(err, fabs(xl[i] - 1.0));
  mpi_ok(comm, reason > 0 && err < 1e-8,
         "CG on the local rows converges (%s, %d iterations) to x* = 1 (max error %.2g)",
         sps_reason_name(reason), its, err);
  sps_comm_times t;
  sps_context_get_comm_times(ctx, &t);
  const sps_event *ev;
  int64_t count, dropped;
  sps_context_get_timeline(ctx, &ev, &count, &dropped);
  int order_ok = dropped == 0 && count > 0, kinds[SPS_EVENT_KIND_COUNT] = {0};
  for (int64_t k = 0; k < count; k++) {
    order_ok = order_ok && ev[k].end >= ev[k].start && ev[k].start >= 0.0 &&
               (k == 0 || ev[k].start >= ev[k - 1].start) && (int)ev[k].kind >= 0 &&
               ev[k].kind < SPS_EVENT_KIND_COUNT;
    if ((int)ev[k].kind >= 0 && ev[k].kind < SPS_EVENT_KIND_COUNT) kinds[ev[k].kind]++;
  }
  /* CG: one product per iteration, plus the residuals at the start and the end */
  const int want_exchanges = size > 1;
  mpi_ok(comm,
         order_ok && (!want_exchanges || (t.halo_exchanges >= its && t.reductions >= 2 * its &&
                                          kinds[SPS_EVENT_HALO_START] == t.halo_exchanges &&
                                          kinds[SPS_EVENT_HALO_WAIT] == t.halo_exchanges &&
                                          kinds[SPS_EVENT_REDUCE] == t.reductions)) &&
             (want_exchanges || (t.halo_exchanges == 0 && t.reductions == 0)),
         "clocks and timeline: %lld exchanges of %lld bytes, %lld reductions, %lld events in "
         "order (%d local products, %d boundary products)",
         (long long)t.halo_exchanges, (long long)t.halo_bytes, (long long)t.reductions,
         (long long)count, kinds[SPS_EVENT_SPMV_LOCAL], kinds[SPS_EVENT_SPMV_BOUNDARY]);
  mpi_ok(comm, !strcmp(sps_event_kind_name(SPS_EVENT_HALO_WAIT), "halo-wait") &&
                   sps_event_kind_name(SPS_EVENT_KIND_COUNT) == NULL,
         "the event kinds have names");
  sps_context_set_timeline(ctx, 0);
  sps_solver_destroy(&s);
  sps_vector_destroy(&b);
  sps_vector_destroy(&x);
  sps_matrix_destroy(&A);
  sps_context_destroy(&ctx);
  free(rp);
  free(ci);
  free(va);
}

/*
 * sps_context_set_transport and _get_transport: bad values and contexts refused; MPI always
 * taken; NCCL taken exactly where it can serve (a build with NCCL, a CUDA context, more than
 * one rank, a GPU a rank), else refused with the reason, the same on every rank; AUTO resolved
 * to NCCL for the halo and the reductions exactly where NCCL can serve, for either of them
 * alone too. The solves' bits over each transport are
 * held to the single process's in tests/mpi/solvers.c.
 */
static void transports(MPI_Comm comm, sps_device_kind dev)
{
  int size;
  MPI_Comm_size(comm, &size);
  sps_context *ctx = mpitest_context(comm, dev), *plain = NULL;
  sps_transport h = SPS_TRANSPORT_AUTO, r = SPS_TRANSPORT_AUTO;
  sps_context_get_transport(ctx, &h, &r);
  const sps_transport auto_halo = h, auto_reduce = r;
  mpi_ok(comm, (h == SPS_TRANSPORT_MPI || h == SPS_TRANSPORT_NCCL) && r == h,
         "%d rank%s: a new context's transports resolve to halo %s, reductions %s", size,
         size == 1 ? "" : "s", sps_transport_name(h), sps_transport_name(r));
  expect(comm, ctx, sps_context_set_transport(ctx, (sps_transport)7, SPS_TRANSPORT_MPI),
         SPS_ERR_ARGUMENT, -1, "sps_context_set_transport with an unknown halo transport");
  expect(comm, ctx, sps_context_set_transport(ctx, SPS_TRANSPORT_MPI, (sps_transport)-1),
         SPS_ERR_ARGUMENT, -1, "sps_context_set_transport with an unknown reduction transport");
  if (sps_context_create(&plain, SPS_DEVICE_CPU, 0)) sps_bail("plain context");
  mpi_ok(comm,
         sps_context_set_transport(plain, SPS_TRANSPORT_MPI, SPS_TRANSPORT_MPI) == SPS_ERR_ARGUMENT &&
             sps_context_set_transport(NULL, SPS_TRANSPORT_MPI, SPS_TRANSPORT_MPI) == SPS_ERR_ARGUMENT,
         "sps_context_set_transport refuses a context of one process and NULL");
  sps_context_destroy(&plain);
  mpi_ok(comm,
         sps_transport_name(SPS_TRANSPORT_NCCL) && !strcmp(sps_transport_name(SPS_TRANSPORT_NCCL), "nccl") &&
             sps_transport_name((sps_transport)9) == NULL,
         "sps_transport_name names the transports and no other value");
  sps_status st = sps_context_set_transport(ctx, SPS_TRANSPORT_MPI, SPS_TRANSPORT_MPI);
  sps_context_get_transport(ctx, &h, &r);
  mpi_ok(comm, st == SPS_SUCCESS && h == SPS_TRANSPORT_MPI && r == SPS_TRANSPORT_MPI,
         "%d rank%s: MPI for both is taken", size, size == 1 ? "" : "s");
  st = sps_context_set_transport(ctx, SPS_TRANSPORT_NCCL, SPS_TRANSPORT_NCCL);
  const int nccl = st == SPS_SUCCESS;
  char why[200];
  snprintf(why, sizeof why, "%s", nccl ? "" : sps_context_last_error(ctx));
  sps_context_get_transport(ctx, &h, &r);
  /* where NCCL is refused, why: a CPU context, one rank, a shared GPU or a build without it */
  const int cannot = dev == SPS_DEVICE_CPU || size == 1 || !sps_have_cuda();
  int all = nccl, any = nccl;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
  mpi_ok(comm,
         all == any && (!cannot || !nccl) &&
             (nccl ? h == SPS_TRANSPORT_NCCL && r == SPS_TRANSPORT_NCCL
                   : st == SPS_ERR_UNSUPPORTED && strstr(why, "NCCL cannot serve") &&
                         h == SPS_TRANSPORT_MPI && r == SPS_TRANSPORT_MPI),
         "%d rank%s, %s: NCCL %s, the same on every rank%s%s", size, size == 1 ? "" : "s",
         dev == SPS_DEVICE_CPU ? "CPU" : "CUDA", nccl ? "taken for both" : "refused",
         nccl ? "" : ": ", why);
  mpi_ok(comm, (auto_halo == SPS_TRANSPORT_NCCL) == nccl && (auto_reduce == SPS_TRANSPORT_NCCL) == nccl,
         "AUTO took NCCL for the halo and the reductions exactly where NCCL can serve (%s)",
         nccl ? "it can" : "it cannot");
  st = sps_context_set_transport(ctx, SPS_TRANSPORT_AUTO, SPS_TRANSPORT_AUTO);
  sps_context_get_transport(ctx, &h, &r);
  mpi_ok(comm, st == SPS_SUCCESS && h == auto_halo && r == auto_reduce,
         "back to AUTO: halo %s, reductions %s", sps_transport_name(h), sps_transport_name(r));
  /* AUTO for one of them alone follows NCCL too: MPI's halo with AUTO's reductions */
  st = sps_context_set_transport(ctx, SPS_TRANSPORT_MPI, SPS_TRANSPORT_AUTO);
  sps_context_get_transport(ctx, &h, &r);
  mpi_ok(comm, st == SPS_SUCCESS && h == SPS_TRANSPORT_MPI && r == auto_reduce,
         "halo MPI, reductions AUTO: halo %s, reductions %s", sps_transport_name(h),
         sps_transport_name(r));
  if (sps_context_destroy(&ctx)) sps_bail("context destroy");
}

int main(int argc, char **argv)
{
  mpitest_init(&argc, &argv);
  const sps_device_kind dev = mpitest_device();
  for (int k = 1; k <= mpitest_size; k++) {
    MPI_Comm comm = mpitest_first(k);
    if (comm == MPI_COMM_NULL) continue;
    bad_arguments(comm, dev);
    local_rows(comm, dev);
    transports(comm, dev);
    MPI_Comm_free(&comm);
  }
  mpitest_barrier();
  return mpitest_done();
}
