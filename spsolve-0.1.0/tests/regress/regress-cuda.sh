#!/bin/sh
# regress-cuda.sh: the solver regression on the CUDA backend, with the CPU run's expectations (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/regress/solvers" "$@"
