#!/bin/sh
# amg-table.sh: the algebraic multigrid figures of doc/performance.md: CG+AMG on the six shared SPD matrices (iterations, setup and solve times, b = A*ones) with each level of the hierarchy, and GMRES(30)+AMG on the nonsymmetric ones.
#
# Usage, from a build directory (or with BUILD=dir):
#   DEVICE=cpu|cuda OUT=dir sh bench/amg-table.sh MATRIX_DIR [--precond-param NAME=VALUE ...]
# Writes to $OUT (default ./amg-out): cg-amg.tsv and gmres-amg.tsv (solve-bench's columns,
# --repeat 3 on the GPU, 1 on the CPU), hierarchy.txt (spsolve's report of each SPD matrix:
# levels, rows, nonzeros, complexities). Extra arguments go to solve-bench and spsolve.
set -u
BUILD=${BUILD:-.}
MATDIR=${1:?usage: DEVICE=cpu|cuda OUT=dir sh bench/amg-table.sh MATRIX_DIR [solver options]}
shift
DEVICE=${DEVICE:-cuda}
OUT=${OUT:-$PWD/amg-out}
mkdir -p "$OUT" || exit 1
SB=$BUILD/bench/solve-bench
SPD="1138_bus G3_circuit bcsstk13 bcsstk14 nos3"
NONSYM="add20 add32 orsirr_1 orsreg_1 rdb3200l sherman3 watt_2"
REPEAT=1
[ "$DEVICE" = cuda ] && REPEAT=3
STATUS=0
mat() { for m in "$@"; do echo "$MATDIR/$m.mtx.gz"; done; }

# CG + AMG, b = A*ones; laplacian7pt_100 as -A (stored negative definite).
"$SB" --device "$DEVICE" --repeat $REPEAT --solver cg --precond amg "$@" \
  --tsv "$OUT/cg-amg.tsv" $(mat $SPD) || STATUS=1
"$SB" --device "$DEVICE" --repeat $REPEAT --solver cg --precond amg --negate "$@" \
  --tsv "$OUT/cg-amg-laplacian.tsv" $(mat laplacian7pt_100) || STATUS=1
tail -n +2 "$OUT/cg-amg-laplacian.tsv" >> "$OUT/cg-amg.tsv" && rm -f "$OUT/cg-amg-laplacian.tsv"

# The hierarchy of each SPD matrix, as the command reports it.
: > "$OUT/hierarchy.txt"
for m in $SPD laplacian7pt_100; do
  "$BUILD/spsolve" --device "$DEVICE" --solver cg --precond amg --rhs ones "$@" \
    "$(mat $m)" >> "$OUT/hierarchy.txt" 2>&1 || STATUS=1
  echo >> "$OUT/hierarchy.txt"
done

# GMRES(30) + AMG on the nonsymmetric matrices (at most 3000 iterations; failures expected).
"$SB" --device "$DEVICE" --repeat $REPEAT --solver gmres --precond amg --maxit 3000 "$@" \
  --tsv "$OUT/gmres-amg.tsv" $(mat $NONSYM) || true
exit $STATUS
