#!/bin/sh
# amg-cuda.sh: the multigrid unit test on the CUDA backend, with the CPU run's recorded iteration counts (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/amg" "$@"
