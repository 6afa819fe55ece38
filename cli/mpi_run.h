/* mpi_run.h: spsolve under mpirun (cli/mpi.c), in a build with MPI. */
#ifndef SPS_CLI_MPI_RUN_H
#define SPS_CLI_MPI_RUN_H

#include "options.h"

/* 1 when an MPI launcher (mpirun, mpiexec, srun) started this process: then spsolve solves
 * on the ranks; 0 otherwise, and always in a build without MPI. */
int cli_mpi_launched(void);

/* The distributed solve of the command line on MPI_COMM_WORLD (MPI initialised): the exit
 * code, the same on every rank; *reported as cli_solve's. */
int cli_solve_mpi(const cli_options *opt, int *reported);

#endif /* SPS_CLI_MPI_RUN_H */
