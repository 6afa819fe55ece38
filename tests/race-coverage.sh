#!/bin/bash
# race-coverage.sh: which of the kernels the GPU test suite launches have run under a
# compute-sanitizer tool in a run that finished clean, from the launch logs of
# tests/sanitize-gpu.sh (SANITIZE_LAUNCH_LOG=1).
#
#   tests/race-coverage.sh [-t TOOL] [-r] ALL_DIR CHECKED_DIR...
#
# ALL_DIR: a sanitize-gpu.sh output folder whose runs (any tool; "plain" runs the programs
# without a sanitizer) give the kernels the suite launches: the union of its *.kernels files.
# CHECKED_DIR: output folders of runs under TOOL (default racecheck); a kernel counts as checked
# when a run of TOOL that launched it ended with rc=0 (the program passed and the tool found
# nothing) in that folder's summary.txt (or summary-as-run.txt when the run was cut short). A
# run's kernels are its own log, TOOL-NAME.kernels, else the plain run of the same name in
# ALL_DIR (the same program and shard launch the same kernels).
#
# Prints the counts, then each kernel not yet checked (demangled when c++filt is there) with
# the runs of ALL_DIR that launch it, quickest first (by the seconds of their last log line),
# and exits 1 when some kernel is not yet checked, 0 when all are, 2 on bad use. With -r it
# prints instead the names of runs that together launch every kernel not yet checked, chosen
# greedily (most such kernels a second of their plain run first), one a line: the list to run
# next (SANITIZE_ONLY).
#
# The CLI runs (cli-*) stop after 8 iterations and exit 1 ("not converged") by design: one of
# them counts as clean with exit 1 too, when the tool's summary line reports nothing.
set -u
tool=racecheck
pick=0
while [ $# -gt 0 ]; do
  case $1 in
    -t) tool=${2:?-t needs a tool}; shift 2 ;;
    -r) pick=1; shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: tests/race-coverage.sh [-t TOOL] ALL_DIR CHECKED_DIR..." >&2; exit 2; }
all=$1; shift
ls "$all"/*.kernels > /dev/null 2>&1 || { echo "race-coverage.sh: no *.kernels in $all" >&2; exit 2; }
demangle() { if command -v c++filt > /dev/null; then c++filt; else cat; fi; }

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# Every kernel, with the runs that launch it: KERNEL<TAB>SECONDS<TAB>RUN
for f in "$all"/*.kernels; do
  run=$(basename "$f" .kernels)
  secs=$(tail -n 1 "$all/$run.log" 2>/dev/null | awk '{print $1 + 0}')
  sort -u "$f" | awk -v r="$run" -v s="${secs:-0}" '{ print $0 "\t" s "\t" r }'
done | sort > "$tmp/all"
cut -f1 "$tmp/all" | sort -u > "$tmp/kernels"

# The kernels of the clean runs of TOOL.
: > "$tmp/checked"
for d in "$@"; do
  sum=$d/summary.txt
  [ -s "$sum" ] || sum=$d/summary-as-run.txt
  [ -s "$sum" ] || { echo "race-coverage.sh: no summary in $d" >&2; exit 2; }
  awk -F'\t' -v t="$tool" '$1 == t && ($4 == "rc=0" || ($4 == "rc=1" && $2 ~ /^cli-/ &&
      ($8 ~ /0 hazards displayed \(0 errors/ || $8 ~ /ERROR SUMMARY: 0 errors/))) { print $2 }' "$sum" |
    while read -r name; do
    if [ -f "$d/$tool-$name.kernels" ]; then
      cat "$d/$tool-$name.kernels"
    elif [ -f "$all/plain-$name.kernels" ]; then
      cat "$all/plain-$name.kernels"
    else
      echo "race-coverage.sh: no launch log for $d: $name" >&2
    fi
  done >> "$tmp/checked"
done
sort -u "$tmp/checked" -o "$tmp/checked"

n=$(wc -l < "$tmp/kernels")
comm -23 "$tmp/kernels" "$tmp/checked" > "$tmp/missing"
m=$(wc -l < "$tmp/missing")
if [ "$pick" = 1 ]; then
  # Greedy cover of the missing kernels by the runs of ALL_DIR (each run's name without its
  # tool prefix), by missing kernels covered per second (a run of 0 s counts 1 s).
  awk -F'\t' 'NR == FNR { miss[$1] = 1; next }
    ($1 in miss) { run = $3; sub(/^[a-z]+-/, "", run); has[run, $1] = 1; secs[run] = $2 + 0 }
    END {
      left = 0; for (k in miss) left++
      while (left > 0) {
        best = ""; bestv = 0
        for (r in secs) {
          c = 0; for (k in miss) if ((r, k) in has) c++
          v = c / (secs[r] > 0 ? secs[r] : 1)
          if (c > 0 && (v > bestv || (v == bestv && r < best))) { best = r; bestv = v }
        }
        if (best == "") break
        print best
        for (k in miss) if ((best, k) in has) { delete miss[k]; left-- }
        delete secs[best]
      }
    }' "$tmp/missing" "$tmp/all"
  [ "$m" -eq 0 ]
  exit
fi
echo "kernels launched by the runs of $all: $n; in a clean $tool run: $((n - m)); not yet: $m"
while read -r k; do
  runs=$(awk -F'\t' -v k="$k" '$1 == k { print $2 "\t" $3 }' "$tmp/all" | sort -n | head -5 |
    awk -F'\t' '{ printf "%s%s (%ss)", (NR > 1 ? ", " : ""), $2, $1 }')
  printf '%s\t%s\n' "$(echo "$k" | demangle)" "$runs"
done < "$tmp/missing"
[ "$m" -eq 0 ]
