/* halo.h: the halo of a distributed matrix (core/halo.c): which entries of x each rank receives from and sends to which rank, and the exchange that moves them (persistent MPI requests, device or host buffers). */
#ifndef SPS_CORE_HALO_H
#define SPS_CORE_HALO_H

#include <mpi.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the rows of the original numbering live: the rank of each original row, and the
 * local position a rank gave to each of its own rows. */
typedef struct sps_dist_owner {
  int size;
  const int64_t *offsets; /* size + 1: rank r owns original rows [offsets[r], offsets[r+1]); or */
  const int32_t *part;    /* the rank of each original row (METIS), when offsets is NULL */
} sps_dist_owner;

/* The rank that owns original row j. */
static inline int sps_dist_owner_of(const sps_dist_owner *o, int64_t j)
{
  if (!o->offsets) return o->part[j];
  int lo = 0, hi = o->size; /* offsets[lo] <= j < offsets[hi] */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (o->offsets[mid] <= j)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* A rank's own rows by original index: sorted[k] is an original row index, pos[k] its local
 * position (contiguous rows with no reordering need neither: first is then used). */
typedef struct sps_dist_lookup {
  int64_t n;
  const int64_t *sorted; /* n original indices, ascending, or NULL: rows first .. first + n - 1 */
  const int32_t *pos;    /* their local positions */
  int64_t first;
} sps_dist_lookup;

/* The local position of original row j on this rank, or -1 when it is not one of its rows. */
static inline int64_t sps_dist_lookup_find(const sps_dist_lookup *l, int64_t j)
{
  if (!l->sorted) return j >= l->first && j < l->first + l->n ? j - l->first : -1;
  int64_t lo = 0, hi = l->n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (l->sorted[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < l->n && l->sorted[lo] == j ? l->pos[lo] : -1;
}

/*
 * The halo plan. Slot s of the halo holds x of original row halo_old[s], owned by another
 * rank; slots are sorted by owner, then by original index, so the slots received from one
 * rank are contiguous: [recv_off[q], recv_off[q+1]) from recv_rank[q]. A rank sends to
 * send_rank[q] its entries send_idx[send_off[q] .. send_off[q+1]) (local positions), in the
 * order the receiver's slots list them. Patterns that are not symmetric are fine: the
 * senders and the receivers of a rank need not be the same ranks.
 */
typedef struct sps_halo_plan {
  int64_t n_halo;
  int64_t *halo_old;  /* n_halo original indices */
  int nrecv;
  int *recv_rank;     /* nrecv */
  int64_t *recv_off;  /* nrecv + 1 */
  int nsend;
  int *send_rank;     /* nsend */
  int64_t *send_off;  /* nsend + 1 */
  int32_t *send_idx;  /* send_off[nsend] local positions */
  int32_t *d_send_idx; /* the same in the context's memory (send_idx itself on the CPU) */
} sps_halo_plan;

/*
 * Build the plan (collective) from this rank's halo: n_halo slots whose owners (owner[s]) and
 * original indices (old[s]) are sorted by (owner, old), unique; lk finds the rank's own rows.
 * Two exchanges: the counts (MPI_Alltoall) and the requested indices (MPI_Alltoallv). The
 * ranks agree on the status (a request for a row its owner does not hold is SPS_ERR_ARGUMENT).
 */
sps_status sps_halo_plan_build(sps_context *ctx, sps_halo_plan *h, int64_t n_halo,
                               const int32_t *owner, const int64_t *old,
                               const sps_dist_lookup *lk);
void sps_halo_plan_free(sps_context *ctx, sps_halo_plan *h);

/*
 * One exchange of a plan, made at setup: persistent requests and their buffers. On the CPU the
 * buffers are host memory; on CUDA the entries are packed on the device (the backend's
 * gather) and handed to MPI as device buffers when it is CUDA-aware, else staged through
 * pinned host memory; or, when the context's halo transport is NCCL, sent and received
 * between the device buffers by NCCL (the persistent requests then stay idle).
 */
typedef struct sps_halo_exchange {
  const sps_halo_plan *plan;
  int staged;        /* CUDA without a CUDA-aware MPI: copies through host_send/host_recv */
  double *send;      /* send_off[nsend] doubles in the context's memory: the packed entries */
  double *recv;      /* n_halo doubles in the context's memory: the halo */
  double *host_send; /* pinned host staging (staged only) */
  double *host_recv;
  MPI_Request *req;  /* nrecv receives, then nsend sends (persistent) */
  int active;        /* started and not finished */
  int nccl;          /* the exchange in flight went over NCCL (core/comm_nccl.c), not MPI */
} sps_halo_exchange;

sps_status sps_halo_exchange_create(sps_context *ctx, const sps_halo_plan *plan,
                                    sps_halo_exchange **out);
/* Pack x's entries and start the exchange (receives first, then sends). */
sps_status sps_halo_start(sps_context *ctx, sps_halo_exchange *e, const double *x);
/* Wait for it; *halo gets the n_halo received entries in the context's memory (on CUDA the
 * copy of a staged halo is issued on the context's stream, before the work that reads it). */
sps_status sps_halo_finish(sps_context *ctx, sps_halo_exchange *e, const double **halo);
void sps_halo_exchange_destroy(sps_context *ctx, sps_halo_exchange **e);

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_HALO_H */
