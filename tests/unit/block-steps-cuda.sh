#!/bin/sh
# block-steps-cuda.sh: the block step tests on the CUDA backend: each CUDA block kernel against the single GPU steps column by column and against the CPU block ops, to the bit (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/block_steps" "$@"
