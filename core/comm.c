/* comm.c: contexts on an MPI communicator: creation, the reductions of compensated sums merged in rank order, the ranks' agreement on failures, and the clocks and timeline of the distributed work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "comm_nccl.h"
#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h>
#endif

sps_status sps_comm_fail(sps_context *ctx, int mpi_err, const char *call)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", mpi_err);
  return sps_error_set(ctx, SPS_ERR_MPI, "%s failed: %s", call, text);
}

#define COMM_TRY(ctx, call)                                                                \
  do {                                                                                     \
    const int comm_e_ = (call);                                                            \
    if (comm_e_ != MPI_SUCCESS) return sps_comm_fail((ctx), comm_e_, #call);              \
  } while (0)

/* Whether the MPI library moves device buffers itself (Open MPI's extension; MPICH and
 * others without it are taken as not CUDA-aware). SPSOLVE_MPI_CUDA_AWARE=0 or 1 overrides it,
 * for testing both paths with one MPI. */
static int query_cuda_aware(void)
{
  const char *e = getenv("SPSOLVE_MPI_CUDA_AWARE");
  if (e && (e[0] == '0' || e[0] == '1') && e[1] == '\0') return e[0] == '1';
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() != 0;
#else
  return 0;
#endif
}

/* The CPU or CUDA backend of a context, as its reductions are split or not. */
static void choose_backend(sps_context *ctx)
{
#ifdef SPS_HAVE_CUDA
  if (ctx->kind == SPS_DEVICE_CUDA)
    ctx->be = ctx->comm && ctx->comm->split ? &sps_backend_cuda_dist : &sps_backend_cuda;
#else
  (void)ctx;
#endif
}

void sps_comm_set_split(sps_context *ctx, int force)
{
  if (!ctx || !ctx->comm) return;
  ctx->comm->split = force || ctx->comm->size > 1;
  choose_backend(ctx);
}

/* Free the communicator part of a context (the duplicate too, unless MPI is finalised). */
void sps_comm_destroy(sps_context *ctx)
{
  struct sps_comm *c = ctx->comm;
  if (!c) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  sps_nccl_destroy(ctx);
  if (!finalized) {
    if (c->pending != MPI_REQUEST_NULL) MPI_Wait(&c->pending, MPI_STATUS_IGNORE);
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
  }
  sps_host_free(c->sendbuf);
  sps_host_free(c->recvbuf);
  sps_host_free(c->events);
  sps_host_free(c);
  ctx->comm = NULL;
}

/*
 * The ranks' agreement before the context exists: the lowest failing rank's status, and its
 * message as the thread's creation error on every rank (sps_context_create_error).
 */
static sps_status agree_at_creation(MPI_Comm comm, int rank, int size, sps_status st)
{
  int mine = st != SPS_SUCCESS ? rank : size, first = size;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return sps_error_set(NULL, SPS_ERR_MPI, "sps_context_create_mpi: MPI_Allreduce failed");
  if (first == size) return SPS_SUCCESS;
  struct {
    int code;
    char msg[SPS_ERRMSG_LEN];
  } m;
  memset(&m, 0, sizeof m);
  m.code = st;
  if (rank == first) snprintf(m.msg, sizeof m.msg, "%s", sps_context_create_error());
  if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm) != MPI_SUCCESS)
    return sps_error_set(NULL, SPS_ERR_MPI, "sps_context_create_mpi: MPI_Bcast failed");
  m.msg[sizeof m.msg - 1] = '\0';
  return sps_error_set(NULL, (sps_status)m.code, "rank %d: %s", first, m.msg);
}

