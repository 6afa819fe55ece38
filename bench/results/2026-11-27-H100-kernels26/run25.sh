#!/bin/bash
# run25 (4 GPUs): the make dist tarball built with MPI (NCCL of the image's pip package, METIS
# carried); compute-sanitizer with launch logs of the programs that launch the 26 kernels no GPU
# test launched before (int64 offsets: spmv_csr_scalar/blockwise/binned_gpu, stats_gpu; 8-byte
# SpMM loads: spmm_sputnik/balanced_gpu; sweep<2>: amg_setup_gpu; the distributed split
# reductions: mpi-*-np2). GPUs 0-1 racecheck, GPU 2 memcheck and initcheck, GPU 3 synccheck and
# the plain pass. Everything stops by 500 s; the results are packed into $OUT/r.tgz by 540 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $W/device.txt
{ mpirun --version | head -1; nproc; compute-sanitizer --version | tail -1; } >> $W/device.txt
md5sum .devcarry/cand.tar.gz > $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/b && mkdir -p /tmp/b && cd /tmp/b && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; pack; exit 1; }
say built
cuobjdump -res-usage .libs/libspsolve.so 2>/dev/null | grep -o "Function [^ :]*" | awk '{print $2}' | sort -u > $W/lib-kernels.txt
make check TESTS=tests/race-coverage-check.sh > /dev/null 2>&1; cp tests/race-coverage-check.sh.log $W/; grep -E "^not ok|^ok|^1\.\." tests/race-coverage-check.sh.log | tail -12
export SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 500)) SANITIZE_SHARDS=8 SPSOLVE_GMRES_CLUSTER=0
ONLY='^(spmv_csr_scalar_gpu|spmv_blockwise_gpu|spmv_binned_gpu|stats_gpu|spmm_sputnik_gpu|spmm_balanced_gpu|amg_setup_gpu|mpi-[a-z]*-np2)(-[0-9]+of[0-9]+)?$'
( SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=3 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/plain 8 300 plain > /dev/null 2>&1
  SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=3 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/sync 12 420 synccheck > /dev/null 2>&1 ) & p1=$!
( SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/race 30 440 racecheck > /dev/null 2>&1 ) & p2=$!
( SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=2 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/mis 16 440 memcheck initcheck > /dev/null 2>&1 ) & p3=$!
while [ $(( $(date +%s) - T0 )) -lt 515 ] && kill -0 $p1 $p2 $p3 2>/dev/null; do sleep 5; done
say "waited"; pkill -f compute-sanitizer; sleep 2
for d in plain sync race mis; do echo "== $d"; f=$W/$d/summary.txt; [ -s $f ] || f=$W/$d/summary-as-run.txt
  awk -F'\t' '{print $1, $4}' $f | sort | uniq -c; grep -v 'rc=0' $f | cut -c1-200 | head -12; done
for f in $W/plain/plain-mpi-*.log; do echo "== $f"; tail -4 $f | cut -c1-200; done
for d in plain sync race mis; do [ -s $W/$d/summary.txt ] || continue; awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $W/$d/summary.txt | while read -r l; do
  [ -f $W/$d/$l ] && { tail -3 $W/$d/$l > $W/$d/$l.t; mv $W/$d/$l.t $W/$d/$l; }; done; done
pack; say packed; ls -la $OUT
