#!/bin/sh
# pipelined-cuda.sh: the pipelined CG tests on the CUDA backend, x against the CPU backend's to the bit (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/pipelined" "$@"
