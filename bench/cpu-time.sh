#!/bin/sh
# cpu-time.sh: µs per iteration of the CPU backend beside PETSc and SciPy (solve-bench --device cpu --peers) on every square shared matrix, CG and GMRES(30), one TSV per case, build, thread count and run.
#
# Usage: bench/cpu-time.sh OUTDIR LABEL BUILDDIR THREADS RUN [SOLVER:MATRIX ...]
# Default cases: CG on the symmetric matrices (laplacian7pt_100 negated, as it is stored
# negative definite) and GMRES(30) on every square one; no preconditioner, b = A*ones,
# x0 = 0, rtol 1e-8. Matrices of more than 100,000 rows run 300 iterations (their time per
# iteration; they do not converge in that many) and one timed solve; the others at most
# 10,000 (CG) or 3,000 (GMRES) iterations and the median of 5 solves. The peers (PEERS,
# default petsc,scipy; empty for none) run through PYTHON (default python3) on the same
# system in the same solve-bench run. Files: OUTDIR/LABEL.MATRIX.SOLVER.tTHREADS.runRUN.tsv.
set -eu
out=${1:?}; label=${2:?}; build=${3:?}; t=${4:?}; run=${5:?}
shift 5
m=${MATRICES:-/work/shared/matrices}
peers=${PEERS-petsc,scipy}
python=${PYTHON:-python3}
mkdir -p "$out"
cases="$*"
if [ -z "$cases" ]; then
  for f in "$m"/*.mtx.gz; do
    name=$(basename "$f" .mtx.gz)
    line=$(awk -F'\t' -v f="$name.mtx.gz" '$1 == f' "$m/MANIFEST.tsv")
    [ "$(echo "$line" | cut -f2)" = "$(echo "$line" | cut -f3)" ] || continue
    [ "$(echo "$line" | cut -f5)" = symmetric ] && cases="$cases cg:$name"
    cases="$cases gmres:$name"
  done
fi
for case in $cases; do
  s=${case%%:*}; name=${case#*:}
  rows=$(awk -F'\t' -v f="$name.mtx.gz" '$1 == f {print $2}' "$m/MANIFEST.tsv")
  maxit=10000; repeat=5
  [ "$s" = gmres ] && maxit=3000
  if [ "${rows:-0}" -gt 100000 ]; then maxit=300; repeat=1; fi
  neg=
  [ "$name" = laplacian7pt_100 ] && neg=--negate
  OMP_NUM_THREADS=$t "$build/bench/solve-bench" --device cpu --solver "$s" --maxit "$maxit" \
    --repeat "$repeat" --copy-mb 64 $neg ${peers:+--peers "$peers" --python "$python"} \
    --tsv "$out/$label.$name.$s.t$t.run$run.tsv" "$m/$name.mtx.gz" > /dev/null 2>&1 || true
done
