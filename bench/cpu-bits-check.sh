#!/bin/sh
# cpu-bits-check.sh: records, or compares byte for byte, the CPU backend's residual histories and solutions on every shared square matrix, so a change to the CPU path can be shown to leave every bit as it was.
#
# Usage: bench/cpu-bits-check.sh record DIR [SPSOLVE]   (before a change)
#        bench/cpu-bits-check.sh compare DIR [SPSOLVE]  (after it; exit 0 when all identical)
# SPSOLVE defaults to ./spsolve (run from the build directory); MATRICES to /work/shared/matrices.
# For each square matrix: CG (symmetric ones), GMRES(30) and BiCGSTAB without a preconditioner,
# and the paths the preconditioners take through the backend's steps: CG with Jacobi (the
# diagonal inside cg_update), IC(0) (cg_rz after a general preconditioner) and AMG (the SpMV
# and the vector operations on the coarse levels' long rows) on the symmetric ones, GMRES with
# ILU(0), flexible GMRES with Jacobi (gmres_store_z) and BiCGSTAB with Jacobi on the others;
# rtol 1e-8, the default b = A x* (seed 1), OMP_NUM_THREADS 1 and 2. Kept per run: the --json
# --history report without its timing fields (and without the device name when comparing: it
# names the instruction set), and x from -o (%.17g, so every bit). G3_circuit
# and laplacian7pt_100 run 300 iterations at most, the others 3000. CASES=none keeps the runs
# without a preconditioner only (the first version of this check).
set -u
mode=${1:?record or compare}
dir=${2:?directory}
spsolve=${3:-./spsolve}
matrices=${MATRICES:-/work/shared/matrices}
cases=${CASES:-all}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
runs=0
for f in "$matrices"/*.mtx.gz; do
  name=$(basename "$f" .mtx.gz)
  line=$(awk -F'\t' -v f="$name.mtx.gz" '$1 == f' "$matrices/MANIFEST.tsv")
  rows=$(echo "$line" | cut -f2)
  cols=$(echo "$line" | cut -f3)
  sym=$(echo "$line" | cut -f5)
  [ "$rows" = "$cols" ] || continue
  maxit=3000
  [ "$rows" -gt 100000 ] && maxit=300
  # SOLVER:PRECOND[:flexible]; the tag of a run without a preconditioner is the first version's
  runlist="gmres:none bicgstab:none"
  [ "$sym" = symmetric ] && runlist="cg:none $runlist"
  if [ "$cases" = all ]; then
    if [ "$sym" = symmetric ]; then
      runlist="$runlist cg:jacobi cg:ic0 cg:amg"
    else
      runlist="$runlist gmres:ilu0 gmres:jacobi:flexible bicgstab:jacobi"
    fi
  fi
  for r in $runlist; do
    s=${r%%:*}
    rest=${r#*:}
    p=${rest%%:*}
    flex=
    [ "$rest" != "$p" ] && flex=--flexible
    for t in 1 2; do
      tag="$name.$s.t$t"
      [ "$p" != none ] && tag="$name.$s-$p${flex:+-flexible}.t$t"
      OMP_NUM_THREADS=$t "$spsolve" --device cpu --precond "$p" --solver "$s" $flex \
        --rtol 1e-8 --maxit "$maxit" --json --history -o "$tmp/x.mtx" "$f" \
        > "$tmp/report.json" 2>/dev/null
      grep -v -e 'time' -e 'seconds' -e '_ms"' "$tmp/report.json" > "$tmp/$tag.json"
      runs=$((runs + 1))
      if [ "$mode" = record ]; then
        cp "$tmp/$tag.json" "$dir/$tag.json"
        cp "$tmp/x.mtx" "$dir/$tag.x.mtx"
      elif grep -v '"device"' "$tmp/$tag.json" > "$tmp/new" &&
           grep -v '"device"' "$dir/$tag.json" > "$tmp/old" &&
           cmp -s "$tmp/new" "$tmp/old" && cmp -s "$tmp/x.mtx" "$dir/$tag.x.mtx"; then
        echo "same $tag"
      else
        echo "DIFFERENT $tag"
        fail=$((fail + 1))
      fi
    done
  done
done
if [ "$mode" = compare ]; then
  echo "cpu-bits-check: $((runs - fail)) of $runs runs identical to $dir"
  [ "$fail" -eq 0 ]
else
  echo "cpu-bits-check: recorded $runs runs in $dir"
fi
