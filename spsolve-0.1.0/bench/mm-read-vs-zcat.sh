#!/bin/sh
# mm-read-vs-zcat.sh: times `zcat FILE >/dev/null` and sps_matrix_read_mm (bench/mm_read_bench) on the
# same gzipped Matrix Market files, RUNS runs each, and prints a TSV of the medians and their ratio;
# the table is also written to bench/results/mm-read-DATE.tsv.
# Usage: bench/mm-read-vs-zcat.sh FILE.mtx.gz...   (run from the build directory; RUNS=3 by default)
set -eu
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
bench=${MM_READ_BENCH:-./bench/mm_read_bench}
test -x "$bench" || { echo "$0: $bench not found: run make first, from the build directory" >&2; exit 2; }
test $# -ge 1 || { echo "usage: $0 FILE.mtx.gz..." >&2; exit 2; }
outdir=${RESULTS_DIR:-$here/results}
mkdir -p "$outdir"
out="$outdir/mm-read-$(date +%Y-%m-%d).tsv"
machine=$(uname -n)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown)

# The median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }

{
  printf '# machine: %s (%s, %s cores), date: %s, runs: %s (medians)\n' "$machine" "$cpu" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)" "$runs"
  printf 'file\trows\tnnz\tzcat_s\tread_s\tratio\n'
  for f in "$@"; do
    zs=""; rs=""; rows=""; nnz=""
    i=0
    while [ $i -lt "$runs" ]; do
      t0=$(now); zcat "$f" >/dev/null; t1=$(now)
      zs="$zs $(echo "$t1 - $t0" | bc -l)"
      row=$("$bench" "$f" | tail -n 1)
      rows=$(echo "$row" | cut -f 2); nnz=$(echo "$row" | cut -f 3)
      rs="$rs $(echo "$row" | cut -f 4)"
      i=$((i + 1))
    done
    zm=$(echo $zs | tr ' ' '\n' | median)
    rm=$(echo $rs | tr ' ' '\n' | median)
    printf '%s\t%s\t%s\t%.3f\t%.3f\t%.2f\n' "$(basename "$f")" "$rows" "$nnz" "$zm" "$rm" "$(echo "$rm / $zm" | bc -l)"
  done
} | tee "$out"
echo "written: $out" >&2
