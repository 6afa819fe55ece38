/* omp_csum.h: what an OpenMP loop needs to form a compensated sum with the CPU backend's bits: the length from which its reductions fork, the reduction of sps_csum, and the static part of the calling thread. */
#ifndef SPS_CORE_OMP_CSUM_H
#define SPS_CORE_OMP_CSUM_H

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "compensated_sum.h"

/* Loops shorter than this run on one thread: the fork costs more than the work. The split of a
 * compensated sum among the threads is part of its order (core/cpu_simd.h), so moving this
 * bound moves the vector lengths at which a 2-thread sum is split: bench/cpu-omp-threshold.c
 * measures it. Defined here unless the build overrides it (for that measurement). */
#ifndef SPS_OMP_MIN
#define SPS_OMP_MIN 8192
#endif

/* Every reduction adds rounded products into compensated sums (core/compensated_sum.h), so
 * its result does not depend on the number of threads, and matches the CUDA backend's. On a
 * distributed context each reduction merges the ranks' sums (sps_comm_sum, core/comm.h)
 * before rounding them, so neither does it depend on the number of ranks. */
#pragma omp declare reduction(csum : sps_csum : sps_csum_merge(&omp_out, omp_in)) \
    initializer(omp_priv = sps_csum_zero())

/*
 * SPS_OMP_IF(fork, "omp PRAGMA", STATEMENT): STATEMENT under `#pragma omp PRAGMA` when fork is
 * true, else as plain code with no OpenMP region at all. A region whose if clause is false
 * still has libgomp set up a team for its one thread: about 270 ns a region on the machine of
 * doc/performance.md (a 16-term compensated sum takes 15), paid several times an iteration by
 * a small system. The results are the same: one thread runs the same loop either way, and a
 * csum reduction that merges its one part into zero changes no bit (a compensated sum started
 * at +0 never holds -0, so the merge gives back the part's hi and lo). Pragmas inside
 * STATEMENT are written _Pragma("omp ...").
 */
#define SPS_OMP_IF(fork, pragma, ...) \
  do {                                \
    if (fork) {                       \
      _Pragma(pragma) __VA_ARGS__     \
    } else {                          \
      __VA_ARGS__                     \
    }                                 \
  } while (0)

/*
 * The part [lo, hi) of n elements that the calling thread of a parallel region takes: the split
 * of OpenMP's schedule(static) without a chunk size (libgomp's and libomp's: the first n mod
 * nt threads take one more), so that a kernel run on each part sums each part in the order the
 * `omp for schedule(static)` loops it replaces did, and every compensated sum keeps its bits.
 */
static inline void sps_omp_part(int64_t n, int64_t *lo, int64_t *hi)
{
#ifdef _OPENMP
  const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
  const int64_t t = 0, nt = 1;
#endif
  const int64_t q = n / nt, extra = n % nt;
  *lo = q * t + (t < extra ? t : extra);
  *hi = *lo + q + (t < extra);
}

#endif
