#!/bin/sh
# run-precond.sh: the preconditioner benchmarks on the GPU machine: precond-bench (triangular solves and ILU(0) against cuSPARSE), solve-bench with every preconditioner, CuPy's CG on G3_circuit, and the convergence plots.
#
# Usage, from the unpacked `make dist` tarball after `./configure && make -j16`:
#   OUT=/some/folder sh bench/run-precond.sh MATRIX_DIR
# Results go to $OUT (default ./precond-out): precond-<tag>.tsv, solve-*-<tag>.tsv, peers-g3-<tag>.tsv,
# history-<tag>.tsv and conv-*.png, one .log per step. About 6 minutes on an H100.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/run-precond.sh MATRIX_DIR}
OUT=${OUT:-$PWD/precond-out}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
         sed 's/^NVIDIA //; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
TAG="${DEVICE:-unknown-gpu}-$(date -u +%Y%m%d-%H%M%S)"
START=$(date +%s)
STATUS=0
say() { echo "run-precond [$(( $(date +%s) - START )) s] $*"; }
step() {
  name=$1; shift
  say "$name"
  { "$@"; echo $? > "$OUT/.rc"; } > "$OUT/$name-$TAG.log" 2>&1
  rc=$(cat "$OUT/.rc"); rm -f "$OUT/.rc"
  if [ "$rc" -ne 0 ]; then say "$name: exit status $rc (see $name-$TAG.log)"; STATUS=1; fi
}
mat() { for m in "$@"; do echo "$MATDIR/$m.mtx.gz"; done; }
SPD="1138_bus bcsstk13 bcsstk14 nos3"
NONSYM="add20 add32 adder_dcop_05 ani5_crop olm1000 orsirr_1 orsreg_1 rajat12 rdb3200l sherman3 sherman5 watt_2"
SB=$BUILD/bench/solve-bench

# 1. Triangular solves and ILU(0) setup against cuSPARSE, every square shared matrix.
step precond "$BUILD/bench/precond-bench" --repeat 30 --tsv "$OUT/precond-$TAG.tsv" \
  $(mat $SPD $NONSYM G3_circuit laplacian7pt_100)

# 2. G3_circuit: CG with each preconditioner against CuPy's CG (b = A*ones, rtol 1e-8).
for pc in none jacobi ic0 cheby bjacobi auto; do
  step solve-g3-$pc "$SB" --solver cg --precond $pc --repeat 3 --tsv "$OUT/solve-g3-$pc-$TAG.tsv" \
    --history "$OUT/history-$TAG.tsv" "$(mat G3_circuit)"
done
step solve-g3-ic0-natural "$SB" --solver cg --precond ic0 --precond-param ordering=0 --repeat 1 \
  --tsv "$OUT/solve-g3-ic0-natural-$TAG.tsv" "$(mat G3_circuit)"
step peers-g3 "$PY" "$TOP/bench/peers.py" --solver cg --tsv "$OUT/peers-g3-$TAG.tsv" "$(mat G3_circuit)"
step solve-lap "$SB" --solver cg --precond ic0 --repeat 3 --tsv "$OUT/solve-lap-ic0-$TAG.tsv" \
  "$(mat laplacian7pt_100)"

# 3. Every preconditioner on the small matrices, with the histories for the plots.
for pc in none jacobi ic0 cheby bjacobi auto; do
  step solve-spd-$pc "$SB" --solver cg --precond $pc --maxit 20000 --tsv "$OUT/solve-spd-$pc-$TAG.tsv" \
    --history "$OUT/history-$TAG.tsv" $(mat $SPD)
done
for pc in none jacobi ilu0 ilut bjacobi auto; do
  step solve-gmres-$pc "$SB" --solver gmres --restart 30 --precond $pc --tsv "$OUT/solve-gmres-$pc-$TAG.tsv" \
    --history "$OUT/history-$TAG.tsv" $(mat $NONSYM)
done

# 4. The convergence plots: one circuit and one CFD matrix (and G3_circuit).
for m in rajat12 sherman3 G3_circuit; do
  "$PY" "$TOP/bench/plot_convergence.py" "$OUT/history-$TAG.tsv" "$m" "$OUT/conv-$m-$TAG.png" \
    "$m: residual against iteration and time, per preconditioner ($DEVICE)" > /dev/null 2>&1 ||
    say "plot $m failed"
done
say "done, status $STATUS, results in $OUT"
exit $STATUS
