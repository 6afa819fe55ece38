/* bjacobi.c: being written. */
#include "precond.h"

static sps_status bjacobi_setup(sps_precond *pc, const sps_matrix *A)
{
  (void)A;
  SPS_FAIL(pc->ctx, SPS_ERR_UNSUPPORTED, "bjacobi: not built yet");
}

static sps_status bjacobi_apply(sps_precond *pc, const double *r, double *z)
{
  (void)r; (void)z;
  SPS_FAIL(pc->ctx, SPS_ERR_UNSUPPORTED, "bjacobi: not built yet");
}

const sps_precond_ops sps_precond_ops_bjacobi = {
    .type = SPS_PRECOND_BJACOBI,
    .name = "bjacobi",
    .in_place = 0,
    .symmetric = 1,
    .setup = bjacobi_setup,
    .apply = bjacobi_apply,
};
