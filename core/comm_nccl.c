/* comm_nccl.c: NCCL between the GPUs of a distributed CUDA context: the communicator made over MPI, the halo exchange as one group of sends and receives on a stream of its own, and the reductions' all-gather of compensated pairs. */
#include <stdio.h>
#include <string.h>

#include "comm_nccl.h"
#include "halo.h"

#ifdef SPS_HAVE_NCCL
#include <nccl.h>

#include "cuda_state.h"

/*
 * What NCCL needs beside the context's own CUDA state. The exchanges run on a stream of their
 * own: the context's stream (sps_cuda(ctx)->stream) records `packed` once the halo entries are
 * packed, the exchange stream waits for it, moves the entries, and records `moved`, which the
 * context's stream waits for before the rows that read the halo. Between the two, the context's
 * stream runs the product of the rows that need no halo, beside the exchange.
 */
struct sps_nccl {
  ncclComm_t comm;
  cudaStream_t stream;       /* the exchanges' stream */
  cudaEvent_t packed, moved; /* as above; `moved` also ends a reduction's all-gather */
  double *d_send, *d_recv;   /* a reduction's parts on the device: width, size * width doubles */
};

#define NCCL_TRY(ctx, call)                                                                \
  do {                                                                                     \
    const ncclResult_t nccl_e_ = (call);                                                   \
    if (nccl_e_ != ncclSuccess)                                                            \
      SPS_FAIL((ctx), SPS_ERR_MPI, "%s failed: %s", #call, ncclGetErrorString(nccl_e_));    \
  } while (0)

int sps_nccl_possible(sps_context *ctx, char *why, size_t len)
{
  struct sps_comm *c = ctx->comm;
  if (why && len) why[0] = '\0';
  if (ctx->kind != SPS_DEVICE_CUDA) {
    if (why) snprintf(why, len, "the context computes on the CPU");
    return 0;
  }
  if (c->size < 2) {
    if (why) snprintf(why, len, "the communicator has one rank");
    return 0;
  }
  /* Every rank's host and GPU, as "host/PCI address": two equal ones share a GPU. */
  enum { KEY = 96 };
  char mine[KEY];
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  char bus[32] = "";
  int hl = 0, dev = 0;
  MPI_Get_processor_name(host, &hl);
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(bus, sizeof bus, "unknown-%d", c->rank);
  }
  memset(mine, 0, sizeof mine);
  snprintf(mine, sizeof mine, "%.50s/%.40s", host, bus);
  char *all = NULL;
  int ok = sps_host_alloc(ctx, (void **)&all, (size_t)c->size, KEY, "GPU addresses") == SPS_SUCCESS;
  int ok_all = 0;
  if (MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS || !ok_all) {
    sps_host_free(all);
    if (why) snprintf(why, len, "the ranks could not compare their GPUs");
    return 0;
  }
  int shared = MPI_Allgather(mine, KEY, MPI_CHAR, all, KEY, MPI_CHAR, c->comm) != MPI_SUCCESS;
  int r1 = -1, r2 = -1;
  for (int i = 0; i < c->size && !shared; i++)
    for (int j = i + 1; j < c->size && !shared; j++)
      if (memcmp(all + (size_t)i * KEY, all + (size_t)j * KEY, KEY) == 0) {
        shared = 1;
        r1 = i;
        r2 = j;
      }
  sps_host_free(all);
  if (shared) {
    if (why)
      snprintf(why, len, r1 >= 0 ? "ranks %d and %d share a GPU (NCCL needs one GPU a rank)"
                                 : "the ranks could not compare their GPUs",
               r1, r2);
    return 0;
  }
  return 1;
}

void sps_nccl_destroy(sps_context *ctx)
{
  struct sps_comm *c = ctx->comm;
  struct sps_nccl *n = c ? c->nccl : NULL;
  if (!n) return;
  if (n->stream) cudaStreamSynchronize(n->stream);
  if (n->comm) ncclCommDestroy(n->comm);
  if (n->packed) cudaEventDestroy(n->packed);
  if (n->moved) cudaEventDestroy(n->moved);
  if (n->stream) cudaStreamDestroy(n->stream);
  cudaFree(n->d_send);
  cudaFree(n->d_recv);
  (void)cudaGetLastError();
  sps_host_free(n);
  c->nccl = NULL;
}

