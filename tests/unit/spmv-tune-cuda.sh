#!/bin/sh
# spmv-tune-cuda.sh: TUNE and its disk cache on the CUDA backend: candidates timed in CUDA graphs (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/spmv_tune" "$@"
