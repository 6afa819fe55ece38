#!/bin/bash
# run18 (4 GPUs, the machine of run17): racecheck over every GPU test program (8 shards) and the
# CLI runs, 52 at a time over the four GPUs; beside it, the memcheck/initcheck/synccheck runs
# that run17 left unfinished, split 4 ways. Everything stops by 560 s.
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
C=/tmp/b/spsolve-0.1.0
if ! [ -x $C/tests/unit/solvers ]; then
  rm -rf /tmp/b && mkdir -p /tmp/b && cd /tmp/b && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure.log 2>&1 && make -j60 > $W/build.log 2>&1 &&
  make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; exit 1; }
  say "rebuilt (machine was fresh)"
fi
cd $C
nvidia-smi --query-gpu=index,name --format=csv,noheader > $W/device.txt
DL=$((T0 + 560))
( SANITIZE_DEADLINE=$DL SANITIZE_SHARDS=8 SANITIZE_GPUS=4 bash tests/sanitize-gpu.sh $W/race 52 540 racecheck > /dev/null 2>&1 ) &
p1=$!
if [ -f /tmp/san1-summary.txt ]; then
  ( SANITIZE_DEADLINE=$DL SANITIZE_RERUN=/tmp/san1-summary.txt SANITIZE_SPLIT=4 SANITIZE_SHARDS=2 SANITIZE_GPUS=4 \
      bash tests/sanitize-gpu.sh $W/san2 10 540 memcheck initcheck synccheck > /dev/null 2>&1 ) &
  p2=$!
else p2=; fi
wait $p1; say "racecheck done"
[ -n "$p2" ] && wait $p2; say "san2 done"
cp $W/race/summary.txt /tmp/race-summary.txt 2>/dev/null
awk -F'\t' '{print $1, $4}' $W/race/summary.txt | sort | uniq -c
grep -v 'rc=0' $W/race/summary.txt | head -60
[ -f $W/san2/summary.txt ] && { awk -F'\t' '{print $1, $4}' $W/san2/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/san2/summary.txt | head -30; }
for f in $W/race/*.log $W/san2/*.log; do [ -f "$f" ] || continue; grep -qE '(RACECHECK SUMMARY: 0 hazards|ERROR SUMMARY: 0 errors)' $f && { tail -3 $f > $f.t && mv $f.t $f; }; done
