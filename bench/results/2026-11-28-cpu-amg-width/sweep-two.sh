#!/bin/sh
# usage: sweep.sh "label" params...
M=../shared/matrices
lab=$1; shift
pp=""; for p in "$@"; do pp="$pp --precond-param $p"; done
for m in laplacian7pt_100 G3_circuit; do
  neg=""; [ $m = laplacian7pt_100 ] && neg=--negate
  OMP_NUM_THREADS=2 bench/solve-bench --device cpu --repeat 1 --solver cg --precond amg $neg $pp --tsv /tmp/sw.tsv $M/$m.mtx.gz >/dev/null 2>&1
  r=$(grep -v '^#' /tmp/sw.tsv | tail -1 | awk -F'\t' '{printf "%s its %s setup %.0f solve %.0f", $9, $10, $13, $14}')
  oc=$(OMP_NUM_THREADS=2 ./spsolve --device cpu --solver cg --precond amg $pp --maxit 1 --verbose $M/$m.mtx.gz 2>&1 | grep -o 'hierarchy .*' | head -1)
  echo "$lab | $m | $r | $oc"
done
