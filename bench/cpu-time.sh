#!/bin/sh
# cpu-time.sh: µs per iteration of the CPU backend for the CPU note's cases (CG and GMRES(30), no preconditioner, b = A*ones, rtol 1e-8), one TSV per build, thread count and run.
#
# Usage: bench/cpu-time.sh OUTDIR LABEL BUILDDIR THREADS RUN
# G3_circuit runs 300 iterations (its time per iteration, not to convergence); the small
# matrices repeat the solve 20 times (solve-bench reports the median).
set -eu
out=${1:?}; label=${2:?}; build=${3:?}; t=${4:?}; run=${5:?}
m=${MATRICES:-/work/shared/matrices}
mkdir -p "$out"
for case in cg:nos3 cg:bcsstk14 cg:1138_bus cg:G3_circuit gmres:orsreg_1 gmres:sherman5; do
  s=${case%%:*}; name=${case#*:}
  maxit=10000; repeat=20
  if [ "$name" = G3_circuit ]; then maxit=300; repeat=1; fi
  OMP_NUM_THREADS=$t "$build/bench/solve-bench" --device cpu --solver "$s" --maxit "$maxit" \
    --repeat "$repeat" --copy-mb 64 --tsv "$out/$label.$name.$s.t$t.run$run.tsv" \
    "$m/$name.mtx.gz" > /dev/null 2>&1 || true
done
