#!/bin/bash
# sweep.sh NAME "PARAMS" MATRICES...: each matrix twice with spsolve --device cpu --precond amg --json and the given amg parameters, two threads, into $OUT/NAME.MATRIX.RUN.json
name=$1; shift; params=$1; shift
out=${OUT:-sweep}
mkdir -p "$out"
args=""
for p in $params; do args="$args --precond-param $p"; done
for m in "$@"; do
  b=$(basename "$m" .mtx.gz); b=$(basename "$b" .mtx)
  for r in 1 2; do
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=2 ${SPSOLVE:-./spsolve} --device cpu --precond amg $args --json "$m" > "$out/$name.$b.$r.json" 2>"$out/$name.$b.$r.err"
  done
done
