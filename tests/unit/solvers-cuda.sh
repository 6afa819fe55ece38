#!/bin/sh
# solvers-cuda.sh: the unit solver tests on the CUDA backend, the fused GMRES cycle against the CPU backend to the bit (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/solvers" "$@"