sps_status sps_context_create_mpi(sps_context **out, MPI_Comm comm, sps_device_kind kind,
                                  int index)
{
  if (!out) return sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create_mpi: 'ctx' is NULL");
  *out = NULL;
  int init = 0, finalized = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&finalized);
  if (!init || finalized)
    return sps_error_set(NULL, SPS_ERR_STATE,
                         "sps_context_create_mpi: MPI is %s (call MPI_Init first)",
                         finalized ? "finalised" : "not initialised");
  if (comm == MPI_COMM_NULL)
    return sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create_mpi: 'comm' is MPI_COMM_NULL");
  MPI_Comm dup = MPI_COMM_NULL, node = MPI_COMM_NULL;
  int rank = 0, size = 1, node_rank = 0;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
    return sps_error_set(NULL, SPS_ERR_MPI, "sps_context_create_mpi: MPI_Comm_dup failed");
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  if (MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
  }
  sps_context *ctx = NULL;
  sps_status st = SPS_SUCCESS;
  if (kind != SPS_DEVICE_CPU && kind != SPS_DEVICE_CUDA && kind != SPS_DEVICE_AUTO)
    st = sps_error_set(NULL, SPS_ERR_ARGUMENT, "sps_context_create_mpi: unknown device kind %d",
                       (int)kind);
  if (!st && index < 0) {
    /* one rank per GPU: the rank's place on its node picks among the node's devices */
    int count = 0;
    sps_cuda_device_query(&count, NULL, 0);
    index = count > 0 ? node_rank % count : 0;
  }
  if (!st) st = sps_context_create(&ctx, kind, index);
  struct sps_comm *c = NULL;
  const int width = 2 * SPS_COMM_MAX_SUMS + SPS_COMM_MAX_MAXES;
  if (!st) st = sps_host_calloc(ctx, (void **)&c, 1, sizeof *c, "communicator");
  if (!st) {
    ctx->comm = c;
    c->comm = dup;
    c->pending = MPI_REQUEST_NULL;
    dup = MPI_COMM_NULL; /* owned by the context from here */
    c->rank = rank;
    c->size = size;
    c->node_rank = node_rank;
    c->width = width;
    st = sps_host_calloc(ctx, (void **)&c->sendbuf, (size_t)width, sizeof(double),
                         "reduction buffer");
  }
  if (!st)
    st = sps_host_calloc(ctx, (void **)&c->recvbuf, (size_t)width * (size_t)size, sizeof(double),
                         "reduction buffer of every rank");

  if (st && ctx) sps_error_set(NULL, st, "%s", ctx->errmsg);
  st = agree_at_creation(c ? c->comm : dup, rank, size, st);
  if (!st) {
    /* The ranks must compute on one kind of device: the reductions' exchanges differ. */
    int k[2] = {(int)ctx->kind, -(int)ctx->kind};
    if (MPI_Allreduce(MPI_IN_PLACE, k, 2, MPI_INT, MPI_MAX, c->comm) != MPI_SUCCESS)
      st = sps_error_set(NULL, SPS_ERR_MPI, "sps_context_create_mpi: MPI_Allreduce failed");
    else if (k[0] != -k[1])
      st = sps_error_set(NULL, SPS_ERR_UNSUPPORTED,
                         "sps_context_create_mpi: some ranks got a GPU and some the CPU; a "
                         "distributed context computes on one kind of device (name it)");
  }
  if (st) {
    if (ctx) {
      sps_comm_destroy(ctx);
      sps_context_destroy(&ctx);
    }
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    return st;
  }
  c->cuda_aware = ctx->kind == SPS_DEVICE_CUDA && query_cuda_aware();
  c->split = size > 1;
  choose_backend(ctx);
  /* the halo over NCCL where it can serve (SPS_TRANSPORT_AUTO); MPI where NCCL fails to start */
  st = sps_context_set_transport(ctx, SPS_TRANSPORT_AUTO, SPS_TRANSPORT_AUTO);
  if (st) {
    sps_error_set(NULL, st, "%s", ctx->errmsg);
    sps_comm_destroy(ctx);
    sps_context_destroy(&ctx);
    return st;
  }
  *out = ctx;
  return SPS_SUCCESS;
}

const char *sps_transport_name(sps_transport t)
{
  switch (t) {
  case SPS_TRANSPORT_AUTO: return "auto";
  case SPS_TRANSPORT_MPI: return "mpi";
  case SPS_TRANSPORT_NCCL: return "nccl";
  }
  return NULL;
}

