#!/bin/sh
M=../shared/matrices; m=$1; lab=$2; shift 2
pp=""; for p in "$@"; do pp="$pp --precond-param $p"; done
neg=""; [ $m = laplacian7pt_100 ] && neg=--negate
OMP_NUM_THREADS=2 bench/solve-bench --device cpu --repeat 1 --solver cg --precond amg $neg $pp --tsv /tmp/sw.tsv $M/$m.mtx.gz >/dev/null 2>&1
r=$(grep -v '^#' /tmp/sw.tsv | tail -1 | awk -F'\t' '{printf "%s its setup %.0f solve %.0f", $9, $13, $14}')
oc=$(OMP_NUM_THREADS=2 ./spsolve --device cpu --solver cg --precond amg $pp --maxit 1 --verbose $M/$m.mtx.gz 2>&1 | grep -o 'hierarchy .*' | head -1 | sed 's/hierarchy *//')
echo "$lab | $m | $r | $oc"
