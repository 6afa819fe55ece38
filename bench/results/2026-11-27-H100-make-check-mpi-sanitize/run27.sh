#!/bin/bash
# run27 (4 GPUs, warm after run26): the distributed GPU programs under compute-sanitizer, a GPU a
# rank (NCCL's transport): racecheck on GPUs 0-1, memcheck/initcheck/synccheck on GPUs 2-3,
# tests/mpi/solvers in 8 shards, launch logs. Packs by 545 s.
set -u
R=$(pwd); T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w27; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w27; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd $R/.devbuild/spsolve-0.1.0 || { echo "no build"; exit 1; }
export SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 515)) SANITIZE_SHARDS=8 SPSOLVE_GMRES_CLUSTER=0
( SANITIZE_MPI_GPUS=0,1 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/race 10 480 racecheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_MPI_GPUS=2,3 SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY='^mpi-' bash tests/sanitize-gpu.sh $W/mis 20 480 memcheck initcheck synccheck > /dev/null 2>&1 ) & p2=$!
wait $p1 $p2; say "sanitizers done"
for d in race mis; do echo "== $d"; awk -F'\t' '{print $1, $4}' $W/$d/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/$d/summary.txt | cut -c1-200 | head -20; done
for d in $W/race $W/mis; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
cat $W/race/*.kernels $W/mis/*.kernels 2>/dev/null | sort | uniq -c | grep -E "fold|close|bicgstab" | head -20
pack; say packed