sps_status sps_nccl_create(sps_context *ctx)
{
  struct sps_comm *c = ctx->comm;
  if (c->nccl) return SPS_SUCCESS;
  char why[160];
  if (!sps_nccl_possible(ctx, why, sizeof why))
    SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "NCCL cannot serve this context: %s", why);
  sps_status st = SPS_SUCCESS;
  struct sps_nccl *n = NULL;
  st = sps_host_calloc(ctx, (void **)&n, 1, sizeof *n, "NCCL state");
  if (!st) {
    c->nccl = n;
    const size_t w = (size_t)c->width * sizeof(double);
    if (cudaStreamCreateWithFlags(&n->stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&n->packed, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&n->moved, cudaEventDisableTiming) != cudaSuccess ||
        cudaMalloc((void **)&n->d_send, w) != cudaSuccess ||
        cudaMalloc((void **)&n->d_recv, w * (size_t)c->size) != cudaSuccess) {
      const cudaError_t e = cudaGetLastError();
      st = sps_error_set(ctx, e == cudaErrorMemoryAllocation ? SPS_ERR_DEVICE_MEMORY : SPS_ERR_CUDA,
                         "NCCL state: %s", cudaGetErrorString(e));
    }
  }
  st = sps_comm_agree(ctx, st);
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  if (!st && c->rank == 0) {
    const ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
      st = sps_error_set(ctx, SPS_ERR_MPI, "ncclGetUniqueId failed: %s", ncclGetErrorString(r));
  }
  if (!st) st = sps_comm_agree(ctx, st);
  if (!st && MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->comm) != MPI_SUCCESS)
    st = sps_error_set(ctx, SPS_ERR_MPI, "MPI_Bcast of the NCCL id failed");
  if (!st) {
    /* every rank joins, or NCCL's bootstrap waits: the ranks agreed on everything before */
    const ncclResult_t r = ncclCommInitRank(&n->comm, c->size, id, c->rank);
    if (r != ncclSuccess) {
      n->comm = NULL;
      st = sps_error_set(ctx, SPS_ERR_MPI, "ncclCommInitRank failed: %s", ncclGetErrorString(r));
    }
  }
  st = sps_comm_agree(ctx, st);
  if (st) sps_nccl_destroy(ctx);
  return st;
}

sps_status sps_nccl_halo_start(sps_context *ctx, struct sps_halo_exchange *e)
{
  struct sps_nccl *n = ctx->comm->nccl;
  const sps_halo_plan *h = e->plan;
  SPS_CUDA(ctx, cudaEventRecord(n->packed, sps_cuda(ctx)->stream));
  SPS_CUDA(ctx, cudaStreamWaitEvent(n->stream, n->packed, 0));
  NCCL_TRY(ctx, ncclGroupStart());
  for (int q = 0; q < h->nrecv; q++)
    NCCL_TRY(ctx, ncclRecv(e->recv + h->recv_off[q], (size_t)(h->recv_off[q + 1] - h->recv_off[q]),
                           ncclDouble, h->recv_rank[q], n->comm, n->stream));
  for (int q = 0; q < h->nsend; q++)
    NCCL_TRY(ctx, ncclSend(e->send + h->send_off[q], (size_t)(h->send_off[q + 1] - h->send_off[q]),
                           ncclDouble, h->send_rank[q], n->comm, n->stream));
  NCCL_TRY(ctx, ncclGroupEnd());
  SPS_CUDA(ctx, cudaEventRecord(n->moved, n->stream));
  return SPS_SUCCESS;
}

sps_status sps_nccl_halo_finish(sps_context *ctx, struct sps_halo_exchange *e)
{
  (void)e;
  SPS_CUDA(ctx, cudaStreamWaitEvent(sps_cuda(ctx)->stream, ctx->comm->nccl->moved, 0));
  return SPS_SUCCESS;
}

