#!/bin/bash
# run20 (one GPU): racecheck of what run18 never started: the CLI runs first, then the SpMV and
# preconditioner kernel programs, solve_many, pipelined (their 8 shards), 16 at a time, until 400 s.
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
C=/tmp/b/spsolve-0.1.0
if ! [ -x $C/tests/kernels/spmv_ell_gpu ]; then
  rm -rf /tmp/b && mkdir -p /tmp/b && cd /tmp/b && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure.log 2>&1 && make -j16 > $W/build.log 2>&1 &&
  make -j16 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; exit 1; }
  say "built"
fi
cd $C
awk -F'\t' '$4 == "rc=notrun"' $R/.devcarry/race18-summary.txt > /tmp/notrun.txt
SANITIZE_DEADLINE=$((T0 + 400)) SANITIZE_RERUN=/tmp/notrun.txt SANITIZE_SPLIT=1 SANITIZE_SHARDS=8 SANITIZE_GPUS=1 \
  SANITIZE_ONLY='^cli-' bash tests/sanitize-gpu.sh $W/race-cli 16 300 racecheck > /dev/null 2>&1
say "cli done"
SANITIZE_DEADLINE=$((T0 + 400)) SANITIZE_RERUN=/tmp/notrun.txt SANITIZE_SPLIT=1 SANITIZE_SHARDS=8 SANITIZE_GPUS=1 \
  SANITIZE_ONLY='^(spmv_|precond_|stats|solve_many|pipelined|block_steps)' bash tests/sanitize-gpu.sh $W/race-k 16 300 racecheck > /dev/null 2>&1
say "kernels done"
cat $W/race-cli/summary.txt; awk -F'\t' '{print $4}' $W/race-k/summary.txt | sort | uniq -c
grep -v 'rc=0\|rc=notrun' $W/race-k/summary.txt
for f in $W/race-*/*.log; do grep -q 'RACECHECK SUMMARY: 0 hazards' $f && { tail -3 $f > $f.t && mv $f.t $f; }; done
