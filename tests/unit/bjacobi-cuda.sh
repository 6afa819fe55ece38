#!/bin/sh
# bjacobi-cuda.sh: the block Jacobi API tests on the CUDA backend (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/bjacobi" "$@"
