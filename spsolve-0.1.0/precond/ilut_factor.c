/* ilut_factor.c: ILUTP on the host; being written. */
#include "ilut.h"

sps_status sps_ilut_factor(sps_context *ctx, const sps_host_csr *B, double fill, double drop,
                           double pivot, double pivot_tol, sps_ilut_factors *f)
{
  (void)B; (void)fill; (void)drop; (void)pivot; (void)pivot_tol; (void)f;
  SPS_FAIL(ctx, SPS_ERR_UNSUPPORTED, "ILUT: not built yet");
}

void sps_ilut_factors_free(sps_ilut_factors *f) { (void)f; }
