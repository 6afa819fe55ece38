/* comm.h: the communicator of a distributed context (core/comm.c): reductions of compensated sums merged in rank order, the agreement of the ranks on a failure, and the clocks and timeline of the distributed work. */
#ifndef SPS_CORE_COMM_H
#define SPS_CORE_COMM_H

#include "compensated_sum.h"
#include "internal.h"

#ifdef SPS_HAVE_MPI
#include "spsolve_mpi.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The most sums, and maxima, one exchange carries; a reduction of more sums goes in several. */
#define SPS_COMM_MAX_SUMS 64
#define SPS_COMM_MAX_MAXES 4

#ifdef SPS_HAVE_MPI
/*
 * The communicator of a distributed context. A reduction is split: each rank adds its own
 * terms into compensated sums (hi, lo), the ranks exchange those pairs (MPI_Allgather), and
 * every rank merges them in rank order, so every rank holds the same bits, and the value
 * (the correctly rounded sum of all the terms but near a rounding boundary, core/compensated_sum.h)
 * does not depend on the number of ranks. An Allreduce with a user operation would merge in an
 * order of the implementation's choosing, which may differ between ranks: ranks that disagree
 * on a scalar by one bit stop at different iterations and wait for each other forever.
 */
struct sps_comm {
  MPI_Comm comm;   /* the library's duplicate of the user's, errors returned (not fatal) */
  int rank, size;
  int node_rank;   /* the rank among those of its node (MPI_COMM_TYPE_SHARED) */
  int split;       /* 1: reductions exchange their sums (more than one rank, or forced) */
  int cuda_aware;  /* 1: device buffers are handed to MPI (MPIX_Query_cuda_support) */
  int width;       /* doubles of one rank's part of an exchange: 2 SPS_COMM_MAX_SUMS + maxima */
  double *sendbuf; /* width doubles */
  double *recvbuf; /* size * width doubles */
  MPI_Request pending; /* the reduction started by sps_comm_sum_start, or MPI_REQUEST_NULL */
  int pending_k;       /* its sums */
  double pending_t0;   /* when it was started */
  sps_comm_times times;
  sps_event *events;   /* the timeline: event_cap entries, or NULL */
  int64_t event_cap, event_count, event_dropped;
  double t_origin;     /* sps_wtime() when the timeline started */
  struct sps_nccl *nccl; /* NCCL's communicator and stream (core/comm_nccl.c), or NULL */
  int halo_nccl;         /* 1: halo exchanges go over NCCL (sps_context_set_transport) */
  int reduce_nccl;       /* 1: the exchanges of the reductions the host reads go over NCCL
                            (through the device; else MPI's host exchange) */
  int reduce_device;     /* 1: the steps' reductions stay on the device, their exchanges over
                            NCCL (core/cuda/dist_close.cu); else they end on the host */
  sps_comm_times capture_times; /* the clocks when a graph's capture began (core/backend_cuda.c) */
};
#endif

/* 1 when ctx lives on a communicator (sps_context_create_mpi). */
static inline int sps_comm_is_dist(const sps_context *ctx)
{
  return ctx && ctx->comm != NULL;
}

#ifdef SPS_HAVE_MPI
sps_status sps_comm_sum_impl(sps_context *ctx, sps_csum *s, int k, double *maxima, int m);
sps_status sps_comm_agree_impl(sps_context *ctx, sps_status st);
#endif

/*
 * s[0..k) <- the merge, in rank order, of every rank's s[0..k), and maxima[0..m) <- the
 * maxima over the ranks (NaN wins), m <= SPS_COMM_MAX_MAXES: every rank gets the same bits.
 * Nothing on a context that does not split its reductions (no communicator, or one rank).
 */
static inline sps_status sps_comm_sum(sps_context *ctx, sps_csum *s, int k, double *maxima, int m)
{
#ifdef SPS_HAVE_MPI
  if (ctx->comm) return sps_comm_sum_impl(ctx, s, k, maxima, m);
#endif
  (void)ctx;
  (void)s;
  (void)k;
  (void)maxima;
  (void)m;
  return SPS_SUCCESS;
}

/*
 * The ranks' agreement on the status of a local step (an allocation, a factorisation) before
 * the next collective one: the status of the lowest rank that failed, with its message
 * prefixed "rank R: " on every rank, or SPS_SUCCESS when none did. st itself off a
 * communicator. Costs an MPI_Allreduce (and a broadcast on a failure).
 */
static inline sps_status sps_comm_agree(sps_context *ctx, sps_status st)
{
#ifdef SPS_HAVE_MPI
  if (ctx && ctx->comm) return sps_comm_agree_impl(ctx, st);
#endif
  (void)ctx;
  return st;
}

#ifdef SPS_HAVE_MPI
sps_status sps_comm_sum_start_impl(sps_context *ctx, const sps_csum *s, int k);
sps_status sps_comm_sum_finish_impl(sps_context *ctx, sps_csum *s, int k);
#endif

/*
 * The nonblocking form for one set of at most SPS_COMM_MAX_SUMS sums (pipelined CG):
 * start sends s[0..k) (MPI_Iallgather), finish waits and merges into s. One at a time.
 * Nothing where sps_comm_sum does nothing.
 */
static inline sps_status sps_comm_sum_start(sps_context *ctx, const sps_csum *s, int k)
{
#ifdef SPS_HAVE_MPI
  if (ctx->comm) return sps_comm_sum_start_impl(ctx, s, k);
#endif
  (void)ctx;
  (void)s;
  (void)k;
  return SPS_SUCCESS;
}

static inline sps_status sps_comm_sum_finish(sps_context *ctx, sps_csum *s, int k)
{
#ifdef SPS_HAVE_MPI
  if (ctx->comm) return sps_comm_sum_finish_impl(ctx, s, k);
#endif
  (void)ctx;
  (void)s;
  (void)k;
  return SPS_SUCCESS;
}

#ifdef SPS_HAVE_MPI
/* Integers over the ranks: v[0..k) <- their sum, minimum or maximum on every rank. */
typedef enum { SPS_COMM_SUM, SPS_COMM_MIN, SPS_COMM_MAX } sps_comm_op;
sps_status sps_comm_allreduce_i64(sps_context *ctx, int64_t *v, int k, sps_comm_op op);

/* Record [t0, t1) (sps_wtime seconds) of an event kind: its time, and the timeline entry. */
void sps_comm_event(sps_context *ctx, sps_event_kind kind, double t0, double t1);

/*
 * The MPI-failure hook of the tests (not in the public headers), as sps_test_alloc_fail_at is
 * for memory: the k-th blocking reduction over the ranks from now on (k = 1, 2, ...; 0 turns it
 * off) fails with SPS_ERR_MPI as if MPI had returned an error. Set on every rank with the same
 * k, it fails the same reduction everywhere.
 */
void sps_test_mpi_fail_at(long k);

/* Free the communicator part of a context (sps_context_destroy). */
void sps_comm_destroy(sps_context *ctx);

/* The message of a failed MPI call as the context's error (SPS_ERR_MPI). */
sps_status sps_comm_fail(sps_context *ctx, int mpi_err, const char *call);

/*
 * Make every reduction of ctx exchange its sums even with one rank (1), or only with more
 * (0): the benchmarks measure the split path's cost on one rank with it. On a CUDA context
 * it also switches between the backend tables (the split one drives the steps from the host).
 */
void sps_comm_set_split(sps_context *ctx, int force);

/* The backend table of a CUDA context whose reductions are split (core/backend_cuda.c). */
#ifdef SPS_HAVE_CUDA
extern const sps_backend sps_backend_cuda_dist;
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_COMM_H */
