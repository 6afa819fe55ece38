#!/bin/bash
# run28 (4 GPUs): the distributed GPU programs under compute-sanitizer with a GPU a rank (NCCL).
# Run 27 hung there (every tool, at the first 2-rank context). First probes of mpi-api-np2
# under memcheck, 100 s each: NCCL's P2P and SHM transports off (pair 0,1), NCCL_CUMEM_ENABLE=0
# (pair 2,3), and plain (pair 0,1); then, with the first probe's setting that finished, the four
# tools over mpi-* (racecheck on 0,1; memcheck, initcheck, synccheck on 2,3). Packs by 550 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w28; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w28; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_DEBUG=WARN
md5sum .devcarry/cand.tar.gz > $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
ls $NCCL/lib > $W/nccl.txt 2>&1
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf $R/.devbuild && mkdir -p $R/.devbuild && cd $R/.devbuild && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; pack; exit 1; }
say built
export SANITIZE_SHARDS=8 SPSOLVE_GMRES_CLUSTER=0
( export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1; SANITIZE_MPI_GPUS=0,1 SANITIZE_ONLY='^mpi-api-np2$' bash tests/sanitize-gpu.sh $W/probe-nop2p 1 100 memcheck > /dev/null 2>&1 ) & pa=$!
( export NCCL_CUMEM_ENABLE=0; SANITIZE_MPI_GPUS=2,3 SANITIZE_ONLY='^mpi-api-np2$' bash tests/sanitize-gpu.sh $W/probe-nocumem 1 100 memcheck > /dev/null 2>&1 ) & pb=$!
( SANITIZE_MPI_GPUS=0,1 SANITIZE_ONLY='^mpi-api-np2$' bash tests/sanitize-gpu.sh $W/probe-plain 1 100 plain > /dev/null 2>&1 ) & pc=$!
wait $pa $pb $pc; say probes; cat $W/probe-*/summary.txt | cut -c1-200
grep -h "share a GPU\|skip\|SKIP\|NCCL WARN" $W/probe-*/*.log | sort | uniq -c | head -12
E=
if grep -q 'rc=0' $W/probe-nop2p/summary.txt; then E="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"
elif grep -q 'rc=0' $W/probe-nocumem/summary.txt; then E="NCCL_CUMEM_ENABLE=0"
else say "no probe finished"; pack; exit 0; fi
say "with $E"; echo "$E" > $W/env.txt
export SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 500))
( export $E; SANITIZE_MPI_GPUS=0,1 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/race 10 400 racecheck > /dev/null 2>&1 ) & p1=$!
( export $E; SANITIZE_MPI_GPUS=2,3 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/mis 20 400 memcheck initcheck synccheck > /dev/null 2>&1 ) & p2=$!
wait $p1 $p2; say "sanitizers done"
for d in race mis; do echo "== $d"; awk -F'\t' '{print $1, $4}' $W/$d/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/$d/summary.txt | cut -c1-200 | head -20; done
cat $W/race/*.kernels $W/mis/*.kernels 2>/dev/null | sort | uniq -c | grep -E "fold|close|bicgstab" | head -20
for d in $W/race $W/mis; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
pack; say packed
