#!/bin/sh
# spmv-cuda-np2.sh: tests/mpi/spmv on 2 ranks sharing the GPU (SPS_TEST_DEVICE=cuda): one rank on the device-driven path, two on the split reductions and the halo through the device (77 without MPI or a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_SRCDIR:-.}/tests/mpi/run.sh" 2 spmv "$@"
