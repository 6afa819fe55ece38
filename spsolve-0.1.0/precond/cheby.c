/* cheby.c: being written. */
#include "precond.h"

static sps_status cheby_setup(sps_precond *pc, const sps_matrix *A)
{
  (void)A;
  SPS_FAIL(pc->ctx, SPS_ERR_UNSUPPORTED, "cheby: not built yet");
}

static sps_status cheby_apply(sps_precond *pc, const double *r, double *z)
{
  (void)r; (void)z;
  SPS_FAIL(pc->ctx, SPS_ERR_UNSUPPORTED, "cheby: not built yet");
}

const sps_precond_ops sps_precond_ops_cheby = {
    .type = SPS_PRECOND_CHEBY,
    .name = "cheby",
    .in_place = 0,
    .symmetric = 1,
    .setup = cheby_setup,
    .apply = cheby_apply,
};
