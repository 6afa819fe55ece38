#!/bin/sh
# run-spmm.sh: the SpMM layer on the GPU machine: its GPU tests, spmm-bench on the shared matrices and on generated large ones, and spmm-summary.py's tables.
#
# Usage, from the unpacked `make dist` tarball after
# `./configure --with-cuda-arch=sm_90 SPS_MATRICES=MATRIX_DIR && make -j16`:
#   OUT=/some/folder sh bench/run-spmm.sh MATRIX_DIR
# Results go to $OUT (default ./bench-out): spmm-tests-<tag>.log, spmm-<tag>.tsv, spmm-<tag>.log
# and spmm-summary-<tag>.md. Exit status: nonzero when a test failed or spmm-bench reported a
# wrong result.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/run-spmm.sh MATRIX_DIR}
OUT=${OUT:-$PWD/bench-out}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
         sed 's/^NVIDIA //; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
TAG="${DEVICE:-unknown-gpu}-$(date -u +%Y%m%d-%H%M%S)"
STATUS=0

# The GPU halves of the SpMM tests (each exits 77 without a GPU), on the shared matrices too.
for t in spmm_api_gpu spmm_csr_gpu spmm_sputnik_gpu spmm_balanced_gpu spmm_spmv_gpu \
  spmm_cusparse_gpu; do
  echo "== $t"
  SPS_MATRICES=$MATDIR SPS_TEST_DATA=$TOP/tests/data "$BUILD/tests/kernels/$t"
  echo "== $t: exit status $?"
done 2>&1 | tee "$OUT/spmm-tests-$TAG.log"
grep -q "exit status [^0]" "$OUT/spmm-tests-$TAG.log" && STATUS=1

# Every shared matrix, then generated large ones: regular (7- and 27-point stencils, banded),
# random and uneven (power law, circuit-like hubs).
set --
for f in "$MATDIR"/*.mtx.gz; do set -- "$@" "$f"; done
"$BUILD/bench/spmm-bench" "$@" --gen poisson3d:100 --gen stencil3d27:80 --gen banded:1000000:8 \
  --gen random:500000:16 --gen powerlaw:1000000:2.1 --gen circuit:500000:4 \
  --tsv "$OUT/spmm-$TAG.tsv" 2>&1 | tee "$OUT/spmm-$TAG.log"
grep -q WRONG "$OUT/spmm-$TAG.log" && STATUS=1
"$PY" "$TOP/bench/spmm-summary.py" "$OUT/spmm-$TAG.tsv" | tee "$OUT/spmm-summary-$TAG.md"
exit $STATUS
