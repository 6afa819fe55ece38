#!/bin/sh
# spmv-np4.sh: tests/mpi/spmv on 4 ranks: the distributed SpMV against the serial one, bitwise, on 1 to 4 ranks (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 4 spmv "$@"
