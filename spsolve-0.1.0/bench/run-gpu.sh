#!/bin/sh
# run-gpu.sh: the whole benchmark on the GPU machine: spmv-bench, solve-bench and peers.py, then the tables and plots.
#
# Usage, from the unpacked `make dist` tarball after `./configure && make -j16`:
#   OUT=/some/folder sh bench/run-gpu.sh MATRIX_DIR
# MATRIX_DIR holds the shared matrices (*.mtx.gz). Results go to $OUT (default ./bench-out):
#   spmv-<device>-<date>.tsv, spmv-tpr-<device>-<date>.tsv, solve-<device>-<date>.tsv,
#   peers-<device>-<date>.tsv, one .log per step, and the .md/.png of plot.py.
# Planned to take about 6 minutes on an H100; every step prints its progress.
# Exit status: nonzero when a step failed or a benchmark reported a wrong result.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/run-gpu.sh MATRIX_DIR}
OUT=${OUT:-$PWD/bench-out}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1

DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
         sed 's/^NVIDIA //; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
DEVICE=${DEVICE:-unknown-gpu}
DATE=$(date -u +%Y%m%d-%H%M%S)
TAG="$DEVICE-$DATE"
START=$(date +%s)
STATUS=0

say() { echo "run-gpu [$(( $(date +%s) - START )) s] $*"; }

# step NAME COMMAND...: run it, its stdout and stderr to the screen and to $OUT/NAME.log.
step() {
  name=$1; shift
  say "$name: $*"
  { "$@"; echo $? > "$OUT/.rc"; } 2>&1 | tee "$OUT/$name-$TAG.log"
  rc=$(cat "$OUT/.rc"); rm -f "$OUT/.rc"
  if [ "$rc" -ne 0 ]; then say "$name: exit status $rc"; STATUS=1; fi
}

mat() { echo "$MATDIR/$1.mtx.gz"; }

say "device $DEVICE, matrices in $MATDIR, results in $OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv \
  > "$OUT/gpu-$TAG.txt" 2>&1

# 1. SpMV: every shared matrix and generated ones from 7M to about 100M nonzeros.
SPMV=$BUILD/bench/spmv-bench
if [ -x "$SPMV" ]; then
  step spmv "$SPMV" --repeat 10 --tsv "$OUT/spmv-$TAG.tsv" "$MATDIR"/*.mtx.gz \
    --gen poisson3d:100 --gen poisson3d:160 --gen poisson3d:240 \
    --gen convdiff3d:160 --gen convdiff3d:240 \
    --gen powerlaw:1000000:2.0 --gen powerlaw:20000000:2.5
  step spmv-tpr "$SPMV" --repeat 10 --variants csr-vector --threads-per-row sweep \
    --tsv "$OUT/spmv-tpr-$TAG.tsv" "$(mat G3_circuit)" "$(mat laplacian7pt_100)" \
    "$(mat ani5_crop)" "$(mat bcsstk13)" "$(mat rajat12)" --gen powerlaw:1000000:2.0
else
  say "spmv: $SPMV is not built"; STATUS=1
fi

# 2. Solvers, ours and CuPy's, on the cases of GPU.md: CG on the SPD ones, GMRES(30) on the
#    small nonsymmetric ones. Same b = A*ones, rtol 1e-8, restart 30.
CG="G3_circuit nos3 bcsstk14"
GMRES="add20 add32 adder_dcop_05 ani5_crop olm1000 orsirr_1 orsreg_1 rajat12 rdb3200l sherman3 sherman5 watt_2"
cg_files=; for m in $CG; do cg_files="$cg_files $(mat "$m")"; done
gm_files=; for m in $GMRES; do gm_files="$gm_files $(mat "$m")"; done
SOLVE=$BUILD/bench/solve-bench
[ -x "$SOLVE" ] || (cd "$BUILD" && make bench/solve-bench > /dev/null 2>&1)
if [ -x "$SOLVE" ]; then
  # shellcheck disable=SC2086
  step solve-cg "$SOLVE" --solver cg --tsv "$OUT/solve-cg-$TAG.tsv" $cg_files
  step solve-cg-neg "$SOLVE" --solver cg --negate --tsv "$OUT/solve-cgneg-$TAG.tsv" "$(mat laplacian7pt_100)"
  # shellcheck disable=SC2086
  step solve-cg-jacobi "$SOLVE" --solver cg --precond jacobi --tsv "$OUT/solve-cgjac-$TAG.tsv" $cg_files
  # shellcheck disable=SC2086
  step solve-gmres "$SOLVE" --solver gmres --restart 30 --maxit 3000 --tsv "$OUT/solve-gmres-$TAG.tsv" $gm_files
else
  say "solve: $SOLVE is not built (are the solvers in this tree?)"; STATUS=1
fi
if "$PY" -c "import cupy" > /dev/null 2>&1; then
  # shellcheck disable=SC2086
  step peers-cg "$PY" "$TOP/bench/peers.py" --solver cg --tsv "$OUT/peers-cg-$TAG.tsv" $cg_files
  step peers-cg-neg "$PY" "$TOP/bench/peers.py" --solver cg --negate --tsv "$OUT/peers-cgneg-$TAG.tsv" "$(mat laplacian7pt_100)"
  # shellcheck disable=SC2086
  step peers-gmres "$PY" "$TOP/bench/peers.py" --solver gmres --restart 30 --maxit 3000 \
    --tsv "$OUT/peers-gmres-$TAG.tsv" $gm_files
else
  say "peers: CuPy is not importable with $PY"; STATUS=1
fi

# 3. Tables and plots.
for f in "$OUT/spmv-$TAG.tsv" "$OUT/spmv-tpr-$TAG.tsv"; do
  [ -f "$f" ] && step plot-"$(basename "$f" .tsv)" "$PY" "$TOP/bench/plot.py" spmv "$f" --out "$OUT"
done
solve_tsvs=
for f in solve-cg solve-cgneg solve-cgjac solve-gmres peers-cg peers-cgneg peers-gmres; do
  [ -f "$OUT/$f-$TAG.tsv" ] && solve_tsvs="$solve_tsvs $OUT/$f-$TAG.tsv"
done
# shellcheck disable=SC2086
[ -n "$solve_tsvs" ] && step plot-solve "$PY" "$TOP/bench/plot.py" solve $solve_tsvs --out "$OUT"

say "done, status $STATUS; results in $OUT"
exit $STATUS
