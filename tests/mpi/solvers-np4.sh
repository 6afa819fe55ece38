#!/bin/sh
# solvers-np4.sh: tests/mpi/solvers on 4 ranks: each method on 1 to 4 ranks against the single-process solve (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 4 solvers "$@"
