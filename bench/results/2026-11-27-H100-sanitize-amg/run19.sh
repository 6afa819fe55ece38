#!/bin/bash
# run19 (one GPU, quiet): the AMG setup A/B on G3_circuit with nothing else on the machine:
# base (83e000e), candidate with SPSOLVE_CUDA_POOL=0 (Lanczos on the device, no pool), candidate
# (both), three rounds after a warm-up; amg-gpu.sh on G3_circuit (CuPy beside); then initcheck
# and memcheck of tests/unit/block_steps after the sum-of-squares fix.
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee $W/device.txt
md5sum .devcarry/*.tar.gz | tee $W/tarballs.md5
build() { # dir tarball
  rm -rf $1 && mkdir -p $1 && cd $1 && tar xf "$2" && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure-$(basename $1).log 2>&1 &&
  make -j8 > $W/build-$(basename $1).log 2>&1
}
( build /tmp/base $R/.devcarry/base.tar.gz ) & pb=$!
( build /tmp/b $R/.devcarry/cand.tar.gz && cd /tmp/b/spsolve-0.1.0 && make -j8 tests/unit/block_steps > $W/build-tests.log 2>&1 ) & pc=$!
wait $pb; rb=$?; wait $pc; rc=$?
say "built base rc=$rb cand rc=$rc"
[ $rc -eq 0 ] && [ $rb -eq 0 ] || { tail -20 $W/build-*.log; exit 1; }
B=/tmp/base/spsolve-0.1.0; C=/tmp/b/spsolve-0.1.0
for v in base cand; do D=$B; [ $v = cand ] && D=$C; timeout 40 $D/bench/amg-cycle-bench --repeat 2 $M/G3_circuit.mtx.gz > $W/warm-$v.txt 2>&1; done
say warmed
for r in 1 2 3; do
  for v in base pool0 cand; do
    case $v in base) D=$B; E=1 ;; pool0) D=$C; E=0 ;; cand) D=$C; E=1 ;; esac
    SPSOLVE_CUDA_POOL=$E timeout 40 $D/bench/amg-cycle-bench --repeat 10 $M/G3_circuit.mtx.gz > $W/cycle-$v-$r.txt 2>&1
    SPSOLVE_CUDA_POOL=$E timeout 40 $D/bench/solve-bench --device cuda --repeat 3 --solver cg --precond amg --tsv $W/solve-$v-$r.tsv $M/G3_circuit.mtx.gz > $W/solve-$v-$r.log 2>&1
    say "$v $r"; grep '^# G3' $W/cycle-$v-$r.txt | head -1 | sed 's/.*AMG setup/setup/' | cut -c1-300; tail -1 $W/solve-$v-$r.tsv | cut -f9,13,14
  done
  [ $(( $(date +%s) - T0 )) -gt 260 ] && break
done
( cd $C && MATS=G3_circuit SIZES=" " OUT=$W/amg timeout 100 sh bench/amg-gpu.sh $M > $W/amg-gpu.txt 2>&1 )
say "amg-gpu rc=$?"; cut -f1-13 $W/amg/summary.tsv 2>/dev/null
cd $C
left=$(( T0 + 470 - $(date +%s) ))
for t in initcheck memcheck; do for i in 0 1; do
  SPS_TEST_DEVICE=cuda SPS_TEST_SHARD=$i/2 timeout $left ./libtool --mode=execute compute-sanitizer --tool $t --error-exitcode 9 tests/unit/block_steps > $W/$t-block_steps-$i.log 2>&1 &
done; done
wait
for f in $W/*check-block_steps-*.log; do echo "$f: $(grep -c '^ok' $f) ok, $(grep -c '^not ok' $f) not ok; $(grep 'ERROR SUMMARY' $f)"; done
say done
