#!/bin/sh
# solve-many-cuda.sh: the solve_many tests on the CUDA backend: the batched kernels against the single GPU solves column by column, to the bit (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/solve_many" "$@"
