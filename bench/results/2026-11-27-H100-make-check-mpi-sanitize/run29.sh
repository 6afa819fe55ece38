#!/bin/bash
# run29 (4 GPUs): the distributed GPU programs under the four compute-sanitizer tools, a GPU a
# rank (NCCL, legacy IPC: sanitize-gpu.sh's default with SANITIZE_MPI_GPUS), tests/mpi/solvers in
# 8 shards with every solve stopped after 10 iterations (SANITIZE_MPI_MAXIT). racecheck on GPUs
# 0,1; memcheck, initcheck, synccheck on GPUs 2,3. Then one shard of mpi-solvers whole (no
# iteration cap) under memcheck if time allows. Packs by 550 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w29; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w29; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_DEBUG=WARN
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $W/device.txt
{ mpirun --version | head -1; nproc; compute-sanitizer --version | tail -1; } >> $W/device.txt
md5sum .devcarry/cand.tar.gz > $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -x $R/.devbuild/spsolve-0.1.0/spsolve ]; then cd $R/.devbuild/spsolve-0.1.0 && cp $R/tests/sanitize-gpu.sh tests/ && say "build kept"; else
rm -rf $R/.devbuild && mkdir -p $R/.devbuild && cd $R/.devbuild && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; pack; exit 1; }
fi
cp $R/tests/sanitize-gpu.sh tests/; say built
export SANITIZE_SHARDS=8 SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 505)) SANITIZE_MPI_MAXIT=10
( SANITIZE_MPI_GPUS=0,1 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/race 10 420 racecheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_MPI_GPUS=2,3 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/mis 30 420 memcheck initcheck synccheck > /dev/null 2>&1 ) & p2=$!
( SANITIZE_MPI_GPUS=2,3 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/plain 10 300 plain > /dev/null 2>&1 ) & p3=$!
wait $p1 $p2 $p3; say "sanitizers done"
for d in race mis plain; do echo "== $d"; awk -F'\t' '{print $1, $4}' $W/$d/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/$d/summary.txt | cut -c1-200 | head -12; done
grep -h "NCCL's" $W/*/summary.txt | cut -c1-160 | head -5
cat $W/race/*.kernels $W/mis/*.kernels 2>/dev/null | sort | uniq -c | grep -E "fold|close|bicgstab" | head -20
grep -h "iterations" $W/plain/plain-mpi-solvers-np2-5of8.log | head -3 | cut -c1-160
for d in $W/race $W/mis $W/plain; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
pack; say packed
