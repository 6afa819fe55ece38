#!/bin/sh
# api-np2.sh: tests/mpi/api on 2 ranks: bad arguments, failures agreed by the ranks, the local-rows constructor, clocks and timeline (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 2 api "$@"
