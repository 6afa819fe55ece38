/* comm_nccl.h: NCCL between the GPUs of a distributed CUDA context (core/comm_nccl.c): the communicator made over MPI, halo exchanges as grouped sends and receives on a stream of their own, and the reductions' all-gather of compensated pairs. */
#ifndef SPS_CORE_COMM_NCCL_H
#define SPS_CORE_COMM_NCCL_H

#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef SPS_HAVE_MPI
struct sps_halo_exchange;

/*
 * Whether NCCL can serve the context's ranks (1) or not (0, with the reason in why):
 * a build with NCCL, a CUDA context, more than one rank, and every rank on a GPU of its own
 * (NCCL refuses two ranks of one communicator on one GPU). Collective: the ranks compare their
 * GPUs' PCI addresses, so every rank gets the same answer.
 */
int sps_nccl_possible(sps_context *ctx, char *why, size_t len);

/*
 * Make the context's NCCL communicator (collective; nothing when it exists): rank 0 makes
 * the unique id, MPI broadcasts it, every rank joins on its GPU. Also the exchanges' stream
 * and events and the reductions' device buffers. SPS_ERR_UNSUPPORTED where
 * sps_nccl_possible() says no, SPS_ERR_MPI when NCCL fails (the message names the call).
 */
sps_status sps_nccl_create(sps_context *ctx);
/* Free it (sps_comm_destroy). */
void sps_nccl_destroy(sps_context *ctx);

/*
 * The halo exchange of e over NCCL, once the gather that packs e->send is issued on the
 * context's stream. Start: the exchange stream waits for the packing, then every receive into
 * e->recv and every send of e->send is issued as one NCCL group there, so the context's
 * stream goes on with the local rows' product meanwhile. Finish: the context's stream waits
 * for the group's end. The host waits for nothing.
 */
sps_status sps_nccl_halo_start(sps_context *ctx, struct sps_halo_exchange *e);
sps_status sps_nccl_halo_finish(sps_context *ctx, struct sps_halo_exchange *e);

/*
 * The reductions' exchange over NCCL: every rank's `width` doubles of c->sendbuf (host) are
 * gathered, in rank order, into c->recvbuf (host) on every rank, through the device
 * (upload, ncclAllGather, download on the exchange stream). The blocking form waits; the
 * nonblocking pair issues it, then waits for it.
 */
sps_status sps_nccl_allgather(sps_context *ctx, int width);
sps_status sps_nccl_allgather_start(sps_context *ctx, int width);
sps_status sps_nccl_allgather_finish(sps_context *ctx);

/*
 * The reductions' exchange kept on the device (core/cuda/dist_close.cu): the context's stream
 * has written this rank's `count` doubles to *send; ncclAllGather, issued on the context's
 * stream after that, leaves every rank's `count` doubles in rank order in *recv, for the
 * kernels that follow on the stream. The host waits for nothing: the reduction's count and
 * timeline event (core/comm.c) record the issue, not the exchange. sps_nccl_reduce_buffers
 * gives the two device buffers (c->width and size * c->width doubles).
 */
void sps_nccl_reduce_buffers(sps_context *ctx, double **send, double **recv);
sps_status sps_nccl_allgather_device(sps_context *ctx, int count);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_COMM_NCCL_H */
