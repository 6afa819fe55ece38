/* dist_read.c: distributed matrices from a matrix on one rank (partitioned there, each rank's rows sent to it) or from a Matrix Market file read by every rank (each keeping its contiguous rows). */
#include <string.h>

#include "comm.h"
#include "dist_matrix.h"
#include "mm_scan.h"
#include "partition.h"

/* What the root sends a rank: its rows' original indices, lengths, columns and values. */
typedef struct scatter_buf {
  int *rows_n, *rows_d; /* rows per rank and their offsets */
  int *nnz_n, *nnz_d;   /* entries per rank and their offsets */
  int64_t *ids, *lens, *cols;
  double *vals;
} scatter_buf;

static void scatter_buf_free(scatter_buf *b)
{
  sps_host_free(b->rows_n);
  sps_host_free(b->rows_d);
  sps_host_free(b->nnz_n);
  sps_host_free(b->nnz_d);
  sps_host_free(b->ids);
  sps_host_free(b->lens);
  sps_host_free(b->cols);
  sps_host_free(b->vals);
  memset(b, 0, sizeof *b);
}

/* On the root: A0's rows grouped by rank (rank order, then ascending within a rank), with the
 * counts and offsets of the scatters. */
static sps_status scatter_pack(sps_context *ctx, const sps_matrix *A0, int p, const int32_t *part,
                               const int64_t *offsets, scatter_buf *b)
{
  const int64_t n = A0->nrows, nnz = A0->rowptr[n];
  sps_status st = SPS_SUCCESS;
  int64_t *rows_at = NULL, *nnz_at = NULL;
  SPS_TRY(sps_host_calloc(ctx, (void **)&b->rows_n, (size_t)p, sizeof(int), "scatter counts"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&b->rows_d, (size_t)p, sizeof(int), "scatter counts"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&b->nnz_n, (size_t)p, sizeof(int), "scatter counts"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&b->nnz_d, (size_t)p, sizeof(int), "scatter counts"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&rows_at, (size_t)p + 1, sizeof *rows_at, "scatter counts"));
  SPS_TRY(sps_host_calloc(ctx, (void **)&nnz_at, (size_t)p + 1, sizeof *nnz_at, "scatter counts"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&b->ids, (size_t)(n > 0 ? n : 1), sizeof *b->ids, "row indices"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&b->lens, (size_t)(n > 0 ? n : 1), sizeof *b->lens, "row lengths"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&b->cols, (size_t)(nnz > 0 ? nnz : 1), sizeof *b->cols, "columns"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&b->vals, (size_t)(nnz > 0 ? nnz : 1), sizeof *b->vals, "values"));
  for (int64_t i = 0, q = 0; i < n; i++) {
    if (part) {
      q = part[i];
    } else {
      while (q + 1 < p && offsets[q + 1] <= i) q++;
    }
    rows_at[q + 1]++;
    nnz_at[q + 1] += A0->rowptr[i + 1] - A0->rowptr[i];
  }
  for (int q = 0; q < p; q++) {
    if (rows_at[q + 1] > INT32_MAX || nnz_at[q + 1] > INT32_MAX)
      SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "rank %d would get %lld rows and %lld entries; one MPI "
                   "count holds %d", q, (long long)rows_at[q + 1], (long long)nnz_at[q + 1], INT32_MAX);
    b->rows_n[q] = (int)rows_at[q + 1];
    b->nnz_n[q] = (int)nnz_at[q + 1];
    rows_at[q + 1] += rows_at[q];
    nnz_at[q + 1] += nnz_at[q];
    b->rows_d[q] = (int)rows_at[q];
    b->nnz_d[q] = (int)nnz_at[q];
  }
  if (nnz_at[p] > INT32_MAX)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%lld entries: the offsets of one scatter hold %d",
                 (long long)nnz_at[p], INT32_MAX);
  for (int64_t i = 0, q = 0; i < n; i++) {
    if (part) {
      q = part[i];
    } else {
      while (q + 1 < p && offsets[q + 1] <= i) q++;
    }
    const int64_t r = rows_at[q]++;
    b->ids[r] = i;
    b->lens[r] = A0->rowptr[i + 1] - A0->rowptr[i];
    for (int64_t k = A0->rowptr[i]; k < A0->rowptr[i + 1]; k++) {
      const int64_t at = nnz_at[q]++;
      b->cols[at] = A0->colind[k];
      b->vals[at] = A0->values[k];
    }
  }
