/* amg.c: the smoothed-aggregation algebraic multigrid preconditioner (--precond amg): M^-1 r is one multigrid cycle on sign*A from a zero guess. */
#include "amg.h"

/*
 * Setup (amg_hierarchy.c) builds the levels on the host, the same on every device, and keeps
 * each level's operators (A_l, P_l, R_l, the coarsest level's dense inverse) as library
 * matrices in the context's memory with their own SpMV plans, and all work vectors. Apply
 * (amg_cycle.c) is one V-, W- or F-cycle ("amg.cycle") made of SpMVs and backend vector
 * operations: it allocates nothing, reads nothing back to the host, and rounds the same on
 * the CPU and the GPU, so CG takes the same iterations on both. Parameters: "amg.strength",
 * "amg.smoother", "amg.cheby_degree", "amg.cheby_ratio", "amg.levels", "amg.coarse_size",
 * "amg.cycle" and "cheby.lanczos" (precond/params.c). The V- and W-cycles are symmetric
 * positive definite for SPD A, so CG may use them.
 */

static void amg_destroy(sps_precond *pc)
{
  amg_data *d = pc->data;
  if (!d) return;
  amg_data_free(pc->ctx, d);
  sps_host_free(d);
  pc->data = NULL;
}

static sps_status amg_setup(sps_precond *pc, const sps_matrix *A)
{
  amg_data *d = NULL;
  SPS_CHECK(sps_host_calloc(pc->ctx, (void **)&d, 1, sizeof *d, "AMG hierarchy"));
  pc->data = d;
  if (A->nrows == 0) return SPS_SUCCESS;
  const sps_status st = amg_hierarchy_build(pc, A, d);
  if (st) amg_destroy(pc);
  return st;
}

static sps_status amg_apply(sps_precond *pc, const double *r, double *z)
{
  const amg_data *d = pc->data;
  if (d->nlevels == 0) return SPS_SUCCESS;
  return amg_cycle_apply(pc, r, z);
}

const sps_precond_ops sps_precond_ops_amg = {
    .type = SPS_PRECOND_AMG,
    .name = "amg",
    .in_place = 0,
    .symmetric = 1,
    .setup = amg_setup,
    .apply = amg_apply,
    .destroy = amg_destroy,
};
