/* reorder.c: static pivoting (matching) and equilibration; being written. */
#include "reorder.h"

sps_status sps_reorder_compute(sps_context *ctx, const sps_host_csr *A, int matching,
                               int scaling, sps_reorder *r)
{
  (void)A; (void)matching; (void)scaling;
  r->n = 0;
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "reorder: not built yet");
}

sps_status sps_reorder_apply(sps_context *ctx, const sps_host_csr *A, const sps_reorder *r,
                             sps_host_csr *B)
{
  (void)A; (void)r; (void)B;
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "reorder: not built yet");
}

void sps_reorder_free(sps_reorder *r)
{
  sps_host_free(r->row_perm);
  sps_host_free(r->col_perm);
  sps_host_free(r->row_scale);
  sps_host_free(r->col_scale);
  r->row_perm = r->col_perm = NULL;
  r->row_scale = r->col_scale = NULL;
}

int sps_reorder_diagonal_is_weak(const sps_host_csr *A) { (void)A; return 0; }
