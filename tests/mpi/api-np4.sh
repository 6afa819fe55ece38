#!/bin/sh
# api-np4.sh: tests/mpi/api on 4 ranks: bad arguments, failures agreed by the ranks, the local-rows constructor, clocks and timeline (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 4 api "$@"
