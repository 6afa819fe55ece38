#!/bin/bash
# run26 (4 GPUs, alone on the machine): the make dist tarball of the final tree built with MPI,
# NCCL and METIS in .devbuild (kept for the next call while the machine is warm), then the whole
# `make check` (GPU tests, the Python package's tests with CuPy, the distributed tests one GPU a
# rank). Packs by 545 s.
set -u
R=$(pwd); M=$R/.devcarry/m; T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { cd /tmp && tar czf $OUT/r.tgz w; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $W/device.txt
{ mpirun --version | head -1; nproc; compute-sanitizer --version | tail -1; python3 -c 'import sys, numpy, scipy, pytest, cupy; print(sys.version.split()[0], numpy.__version__, scipy.__version__, pytest.__version__, cupy.__version__)'; } >> $W/device.txt 2>&1
cat $W/device.txt
md5sum .devcarry/cand.tar.gz > $W/tarballs.md5
NCCL=$(python3 -c "import importlib.util as u; s=u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')" 2>/dev/null)
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf $R/.devbuild && mkdir -p $R/.devbuild && cd $R/.devbuild && tar xf $R/.devcarry/cand.tar.gz && cd spsolve-0.1.0 &&
  ./configure --with-cuda-arch=sm_90 --with-mpi --with-nccl=$NCCL CPPFLAGS=-I$R/.devcarry/include \
    LDFLAGS="-L$R/.devcarry/lib -Wl,-rpath,$R/.devcarry/lib" SPS_MATRICES="$M" > $W/configure.log 2>&1 &&
  make -j60 > $W/build.log 2>&1 && make -j60 check TESTS= > $W/build-tests.log 2>&1 || { tail -20 $W/build*.log; pack; exit 1; }
grep -E "^  (CUDA|MPI|NCCL|METIS|OpenMP)" $W/configure.log; tail -30 $W/configure.log | grep -iE "cuda|mpi|nccl|metis" | head
say built
OMP_NUM_THREADS=2 timeout $((T0 + 520 - $(date +%s))) make -j24 check > $W/check.log 2>&1; echo "make check rc=$?" >> $W/check.log
say "make check ended"
grep -E "^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR)|make check rc" $W/check.log
grep -E "^(FAIL|ERROR|SKIP):" $W/check.log | head -40
ls tests/*.log tests/*/*.log tests/*/*/*.log examples/*.log 2>/dev/null | grep -v test-suite | while read -r l; do t=${l%.log}; [ -f $t.trs ] || echo "not finished: $t"; done | head -20
for f in $(grep -lE "^(not ok|Bail out)" $(find tests examples -name "*.log") 2>/dev/null); do cp $f $W/fail-$(echo $f | tr / _); done
cp tests/python/run-pytest.sh.log $W/ 2>/dev/null; grep -E "passed|failed|SKIPPED" tests/python/run-pytest.sh.log | tail -12
find tests examples -name "*.trs" | xargs grep -h ":test-result:" | sort | uniq -c
pack; say packed
