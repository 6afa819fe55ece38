/* partition.c: the partition of a matrix's rows over ranks: contiguous blocks of the original order, or METIS k-way partitioning of the graph of A + A^T, which cuts fewer couplings between ranks. */
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#ifdef SPS_HAVE_METIS
#include <metis.h>
#endif

void sps_partition_contiguous(int64_t n, int nparts, int64_t *offsets)
{
  /* rank r takes rows [floor(r n / p), floor((r+1) n / p)): sizes differ by one at most */
  for (int r = 0; r <= nparts; r++) offsets[r] = (int64_t)r * n / nparts;
}

#ifdef SPS_HAVE_METIS
/* Ascending int32 comparison for the neighbour lists. */
static int cmp_idx(const void *a, const void *b)
{
  const idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;
  return x < y ? -1 : x > y;
}

/*
 * The graph of A + A^T without the diagonal, in METIS's CSR form (xadj, adjncy): row i's
 * neighbours are the columns of row i and the rows that have i among their columns, each once.
 */
static sps_status metis_graph(sps_context *ctx, const sps_matrix *A, idx_t **xadj_out,
                              idx_t **adj_out)
{
  const int64_t n = A->nrows;
  idx_t *xadj = NULL, *adj = NULL;
  int64_t *fill = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(sps_host_calloc(ctx, (void **)&fill, (size_t)n + 1, sizeof *fill, "METIS graph"));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] != i) {
        fill[i + 1]++;
        fill[A->colind[k] + 1]++;
      }
  for (int64_t i = 0; i < n; i++) fill[i + 1] += fill[i];
  if (fill[n] > INT32_MAX)
    SPS_TRY_FAIL(ctx, SPS_ERR_SIZE, "METIS graph: %lld edge ends exceed METIS's 32-bit indices",
                 (long long)fill[n]);
  SPS_TRY(sps_host_alloc(ctx, (void **)&xadj, (size_t)n + 1, sizeof *xadj, "METIS graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&adj, (size_t)(fill[n] > 0 ? fill[n] : 1), sizeof *adj,
                         "METIS graph"));
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int64_t j = A->colind[k];
      if (j == i) continue;
      adj[fill[i]++] = (idx_t)j;
      adj[fill[j]++] = (idx_t)i;
    }
  /* fill[i] now ends row i: sort each row and drop repeats (a symmetric pattern gives each
   * edge twice) */
  xadj[0] = 0;
  int64_t out = 0, start = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t end = fill[i];
    qsort(adj + start, (size_t)(end - start), sizeof *adj, cmp_idx);
    for (int64_t k = start; k < end; k++)
      if (k == start || adj[k] != adj[k - 1]) adj[out++] = adj[k];
    xadj[i + 1] = (idx_t)out;
    start = end;
  }
  *xadj_out = xadj;
  *adj_out = adj;
  xadj = NULL;
  adj = NULL;
cleanup:
  sps_host_free(fill);
  sps_host_free(xadj);
  sps_host_free(adj);
  return st;
}
#endif

sps_status sps_partition_metis(sps_context *ctx, const sps_matrix *A, int nparts, int32_t *part)
{
#ifdef SPS_HAVE_METIS
  const int64_t n = A->nrows;
  if (nparts == 1 || n == 0) {
    for (int64_t i = 0; i < n; i++) part[i] = 0;
    return SPS_SUCCESS;
  }
  if (n > INT32_MAX) SPS_FAIL(ctx, SPS_ERR_SIZE, "METIS: %lld rows exceed 32 bits", (long long)n);
  idx_t *xadj = NULL, *adj = NULL, *where = NULL;
  sps_status st = SPS_SUCCESS;
  SPS_TRY(metis_graph(ctx, A, &xadj, &adj));
  SPS_TRY(sps_host_alloc(ctx, (void **)&where, (size_t)n, sizeof *where, "METIS partition"));
  idx_t nv = (idx_t)n, ncon = 1, np = (idx_t)nparts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  /* a fixed seed: the same partition on every run */
  options[METIS_OPTION_SEED] = 20261127;
  options[METIS_OPTION_NUMBERING] = 0;
  const int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL,
                                     options, &cut, where);
  if (rc != METIS_OK)
    SPS_TRY_FAIL(ctx, rc == METIS_ERROR_MEMORY ? SPS_ERR_HOST_MEMORY : SPS_ERR_UNSUPPORTED,
                 "METIS_PartGraphKway failed (%s) on %lld rows in %d parts",
                 rc == METIS_ERROR_MEMORY ? "out of memory" : rc == METIS_ERROR_INPUT ? "bad input" : "error",
                 (long long)n, nparts);
  for (int64_t i = 0; i < n; i++) part[i] = (int32_t)where[i];
cleanup:
  sps_host_free(xadj);
  sps_host_free(adj);
  sps_host_free(where);
  return st;
#else
  (void)A;
  (void)nparts;
  (void)part;
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED,
           "METIS partitioning asked for, but this build of spsolve has no METIS (configure "
           "--with-metis)");
#endif
}
