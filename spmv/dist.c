/* dist.c: the SpMV of a distributed matrix: the halo exchange started, the rows that need no halo multiplied by the variant chosen for them while it runs, the exchange finished, then the boundary rows.
 *
 * A rank holds its rows split in two blocks (core/dist_matrix.h): the diagonal block (columns
 * of its own rows) and the off-diagonal block (columns of other ranks' rows, compressed to the
 * halo). Rows [0, n_pre) have no off-diagonal entry; the rest are the boundary. A product is
 *
 *   1. pack x's entries other ranks need and start the exchange (core/halo.c);
 *   2. y[0:n_pre) <- alpha A_d[0:n_pre, :] x + beta y, by the variant AUTO (or the caller)
 *      chose for those rows of the diagonal block: this overlaps the exchange;
 *   3. wait for the halo;
 *   4. y[n_pre:n) <- alpha (A_d x + A_o x_halo) + beta y, each row's terms of both blocks in
 *      one compensated sum (spmv/ref/dist.c, spmv/cuda/dist.cu).
 *
 * Every row is thus one compensated sum of the whole matrix row's terms, as csr-scalar forms it,
 * so the distributed product has the serial product's bits (bar rare ties) whatever the number
 * of ranks: step 2 runs only variants that round like csr-scalar under AUTO, and step 4 adds
 * the row's two parts into one sum instead of adding two rounded halves. The readers number
 * each rank's rows so that the boundary comes last (n_pre as large as possible); a local-rows
 * matrix keeps the caller's order, and rows after its first boundary row wait for the halo.
 */
#include <string.h>

#include "../core/comm.h"
#include "../core/dist_matrix.h"
#include "ref/kernels.h"
#include "spmv_internal.h"
#ifdef SPS_HAVE_CUDA
#include "../core/cuda_state.h"
#include "cuda/launchers.h"
#endif

struct sps_dist_spmv {
  sps_matrix head_view;  /* rows [0, n_pre) of A's diagonal block, its arrays borrowed */
  sps_spmv_plan *head;   /* the variant for them, or NULL when n_pre = 0 */
  sps_halo_exchange *ex; /* the halo exchange */
  int exchange;          /* 1: this rank sends or receives something */
  int rounds_like_csr;   /* every rank's head rounds like csr-scalar */
};

void sps_spmv_dist_destroy(sps_spmv_plan *plan)
{
  struct sps_dist_spmv *D = plan->dist;
  if (!D) return;
  sps_spmv_plan_destroy(&D->head);
  sps_halo_exchange_destroy(plan->ctx, &D->ex);
  sps_host_free(D);
  plan->dist = NULL;
}

int sps_spmv_dist_rounds_like_csr(const sps_spmv_plan *plan)
{
  return plan->dist && plan->dist->rounds_like_csr;
}

/* The head: a matrix over the first n_pre rows of A's diagonal block (prefix views of its
 * arrays, host and device), owned by nobody. */
static void head_view(const sps_matrix *A, int64_t n_pre, sps_matrix *v)
{
  memset(v, 0, sizeof *v);
  v->ctx = A->ctx;
  v->nrows = n_pre;
  v->ncols = A->ncols;
  v->nnz = A->rowptr[n_pre];
  v->rowptr = A->rowptr;
  v->colind = A->colind;
  v->values = A->values;
  v->d_rowptr = A->d_rowptr;
  v->d_rowptr32 = A->d_rowptr32;
  v->d_colind = A->d_colind;
  v->d_values = A->d_values;
  v->symmetry = SPS_SYMMETRY_UNKNOWN;
  v->borrowed = SPS_BORROWED_ROWPTR | SPS_BORROWED_COLIND | SPS_BORROWED_VALUES |
                SPS_BORROWED_D_ROWPTR | SPS_BORROWED_D_ROWPTR32 | SPS_BORROWED_D_COLIND |
                SPS_BORROWED_D_VALUES;
}