cleanup:
  sps_host_free(rows_at);
  sps_host_free(nnz_at);
  return st;
}

sps_status sps_matrix_scatter(sps_context *ctx, sps_matrix **out, int root, const sps_matrix *A0,
                              sps_partition partition)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "A");
  *out = NULL;
  if (!ctx->comm)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_scatter: the context is not distributed");
  struct sps_comm *c = ctx->comm;
  const int p = c->size, me = c->rank;
  sps_status st = SPS_SUCCESS;
  scatter_buf b;
  memset(&b, 0, sizeof b);
  int32_t *part = NULL;
  int64_t *offsets = NULL, *rowptr = NULL, *ids = NULL, *cols = NULL, *lens = NULL;
  double *vals = NULL;
  /* n, nnz and the symmetry, as the root finds them */
  int64_t head[3] = {0, 0, SPS_SYMMETRY_UNKNOWN};
  if (root < 0 || root >= p)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_scatter: root %d is not a rank of the %d",
                       root, p);
  else if (partition != SPS_PARTITION_CONTIGUOUS && partition != SPS_PARTITION_METIS)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_scatter: unknown partition %d",
                       (int)partition);
  else if (me == root && !A0)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_scatter: invalid argument 'A0' on the root");
  else if (me == root && A0->nrows != A0->ncols)
    st = sps_error_set(ctx, SPS_ERR_SIZE, "sps_matrix_scatter: A0 is %lld x %lld, not square",
                       (long long)A0->nrows, (long long)A0->ncols);
  else if (me == root && A0->dist)
    st = sps_error_set(ctx, SPS_ERR_ARGUMENT, "sps_matrix_scatter: A0 is itself distributed");
  if (!st && me == root) {
    const int64_t n = A0->nrows;
    head[0] = n;
    head[1] = A0->nnz;
    /* the symmetry the automatic choice needs, found once on the whole matrix */
    head[2] = A0->symmetry == SPS_SYMMETRY_SYMMETRIC || A0->symmetry == SPS_SYMMETRY_SKEW
                  ? A0->symmetry
              : sps_matrix_block_is_symmetric(A0) ? SPS_SYMMETRY_SYMMETRIC
                                                  : SPS_SYMMETRY_GENERAL;
    st = sps_host_alloc(ctx, (void **)&offsets, (size_t)p + 1, sizeof *offsets, "partition");
    if (!st && partition == SPS_PARTITION_METIS) {
      st = sps_host_alloc(ctx, (void **)&part, (size_t)(n > 0 ? n : 1), sizeof *part, "partition");
      if (!st) st = sps_partition_metis(ctx, A0, p, part);
    } else if (!st) {
      sps_partition_contiguous(n, p, offsets);
    }
    if (!st) st = scatter_pack(ctx, A0, p, part, offsets, &b);
  }
  SPS_TRY(sps_comm_agree(ctx, st));
  int e = MPI_Bcast(head, 3, MPI_INT64_T, root, c->comm);
  if (e != MPI_SUCCESS) SPS_TRY(sps_comm_fail(ctx, e, "MPI_Bcast"));
  const int64_t n = head[0];
  /* every rank finds the owners: the offsets of contiguous blocks, or METIS's parts */
  if (me != root) {
    st = sps_host_alloc(ctx, (void **)&offsets, (size_t)p + 1, sizeof *offsets, "partition");
    if (!st && partition == SPS_PARTITION_METIS)
      st = sps_host_alloc(ctx, (void **)&part, (size_t)(n > 0 ? n : 1), sizeof *part, "partition");
  }
  SPS_TRY(sps_comm_agree(ctx, st));
  if (partition == SPS_PARTITION_METIS) {
    if (n > INT32_MAX) SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "%lld rows: one broadcast holds %d", (long long)n, INT32_MAX);
    e = MPI_Bcast(part, (int)n, MPI_INT32_T, root, c->comm);
  } else {
    e = MPI_Bcast(offsets, p + 1, MPI_INT64_T, root, c->comm);
  }
  if (e != MPI_SUCCESS) SPS_TRY(sps_comm_fail(ctx, e, "MPI_Bcast"));
  int counts[2];
  e = MPI_Scatter(b.rows_n, 1, MPI_INT, &counts[0], 1, MPI_INT, root, c->comm);
  if (e == MPI_SUCCESS) e = MPI_Scatter(b.nnz_n, 1, MPI_INT, &counts[1], 1, MPI_INT, root, c->comm);
  if (e != MPI_SUCCESS) SPS_TRY(sps_comm_fail(ctx, e, "MPI_Scatter"));
  const int nl = counts[0], nz = counts[1];
  st = sps_host_alloc(ctx, (void **)&ids, (size_t)(nl > 0 ? nl : 1), sizeof *ids, "row indices");
  if (!st) st = sps_host_alloc(ctx, (void **)&lens, (size_t)(nl > 0 ? nl : 1), sizeof *lens, "row lengths");
  if (!st) st = sps_host_alloc(ctx, (void **)&rowptr, (size_t)nl + 1, sizeof *rowptr, "row offsets");
  if (!st) st = sps_host_alloc(ctx, (void **)&cols, (size_t)(nz > 0 ? nz : 1), sizeof *cols, "columns");
  if (!st) st = sps_host_alloc(ctx, (void **)&vals, (size_t)(nz > 0 ? nz : 1), sizeof *vals, "values");
  SPS_TRY(sps_comm_agree(ctx, st));
  e = MPI_Scatterv(b.ids, b.rows_n, b.rows_d, MPI_INT64_T, ids, nl, MPI_INT64_T, root, c->comm);
  if (e == MPI_SUCCESS)
    e = MPI_Scatterv(b.lens, b.rows_n, b.rows_d, MPI_INT64_T, lens, nl, MPI_INT64_T, root, c->comm);
  if (e == MPI_SUCCESS)
    e = MPI_Scatterv(b.cols, b.nnz_n, b.nnz_d, MPI_INT64_T, cols, nz, MPI_INT64_T, root, c->comm);
  if (e == MPI_SUCCESS)
    e = MPI_Scatterv(b.vals, b.nnz_n, b.nnz_d, MPI_DOUBLE, vals, nz, MPI_DOUBLE, root, c->comm);
  if (e != MPI_SUCCESS) SPS_TRY(sps_comm_fail(ctx, e, "MPI_Scatterv"));
  scatter_buf_free(&b);
  rowptr[0] = 0;
  for (int i = 0; i < nl; i++) rowptr[i + 1] = rowptr[i] + lens[i];
  {
    const sps_dist_rows rows = {nl, ids, 0, rowptr, cols, vals, 1};
    const sps_dist_owner owner = {p, partition == SPS_PARTITION_METIS ? NULL : offsets, part};
    st = sps_dist_assemble(ctx, out, n, &rows, &owner, 1, partition, (sps_symmetry)head[2]);
  }
