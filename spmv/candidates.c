/* candidates.c: the short list of SpMV variants and parameters that TUNE times on a matrix, best guess first. */
#include <stdio.h>

#include "spmv_internal.h"

typedef struct cand_list {
  sps_spmv_choice *list;
  int max, count;
  sps_device_kind device;
  int ell_fits; /* max_len * nrows <= SPS_ELL_MAX_PADDING * nnz */
} cand_list;

/* Append (kind, tpr) unless it is there already, full, or not on the device. */
static void add(cand_list *c, sps_spmv_kind kind, int tpr, const char *why)
{
  if (c->count >= c->max || !sps_spmv_kind_available(kind, c->device)) return;
  /* ELL only within its padding limit (its setup would refuse it), from any source */
  if (kind == SPS_SPMV_ELL && !c->ell_fits) return;
  if (kind != SPS_SPMV_CSR_VECTOR) tpr = 0;
  for (int k = 0; k < c->count; k++) {
    const int t = c->list[k].kind == SPS_SPMV_CSR_VECTOR ? c->list[k].tpr : 0;
    if (c->list[k].kind == kind && t == tpr) return;
  }
  sps_spmv_choice *e = &c->list[c->count++];
  e->kind = kind;
  e->tpr = tpr;
  snprintf(e->why, sizeof e->why, "%s", why);
}

/*
 * The list: AUTO's pick and the rest of its ranking (the model's leaf, when a model for the
 * GPU is built in); csr-scalar, the safe streaming
 * variant; csr-vector with the threads per row nearest the mean row length, then twice and
 * half that (the rule's rounding misses by a factor of two on matrices like sherman5);
 * blockwise and merge, the load-balanced ones; coo and hyb, which win on a few power-law rows;
 * ell when its padding fits (ell would refuse it otherwise); cuSPARSE, the reference, on a GPU.
 */
int sps_spmv_candidates(const sps_matrix *A, sps_device_kind device, int compute_capability,
                        sps_spmv_choice *list, int max)
{
  sps_spmv_row_stats rs;
  sps_spmv_row_stats_compute(A, &rs);
  cand_list c = {list, max, 0, device,
                 rs.max_len * A->nrows <= SPS_ELL_MAX_PADDING * A->nnz};
  if (!list || max <= 0) return 0;
  sps_spmv_choice pick;
  sps_spmv_select(A, device, compute_capability, &pick);
  add(&c, pick.kind, pick.tpr, "AUTO's pick");
  for (int k = 0; k < pick.nranked; k++)
    add(&c, pick.ranked[k].kind, pick.ranked[k].tpr, "next in AUTO's ranking");
  add(&c, SPS_SPMV_CSR_SCALAR, 0, "one thread per row");
  const int t = sps_spmv_tpr_from_mean(rs.mean, 2);
  char why[128];
  snprintf(why, sizeof why, "threads per row nearest the mean row length %.2f", rs.mean);
  add(&c, SPS_SPMV_CSR_VECTOR, t, why);
  if (t < 32) add(&c, SPS_SPMV_CSR_VECTOR, 2 * t, "twice the threads per row of the mean");
  if (t > 2) add(&c, SPS_SPMV_CSR_VECTOR, t / 2, "half the threads per row of the mean");
  add(&c, SPS_SPMV_BLOCKWISE, 0, "long-row and short-row blocks");
  add(&c, SPS_SPMV_MERGE, 0, "merge-path load balance");
  add(&c, SPS_SPMV_COO, 0, "one thread per nonzero share");
  add(&c, SPS_SPMV_HYB, 0, "ELL for the typical row, COO for the excess");
  add(&c, SPS_SPMV_ELL, 0, "padding within ELL's limit");
  add(&c, SPS_SPMV_CUSPARSE, 0, "the cuSPARSE reference");
  return c.count;
}
