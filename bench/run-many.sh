#!/bin/sh
# run-many.sh: many right-hand sides on the GPU machine: the GPU tests of the block steps and of solve_many, solve-many-bench (together against one at a time) and many-peers.py (CuPy one by one) on G3_circuit and small matrices, block CG against batched CG, and plot-many.py's tables and plots.
#
# Usage, from the unpacked `make dist` tarball after
# `./configure --with-cuda-arch=sm_90 SPS_MATRICES=MATRIX_DIR && make -j16`:
#   OUT=/some/folder sh bench/run-many.sh MATRIX_DIR [SPMM.tsv]
# SPMM.tsv: a spmm-bench TSV of the same GPU (bench/run-spmm.sh writes one) for the SpMM time
# per column plot. Results go to $OUT (default ./bench-out): many-tests-<tag>.log,
# many-<what>-<tag>.tsv and .log, peers-many-<what>-<tag>.tsv, and the .md/.png of
# plot-many.py. Planned for about 8 minutes on an H100 (G3_circuit's one-at-a-time CG solves
# are most of it). Exit status: nonzero when a test failed or a benchmark reported a wrong
# result (a column whose true residual misses 10*rtol, or a batched column whose iterations
# differ from its single solve's).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/run-many.sh MATRIX_DIR [SPMM.tsv]}
SPMM_TSV=${2:-}
OUT=${OUT:-$PWD/bench-out}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
         sed 's/^NVIDIA //; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
TAG="${DEVICE:-unknown-gpu}-$(date -u +%Y%m%d-%H%M%S)"
START=$(date +%s)
STATUS=0
say() { echo "run-many [$(( $(date +%s) - START )) s] $*"; }
step() {
  name=$1; shift
  say "$name: $*"
  { "$@"; echo $? > "$OUT/.rc"; } 2>&1 | tee "$OUT/$name-$TAG.log"
  rc=$(cat "$OUT/.rc"); rm -f "$OUT/.rc"
  if [ "$rc" -ne 0 ]; then say "$name: exit status $rc"; STATUS=1; fi
}
mat() { echo "$MATDIR/$1.mtx.gz"; }

# The GPU tests: each CUDA block kernel against the CPU block ops and the single GPU steps
# (bitwise), then solve_many against the single GPU solves column by column (bitwise).
for t in block-steps-cuda.sh solve-many-cuda.sh; do
  step "many-test-${t%.sh}" env SPS_BUILDDIR="$BUILD" SPS_TEST_DATA="$TOP/tests/data" \
    SPS_MATRICES="$MATDIR" sh "$TOP/tests/unit/$t"
done

BENCH=$BUILD/bench/solve-many-bench
# G3_circuit: 16 right-hand sides together against one solve (the issue: at most 4 times).
step many-g3-cg "$BENCH" --solver cg --k 1,2,4,8,16 --repeat 2 --tsv "$OUT/many-g3-cg-$TAG.tsv" \
  "$(mat G3_circuit)"
step peers-many-g3-cg "$PY" "$TOP/bench/many-peers.py" --solver cg --k 1,2,4,8,16 --repeat 2 \
  --tsv "$OUT/peers-many-g3-cg-$TAG.tsv" "$(mat G3_circuit)"
# Small matrices: 64 right-hand sides together against one solve (the issue: at most 3 times).
SMALL_SPD="$(mat nos3) $(mat bcsstk14) $(mat 1138_bus)"
SMALL_NS="$(mat orsreg_1) $(mat sherman5) $(mat watt_2)"
# shellcheck disable=SC2086
step many-small-cg "$BENCH" --solver cg --tsv "$OUT/many-small-cg-$TAG.tsv" $SMALL_SPD
# shellcheck disable=SC2086
step peers-many-small-cg "$PY" "$TOP/bench/many-peers.py" --solver cg \
  --tsv "$OUT/peers-many-small-cg-$TAG.tsv" $SMALL_SPD
# shellcheck disable=SC2086
step many-small-gmres "$BENCH" --solver gmres --precond ilu0 --tsv "$OUT/many-small-gmres-$TAG.tsv" $SMALL_NS
# shellcheck disable=SC2086
step many-small-bicgstab "$BENCH" --solver bicgstab --precond jacobi \
  --tsv "$OUT/many-small-bicgstab-$TAG.tsv" $SMALL_SPD
# shellcheck disable=SC2086
step peers-many-small-gmres "$PY" "$TOP/bench/many-peers.py" --solver gmres \
  --tsv "$OUT/peers-many-small-gmres-$TAG.tsv" $SMALL_NS
# Block CG against batched CG on the SPD matrices: iterations and time.
# shellcheck disable=SC2086
step many-blockcg "$BENCH" --solver block-cg --precond jacobi --k 1,4,16 \
  --tsv "$OUT/many-blockcg-$TAG.tsv" $SMALL_SPD "$(mat bcsstk13)" "$(mat G3_circuit)"
step many-blockcg-lap "$BENCH" --solver block-cg --negate --k 1,4,16 \
  --tsv "$OUT/many-blockcg-lap-$TAG.tsv" "$(mat laplacian7pt_100)"

for w in g3-cg small-cg small-gmres; do
  peers=$OUT/peers-many-$w-$TAG.tsv
  [ -f "$peers" ] || peers=
  # shellcheck disable=SC2086
  step "plot-many-$w" "$PY" "$TOP/bench/plot-many.py" solve "$OUT/many-$w-$TAG.tsv" $peers \
    --out "$OUT"
done
step plot-many-small-bicgstab "$PY" "$TOP/bench/plot-many.py" solve \
  "$OUT/many-small-bicgstab-$TAG.tsv" --out "$OUT"
step plot-many-blockcg "$PY" "$TOP/bench/plot-many.py" solve "$OUT/many-blockcg-$TAG.tsv" --out "$OUT"
step plot-many-blockcg-lap "$PY" "$TOP/bench/plot-many.py" solve "$OUT/many-blockcg-lap-$TAG.tsv" \
  --out "$OUT"
if [ -n "$SPMM_TSV" ]; then
  step plot-many-spmm "$PY" "$TOP/bench/plot-many.py" spmm "$SPMM_TSV" --out "$OUT"
fi
say "done, exit status $STATUS"
exit $STATUS
