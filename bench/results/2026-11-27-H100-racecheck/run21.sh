#!/bin/bash
# run21 (4 GPUs): GPU 0: racecheck of four shards that printed nothing in run 18, with the GMRES
# cluster kernel on and off (SPSOLVE_GMRES_CLUSTER=0). GPU 1: the amg-pool-adopt tree's AMG
# tests, then every test program's 8 shards without a sanitizer, logging the kernels each
# launches (SANITIZE_LAUNCH_LOG). GPUs 2-3: racecheck of every program but the regression ones,
# 8 shards, cluster kernel off, with launch logs. From 450 s, nothing else running: the AMG setup
# A/B, cand against pool-adopt, G3_circuit, 3 rounds.
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee $W/device.txt
md5sum .devcarry/cand.tar.gz .devcarry/pool.patch | tee $W/tarballs.md5
which nsys cuobjdump compute-sanitizer c++filt > $W/tools.txt 2>&1
build() { # dir jobs [patch]
  rm -rf $1 && mkdir -p $1 && cd $1 && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  { [ -z "${3:-}" ] || patch -p1 < $3 > $W/patch.log 2>&1; } &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure-$(basename $1).log 2>&1 &&
  make -j$2 > $W/build-$(basename $1).log 2>&1 && make -j$2 check TESTS= > $W/build-tests-$(basename $1).log 2>&1
}
( build /tmp/b 40 ) & pb=$!
( build /tmp/p 24 $R/.devcarry/pool.patch ) & pp=$!
wait $pb; rb=$?; wait $pp; rp=$?
say "built cand rc=$rb pool rc=$rp"
[ $rb -eq 0 ] || { tail -20 $W/build-*.log; exit 1; }
C=/tmp/b/spsolve-0.1.0; P=/tmp/p/spsolve-0.1.0
cd $C
command -v cuobjdump > /dev/null && cuobjdump -res-usage .libs/libspsolve.so > $W/res-usage.txt 2>&1
DL=$((T0 + 440))
diag='^(krylov_steps-0of8|progress-3of8|scaling-6of8|bjacobi-0of8)$'
( SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$DL SANITIZE_SHARDS=8 SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY="$diag" \
    bash tests/sanitize-gpu.sh $W/diag-on 4 400 racecheck > /dev/null 2>&1 ) & p1=$!
( SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$DL SANITIZE_SHARDS=8 SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY="$diag" \
    bash tests/sanitize-gpu.sh $W/diag-off 4 400 racecheck > /dev/null 2>&1 ) & p2=$!
( SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$DL SANITIZE_SHARDS=8 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY='^[^r]' \
    bash tests/sanitize-gpu.sh $W/race 40 400 racecheck > /dev/null 2>&1 ) & p3=$!
if [ $rp -eq 0 ]; then
  ( cd $P && CUDA_VISIBLE_DEVICES=1 timeout 150 make check TESTS="tests/unit/amg tests/unit/amg-cuda.sh tests/kernels/amg_setup_gpu tests/kernels/amg_aggregate_gpu tests/regress/amg-cuda.sh" > $W/pool-check.log 2>&1
    echo "pool make check rc=$?" >> $W/pool-check.log ) 
  say "pool tests done"; grep -E '^(PASS|FAIL|SKIP|ERROR)|^# |rc=' $W/pool-check.log
fi
( SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$DL SANITIZE_SHARDS=8 SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=1 \
    bash tests/sanitize-gpu.sh $W/plain 12 300 plain > /dev/null 2>&1 ) & p4=$!
wait $p4; say "plain done"
wait $p1 $p2 $p3; say "sanitizers done"
pkill -f compute-sanitizer; sleep 2
for d in diag-on diag-off; do echo "== $d"; cat $W/$d/summary.txt; done
awk -F'\t' '{print $4}' $W/race/summary.txt | sort | uniq -c
grep -v 'rc=0\|rc=notrun' $W/race/summary.txt | head -40
awk -F'\t' '{print $4}' $W/plain/summary.txt | sort | uniq -c
grep -v 'rc=0' $W/plain/summary.txt | head
bash tests/race-coverage.sh $W/plain $W/race $W/diag-on $W/diag-off > $W/coverage.txt 2>&1; head -60 $W/coverage.txt
for f in $W/*/*.log; do grep -qE '(RACECHECK SUMMARY: 0 hazards|ERROR SUMMARY: 0 errors)' $f && { tail -3 $f > $f.t && mv $f.t $f; }; done
for f in $W/plain/*.log; do grep -q 'not ok' $f || { tail -3 $f > $f.t && mv $f.t $f; }; done
# Quiet: the AMG setup A/B.
if [ $rp -eq 0 ] && [ $(( $(date +%s) - T0 )) -lt 500 ]; then
  for v in cand pool; do D=$C; [ $v = pool ] && D=$P; timeout 30 $D/bench/amg-cycle-bench --repeat 2 $M/G3_circuit.mtx.gz > $W/warm-$v.txt 2>&1; done
  for r in 1 2 3; do
    for v in cand pool; do
      D=$C; [ $v = pool ] && D=$P
      timeout 30 $D/bench/amg-cycle-bench --repeat 10 $M/G3_circuit.mtx.gz > $W/cycle-$v-$r.txt 2>&1
      timeout 30 $D/bench/solve-bench --device cuda --repeat 3 --solver cg --precond amg --tsv $W/solve-$v-$r.tsv $M/G3_circuit.mtx.gz > $W/solve-$v-$r.log 2>&1
      say "$v $r"; grep '^# G3' $W/cycle-$v-$r.txt | head -1 | sed 's/.*AMG setup/setup/' | cut -c1-300; tail -1 $W/solve-$v-$r.tsv | cut -f9,13,14
    done
    [ $(( $(date +%s) - T0 )) -gt 575 ] && break
  done
fi
say done