sps_status sps_context_set_transport(sps_context *ctx, sps_transport halo, sps_transport reductions)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  struct sps_comm *c = ctx->comm;
  if (!c) SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_context_set_transport: the context is not distributed");
  if (!sps_transport_name(halo) || !sps_transport_name(reductions))
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_context_set_transport: unknown transport %d",
             sps_transport_name(halo) ? (int)reductions : (int)halo);
  if (c->pending_k > 0)
    SPS_FAIL(ctx, SPS_ERR_STATE, "sps_context_set_transport: a reduction is in flight");
  char why[160];
  if (halo == SPS_TRANSPORT_NCCL || reductions == SPS_TRANSPORT_NCCL) {
    SPS_CHECK(sps_nccl_create(ctx));
  } else if ((halo == SPS_TRANSPORT_AUTO || reductions == SPS_TRANSPORT_AUTO) && !c->nccl &&
             sps_nccl_possible(ctx, why, sizeof why)) {
    /* AUTO takes NCCL when it starts; when it does not (the ranks agreed on that), MPI */
    (void)sps_nccl_create(ctx);
  }
  c->halo_nccl = halo == SPS_TRANSPORT_NCCL || (halo == SPS_TRANSPORT_AUTO && c->nccl);
  /* AUTO: the steps' reductions stay on the GPUs over NCCL where it serves, and the few whose
   * sums the host reads anyway (norms at a start, a confirmation) take MPI's host exchange,
   * the faster one for host data; NCCL named: both over NCCL */
  c->reduce_nccl = reductions == SPS_TRANSPORT_NCCL;
  c->reduce_device = reductions == SPS_TRANSPORT_NCCL || (reductions == SPS_TRANSPORT_AUTO && c->nccl);
  return SPS_SUCCESS;
}

sps_status sps_context_get_transport(const sps_context *ctx, sps_transport *halo,
                                     sps_transport *reductions)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  const struct sps_comm *c = ctx->comm;
  if (halo) *halo = c && c->halo_nccl ? SPS_TRANSPORT_NCCL : SPS_TRANSPORT_MPI;
  if (reductions) *reductions = c && c->reduce_device ? SPS_TRANSPORT_NCCL : SPS_TRANSPORT_MPI;
  return SPS_SUCCESS;
}

sps_status sps_context_get_comm(const sps_context *ctx, MPI_Comm *comm, int *rank, int *size)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  if (comm) *comm = ctx->comm ? ctx->comm->comm : MPI_COMM_NULL;
  if (rank) *rank = ctx->comm ? ctx->comm->rank : 0;
  if (size) *size = ctx->comm ? ctx->comm->size : 1;
  return SPS_SUCCESS;
}

int sps_context_mpi_cuda_aware(const sps_context *ctx)
{
  return ctx && ctx->comm && ctx->comm->cuda_aware;
}

void sps_comm_event(sps_context *ctx, sps_event_kind kind, double t0, double t1)
{
  struct sps_comm *c = ctx->comm;
  const double dt = t1 - t0;
  switch (kind) {
  case SPS_EVENT_HALO_START: c->times.halo_start += dt; break;
  case SPS_EVENT_SPMV_LOCAL: c->times.spmv_local += dt; break;
  case SPS_EVENT_HALO_WAIT: c->times.halo_wait += dt; break;
  case SPS_EVENT_SPMV_BOUNDARY: c->times.spmv_boundary += dt; break;
  case SPS_EVENT_REDUCE: c->times.reduce += dt; break;
  default: break;
  }
  if (!c->events) return;
  if (c->event_count == c->event_cap) {
    c->event_dropped++;
    return;
  }
  sps_event *e = &c->events[c->event_count++];
  e->kind = kind;
  e->start = t0 - c->t_origin;
  e->end = t1 - c->t_origin;
}

/* Pack k sums and m maxima into this rank's part of an exchange. */
static void pack(double *buf, const sps_csum *s, int k, const double *maxima, int m)
{
  for (int i = 0; i < k; i++) {
    buf[2 * i] = s[i].hi;
    buf[2 * i + 1] = s[i].lo;
  }
  for (int j = 0; j < m; j++) buf[2 * k + j] = maxima[j];
}

