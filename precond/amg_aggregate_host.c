/* amg_aggregate_host.c: a plain host aggregation for smoothed-aggregation multigrid (the greedy standard aggregation of Vanek, Mandel and Brezina), behind the prototype of the MIS(2) aggregation. */
#include <math.h>

#include "amg.h"

/*
 * j != i is a strong neighbour of i when a_ij != 0 and |a_ij| >= theta sqrt(|a_ii a_jj|),
 * or the same holds for a_ji (the graph is symmetrised). Three greedy passes over the rows
 * in order (Vanek, Mandel and Brezina, Computing 56 (1996), section 4.1):
 *   1. a row with a strong neighbour whose strong neighbours are all free starts an aggregate
 *      with them;
 *   2. a free row joins the aggregate of its first aggregated strong neighbour;
 *   3. a row still free starts an aggregate with its free strong neighbours.
 * Rows with no strong neighbour stay -1.
 */
sps_status sps_amg_aggregate(sps_context *ctx, const sps_host_csr *A, double theta, int32_t *agg,
                             int64_t *naggs)
{
  const int64_t n = A->n;
  sps_status st = SPS_SUCCESS;
  double *diag = NULL;
  int64_t *srp = NULL;
  int32_t *sci = NULL, *tci = NULL;
  int64_t *trp = NULL;
  *naggs = 0;
  const size_t nn = (size_t)(n > 0 ? n : 1), nz = (size_t)(A->rowptr[n] > 0 ? A->rowptr[n] : 1);
  SPS_TRY(sps_host_alloc(ctx, (void **)&diag, nn, sizeof(double), "aggregation diagonal"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&srp, nn + 1, sizeof(int64_t), "strong graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&sci, 2 * nz, sizeof(int32_t), "strong graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&trp, nn + 1, sizeof(int64_t), "strong graph"));
  SPS_TRY(sps_host_alloc(ctx, (void **)&tci, nz, sizeof(int32_t), "strong graph"));
  for (int64_t i = 0; i < n; i++) {
    diag[i] = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) diag[i] = fabs(A->values[k]);
  }
  /* The strong entries by rows (into tci, counted in trp), then their transpose merged in. */
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    trp[i] = m;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int32_t j = A->colind[k];
      const double a = fabs(A->values[k]);
      if (j != i && a != 0.0 && a >= theta * sqrt(diag[i] * diag[j])) tci[m++] = j;
    }
  }
  trp[n] = m;
  /* symmetrise: row i gets its own strong columns and the rows j that have i */
  for (int64_t i = 0; i <= n; i++) srp[i] = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = trp[i]; k < trp[i + 1]; k++) {
      srp[i + 1]++;
      srp[tci[k] + 1]++;
    }
  for (int64_t i = 0; i < n; i++) srp[i + 1] += srp[i];
  {
    /* the entries, each strong pair in both rows (a pair strong both ways appears twice,
     * which the passes below do not mind): positions from a running copy of srp */
    int64_t *pos = NULL;
    SPS_TRY(sps_host_alloc(ctx, (void **)&pos, nn + 1, sizeof(int64_t), "strong graph"));
    for (int64_t i = 0; i <= n; i++) pos[i] = srp[i];
    for (int64_t i = 0; i < n; i++)
      for (int64_t k = trp[i]; k < trp[i + 1]; k++) {
        sci[pos[i]++] = tci[k];
        sci[pos[tci[k]]++] = (int32_t)i;
      }
    sps_host_free(pos);
  }
  for (int64_t i = 0; i < n; i++) agg[i] = -2; /* -2 free, -1 isolated */
  int64_t na = 0;
  for (int64_t i = 0; i < n; i++) {
    if (srp[i + 1] == srp[i]) {
      agg[i] = -1;
      continue;
    }
    int free_all = 1;
    for (int64_t k = srp[i]; k < srp[i + 1] && free_all; k++) free_all = agg[sci[k]] == -2;
    if (!free_all || agg[i] != -2) continue;
    agg[i] = (int32_t)na;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++) agg[sci[k]] = (int32_t)na;
    na++;
  }
  for (int64_t i = 0; i < n; i++) {
    if (agg[i] != -2) continue;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++)
      if (agg[sci[k]] >= 0) {
        agg[i] = -3 - agg[sci[k]]; /* marked: joins after the pass, so pass 2 reads pass 1 only */
        break;
      }
  }
  for (int64_t i = 0; i < n; i++)
    if (agg[i] <= -3) agg[i] = -3 - agg[i];
  for (int64_t i = 0; i < n; i++) {
    if (agg[i] != -2) continue;
    agg[i] = (int32_t)na;
    for (int64_t k = srp[i]; k < srp[i + 1]; k++)
      if (agg[sci[k]] == -2) agg[sci[k]] = (int32_t)na;
    na++;
  }
  *naggs = na;
cleanup:
  sps_host_free(diag);
  sps_host_free(srp);
  sps_host_free(sci);
  sps_host_free(trp);
  sps_host_free(tci);
  return st;
}
