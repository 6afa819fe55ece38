#!/bin/bash
# run17 (4 GPUs): build the base tarball (83e000e) and the candidate (scratch pool, Lanczos on
# the device, sharded tests); GPU 0: the AMG setup A/B (base, candidate with SPSOLVE_CUDA_POOL=0,
# candidate) twice, then amg-gpu.sh on G3_circuit (CuPy beside); GPU 1: cpu_vs_gpu alone, then
# make check; GPUs 2-3: memcheck, initcheck, synccheck over every GPU test program (2 shards).
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee $W/device.txt
nproc; which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer
md5sum .devcarry/*.tar.gz | tee $W/tarballs.md5
build() { # dir tarball
  rm -rf $1 && mkdir -p $1 && cd $1 && tar xf "$2" && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure-$(basename $1).log 2>&1 &&
  make -j28 > $W/build-$(basename $1).log 2>&1
}
( build /tmp/base $R/.devcarry/base.tar.gz ) & pb=$!
( build /tmp/b $R/.devcarry/cand.tar.gz && cd /tmp/b/spsolve-0.1.0 && make -j28 check TESTS= > $W/build-tests.log 2>&1 ) & pc=$!
wait $pb; rb=$?; wait $pc; rc=$?
say "built base rc=$rb cand rc=$rc"
[ $rc -eq 0 ] || { tail -30 $W/build-b.log $W/build-tests.log; exit 1; }
B=/tmp/base/spsolve-0.1.0; C=/tmp/b/spsolve-0.1.0
# --- GPU 1: cpu_vs_gpu alone, then the whole make check (cores 16-31)
( cd $C && export CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=4
  timeout 150 taskset -c 16-31 make check TESTS=tests/regress/cpu_vs_gpu > $W/cpu_vs_gpu.txt 2>&1
  echo "cpu_vs_gpu rc=$?" >> $W/cpu_vs_gpu.txt; cp tests/regress/cpu_vs_gpu.log $W/ 2>/dev/null
  OMP_NUM_THREADS=2 timeout 280 taskset -c 16-31 make -j8 check > $W/check.log 2>&1
  echo "make check rc=$?" >> $W/check.log
  mkdir -p $W/checklogs; for f in $(grep -lE '^(not ok|FAIL|ERROR)' $(find tests -name '*.log') 2>/dev/null); do cp $f $W/checklogs/$(echo $f | tr / _); done ) &
pk=$!
# --- GPUs 2-3: memcheck, initcheck, synccheck (cores 32-63)
( cd $C && SANITIZE_DEADLINE=$((T0 + 540)) SANITIZE_SHARDS=2 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=2 taskset -c 32-63 \
    bash tests/sanitize-gpu.sh $W/san1 30 360 memcheck initcheck synccheck > /dev/null 2>&1
  echo "sanitize rc=$?" > $W/san1-rc.txt ) &
ps=$!
# --- GPU 0: the A/B of the setup (cores 0-15)
export CUDA_VISIBLE_DEVICES=0
for r in 1 2; do
  for v in base pool0 cand; do
    case $v in base) D=$B; E=1 ;; pool0) D=$C; E=0 ;; cand) D=$C; E=1 ;; esac
    SPSOLVE_CUDA_POOL=$E timeout 60 taskset -c 0-15 $D/bench/amg-cycle-bench --repeat 10 $M/G3_circuit.mtx.gz > $W/cycle-$v-$r.txt 2>&1
    SPSOLVE_CUDA_POOL=$E timeout 60 taskset -c 0-15 $D/bench/solve-bench --device cuda --repeat 3 --solver cg --precond amg --tsv $W/solve-$v-$r.tsv $M/G3_circuit.mtx.gz > $W/solve-$v-$r.log 2>&1
    say "$v $r"; grep '^# G3' $W/cycle-$v-$r.txt | head -2 | cut -c1-400; tail -1 $W/solve-$v-$r.tsv | cut -f1-14
  done
done
( cd $C && MATS=G3_circuit SIZES="" OUT=$W/amg timeout 120 taskset -c 0-15 sh bench/amg-gpu.sh $M > $W/amg-gpu.txt 2>&1 )
say "amg-gpu rc=$?"; cut -f1-13 $W/amg/summary.tsv 2>/dev/null
wait $pk; say "check done"; tail -3 $W/cpu_vs_gpu.txt; grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' $W/check.log; grep -E '^(FAIL|ERROR)' $W/check.log | head
wait $ps; say "sanitize done"; cat $W/san1-rc.txt
awk -F'\t' '{print $1, $4}' $W/san1/summary-as-run.txt | sort | uniq -c
grep -v 'rc=0' $W/san1/summary-as-run.txt | head -40
# keep the logs small: the clean ones' last lines only
for f in $W/san1/*.log; do grep -q 'ERROR SUMMARY: 0 errors' $f && { tail -3 $f > $f.t && mv $f.t $f; }; done

cp $W/san1/summary.txt /tmp/san1-summary.txt 2>/dev/null
