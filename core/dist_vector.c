/* dist_vector.c: vectors between one rank and all: a whole vector in the original numbering scattered into the ranks' parts of a distributed matrix's rows, and gathered back, undoing the partition's permutation. */
#include <string.h>

#include "comm.h"
#include "dist_matrix.h"

/*
 * What both directions share: on the root, the original index of every rank's rows, in rank
 * order (ids), with the counts and offsets of MPI_Scatterv/Gatherv; on every rank, a host
 * buffer of its rows_local values. The ranks agree on the arguments and the allocations.
 */
typedef struct dist_map {
  int *counts, *displs; /* root: rows of each rank and their offsets */
  int64_t *ids;         /* root: nglobal original indices */
  double *all;          /* root: nglobal values in rank order */
  double *mine;         /* rows_local values */
} dist_map;

static void map_free(dist_map *m)
{
  sps_host_free(m->counts);
  sps_host_free(m->displs);
  sps_host_free(m->ids);
  sps_host_free(m->all);
  sps_host_free(m->mine);
  memset(m, 0, sizeof *m);
}

static sps_status map_make(const sps_matrix *A, int root, const sps_vector *x, int have_global,
                           const char *fn, dist_map *m)
{
  sps_context *ctx = A ? A->ctx : NULL;
  sps_status st = SPS_SUCCESS;
  memset(m, 0, sizeof *m);
  if (!A->dist)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "%s: the matrix is not distributed", fn);
  else if (!x)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "%s: invalid argument 'x'", fn);
  else if (x->ctx != ctx)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "%s: the vector belongs to another context", fn);
  else if (x->n != A->nrows)
    st = sps_error_set(ctx, SPS_ERR_SIZE, "%s: the vector has %lld entries, the rank %lld rows",
                       fn, (long long)x->n, (long long)A->nrows);
  else if (root < 0 || root >= ctx->comm->size)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "%s: root %d is not a rank of the %d", fn, root,
                       ctx->comm->size);
  else if (A->dist->nglobal > INT32_MAX)
    st = sps_error_set(ctx, SPS_ERR_SIZE, "%s: %lld rows exceed the %d of one MPI count", fn,
                       (long long)A->dist->nglobal, INT32_MAX);
  else if (ctx->comm->rank == root && !have_global)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "%s: invalid argument 'global' on the root", fn);
  const struct sps_comm *c = ctx->comm;
  const int64_t ng = st ? 0 : A->dist->nglobal;
  if (!st)
    st = sps_host_alloc(ctx, (void **)&m->mine, (size_t)(A->nrows > 0 ? A->nrows : 1),
                        sizeof *m->mine, "vector part");
  if (!st && c->rank == root) {
    st = sps_host_alloc(ctx, (void **)&m->counts, (size_t)c->size, sizeof *m->counts, "counts");
    if (!st)
      st = sps_host_alloc(ctx, (void **)&m->displs, (size_t)c->size, sizeof *m->displs, "offsets");
    if (!st)
      st = sps_host_alloc(ctx, (void **)&m->ids, (size_t)(ng > 0 ? ng : 1), sizeof *m->ids,
                          "row indices of every rank");
    if (!st)
      st = sps_host_alloc(ctx, (void **)&m->all, (size_t)(ng > 0 ? ng : 1), sizeof *m->all,
                          "vector of every rank");
  }
  st = sps_comm_agree(ctx, st);
  if (st) {
    map_free(m);
    return st;
  }
  const int n = (int)A->nrows;
  int e = MPI_Gather(&n, 1, MPI_INT, m->counts, 1, MPI_INT, root, c->comm);
  if (e == MPI_SUCCESS && c->rank == root) {
    int at = 0;
    for (int r = 0; r < c->size; r++) {
      m->displs[r] = at;
      at += m->counts[r];
    }
  }
  if (e == MPI_SUCCESS)
    e = MPI_Gatherv(A->dist->old_ids, n, MPI_INT64_T, m->ids, m->counts, m->displs, MPI_INT64_T,
                    root, c->comm);
  if (e != MPI_SUCCESS) {
    map_free(m);
    return sps_comm_fail(ctx, e, "MPI_Gatherv");
  }
  return SPS_SUCCESS;
}

sps_status sps_vector_scatter(const sps_matrix *A, int root, const double *global, sps_vector *x)
{
  if (!A) return SPS_ERR_ARGUMENT;
  sps_context *ctx = A->ctx;
  if (!ctx->comm)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_vector_scatter: the matrix is not distributed");
  dist_map m;
  SPS_CHECK(map_make(A, root, x, global != NULL, "sps_vector_scatter", &m));
  const struct sps_comm *c = ctx->comm;
  if (c->rank == root)
    for (int64_t k = 0; k < A->dist->nglobal; k++) m.all[k] = global[m.ids[k]];
  const int e = MPI_Scatterv(m.all, m.counts, m.displs, MPI_DOUBLE, m.mine, (int)A->nrows,
                             MPI_DOUBLE, root, c->comm);
  sps_status st = e == MPI_SUCCESS ? SPS_SUCCESS : sps_comm_fail(ctx, e, "MPI_Scatterv");
  if (!st) st = ctx->be->upload(ctx, x->data, m.mine, (size_t)A->nrows * sizeof(double));
  map_free(&m);
  return sps_comm_agree(ctx, st);
}

sps_status sps_vector_gather(const sps_matrix *A, int root, const sps_vector *x, double *global)
{
  if (!A) return SPS_ERR_ARGUMENT;
  sps_context *ctx = A->ctx;
  if (!ctx->comm)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_vector_gather: the matrix is not distributed");
  dist_map m;
  SPS_CHECK(map_make(A, root, x, global != NULL, "sps_vector_gather", &m));
  const struct sps_comm *c = ctx->comm;
  sps_status st = ctx->be->download(ctx, m.mine, x->data, (size_t)A->nrows * sizeof(double));
  st = sps_comm_agree(ctx, st);
  if (!st) {
    const int e = MPI_Gatherv(m.mine, (int)A->nrows, MPI_DOUBLE, m.all, m.counts, m.displs,
                              MPI_DOUBLE, root, c->comm);
    if (e != MPI_SUCCESS) st = sps_comm_fail(ctx, e, "MPI_Gatherv");
  }
  if (!st && c->rank == root)
    for (int64_t k = 0; k < A->dist->nglobal; k++) global[m.ids[k]] = m.all[k];
  map_free(&m);
  return sps_comm_agree(ctx, st);
}
