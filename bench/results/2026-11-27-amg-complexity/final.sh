#!/bin/bash
# final.sh MATDIR P2D: the old AMG defaults (given explicitly) and the new ones alternating, twice each, two threads, on G3_circuit, laplacian7pt_100 and the 2-D Poisson file P2D, into $OUT (default final), with the load before each pair
out=${OUT:-final}; bin=${SPSOLVE:-./spsolve}
mkdir -p "$out"
old="--precond-param amg.aggressive=0 --precond-param amg.interp_max=5 --precond-param amg.cheby_degree=4"
for m in "$1/G3_circuit.mtx.gz" "$1/laplacian7pt_100.mtx.gz" "$2"; do
  b=$(basename "$m" .mtx.gz); b=$(basename "$b" .mtx)
  for r in 1 2; do
    uptime >> "$out/load.log"
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=2 "$bin" --device cpu --precond amg $old --json "$m" > "$out/old.$b.$r.json"
    OMP_NUM_THREADS=2 "$bin" --device cpu --precond amg --json "$m" > "$out/new.$b.$r.json"
  done
done
uptime >> "$out/load.log"
