#!/bin/sh
# krylov-steps-cuda.sh: the CUDA backend's GMRES and BiCGSTAB steps, alone and against the CPU backend's (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/krylov_steps" "$@"
