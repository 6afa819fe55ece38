#!/bin/sh
# alloc-fail-np2.sh: tests/mpi/alloc_fail on 2 ranks: every allocation of the distributed operations failed in turn, the ranks agreeing on the failure and leaking nothing (77 without MPI).
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 2 alloc_fail "$@"
