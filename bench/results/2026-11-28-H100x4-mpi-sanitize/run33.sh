#!/bin/bash
# run33 (4 GPUs, run 32's build kept): configuration 17 (nos3 CG+ic0, cg_rz_close_kernel) a GPU
# a rank, capped at 10 iterations, alone on the machine (in run 32, beside six runs with both
# ranks on one GPU, all four stalled at their first 2-rank context): memcheck then initcheck on
# GPUs 0,1, racecheck on 2,3.
set -u
R=$(pwd); T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w33; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w33; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_DEBUG=WARN
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd $R/.devbuild/spsolve-0.1.0 || exit 1
md5sum $R/.devcarry/cand.tar.gz > $W/tarballs.md5
export SPSOLVE_GMRES_CLUSTER=0 SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 240)) SANITIZE_MPI_MAXIT=10 SANITIZE_SHARDS=23 SANITIZE_ONLY='^mpi-solvers-np2-17of23$'
( SANITIZE_MPI_GPUS=0,1 bash tests/sanitize-gpu.sh $W/pair01 1 200 memcheck initcheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_MPI_GPUS=2,3 bash tests/sanitize-gpu.sh $W/pair23 1 230 racecheck > /dev/null 2>&1 ) & p2=$!
wait $p1 $p2; say done
for d in pair01 pair23; do echo "== $d"; cut -c1-200 $W/$d/summary.txt; done
cat $W/pair*/*.kernels 2>/dev/null | sort | uniq -c | grep -E "rz_close" | head
pack; say packed