/* s[i] <- the rank-ordered merge of every rank's sum i; maxima[j] <- the largest (NaN wins). */
static void merge(const struct sps_comm *c, int width, sps_csum *s, int k, double *maxima, int m)
{
  for (int i = 0; i < k; i++) {
    sps_csum acc = sps_csum_zero();
    for (int r = 0; r < c->size; r++) {
      const double *part = c->recvbuf + (size_t)r * (size_t)width;
      sps_csum o;
      o.hi = part[2 * i];
      o.lo = part[2 * i + 1];
      sps_csum_merge(&acc, o);
    }
    s[i] = acc;
  }
  for (int j = 0; j < m; j++) {
    double v = c->recvbuf[2 * k + j];
    for (int r = 1; r < c->size; r++) {
      const double w = c->recvbuf[(size_t)r * (size_t)width + 2 * k + j];
      if (w > v || w != w) v = w;
    }
    maxima[j] = v;
  }
}

/* The MPI-failure hook of the tests (core/comm.h): the reduction numbered mpi_fail_at fails as if
 * MPI had returned an error; every rank counts its reductions, which the ranks make alike. */
static long mpi_fail_at = 0, mpi_fail_count = 0;

void sps_test_mpi_fail_at(long k)
{
  mpi_fail_at = k;
  mpi_fail_count = 0;
}

sps_status sps_comm_sum_impl(sps_context *ctx, sps_csum *s, int k, double *maxima, int m)
{
  struct sps_comm *c = ctx->comm;
  if (!c->split) return SPS_SUCCESS;
  if (m > SPS_COMM_MAX_MAXES)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_comm_sum: %d maxima (at most %d)", m, SPS_COMM_MAX_MAXES);
  do {
    const int kk = k < SPS_COMM_MAX_SUMS ? k : SPS_COMM_MAX_SUMS;
    const int width = 2 * kk + m;
    const double t0 = sps_wtime();
    pack(c->sendbuf, s, kk, maxima, m);
    if (mpi_fail_at > 0 && ++mpi_fail_count == mpi_fail_at)
      return sps_comm_fail(ctx, MPI_ERR_OTHER, "MPI_Allgather (failure injected by a test)");
    if (c->reduce_nccl)
      SPS_CHECK(sps_nccl_allgather(ctx, width));
    else
      COMM_TRY(ctx, MPI_Allgather(c->sendbuf, width, MPI_DOUBLE, c->recvbuf, width, MPI_DOUBLE,
                                  c->comm));
    merge(c, width, s, kk, maxima, m);
    c->times.reductions++;
    sps_comm_event(ctx, SPS_EVENT_REDUCE, t0, sps_wtime());
    s += kk;
    k -= kk;
    m = 0;
  } while (k > 0);
  return SPS_SUCCESS;
}

sps_status sps_comm_sum_start_impl(sps_context *ctx, const sps_csum *s, int k)
{
  struct sps_comm *c = ctx->comm;
  if (!c->split) return SPS_SUCCESS;
  if (k < 1 || k > SPS_COMM_MAX_SUMS || c->pending_k > 0)
    SPS_FAIL(ctx, SPS_ERR_STATE, "sps_comm_sum_start: %d sums, or a reduction already pending", k);
  pack(c->sendbuf, s, k, NULL, 0);
  c->pending_t0 = sps_wtime();
  if (c->reduce_nccl)
    SPS_CHECK(sps_nccl_allgather_start(ctx, 2 * k));
  else
    COMM_TRY(ctx, MPI_Iallgather(c->sendbuf, 2 * k, MPI_DOUBLE, c->recvbuf, 2 * k, MPI_DOUBLE,
                                 c->comm, &c->pending));
  c->pending_k = k;
  return SPS_SUCCESS;
}

sps_status sps_comm_sum_finish_impl(sps_context *ctx, sps_csum *s, int k)
{
  struct sps_comm *c = ctx->comm;
  if (!c->split) return SPS_SUCCESS;
  if (k != c->pending_k || k < 1)
    SPS_FAIL(ctx, SPS_ERR_STATE, "sps_comm_sum_finish: no reduction of %d sums pending", k);
  const double t0 = sps_wtime();
  c->pending_k = 0;
  if (c->reduce_nccl)
    SPS_CHECK(sps_nccl_allgather_finish(ctx));
  else
    COMM_TRY(ctx, MPI_Wait(&c->pending, MPI_STATUS_IGNORE));
  merge(c, 2 * k, s, k, NULL, 0);
  c->times.reductions++;
  /* only the wait is time the reduction was not hidden behind other work */
  sps_comm_event(ctx, SPS_EVENT_REDUCE, t0, sps_wtime());
  return SPS_SUCCESS;
}

