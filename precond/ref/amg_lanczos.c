/* amg_lanczos.c: the CPU reference of the multigrid Lanczos steps whose scalars stay in the context's memory (precond/amg_spectrum.c), which the CUDA kernels (precond/cuda/amg_lanczos.cu) are held to.
 *
 * The math is in precond/ref/kernels.h. Each function reads its scalars (the sums that
 * dot_store and sumsq_store left, the previous beta) from memory, as the kernels do, and does
 * element by element the IEEE operations of the backend operations it replaces (nrm2's square
 * root, scal, pointwise_mult, axpy, copy, axpby) in their order, without contraction (the
 * build passes -ffp-contract=off): the estimate keeps its bits, on the CPU and on the GPU.
 */
#include <math.h>

#include "../../core/omp_csum.h"
#include "kernels.h"

void sps_ref_amg_lanczos_start(int64_t n, const double *sq, double *flag, double *v)
{
  const double a = 1.0 / sps_amg_lanczos_norm(sq, flag);
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) v[i] = a * v[i];
}

void sps_ref_amg_lanczos_residual(int64_t n, const double *dsq, const double *beta,
                                  const double *vold, double *w)
{
  const double a = -*beta;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    const double t = dsq[i] * w[i];
    w[i] = a * vold[i] + 1.0 * t;
  }
}

void sps_ref_amg_lanczos_orth(int64_t n, const double *alpha, const double *v, double *w)
{
  const double a = -*alpha;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) w[i] = a * v[i] + 1.0 * w[i];
}

void sps_ref_amg_lanczos_next(int64_t n, const double *sq, double *beta, double *flag,
                              const double *w, double *v, double *vold)
{
  const double b = sps_amg_lanczos_norm(sq, flag);
  *beta = b;
  const double a = 1.0 / b;
#pragma omp parallel for schedule(static) if (n > SPS_OMP_MIN)
  for (int64_t i = 0; i < n; i++) {
    vold[i] = v[i];
    v[i] = a * w[i];
  }
}
