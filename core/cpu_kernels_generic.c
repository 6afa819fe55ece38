/* cpu_kernels_generic.c: the CPU kernels on the compiler's 16-byte vectors (SSE2 on x86-64, NEON on arm64), or on plain doubles where the compiler has no vector extension; runs on every processor. */
#if defined(__GNUC__)
#define SPS_KW 2 /* one 16-byte register */
#else
#define SPS_KW 1
#endif
#define SPS_KU 4 /* gemv_n: 8 rows in flight */
#define SPS_KB 4 /* dot_cols: columns of V^T x per pass over x */
#define SPS_KTABLE sps_cpu_kernels_generic
#define SPS_KNAME "generic"
#include "cpu_kernels.h"
