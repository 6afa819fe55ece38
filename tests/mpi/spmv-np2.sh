#!/bin/sh
# spmv-np2.sh: tests/mpi/spmv on 2 ranks: the distributed SpMV against the serial one, bitwise, on 1 and 2 ranks (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 2 spmv "$@"
