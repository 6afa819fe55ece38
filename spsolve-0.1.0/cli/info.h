/* info.h: spsolve's informational actions, --version and --list-spmv. */
#ifndef SPS_CLI_INFO_H
#define SPS_CLI_INFO_H

/* Print the package version, whether CUDA support is built and the CUDA device found. */
void cli_print_version(void);

/* Print every SpMV variant with its description and whether it exists on the CPU and CUDA. */
void cli_print_spmv_list(void);

/* Print the preconditioners and their parameters with defaults (--list-precond). */
void cli_print_precond_list(void);

#endif /* SPS_CLI_INFO_H */
