/* info.c: --version (package, CUDA support, CUDA device probe) and --list-spmv (the variant table).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdio.h>

#include "info.h"
#include "spsolve.h"

void cli_print_version(void)
{
  int count = 0;
  char name[256];
  printf("spsolve %s (libspsolve %s)\n", PACKAGE_VERSION, sps_version());
  printf("CUDA support: %s\n", sps_have_cuda() ? "yes" : "no");
  if (sps_cuda_device_query(&count, name, sizeof name) == SPS_SUCCESS && count > 0)
    printf("CUDA device: %s (%d device%s found)\n", name, count, count == 1 ? "" : "s");
  else
    printf("CUDA device: no CUDA device\n");
}

void cli_print_spmv_list(void)
{
  printf("%-12s %-4s %-4s %s\n", "name", "cpu", "cuda", "description");
  for (int k = 0; k < SPS_SPMV_KIND_COUNT; k++) {
    sps_spmv_kind kind = (sps_spmv_kind)k;
    printf("%-12s %-4s %-4s %s\n", sps_spmv_kind_name(kind),
           sps_spmv_kind_available(kind, SPS_DEVICE_CPU) ? "yes" : "no",
           sps_spmv_kind_available(kind, SPS_DEVICE_CUDA) ? "yes" : "no",
           sps_spmv_kind_description(kind));
  }
}
