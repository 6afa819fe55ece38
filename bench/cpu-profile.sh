#!/bin/sh
# cpu-profile.sh: where the CPU backend's solve time goes, by function (perf), for CG and GMRES(30) on the shared matrices with 1 and 2 OpenMP threads.
#
# Usage: bench/cpu-profile.sh OUTDIR [BUILDDIR]   (needs perf: apt-get install linux-perf)
# Each case runs bench/solve-bench --device cpu (no preconditioner, b = A*ones, rtol 1e-8,
# a 1 MB bandwidth copy so that the copy does not enter the profile) under perf record, and
# keeps solve-bench's TSV and perf report's flat profile (self time per symbol).
set -eu
out=${1:?output directory}
build=${2:-.}
m=${MATRICES:-/work/shared/matrices}
mkdir -p "$out"
for case in cg:nos3:3000 cg:bcsstk14:3000 cg:1138_bus:3000 cg:G3_circuit:300 \
            gmres:orsreg_1:3000 gmres:sherman5:3000; do
  s=${case%%:*}; rest=${case#*:}; name=${rest%%:*}; maxit=${rest#*:}
  repeat=20
  [ "$name" = G3_circuit ] && repeat=1
  for t in 1 2; do
    tag=$name.$s.t$t
    OMP_NUM_THREADS=$t perf record -q -o "$out/$tag.perf.data" "$build/bench/solve-bench" \
      --device cpu --solver "$s" --maxit "$maxit" --repeat "$repeat" --copy-mb 1 \
      --tsv "$out/$tag.tsv" "$m/$name.mtx.gz" > /dev/null 2>&1
    perf report -i "$out/$tag.perf.data" --stdio --no-children --sort symbol 2> /dev/null |
      grep -v '^$' | head -40 > "$out/$tag.profile.txt"
    rm -f "$out/$tag.perf.data"
  done
done
