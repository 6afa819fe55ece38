#!/bin/bash
# run32 (4 GPUs): after run 31, tests/mpi/solvers with the per-rank configurations running
# capped at 10 iterations (their check then a stop with the true residual below the start's;
# the transports' bits as before). Configuration 17 (nos3 CG+ic0: distributed CG's (r, z)
# close, cg_rz_close_kernel) a GPU a rank: racecheck, memcheck on GPUs 0,1; initcheck, synccheck
# on 2,3. Configurations 17 to 22 with both ranks on one GPU, the four tools, 6 at a time.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w32; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w32; }
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
export SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 330)) SANITIZE_MPI_MAXIT=10
( SANITIZE_SHARDS=23 SANITIZE_MPI_GPUS=0,1 SANITIZE_ONLY='^mpi-solvers-np2-17of23$' bash tests/sanitize-gpu.sh $W/pair01 1 200 racecheck memcheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_SHARDS=23 SANITIZE_MPI_GPUS=2,3 SANITIZE_ONLY='^mpi-solvers-np2-17of23$' bash tests/sanitize-gpu.sh $W/pair23 1 200 initcheck synccheck > /dev/null 2>&1 ) & p2=$!
( SANITIZE_SHARDS=23 SANITIZE_GPUS=4 SANITIZE_OMP_THREADS=1 SANITIZE_ONLY='^mpi-solvers-np2-(17|18|19|20|21|22)of23$' bash tests/sanitize-gpu.sh $W/shared-perrank 6 280 racecheck memcheck initcheck synccheck > /dev/null 2>&1 ) & p3=$!
wait $p1 $p2 $p3; say "done"
for d in pair01 pair23 shared-perrank; do echo "== $d"; cut -c1-200 $W/$d/summary.txt; done
cat $W/pair*/*.kernels 2>/dev/null | sort | uniq -c | grep -E "close" | head
for d in $W/pair01 $W/pair23 $W/shared-perrank; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { grep -c . $d/$l > $d/$l.lines; grep -E '^ *[0-9]+ (ok|not ok|# )' $d/$l | tail -12 > $d/$l.t; tail -3 $d/$l >> $d/$l.t; mv $d/$l.t $d/$l; }; done; done
pack; say packed
