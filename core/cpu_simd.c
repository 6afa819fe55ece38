/* cpu_simd.c: which instruction set the CPU backend's kernels run with: the widest the build and the processor support, or a narrower one named by SPSOLVE_CPU_SIMD. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"

static const char *const isa_names[SPS_CPU_ISA_COUNT] = {"generic", "avx2", "avx512"};

/* The choice, made once: -1 until the first call (threads that race to make it write the
 * same value). */
static atomic_int chosen = -1;

const char *sps_cpu_isa_name(sps_cpu_isa isa)
{
  return (unsigned)isa < SPS_CPU_ISA_COUNT ? isa_names[isa] : "unknown";
}

int sps_cpu_isa_supported(sps_cpu_isa isa)
{
  switch (isa) {
  case SPS_CPU_ISA_GENERIC:
    return 1;
#ifdef SPS_CPU_HAVE_X86
  /* __builtin_cpu_supports checks the CPUID bits and that the operating system saves the
   * vector registers (XGETBV), so a kernel of that width can run. */
  case SPS_CPU_ISA_AVX2:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  case SPS_CPU_ISA_AVX512:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#endif
  default:
    return 0;
  }
}

const sps_cpu_kernels *sps_cpu_kernels_for(sps_cpu_isa isa)
{
  switch (isa) {
#ifdef SPS_CPU_HAVE_X86
  case SPS_CPU_ISA_AVX2:
    return &sps_cpu_kernels_avx2;
  case SPS_CPU_ISA_AVX512:
    return &sps_cpu_kernels_avx512;
#endif
  default:
    return &sps_cpu_kernels_generic;
  }
}

/* The widest supported set, or the one SPSOLVE_CPU_SIMD names when this processor runs it. */
static int choose(void)
{
  int best = SPS_CPU_ISA_GENERIC;
  for (int i = SPS_CPU_ISA_GENERIC + 1; i < SPS_CPU_ISA_COUNT; i++)
    if (sps_cpu_isa_supported((sps_cpu_isa)i)) best = i;
  const char *e = getenv("SPSOLVE_CPU_SIMD");
  if (e && e[0]) {
    for (int i = 0; i < SPS_CPU_ISA_COUNT; i++)
      if (strcmp(e, isa_names[i]) == 0 && sps_cpu_isa_supported((sps_cpu_isa)i)) return i;
  }
  return best;
}

sps_cpu_isa sps_cpu_isa_current(void)
{
  int c = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (c < 0) {
    c = choose();
    atomic_store_explicit(&chosen, c, memory_order_relaxed);
  }
  return (sps_cpu_isa)c;
}

const sps_cpu_kernels *sps_cpu_kernels_current(void)
{
  return sps_cpu_kernels_for(sps_cpu_isa_current());
}

int sps_test_cpu_isa_set(sps_cpu_isa isa)
{
  if ((unsigned)isa >= SPS_CPU_ISA_COUNT || !sps_cpu_isa_supported(isa)) return -1;
  atomic_store_explicit(&chosen, (int)isa, memory_order_relaxed);
  return 0;
}