sps_status sps_comm_agree_impl(sps_context *ctx, sps_status st)
{
  struct sps_comm *c = ctx->comm;
  if (c->size == 1) return st;
  int mine = st != SPS_SUCCESS ? c->rank : c->size, first = c->size;
  COMM_TRY(ctx, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->comm));
  if (first == c->size) return SPS_SUCCESS;
  struct {
    int code;
    char msg[SPS_ERRMSG_LEN];
  } m;
  memset(&m, 0, sizeof m);
  m.code = st;
  if (c->rank == first) snprintf(m.msg, sizeof m.msg, "%s", ctx->errmsg);
  COMM_TRY(ctx, MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, c->comm));
  m.msg[sizeof m.msg - 1] = '\0';
  /* a message that already names its rank (agreed on before) keeps its one prefix */
  if (strncmp(m.msg, "rank ", 5) == 0) return sps_error_set(ctx, (sps_status)m.code, "%s", m.msg);
  return sps_error_set(ctx, (sps_status)m.code, "rank %d: %s", first, m.msg);
}

sps_status sps_comm_allreduce_i64(sps_context *ctx, int64_t *v, int k, sps_comm_op op)
{
  struct sps_comm *c = ctx->comm;
  if (!c || c->size == 1) return SPS_SUCCESS;
  const MPI_Op mop = op == SPS_COMM_SUM ? MPI_SUM : op == SPS_COMM_MIN ? MPI_MIN : MPI_MAX;
  COMM_TRY(ctx, MPI_Allreduce(MPI_IN_PLACE, v, k, MPI_INT64_T, mop, c->comm));
  return SPS_SUCCESS;
}

sps_status sps_context_get_comm_times(const sps_context *ctx, sps_comm_times *t)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG((sps_context *)ctx, t, "times");
  if (ctx->comm)
    *t = ctx->comm->times;
  else
    memset(t, 0, sizeof *t);
  return SPS_SUCCESS;
}

sps_status sps_context_reset_comm_times(sps_context *ctx)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  if (ctx->comm) memset(&ctx->comm->times, 0, sizeof ctx->comm->times);
  return SPS_SUCCESS;
}

const char *sps_event_kind_name(sps_event_kind kind)
{
  static const char *const names[SPS_EVENT_KIND_COUNT] = {
      [SPS_EVENT_HALO_START] = "halo-start", [SPS_EVENT_SPMV_LOCAL] = "spmv-local",
      [SPS_EVENT_HALO_WAIT] = "halo-wait",   [SPS_EVENT_SPMV_BOUNDARY] = "spmv-boundary",
      [SPS_EVENT_REDUCE] = "reduce",
  };
  if ((int)kind < 0 || kind >= SPS_EVENT_KIND_COUNT) return NULL;
  return names[kind];
}

sps_status sps_context_set_timeline(sps_context *ctx, int64_t capacity)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  struct sps_comm *c = ctx->comm;
  if (!c) SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_context_set_timeline: the context is not distributed");
  sps_status st = SPS_SUCCESS;
  if (capacity < 0) st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_context_set_timeline: capacity %lld < 0", (long long)capacity);
  sps_event *ev = NULL;
  if (!st && capacity > 0)
    st = sps_host_alloc(ctx, (void **)&ev, (size_t)capacity, sizeof *ev, "timeline");
  st = sps_comm_agree(ctx, st);
  if (st) {
    sps_host_free(ev);
    return st;
  }
  sps_host_free(c->events);
  c->events = ev;
  c->event_cap = capacity;
  c->event_count = 0;
  c->event_dropped = 0;
  COMM_TRY(ctx, MPI_Barrier(c->comm));
  c->t_origin = sps_wtime();
  return SPS_SUCCESS;
}

sps_status sps_context_get_timeline(const sps_context *ctx, const sps_event **events,
                                    int64_t *count, int64_t *dropped)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  const struct sps_comm *c = ctx->comm;
  if (events) *events = c ? c->events : NULL;
  if (count) *count = c ? c->event_count : 0;
  if (dropped) *dropped = c ? c->event_dropped : 0;
  return SPS_SUCCESS;
}
