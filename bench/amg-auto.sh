#!/bin/sh
# amg-auto.sh: the measurements behind the automatic choice's multigrid rule (solvers/auto.c, AUTO_AMG_MIN_ROWS): time to solution of CG+AMG against CG+IC(0) and the defaults on the SPD shared matrices and on generated Poisson problems of growing size.
#
# Usage, from a build directory (or with BUILD=dir):
#   DEVICE=cpu|cuda OUT=dir sh bench/amg-auto.sh MATRIX_DIR
# Writes to $OUT (default ./amg-auto-out) one solve-bench TSV per method: cg-amg.tsv,
# cg-ic0.tsv, auto.tsv (the library's defaults: solver and preconditioner auto), each with
# setup_ms and solve_ms (b = A*ones, rtol 1e-8; --repeat 3, the median). laplacian7pt_100 is
# solved as -A by the solver itself (its negative diagonal), as the defaults do.
set -u
BUILD=${BUILD:-.}
MATDIR=${1:?usage: DEVICE=cpu|cuda OUT=dir sh bench/amg-auto.sh MATRIX_DIR}
DEVICE=${DEVICE:-cuda}
OUT=${OUT:-$PWD/amg-auto-out}
GEN=${GEN:-poisson2d:32 poisson2d:100 poisson2d:316 poisson2d:1000 poisson3d:10 poisson3d:22 poisson3d:46 poisson3d:100}
mkdir -p "$OUT" || exit 1
SB=$BUILD/bench/solve-bench
SPD="nos3 1138_bus bcsstk14 bcsstk13 laplacian7pt_100 G3_circuit"
STATUS=0
args=""
for m in $SPD; do args="$args $MATDIR/$m.mtx.gz"; done
for g in $GEN; do args="$args --gen $g"; done
# shellcheck disable=SC2086
"$SB" --device "$DEVICE" --repeat 3 --solver cg --precond amg --tsv "$OUT/cg-amg.tsv" $args || STATUS=1
# shellcheck disable=SC2086
"$SB" --device "$DEVICE" --repeat 3 --solver cg --precond ic0 --tsv "$OUT/cg-ic0.tsv" $args || STATUS=1
# shellcheck disable=SC2086
"$SB" --device "$DEVICE" --repeat 3 --solver auto --precond auto --tsv "$OUT/auto.tsv" $args || STATUS=1
exit $STATUS
