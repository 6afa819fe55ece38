#!/bin/bash
# run30 (4 GPUs): the nine distributed kernels no clean run has covered, under the four tools, a
# GPU a rank (NCCL): tests/mpi/solvers' configurations 1 (nos3 CG+jacobi), 4 (GMRES+jacobi) and
# 5 (BiCGSTAB+jacobi) as shards 1, 4, 5 of 23 (one configuration a shard), every solve stopped
# after 10 iterations, one run at a time a pair: racecheck then synccheck on GPUs 0,1, memcheck
# then initcheck on GPUs 2,3. Beside them, tests/mpi/solvers whole (8 shards, 10 iterations) with
# both ranks on one GPU as `make check` runs it, the four tools, 3 at a time. Packs by 550 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w30; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w30; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_DEBUG=WARN
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $W/device.txt
{ mpirun --version | head -1; nproc; compute-sanitizer --version | tail -1; } >> $W/device.txt
md5sum .devcarry/cand.tar.gz > $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf $R/.devbuild && mkdir -p $R/.devbuild && cd $R/.devbuild && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; pack; exit 1; }
say built
export SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 515)) SANITIZE_MPI_MAXIT=10
only='^mpi-solvers-np2-(1|4|5)of23$'
( SANITIZE_SHARDS=23 SANITIZE_MPI_GPUS=0,1 SANITIZE_ONLY="$only" bash tests/sanitize-gpu.sh $W/pair01 1 240 racecheck synccheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_SHARDS=23 SANITIZE_MPI_GPUS=2,3 SANITIZE_ONLY="$only" bash tests/sanitize-gpu.sh $W/pair23 1 240 memcheck initcheck > /dev/null 2>&1 ) & p2=$!
( SANITIZE_SHARDS=8 SANITIZE_GPUS=4 SANITIZE_OMP_THREADS=1 SANITIZE_ONLY='^mpi-solvers-np2-' bash tests/sanitize-gpu.sh $W/shared 3 420 racecheck memcheck initcheck synccheck > /dev/null 2>&1 ) & p3=$!
while kill -0 $p1 2>/dev/null || kill -0 $p2 2>/dev/null; do sleep 10; done; say "pairs done"
for d in pair01 pair23; do echo "== $d"; cut -c1-220 $W/$d/summary.txt; done
wait $p3; say "shared done"
echo "== shared"; awk -F'\t' '{print $1, $4}' $W/shared/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/shared/summary.txt | cut -c1-200 | head -12
cat $W/pair*/*.kernels 2>/dev/null | sort | uniq -c | grep -E "fold|close|bicgstab" | head -30
for d in $W/pair01 $W/pair23 $W/shared; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { grep -c . $d/$l > $d/$l.lines; tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
pack; say packed
