/* nrm2_scale.h: when and by which power of two the backends scale a vector before summing its squares (dnrm2's idea), so that ||x|| neither overflows nor underflows and the CPU and the GPU round it alike. */
#ifndef SPS_CORE_NRM2_SCALE_H
#define SPS_CORE_NRM2_SCALE_H

#include <math.h>

/*
 * ||x|| = sqrt(sum x_i^2) overflows once some x_i^2 does (|x_i| >= 2^512, 1.3e154) and loses
 * everything once the squares underflow (|x_i| < 2^-537, 2e-162: b = 1e-200*ones has norm 0).
 * LAPACK's dnrm2 (Blue 1978, Anderson 2017) scales. Here the scale is a power of two taken
 * from amax = max |x_i|, which a reduction finds exactly whatever its order:
 *
 *   ||x|| = 2^e sqrt(sum (x_i 2^-e)^2)
 *
 * Multiplying by 2^-e is exact (unless it makes x_i subnormal, which changes x_i by less
 * than 2^-1074 2^e, far below the norm's last bit), so the terms are the squares of the
 * unscaled x_i times 2^-2e exactly, their compensated sum is the unscaled one times 2^-2e,
 * and the square root and ldexp give the same bits the unscaled sum would give in exact
 * range. Therefore the backends compute sqrt(sum x_i^2) unscaled, in one pass that also finds
 * amax, and sum again with the scale only when amax lies outside
 * [SPS_NRM2_SAFE_MIN, SPS_NRM2_SAFE_MAX]: there n x_i^2 <= 2^63 2^960 cannot overflow and the
 * largest square is normal, so a square that underflows is below 2^-100 of the sum. Ordinary
 * vectors keep the bits of sqrt(x.x), and a second pass is paid only by extreme ones.
 */
#define SPS_NRM2_SAFE_MIN 0x1p-460
#define SPS_NRM2_SAFE_MAX 0x1p+480

/*
 * The exponent e of the scale for a vector whose largest |x_i| is amax: 0 when no scaling is
 * needed (amax in the safe range, 0, NaN or Inf), else e with amax = f 2^e, f in [0.5, 1),
 * kept within [-1022, 1022] so that 2^-e and 2^e are normal doubles. Callable from CUDA
 * kernels as well (precond/cuda/amg_lanczos.cu).
 */
#if defined(__CUDACC__)
#define SPS_NRM2_HD __host__ __device__
#else
#define SPS_NRM2_HD
#endif
static inline SPS_NRM2_HD int sps_nrm2_scale_exponent(double amax)
{
  if (!(amax > 0.0) || isinf(amax)) return 0;
  if (amax >= SPS_NRM2_SAFE_MIN && amax <= SPS_NRM2_SAFE_MAX) return 0;
  int e;
  (void)frexp(amax, &e);
  if (e < -1022) e = -1022;
  if (e > 1022) e = 1022;
  return e;
}

#endif /* SPS_CORE_NRM2_SCALE_H */