sps_status sps_nccl_allgather_start(sps_context *ctx, int width)
{
  struct sps_comm *c = ctx->comm;
  struct sps_nccl *n = c->nccl;
  const size_t w = (size_t)width * sizeof(double);
  /* the exchange stream is in order: the upload, the all-gather, the download */
  SPS_CUDA(ctx, cudaMemcpyAsync(n->d_send, c->sendbuf, w, cudaMemcpyHostToDevice, n->stream));
  NCCL_TRY(ctx, ncclAllGather(n->d_send, n->d_recv, (size_t)width, ncclDouble, n->comm, n->stream));
  SPS_CUDA(ctx, cudaMemcpyAsync(c->recvbuf, n->d_recv, w * (size_t)c->size, cudaMemcpyDeviceToHost,
                                n->stream));
  return SPS_SUCCESS;
}

sps_status sps_nccl_allgather_finish(sps_context *ctx)
{
  struct sps_nccl *n = ctx->comm->nccl;
  SPS_CUDA(ctx, cudaStreamSynchronize(n->stream));
  return SPS_SUCCESS;
}

sps_status sps_nccl_allgather(sps_context *ctx, int width)
{
  SPS_CHECK(sps_nccl_allgather_start(ctx, width));
  return sps_nccl_allgather_finish(ctx);
}

void sps_nccl_reduce_buffers(sps_context *ctx, double **send, double **recv)
{
  struct sps_nccl *n = ctx->comm->nccl;
  *send = n ? n->d_send : NULL;
  *recv = n ? n->d_recv : NULL;
}

sps_status sps_nccl_allgather_device(sps_context *ctx, int count)
{
  struct sps_comm *c = ctx->comm;
  struct sps_nccl *n = c->nccl;
  if (count < 1 || count > c->width)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_nccl_allgather_device: %d doubles (1 to %d)", count,
             c->width);
  /* in order on the context's stream: the kernel that wrote d_send, this, the readers of d_recv */
  const double t0 = sps_wtime();
  NCCL_TRY(ctx, ncclAllGather(n->d_send, n->d_recv, (size_t)count, ncclDouble, n->comm,
                              sps_cuda(ctx)->stream));
  c->times.reductions++;
  /* the host's part is the issue only: the event spans that, not the exchange on the GPUs */
  sps_comm_event(ctx, SPS_EVENT_REDUCE, t0, sps_wtime());
  return SPS_SUCCESS;
}

#else /* no NCCL in this build */

int sps_nccl_possible(sps_context *ctx, char *why, size_t len)
{
  (void)ctx;
  if (why && len) snprintf(why, len, "this build has no NCCL (configure --with-nccl)");
  return 0;
}

void sps_nccl_destroy(sps_context *ctx)
{
  (void)ctx;
}

sps_status sps_nccl_create(sps_context *ctx)
{
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "NCCL cannot serve this context: this build has no NCCL "
                                     "(configure --with-nccl)");
}

#define NO_NCCL(ctx) SPS_FAIL((ctx), SPS_ERR_UNSUPPORTED, "this build has no NCCL")
sps_status sps_nccl_halo_start(sps_context *ctx, struct sps_halo_exchange *e)
{
  (void)e;
  NO_NCCL(ctx);
}
sps_status sps_nccl_halo_finish(sps_context *ctx, struct sps_halo_exchange *e)
{
  (void)e;
  NO_NCCL(ctx);
}
sps_status sps_nccl_allgather(sps_context *ctx, int width)
{
  (void)width;
  NO_NCCL(ctx);
}
sps_status sps_nccl_allgather_start(sps_context *ctx, int width)
{
  (void)width;
  NO_NCCL(ctx);
}
sps_status sps_nccl_allgather_finish(sps_context *ctx)
{
  NO_NCCL(ctx);
}
void sps_nccl_reduce_buffers(sps_context *ctx, double **send, double **recv)
{
  (void)ctx;
  *send = NULL;
  *recv = NULL;
}
sps_status sps_nccl_allgather_device(sps_context *ctx, int count)
{
  (void)count;
  NO_NCCL(ctx);
}
#endif
