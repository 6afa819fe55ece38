#!/bin/sh
# progress-cuda.sh: the progress-callback test on the CUDA backend (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/progress" "$@"
