#!/bin/bash
# final campaign (after = the branch with the 1024-row SpMV threshold), session at autogroup nice -10
set -u
echo -10 > /proc/self/autogroup
OUT=/tmp/res/raw
mkdir -p $OUT
B=/tmp/base-e4b0910; A=/work/wt/cpu/build-cpu
cd /work/wt/cpu
log=/tmp/res/logs/measure4.log
echo "autogroup: $(cat /proc/self/autogroup)" >> $log
CG="cg:1138_bus cg:bcsstk13 cg:bcsstk14 cg:G3_circuit cg:laplacian7pt_100 cg:nos3"
for r in 1 2; do
  echo "run $r t1 after $(date -u +%FT%TZ) $(uptime)" >> $log
  PYTHON=/usr/bin/python3 sh bench/cpu-time.sh $OUT after $A 1 $r
  echo "run $r t1 before $(date -u +%FT%TZ) $(uptime)" >> $log
  PEERS= sh bench/cpu-time.sh $OUT before $B 1 $r
  echo "run $r t2 $(date -u +%FT%TZ) $(uptime)" >> $log
  PEERS= sh bench/cpu-time.sh $OUT after $A 2 $r $CG gmres:G3_circuit
  PEERS= sh bench/cpu-time.sh $OUT before $B 2 $r $CG gmres:G3_circuit
done
echo "done $(date -u +%FT%TZ) $(uptime)" >> $log
