#!/bin/sh
# vector-ops-cuda.sh: every vector op of the CUDA backend against plain loops (exit 77 without a GPU).
SPS_TEST_DEVICE=cuda
export SPS_TEST_DEVICE
exec "${SPS_BUILDDIR:-.}/tests/unit/vector_ops" "$@"