cleanup:
  scatter_buf_free(&b);
  sps_host_free(part);
  sps_host_free(offsets);
  sps_host_free(rowptr);
  sps_host_free(ids);
  sps_host_free(lens);
  sps_host_free(cols);
  sps_host_free(vals);
  return st;
}

sps_status sps_matrix_read_mm_dist(sps_context *ctx, sps_matrix **out, const char *path,
                                   unsigned flags)
{
  if (!ctx) return SPS_ERR_ARGUMENT;
  SPS_CHECK_ARG(ctx, out, "A");
  *out = NULL;
  if (!ctx->comm)
    SPS_FAIL(ctx, SPS_ERR_ARGUMENT, "sps_matrix_read_mm_dist: the context is not distributed");
  struct sps_comm *c = ctx->comm;
  sps_mm_rows rows;
  memset(&rows, 0, sizeof rows);
  int64_t *offsets = NULL;
  sps_status st = path ? SPS_SUCCESS
                       : sps_error_set(ctx, SPS_ERR_ARGUMENT,
                                       "sps_matrix_read_mm_dist: invalid argument 'path'");
  if (!st) st = sps_mm_read_rows(ctx, path, flags, c->size, c->rank, &rows);
  if (!st)
    st = sps_host_alloc(ctx, (void **)&offsets, (size_t)c->size + 1, sizeof *offsets, "partition");
  st = sps_comm_agree(ctx, st);
  if (!st) {
    sps_partition_contiguous(rows.nrows, c->size, offsets);
    const sps_dist_rows r = {rows.n, NULL, rows.first, rows.rowptr, rows.colind, rows.values, 0};
    const sps_dist_owner owner = {c->size, offsets, NULL};
    /* as declared, as sps_matrix_read_mm records it (the automatic choice tests a general
     * matrix for symmetry, over the ranks) */
    st = sps_dist_assemble(ctx, out, rows.nrows, &r, &owner, 1, SPS_PARTITION_CONTIGUOUS,
                           rows.symmetry);
  }
  sps_mm_rows_free(&rows);
  sps_host_free(offsets);
  return st;
}
