#!/bin/sh
# progress-cost.sh: what the progress line costs a solve: the same spsolve run with --progress always and never, alternated, the median solve time of each (from --json), and the ratio.
# Usage: sh bench/progress-cost.sh [-n RUNS] [-o TSV] -- SPSOLVE_ARGS...   (from a built tree; SPSOLVE=path)
# Prints one TSV line: args, runs, iterations, median solve seconds never/always, ratio always/never.
set -u
bin=${SPSOLVE:-./spsolve}
runs=7
tsv=
while [ $# -gt 0 ]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    -o) tsv=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ -x "$bin" ] || { echo "progress-cost: no spsolve at $bin (set SPSOLVE)" >&2; exit 2; }
py=${PYTHON3:-python3}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  for mode in never always; do
    "$bin" --json --progress $mode "$@" >"$tmp/$mode-$i.json" 2>/dev/null
    [ $? -le 1 ] || { echo "progress-cost: spsolve failed (--progress $mode $*)" >&2; exit 1; }
  done
  i=$((i + 1))
done
line=$("$py" - "$tmp" "$runs" "$*" <<'PY'
import json, statistics, sys
d, runs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = {m: [json.load(open(f"{d}/{m}-{i}.json")) for i in range(runs)] for m in ("never", "always")}
its = {j["iterations"] for m in t for j in t[m]}
med = {m: statistics.median(j["time_solve"] for j in t[m]) for m in t}
print(f"{args}\t{runs}\t{','.join(map(str, sorted(its)))}\t{med['never']:.6f}\t{med['always']:.6f}\t{med['always'] / med['never']:.4f}")
PY
)
echo "$line"
if [ -n "$tsv" ]; then
  [ -s "$tsv" ] || printf 'args\truns\titerations\tsolve_s_never\tsolve_s_always\tratio\n' >"$tsv"
  echo "$line" >>"$tsv"
fi
