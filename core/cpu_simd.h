/* cpu_simd.h: the CPU backend's vector kernels behind one table per instruction set (generic 16-byte vectors, AVX2, AVX-512F), the widest the processor runs chosen at run time. */
#ifndef SPS_CORE_CPU_SIMD_H
#define SPS_CORE_CPU_SIMD_H

#include <stdint.h>

#include "compensated_sum.h"

/*
 * Every kernel below runs on one thread over the range it is given; core/backend_cpu.c splits
 * a vector among the OpenMP threads as their static schedule does and merges the threads'
 * compensated partial sums as before.
 *
 * What a wider vector may change: nothing in the results. Each lane performs exactly the
 * operations of the scalar loop it replaces, in the same order:
 *   - elementwise results (y + alpha*s, x*c, r + beta*(p - omega*v)) are the lanewise IEEE
 *     operations, never contracted into an FMA (the library is compiled with
 *     -ffp-contract=off, which holds inside the files compiled for AVX2 and AVX-512F too);
 *   - the plain row sums of V h (gemv_n) run over j = 0, 1, ... in each row as the scalar loop
 *     and the CUDA kernel do: a vector holds consecutive rows, never consecutive j;
 *   - each compensated sum of V^T x (dot_cols) is one column's TwoSums over i = 0, 1, ... in
 *     order, as cpu_dot forms it: a vector holds one row of several columns (a transposed
 *     tile of V), never several rows of one column.
 * A compensated sum split into lanes (partial sums over i mod W) would round to the same
 * double bar rare ties, but those ties are met: BiCGSTAB on adder_dcop_05, whose inner
 * products cancel to 1e-10 of their terms, left the recorded history at iteration 605 when
 * the dot products were split so. Single dot products therefore stay scalar chains (their
 * speed is the latency of one addition per term), and the width buys only independent sums
 * side by side. tests/unit/cpu_simd holds every table the processor can run to the scalar
 * loops bit for bit.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction sets, narrowest first. */
typedef enum sps_cpu_isa {
  SPS_CPU_ISA_GENERIC = 0, /* 16-byte vectors of the compiler (SSE2, NEON), or scalar code */
  SPS_CPU_ISA_AVX2 = 1,    /* 32-byte vectors (x86-64 with AVX2) */
  SPS_CPU_ISA_AVX512 = 2,  /* 64-byte vectors (x86-64 with AVX-512F) */
  SPS_CPU_ISA_COUNT = 3
} sps_cpu_isa;

typedef struct sps_cpu_kernels {
  const char *name; /* "generic", "avx2", "avx512" */
  int lanes;        /* doubles per vector (1 where the compiler has no vector extension) */
  /* Continue the compensated sums (hi[j], lo[j]) over the rows [0, n): j = 0 with x.x when
   * with_xx, then j = q + with_xx with V(:, q).x for q < k (V column-major, ldv), each adding
   * its rows in order i = 0, 1, ... by TwoSum, so that calls on consecutive row ranges give
   * the sums of one call on their union. hi and lo hold a multiple of 16 entries at least
   * k + with_xx rounded up to 16 (the kernels load and store whole vectors of them). */
  void (*dot_cols)(int64_t n, int k, const double *V, int64_t ldv, const double *x, int with_xx,
                   double *hi, double *lo);
  /* y_i <- y_i + alpha * sum_{j<k} V(i, j) h_j, the sum plain in the order j = 0, 1, ...;
   * then, when yy is not NULL, *yy += y_i^2 of the new y_i in the order i = 0, 1, ... */
  void (*gemv_n)(int64_t n, int k, double alpha, const double *V, int64_t ldv, const double *h,
                 double *y, sps_csum *yy);
  /* y <- a*x + b*y (b = 0: y <- a*x, y not read) */
  void (*axpby)(int64_t n, double a, const double *x, double b, double *y);
  /* a_i = b_i <- x_i * c */
  void (*scale_into_two)(int64_t n, double c, const double *x, double *a, double *b);
  /* p <- r + beta (p - omega v) */
  void (*bicgstab_direction)(int64_t n, double beta, double omega, const double *r, const double *v,
                             double *p);
} sps_cpu_kernels;

/* The tables, each defined by its own file; NULL where the compiler or target has none. */
extern const sps_cpu_kernels sps_cpu_kernels_generic;
#if defined(__x86_64__) && defined(__GNUC__)
#define SPS_CPU_HAVE_X86 1
extern const sps_cpu_kernels sps_cpu_kernels_avx2;
extern const sps_cpu_kernels sps_cpu_kernels_avx512;
#endif

/*
 * The instruction set in use: the widest that both the build and the processor (with the
 * operating system's register state) support, or a narrower one named by the environment
 * variable SPSOLVE_CPU_SIMD (generic, avx2, avx512; a name the processor cannot run is
 * ignored), decided at the first call.
 */
sps_cpu_isa sps_cpu_isa_current(void);
/* Whether this build and this processor can run isa. */
int sps_cpu_isa_supported(sps_cpu_isa isa);
/* "generic", "avx2", "avx512". */
const char *sps_cpu_isa_name(sps_cpu_isa isa);
/* The table of the instruction set in use. */
const sps_cpu_kernels *sps_cpu_kernels_current(void);
/* The table of isa (supported or not: the caller asks sps_cpu_isa_supported first). */
const sps_cpu_kernels *sps_cpu_kernels_for(sps_cpu_isa isa);

/* Tests only: run isa from now on (SPS_ERR_UNSUPPORTED-like -1 when it cannot run here);
 * returns 0 on success. Not thread-safe: called between solves. */
int sps_test_cpu_isa_set(sps_cpu_isa isa);

#ifdef __cplusplus
}
#endif

#endif /* SPS_CORE_CPU_SIMD_H */
