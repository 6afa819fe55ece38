/* halo.c: the halo plan of a distributed matrix (who sends which entries of x to whom) and its exchange with persistent MPI requests, on host or device buffers. */
#include <string.h>

#include "comm.h"
#include "comm_nccl.h"
#include "halo.h"
#ifdef SPS_HAVE_CUDA
#include "cuda_state.h"
#endif

/* The tag of the halo messages on the library's communicator: an exchange ends before the next
 * begins, so one tag serves every plan. */
#define HALO_TAG 7301

#define HALO_MPI(ctx, call)                                                                \
  do {                                                                                     \
    const int halo_e_ = (call);                                                            \
    if (halo_e_ != MPI_SUCCESS) SPS_TRY(sps_comm_fail((ctx), halo_e_, #call));             \
  } while (0)

void sps_halo_plan_free(sps_context *ctx, sps_halo_plan *h)
{
  if (h->d_send_idx && h->d_send_idx != h->send_idx) ctx->be->free(ctx, h->d_send_idx);
  sps_host_free(h->halo_old);
  sps_host_free(h->recv_rank);
  sps_host_free(h->recv_off);
  sps_host_free(h->send_rank);
  sps_host_free(h->send_off);
  sps_host_free(h->send_idx);
  memset(h, 0, sizeof *h);
}

sps_status sps_halo_plan_build(sps_context *ctx, sps_halo_plan *h, int64_t n_halo,
                               const int32_t *owner, const int64_t *old,
                               const sps_dist_lookup *lk)
{
  struct sps_comm *c = ctx->comm;
  const int p = c->size;
  int *cnt_out = NULL, *cnt_in = NULL, *dsp_out = NULL, *dsp_in = NULL;
  int64_t *asked = NULL;
  sps_status st = SPS_SUCCESS;
  memset(h, 0, sizeof *h);
  h->n_halo = n_halo;
  if (n_halo > INT32_MAX) {
    st = sps_error_set(ctx, SPS_ERR_SIZE, "halo of %lld entries exceeds %d", (long long)n_halo,
                       INT32_MAX);
    goto agree1;
  }
  st = sps_host_alloc(ctx, (void **)&h->halo_old, (size_t)(n_halo > 0 ? n_halo : 1),
                      sizeof *h->halo_old, "halo indices");
  if (!st) st = sps_host_calloc(ctx, (void **)&cnt_out, (size_t)p, sizeof *cnt_out, "halo counts");
  if (!st) st = sps_host_calloc(ctx, (void **)&cnt_in, (size_t)p, sizeof *cnt_in, "halo counts");
  if (!st) st = sps_host_calloc(ctx, (void **)&dsp_out, (size_t)p + 1, sizeof *dsp_out, "halo offsets");
  if (!st) st = sps_host_calloc(ctx, (void **)&dsp_in, (size_t)p + 1, sizeof *dsp_in, "halo offsets");
  if (!st) {
    if (n_halo > 0) memcpy(h->halo_old, old, (size_t)n_halo * sizeof *old);
    for (int64_t s = 0; s < n_halo; s++) cnt_out[owner[s]]++;
    for (int q = 0; q < p; q++) {
      dsp_out[q + 1] = dsp_out[q] + cnt_out[q];
      h->nrecv += cnt_out[q] > 0;
    }
    st = sps_host_alloc(ctx, (void **)&h->recv_rank, (size_t)h->nrecv + 1, sizeof *h->recv_rank,
                        "halo senders");
  }
  if (!st)
    st = sps_host_alloc(ctx, (void **)&h->recv_off, (size_t)h->nrecv + 1, sizeof *h->recv_off,
                        "halo receive offsets");
  if (!st) {
    int k = 0;
    h->recv_off[0] = 0;
    for (int q = 0; q < p; q++)
      if (cnt_out[q] > 0) {
        h->recv_rank[k] = q;
        h->recv_off[k + 1] = dsp_out[q + 1];
        k++;
      }
  }
agree1:
  SPS_TRY(sps_comm_agree(ctx, st));
  /* what each rank asks of this one */
  HALO_MPI(ctx, MPI_Alltoall(cnt_out, 1, MPI_INT, cnt_in, 1, MPI_INT, c->comm));
  for (int q = 0; q < p; q++) {
    if ((int64_t)dsp_in[q] + cnt_in[q] > INT32_MAX) {
      st = sps_error_set(ctx, SPS_ERR_SIZE, "the halo this rank sends exceeds %d entries",
                         INT32_MAX);
      break;
    }
    dsp_in[q + 1] = dsp_in[q] + cnt_in[q];
    h->nsend += cnt_in[q] > 0;
  }
  const int64_t total = dsp_in[p];
  if (!st)
    st = sps_host_alloc(ctx, (void **)&asked, (size_t)(total > 0 ? total : 1), sizeof *asked,
                        "halo requests");
  SPS_TRY(sps_comm_agree(ctx, st));
  HALO_MPI(ctx, MPI_Alltoallv(old, cnt_out, dsp_out, MPI_INT64_T, asked, cnt_in, dsp_in,
                              MPI_INT64_T, c->comm));
  /* the asked rows' local positions, grouped by asking rank */
  st = sps_host_alloc(ctx, (void **)&h->send_idx, (size_t)(total > 0 ? total : 1),
                      sizeof *h->send_idx, "halo send indices");
  if (!st)
    st = sps_host_alloc(ctx, (void **)&h->send_rank, (size_t)h->nsend + 1, sizeof *h->send_rank,
                        "halo receivers");
  if (!st)
    st = sps_host_alloc(ctx, (void **)&h->send_off, (size_t)h->nsend + 1, sizeof *h->send_off,
                        "halo send offsets");
  if (!st) {
    int k = 0;
    h->send_off[0] = 0;
    for (int q = 0; q < p; q++)
      if (cnt_in[q] > 0) {
        h->send_rank[k] = q;
        h->send_off[k + 1] = dsp_in[q + 1];
        k++;
      }
    for (int64_t i = 0; i < total && !st; i++) {
      const int64_t pos = sps_dist_lookup_find(lk, asked[i]);
      if (pos < 0)
        st = sps_error_set(ctx, SPS_ERR_ARGUMENT,
                           "a rank asked for row %lld, which this rank does not hold",
                           (long long)asked[i]);
      else
        h->send_idx[i] = (int32_t)pos;
    }
  }
  if (!st) {
    if (ctx->kind == SPS_DEVICE_CPU) {
      h->d_send_idx = h->send_idx;
    } else {
      const size_t bytes = (size_t)(total > 0 ? total : 1) * sizeof *h->send_idx;
      st = ctx->be->malloc(ctx, (void **)&h->d_send_idx, bytes, "halo send indices");
      if (!st) st = ctx->be->upload(ctx, h->d_send_idx, h->send_idx, (size_t)total * sizeof *h->send_idx);
    }
  }
  st = sps_comm_agree(ctx, st);
cleanup:
  sps_host_free(cnt_out);
  sps_host_free(cnt_in);
  sps_host_free(dsp_out);
  sps_host_free(dsp_in);
  sps_host_free(asked);
  if (st) sps_halo_plan_free(ctx, h);
  return st;
}

void sps_halo_exchange_destroy(sps_context *ctx, sps_halo_exchange **ep)
{
  sps_halo_exchange *e = ep ? *ep : NULL;
  if (!e) return;
  const sps_halo_plan *h = e->plan;
  if (e->req) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (int q = 0; q < h->nrecv + h->nsend && !finalized; q++)
      if (e->req[q] != MPI_REQUEST_NULL) MPI_Request_free(&e->req[q]);
  }
  sps_host_free(e->req);
  if (e->send) ctx->be->free(ctx, e->send);
  if (e->recv) ctx->be->free(ctx, e->recv);
#ifdef SPS_HAVE_CUDA
  if (e->host_send) cudaFreeHost(e->host_send);
  if (e->host_recv) cudaFreeHost(e->host_recv);
#endif
  sps_host_free(e);
  *ep = NULL;
}

sps_status sps_halo_exchange_create(sps_context *ctx, const sps_halo_plan *h,
                                    sps_halo_exchange **out)
{
  struct sps_comm *c = ctx->comm;
  sps_halo_exchange *e = NULL;
  sps_status st = SPS_SUCCESS;
  *out = NULL;
  const int64_t nsend = h->send_off ? h->send_off[h->nsend] : 0;
  SPS_TRY(sps_host_calloc(ctx, (void **)&e, 1, sizeof *e, "halo exchange"));
  e->plan = h;
  e->staged = ctx->kind == SPS_DEVICE_CUDA && !c->cuda_aware;
  SPS_TRY(ctx->be->malloc(ctx, (void **)&e->send, (size_t)(nsend > 0 ? nsend : 1) * sizeof(double),
                          "halo send buffer"));
  SPS_TRY(ctx->be->malloc(ctx, (void **)&e->recv,
                          (size_t)(h->n_halo > 0 ? h->n_halo : 1) * sizeof(double), "halo"));
#ifdef SPS_HAVE_CUDA
  if (e->staged) {
    const size_t sb = (size_t)(nsend > 0 ? nsend : 1) * sizeof(double);
    const size_t rb = (size_t)(h->n_halo > 0 ? h->n_halo : 1) * sizeof(double);
    if (cudaMallocHost((void **)&e->host_send, sb) != cudaSuccess ||
        cudaMallocHost((void **)&e->host_recv, rb) != cudaSuccess) {
      (void)cudaGetLastError();
      SPS_TRY_FAIL(ctx, SPS_ERR_HOST_MEMORY,
                   "halo staging: cannot allocate %zu bytes of pinned host memory", sb + rb);
    }
  }
#endif
  const int nreq = h->nrecv + h->nsend;
  SPS_TRY(sps_host_alloc(ctx, (void **)&e->req, (size_t)(nreq > 0 ? nreq : 1), sizeof *e->req,
                         "halo requests"));
  for (int q = 0; q < nreq; q++) e->req[q] = MPI_REQUEST_NULL;
  double *rbuf = e->staged ? e->host_recv : e->recv, *sbuf = e->staged ? e->host_send : e->send;
  for (int q = 0; q < h->nrecv; q++)
    HALO_MPI(ctx, MPI_Recv_init(rbuf + h->recv_off[q], (int)(h->recv_off[q + 1] - h->recv_off[q]),
                                MPI_DOUBLE, h->recv_rank[q], HALO_TAG, c->comm, &e->req[q]));
  for (int q = 0; q < h->nsend; q++)
    HALO_MPI(ctx, MPI_Send_init(sbuf + h->send_off[q], (int)(h->send_off[q + 1] - h->send_off[q]),
                                MPI_DOUBLE, h->send_rank[q], HALO_TAG, c->comm,
                                &e->req[h->nrecv + q]));
cleanup:
  st = sps_comm_agree(ctx, st);
  if (st) {
    sps_halo_exchange_destroy(ctx, &e);
    return st;
  }
  *out = e;
  return SPS_SUCCESS;
}

sps_status sps_halo_start(sps_context *ctx, sps_halo_exchange *e, const double *x)
{
  struct sps_comm *c = ctx->comm;
  const sps_halo_plan *h = e->plan;
  const int64_t nsend = h->send_off[h->nsend];
  sps_status st = SPS_SUCCESS;
  const double t0 = sps_wtime();
  if (nsend > 0) SPS_CHECK(ctx->be->gather(ctx, nsend, h->d_send_idx, x, e->send));
  e->nccl = c->halo_nccl;
  if (e->nccl) {
    /* on the exchange stream, after the packing: nothing for the host to wait for */
    SPS_CHECK(sps_nccl_halo_start(ctx, e));
  } else {
#ifdef SPS_HAVE_CUDA
    if (ctx->kind == SPS_DEVICE_CUDA && (nsend > 0 || e->staged)) {
      /* MPI reads the packed entries once the gather is done; a staged halo's last copy to
       * the device has also left host_recv free for the receives by then. */
      struct sps_cuda_state *cs = sps_cuda(ctx);
      if (e->staged && nsend > 0)
        SPS_CUDA(ctx, cudaMemcpyAsync(e->host_send, e->send, (size_t)nsend * sizeof(double),
                                      cudaMemcpyDeviceToHost, cs->stream));
      SPS_CUDA(ctx, cudaStreamSynchronize(cs->stream));
    }
#endif
    if (h->nrecv + h->nsend > 0) HALO_MPI(ctx, MPI_Startall(h->nrecv + h->nsend, e->req));
  }
  e->active = 1;
  c->times.halo_exchanges++;
  c->times.halo_bytes += nsend * (int64_t)sizeof(double);
  sps_comm_event(ctx, SPS_EVENT_HALO_START, t0, sps_wtime());
cleanup:
  return st;
}

sps_status sps_halo_finish(sps_context *ctx, sps_halo_exchange *e, const double **halo)
{
  const sps_halo_plan *h = e->plan;
  sps_status st = SPS_SUCCESS;
  const double t0 = sps_wtime();
  if (e->nccl)
    SPS_CHECK(sps_nccl_halo_finish(ctx, e));
  else if (h->nrecv + h->nsend > 0)
    HALO_MPI(ctx, MPI_Waitall(h->nrecv + h->nsend, e->req, MPI_STATUSES_IGNORE));
  e->active = 0;
#ifdef SPS_HAVE_CUDA
  if (e->staged && !e->nccl && h->n_halo > 0)
    SPS_CUDA(ctx, cudaMemcpyAsync(e->recv, e->host_recv, (size_t)h->n_halo * sizeof(double),
                                  cudaMemcpyHostToDevice, sps_cuda(ctx)->stream));
#endif
  *halo = e->recv;
  sps_comm_event(ctx, SPS_EVENT_HALO_WAIT, t0, sps_wtime());
cleanup:
  return st;
}
