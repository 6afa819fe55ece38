/* bjacobi.c: the CPU reference of the block Jacobi apply; being written. */
#include "kernels.h"

void sps_ref_bjacobi_apply(int64_t n, int bs, const double *inv, const double *r, double *z)
{
  (void)n; (void)bs; (void)inv; (void)r; (void)z;
}
