#!/bin/bash
# run23 (4 GPUs): racecheck with launch logs, cluster kernel off, of what covers the last 32
# kernels (solve_many shards 3 and 4 of 8, a case a run), the rest of solve_many (split 4) and
# block_steps (split 2); solvers-5of8 (which crashed under racecheck in run 22) whole and split
# 4, with the test harness's crash report; memcheck/initcheck/synccheck of the unfinished
# regress-cpu_vs_gpu shards, split 2. Stops by 530 s.
set -u
R=$(pwd); M=$R/.devcarry/m
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee $W/device.txt
md5sum .devcarry/cand.tar.gz | tee $W/tarballs.md5
rm -rf /tmp/b && mkdir -p /tmp/b && cd /tmp/b && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 SPS_MATRICES="$M" > $W/configure.log 2>&1 && make -j60 > $W/build.log 2>&1 &&
  make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; exit 1; }
say built
late() { for s in "$@"; do printf '%s\t%s\tgpu=0\trc=124\n' "${s%%:*}" "${s#*:}"; done; }
late racecheck:solve_many-3of8 racecheck:solve_many-4of8 > /tmp/sm-a.txt
late racecheck:solve_many-{0,1,2,5,6,7}of8 > /tmp/sm-b.txt
late racecheck:block_steps-{0,1,2,3,4,5,6,7}of8 > /tmp/bs.txt
late racecheck:solvers-5of8 > /tmp/sv.txt
late {memcheck,initcheck}:regress-cpu_vs_gpu-{0,2}of8 synccheck:regress-cpu_vs_gpu-{0,2,4,6}of8 > /tmp/mis.txt
export SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 530)) SANITIZE_SHARDS=8
run() { # outdir gpu jobs rerun split only tools... (cluster off for racecheck)
  local d=$1 g=$2 j=$3 rr=$4 sp=$5 only=$6; shift 6
  SPSOLVE_GMRES_CLUSTER=0 SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=$g SANITIZE_RERUN=$rr SANITIZE_SPLIT=$sp SANITIZE_ONLY="$only" \
    bash tests/sanitize-gpu.sh $W/$d $j 480 "$@" > /dev/null 2>&1
}
( run sm-a 0 8 /tmp/sm-a.txt 4 '^solve_many-' racecheck ) & pa=$!
( run sm-b 0 16 /tmp/sm-b.txt 4 '^solve_many-' racecheck ) & pb=$!
( run bs 1 16 /tmp/bs.txt 2 '^block_steps-' racecheck ) & pc=$!
( run sv 2 4 /tmp/sv.txt 4 '^solvers-' racecheck ) & pd=$!
( SPSOLVE_GMRES_CLUSTER=0 SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY='^solvers-5of8$' \
    bash tests/sanitize-gpu.sh $W/sv-whole 1 480 racecheck > /dev/null 2>&1 ) & pe=$!
( SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=3 SANITIZE_RERUN=/tmp/mis.txt SANITIZE_SPLIT=2 SANITIZE_ONLY='^regress-cpu_vs_gpu-' \
    bash tests/sanitize-gpu.sh $W/mis 16 480 memcheck initcheck synccheck > /dev/null 2>&1 ) & pf=$!
wait $pa; say "sm-a done"
wait $pb $pc $pd $pe $pf; say "all done"
for d in sm-a sm-b bs sv sv-whole mis; do echo "== $d"; awk -F'\t' '{print $1, $4}' $W/$d/summary.txt | sort | uniq -c; grep -v 'rc=0\|rc=notrun' $W/$d/summary.txt | cut -c1-200 | head -20; done
# Crash reports: resolve the test binary's and the library's frames.
for f in $(grep -l 'Bail out! signal' $W/*/*.log 2>/dev/null); do
  echo "== crash: $f"; grep -A40 'Bail out! signal' $f | cut -c1-200 | head -45 > /tmp/c.txt; cat /tmp/c.txt
  grep -o '[^ ]*(+0x[0-9a-f]*)' /tmp/c.txt | while read -r fr; do
    bin=${fr%%(*}; off=${fr##*(+}; off=${off%)}; [ -f "$bin" ] && echo "$fr -> $(addr2line -f -C -e $bin $off | tr '\n' ' ')"
  done
done
# Keep whole logs of runs not clean; trim the clean ones.
for d in $W/*/; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
say done
