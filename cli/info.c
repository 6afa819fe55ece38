/* info.c: --version (package, CUDA and MPI support, CUDA device probe) and --list-spmv (the variant table).
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
  printf("MPI support: %s\n",
#ifdef SPS_HAVE_MPI
#ifdef SPS_HAVE_METIS
         "yes (mpirun -np P spsolve; METIS partitioning)"
#else
         "yes (mpirun -np P spsolve; no METIS)"
#endif
#else
         "no"
#endif
  );
  printf("Compressed input: %s\n", ""
#ifdef SPS_HAVE_ZLIB
                                    "gzip "
#endif
#ifdef SPS_HAVE_LZMA
                                    "xz "
#endif
#ifdef SPS_HAVE_BZIP2
                                    "bzip2 "
#endif
                                    "(told from the data's first bytes)");
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

void cli_print_precond_list(void)
{
  static const char *const what[SPS_PRECOND_TYPE_COUNT] = {
      [SPS_PRECOND_NONE] = "the identity",
      [SPS_PRECOND_JACOBI] = "the inverse of the diagonal",
      [SPS_PRECOND_ILU0] = "incomplete LU with the pattern of A (GPU factorisation and solves)",
      [SPS_PRECOND_IC0] = "incomplete Cholesky with the pattern of A, shifted on breakdown (SPD A)",
      [SPS_PRECOND_ILUT] = "threshold incomplete LU with column pivoting (ILUTP); ilut:FILL,DROP",
      [SPS_PRECOND_BJACOBI] = "block Jacobi, inverted dense diagonal blocks; bjacobi:BLOCK",
      [SPS_PRECOND_CHEBY] = "Chebyshev polynomial in D^-1 A (SPD A); cheby:DEGREE",
      [SPS_PRECOND_AMG] = "algebraic multigrid (classical or smoothed aggregation), one V-cycle (SPD A)",
  };
  printf("preconditioners (--precond NAME[:ARGS]):\n");
  printf("  %-9s %s\n", "auto", "chosen from the matrix, with a fallback chain (the default)");
  for (int t = 0; t < SPS_PRECOND_TYPE_COUNT; t++)
    printf("  %-9s %s\n", sps_precond_type_name((sps_precond_type)t), what[t]);
  printf("\nparameters (--precond-param NAME=VALUE):\n");
  const char *name, *desc;
  double def;
  for (int k = 0; sps_precond_param_info(k, &name, &desc, &def) == SPS_SUCCESS; k++)
    printf("  %-17s %-8g %s\n", name, def, desc);
}
