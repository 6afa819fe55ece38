#!/bin/bash
# run24 (4 GPUs): the make dist tarball built with MPI (NCCL of the image's pip package, METIS
# carried). GPU 0: the whole make check, and the plain pass (launch logs) of the programs that
# now launch the 26 kernels no GPU test launched (64-bit offsets, 8-byte SpMM loads, sweep<2>,
# the distributed split reductions). GPUs 1-2: racecheck of them; GPU 3: memcheck, initcheck,
# synccheck. Stops by 545 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=$OUT/w; mkdir -p $W
trap 'cd $OUT && tar czf r.tgz w && rm -rf w' EXIT
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee $W/device.txt
{ mpirun --version | head -1; nproc; compute-sanitizer --version | tail -1; } | tee -a $W/device.txt
md5sum .devcarry/cand.tar.gz | tee $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/b && mkdir -p /tmp/b && cd /tmp/b && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; exit 1; }
say built
cuobjdump -res-usage .libs/libspsolve.so 2>/dev/null | grep -o "Function [^ :]*" | awk '{print $2}' | sort -u > $W/lib-kernels.txt
wc -l < $W/lib-kernels.txt
export SANITIZE_LAUNCH_LOG=1 SANITIZE_DEADLINE=$((T0 + 545)) SANITIZE_SHARDS=8 SPSOLVE_GMRES_CLUSTER=0
ONLY='^(spmv_[a-z0-9_]*_gpu|stats_gpu|spmm_sputnik_gpu|spmm_balanced_gpu|amg_setup_gpu|mpi-[a-z]*-np2)(-[0-9]+of[0-9]+)?$'
( SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=0 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/plain 8 400 plain > /dev/null 2>&1 ) & pp=$!
( SANITIZE_GPUS=2 SANITIZE_GPU_FIRST=1 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/race 28 500 racecheck > /dev/null 2>&1 ) & pr=$!
( SANITIZE_GPUS=1 SANITIZE_GPU_FIRST=3 SANITIZE_ONLY="$ONLY" bash tests/sanitize-gpu.sh $W/mis 16 500 memcheck initcheck synccheck > /dev/null 2>&1 ) & pm=$!
( CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=2 timeout $((T0 + 530 - $(date +%s))) make -j14 check > $W/check.log 2>&1; echo "make check rc=$?" >> $W/check.log ) & pc=$!
wait $pp; say "plain done"
wait $pc; say "make check done"; grep -E "^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR)|make check rc" $W/check.log
grep -E "^(FAIL|ERROR):" $W/check.log | head -30
for f in $(grep -lE "^(not ok|Bail out)" $(find tests examples -name "*.log") 2>/dev/null); do cp $f $W/fail-$(echo $f | tr / _); done
wait $pr $pm; say "sanitizers done"
for d in plain race mis; do echo "== $d"; awk -F'\t' '{print $1, $4}' $W/$d/summary.txt | sort | uniq -c; grep -v 'rc=0' $W/$d/summary.txt | cut -c1-220 | head -30; done
for d in $W/plain $W/race $W/mis; do awk -F'\t' '$4 == "rc=0" { print $1 "-" $2 ".log" }' $d/summary.txt | while read -r l; do
  [ -f $d/$l ] && { tail -3 $d/$l > $d/$l.t; mv $d/$l.t $d/$l; }; done; done
say done
