#!/bin/sh
# solvers-np2.sh: tests/mpi/solvers on 2 ranks: each method on 1 and 2 ranks against the single-process solve (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 2 solvers "$@"
