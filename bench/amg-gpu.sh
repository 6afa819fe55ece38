#!/bin/sh
# amg-gpu.sh: algebraic multigrid at scale: CG+AMG setup and solve time, time per iteration against one fine-level SpMV, against CG+Jacobi, CG+IC(0) and CuPy's CG in the same run, on generated 3-D Poisson problems and G3_circuit.
#
# Usage, from the unpacked `make dist` tarball after `./configure && make -j16` (or BUILD=dir):
#   OUT=/some/folder sh bench/amg-gpu.sh MATRIX_DIR
# Environment: DEVICE (cuda, the default, or cpu), SIZES (the N of poisson3d:N, default
# "113 243": 1.0e7 and 1.0e8 nonzeros; set and empty: none), PYTHON3 (python3 with NumPy, SciPy and, on the GPU,
# CuPy), MATS (shared matrices, default G3_circuit; none when empty).
# For each matrix: spmv-bench (the AUTO SpMV of A, graph-captured on the GPU: the unit of the
# targets), solve-bench with CG and amg (the defaults, then classical coarsening with two
# aggressive levels and interp_max 3), amg-cycle-bench (the setup by phase, the cycle by
# level: cycle-*.log and .tsv), jacobi, ic0 (b = A*ones, rtol 1e-8, the median of
# --repeat solves), and peers.py (CuPy's CG; SciPy's on the CPU). Results in $OUT (default
# ./amg-gpu-out): spmv-*.tsv, solve-*.tsv, peers-*.tsv, one .log per step, and summary.tsv
# from bench/amg-summary.py: per matrix and method the iterations, setup and solve times, the
# time per iteration in fine-level SpMVs (target: AMG within 6) and the setup in SpMVs (target:
# within 100), and the time to solution against CuPy's CG.
# Memory: poisson3d:243 is 14.3 million rows and 1.0e8 entries (1.2 GB in CSR); the AMG
# hierarchy adds about 3 times that on the device, CuPy a copy of A.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/amg-gpu.sh MATRIX_DIR}
OUT=${OUT:-$PWD/amg-gpu-out}
DEVICE=${DEVICE:-cuda}
SIZES=${SIZES-113 243}
MATS=${MATS-G3_circuit}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1
START=$(date +%s)
STATUS=0
REPEAT=3
say() { echo "amg-gpu [$(( $(date +%s) - START )) s] $*"; }
step() {
  name=$1; shift
  say "$name"
  { "$@"; echo $? > "$OUT/.rc"; } > "$OUT/$name.log" 2>&1
  rc=$(cat "$OUT/.rc"); rm -f "$OUT/.rc"
  if [ "$rc" -ne 0 ]; then say "$name: exit status $rc (see $name.log)"; STATUS=1; fi
}
DRY=
[ "$DEVICE" = cpu ] && DRY=--dry-run
AGGR="--precond-param amg.aggressive=2 --precond-param amg.interp_max=3"

run_one() { # tag, then the matrix arguments of the C programs, then those of peers.py
  tag=$1; cargs=$2; pargs=$3
  step spmv-$tag "$BUILD/bench/spmv-bench" --device "$DEVICE" --variants auto --tsv "$OUT/spmv-$tag.tsv" $cargs
  step solve-$tag-amg "$BUILD/bench/solve-bench" --device "$DEVICE" --repeat $REPEAT --solver cg \
    --precond amg --tsv "$OUT/solve-$tag-amg.tsv" $cargs
  # shellcheck disable=SC2086
  step solve-$tag-amg-aggressive "$BUILD/bench/solve-bench" --device "$DEVICE" --repeat $REPEAT \
    --solver cg --precond amg $AGGR --tsv "$OUT/solve-$tag-amg-aggressive.tsv" $cargs
  # where the multigrid's time goes: the setup by phase and level, the cycle level by level
  step cycle-$tag "$BUILD/bench/amg-cycle-bench" --device "$DEVICE" --repeat 10 \
    --tsv "$OUT/cycle-$tag.tsv" $cargs
  for pc in jacobi ic0; do
    step solve-$tag-$pc "$BUILD/bench/solve-bench" --device "$DEVICE" --repeat $REPEAT --solver cg \
      --precond $pc --tsv "$OUT/solve-$tag-$pc.tsv" $cargs
  done
  # shellcheck disable=SC2086
  step peers-$tag "$PY" "$TOP/bench/peers.py" $DRY --solver cg --repeat $REPEAT \
    --tsv "$OUT/peers-$tag.tsv" $pargs
}

for N in $SIZES; do
  run_one poisson3d-$N "--gen poisson3d:$N" "--gen poisson3d:$N"
done
for m in $MATS; do
  run_one "$m" "$MATDIR/$m.mtx.gz" "$MATDIR/$m.mtx.gz"
done
step summary "$PY" "$TOP/bench/amg-summary.py" "$OUT"
cat "$OUT/summary.tsv" 2>/dev/null
say "done, status $STATUS"
exit $STATUS
