#!/bin/sh
# cpu-callgrind.sh: instructions per iteration of the CPU solve (callgrind, inside sps_solver_solve only), a count that the other jobs of a shared machine do not change: the cross-check of cpu-time.sh's timings.
#
# Usage: bench/cpu-callgrind.sh OUT.tsv BUILDDIR [SOLVER:MATRIX ...]   (needs valgrind)
# One thread, no preconditioner, rtol 1e-8, the default b = A x* (seed 1), maxit 3000, the spsolve command of
# BUILDDIR. Valgrind does not run AVX-512 and hides it from the processor's feature bits, so
# the kernels run as on an AVX2 processor (the device line says which). Default cases: CG on
# nos3, bcsstk14 and 1138_bus, GMRES(30) on orsreg_1 and sherman5 (3000 iterations at most).
set -eu
out=${1:?}; build=${2:?}
shift 2
m=${MATRICES:-/work/shared/matrices}
cases="$*"
[ -n "$cases" ] || cases="cg:nos3 cg:bcsstk14 cg:1138_bus gmres:orsreg_1 gmres:sherman5"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'matrix\tsolver\tdevice\titerations\tIr_solve\tIr_per_iteration\n' > "$out"
for c in $cases; do
  s=${c%%:*}; name=${c#*:}
  OMP_NUM_THREADS=1 LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    --toggle-collect=sps_solver_solve "$build/.libs/spsolve" --device cpu --solver "$s" \
    --precond none --rtol 1e-8 --maxit 3000 --json "$m/$name.mtx.gz" > "$tmp/report.json" \
    2> "$tmp/valgrind.log" || true  # a solve that stops at maxit exits 1
  its=$(sed -n 's/^  "iterations": *\([0-9]*\).*/\1/p' "$tmp/report.json" | head -1)
  dev=$(sed -n 's/.*"device": *"\([^"]*\)".*/\1/p' "$tmp/report.json" | head -1)
  ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/valgrind.log" | head -1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$s" "$dev" "$its" "$ir" \
    "$(awk -v a="$ir" -v b="$its" 'BEGIN { printf "%.0f", a / b }')" >> "$out"
done
cat "$out"
