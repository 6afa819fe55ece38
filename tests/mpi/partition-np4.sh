#!/bin/sh
# partition-np4.sh: tests/mpi/partition on 4 ranks: contiguous and METIS partitions on 1 to 4 ranks, the scatter and gather round trip, the partition facts (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 4 partition "$@"
