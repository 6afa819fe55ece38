#!/bin/sh
# shards.sh: the split of the test programs into shards (SPS_TEST_SHARD, sps_case: what lets
# compute-sanitizer's slow tools run a program as K processes) stays exact: for each fast program,
# tests/shard-check.sh 3 checks that the three shards each pass, count the same cases and together
# run every check of the whole run once. One TAP line a program (SKIP where the program skips).
set -u
here=$(dirname "$0")
b="${SPS_BUILDDIR:-.}"
n=0
failed=0
for p in kernels/amg_setup kernels/amg_aggregate kernels/spgemm kernels/spmv_ell kernels/stats \
  kernels/precond_kernels kernels/precond_bjacobi kernels/spmv_dist kernels/spmv_bitwise \
  kernels/spmv_binned kernels/spmm_csr unit/krylov_steps unit/vector_ops unit/block_steps \
  unit/bjacobi unit/scaling unit/solver_guards unit/progress unit/wrap unit/pipelined \
  unit/solve_many unit/amg; do
  n=$((n + 1))
  prog="$b/tests/$p"
  if ! [ -x "$prog" ]; then
    echo "ok $n # SKIP tests/$p not built"
    continue
  fi
  line=$(sh "$here/shard-check.sh" 3 "$prog" 2>&1 | tail -n 1)
  case $line in
    PASS*) echo "ok $n - $line" ;;
    SKIP*) echo "ok $n # SKIP $line" ;;
    *) echo "not ok $n - $line"; failed=$((failed + 1)) ;;
  esac
done
echo "1..$n"
[ "$failed" -eq 0 ]
