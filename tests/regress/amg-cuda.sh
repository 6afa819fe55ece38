#!/bin/sh
# amg-cuda.sh: CG with the multigrid preconditioner on the shared SPD matrices, on the CUDA backend, with the CPU run's recorded iteration counts (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/regress/amg" "$@"