sps_status sps_spmv_dist_setup(sps_spmv_plan *plan)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  const struct sps_dist *d = A->dist;
  struct sps_dist_spmv *D = NULL;
  sps_status st = sps_host_calloc(ctx, (void **)&D, 1, sizeof *D, "distributed SpMV");
  if (!st) {
    plan->dist = D;
    if (d->n_pre > 0) {
      head_view(A, d->n_pre, &D->head_view);
      st = sps_spmv_plan_create(ctx, &D->head, &D->head_view, plan->requested);
      if (!st) {
        sps_spmv_plan_set_owned(D->head);
        st = sps_spmv_plan_set_threads_per_row(D->head, plan->tpr_requested);
      }
      if (!st) st = sps_spmv_plan_setup(D->head);
    }
  }
  st = sps_comm_agree(ctx, st);
  if (!st) st = sps_halo_exchange_create(ctx, &d->halo, &D->ex);
  if (!st) {
    D->exchange = d->halo.nrecv + d->halo.nsend > 0;
    int64_t rounds = D->head ? sps_spmv_plan_rounds_like_csr(D->head) : 1;
    st = sps_comm_allreduce_i64(ctx, &rounds, 1, SPS_COMM_MIN);
    D->rounds_like_csr = (int)rounds;
  }
  if (st) {
    sps_spmv_dist_destroy(plan);
    return st;
  }
  if (D->head) {
    plan->choice = D->head->choice;
    plan->kind = D->head->kind;
    plan->threads_per_row = D->head->threads_per_row;
  } else {
    plan->choice.kind = plan->kind = SPS_SPMV_CSR_SCALAR;
    plan->threads_per_row = 1;
    plan->choice.source = SPS_SPMV_SOURCE_RULE;
    snprintf(plan->choice.why, sizeof plan->choice.why,
             "no row of this rank is free of the halo: every row is a boundary row");
  }
  plan->choice.requested = plan->requested;
  plan->is_setup = 1;
  return SPS_SUCCESS;
}

sps_status sps_spmv_dist_apply(sps_spmv_plan *plan, double alpha, const double *x, double beta,
                               double *y)
{
  sps_context *ctx = plan->ctx;
  const sps_matrix *A = plan->A;
  const struct sps_dist *d = A->dist;
  struct sps_dist_spmv *D = plan->dist;
  const double *xh = NULL;
  if (D->exchange) SPS_CHECK(sps_halo_start(ctx, D->ex, x));
  if (D->head) {
    const double t0 = sps_wtime();
    SPS_CHECK(sps_spmv_apply_raw(D->head, alpha, x, beta, y));
    sps_comm_event(ctx, SPS_EVENT_SPMV_LOCAL, t0, sps_wtime());
  }
  if (D->exchange) SPS_CHECK(sps_halo_finish(ctx, D->ex, &xh));
  if (d->n_pre == A->nrows) return SPS_SUCCESS;
  if (!xh) xh = D->ex->recv; /* no halo: the boundary rows have no off-diagonal entry either */
  const double t0 = sps_wtime();
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA) {
    SPS_CUDA_LAUNCH(ctx, sps_cuda_dist_rows(sps_cuda(ctx)->stream, d->n_pre, A->nrows, A->d_rowptr,
                                            A->d_colind, A->d_values, d->d_offd_rowptr,
                                            d->d_offd_colind, d->d_offd_values, alpha, x, xh,
                                            beta, y));
    sps_comm_event(ctx, SPS_EVENT_SPMV_BOUNDARY, t0, sps_wtime());
    return SPS_SUCCESS;
  }
#endif
  sps_ref_dist_rows(d->n_pre, A->nrows, A->rowptr, A->colind, A->values, d->offd_rowptr,
                    d->offd_colind, d->offd_values, alpha, x, xh, beta, y);
  sps_comm_event(ctx, SPS_EVENT_SPMV_BOUNDARY, t0, sps_wtime());
  return SPS_SUCCESS;
}
