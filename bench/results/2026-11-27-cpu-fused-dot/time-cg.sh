#!/bin/sh
# before/after CG per-iteration time, 1 thread (and G3 with 2), alternating; peers on "after".
M=/work/shared/matrices
O=/tmp/tcg; mkdir -p $O
export PETSC_DIR=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real
for run in 1 2; do
for m in nos3 1138_bus bcsstk14 bcsstk13 laplacian7pt_100 G3_circuit; do
  extra="--repeat 5 --maxit 10000"; neg=""
  case $m in laplacian7pt_100) extra="--repeat 1 --maxit 300"; neg=--negate;; G3_circuit) extra="--repeat 1 --maxit 300";; esac
  for t in 1 2; do
    [ $t = 2 ] && [ $m != G3_circuit ] && [ $m != laplacian7pt_100 ] && continue
    peers=""; [ $t = 1 ] && [ $run = 1 ] && peers="--peers petsc --python /usr/bin/python3"
    OMP_NUM_THREADS=$t LD_LIBRARY_PATH=/tmp/before-lib /tmp/before-lib/solve-bench --device cpu --solver cg --precond none $neg $extra --tsv $O/before.$m.t$t.run$run.tsv $M/$m.mtx.gz > /dev/null 2>&1
    OMP_NUM_THREADS=$t LD_LIBRARY_PATH=/work/main/.libs /work/main/bench/.libs/solve-bench --device cpu --solver cg --precond none $neg $extra $peers --tsv $O/after.$m.t$t.run$run.tsv $M/$m.mtx.gz > /dev/null 2>&1
    echo "$run $m t$t done $(cat /proc/loadavg | cut -d' ' -f1)"
  done
done; done
