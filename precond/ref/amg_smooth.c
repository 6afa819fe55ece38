/* amg_smooth.c: the CPU reference of the multigrid Chebyshev smoother's fused vector updates (precond/amg_cycle.c), which the CUDA kernels (precond/cuda/amg_smooth.cu) are held to.
 *
 * The math is in precond/ref/kernels.h. Each function is one pass over the level's vectors and
 * does, element by element, the IEEE operations of the backend operations it replaces
 * (pointwise_mult, axpby, axpy, copy) in their order, without contraction (the build passes
 * -ffp-contract=off), so the cycle rounds as it did with the separate operations and the GPU's
 * one thread an element gives the same bits. The elements are shared out over OpenMP threads
 * above the backend's threshold, as those operations were.
 */
#include "../../core/omp_csum.h"
#include "kernels.h"

void sps_ref_amg_cheby_first(int64_t n, const double *dinv, const double *src, double a, int zero,
                             double *s, double *e, double *x)
{
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    const double si = dinv[i] * src[i];
    const double ei = a * si;
    s[i] = si;
    e[i] = ei;
    x[i] = zero ? ei : x[i] + 1.0 * ei;
  }
}

void sps_ref_amg_cheby_step(int64_t n, const double *dinv, const double *t, double a, double b,
                            double *s, double *e, double *x)
{
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    const double u = dinv[i] * t[i];
    const double si = s[i] + -1.0 * u;
    const double ei = b == 0.0 ? a * si : a * si + b * e[i];
    s[i] = si;
    e[i] = ei;
    x[i] = x[i] + 1.0 * ei;
  }
}
