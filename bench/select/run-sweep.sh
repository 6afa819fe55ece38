#!/bin/sh
# run-sweep.sh: the SpMV-choice sweep on the GPU machine (select-sweep over bench/select/sweep.list, in parts), then train.py and select-bench on what it measured.
#
# Usage, from the unpacked `make dist` tarball after `./configure --with-cuda-arch=sm_90 && make -j16`:
#   OUT=/some/folder sh bench/select/run-sweep.sh MATRIX_DIR [PART ...]
# MATRIX_DIR holds the shared matrices (*.mtx.gz). PART is shared, holdout, train0 (the first
# 140 training specs), train1 (the rest) or all (the default: the four in that order); each
# writes $OUT/sweep-PART.tsv row by row and $OUT/sweep-PART.log. After the parts, when every
# part's TSV is in $OUT: train.py (model_smCC.c and train.txt, with the metrics) and
# select-bench (select-bench-rule.md: the rule built into this library, as it chooses today).
# SWEEP_ARGS adds options to every select-sweep (e.g. "--device cpu --repeat 1" to try the
# pipeline without a GPU; CPU times are not GPU data).
# Exit status: nonzero when a part failed or a configuration gave a wrong result.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP}
MATDIR=${1:?usage: OUT=DIR sh bench/select/run-sweep.sh MATRIX_DIR [shared|holdout|train0|train1|all ...]}
shift
OUT=${OUT:-$PWD/select-out}
PY=${PYTHON3:-python3}
mkdir -p "$OUT" || exit 1
export SPS_MATRICES="$MATDIR"
LIST=$TOP/bench/select/sweep.list
SWEEP=$BUILD/bench/select-sweep
STATUS=0
START=$(date +%s)
[ $# -eq 0 ] && set -- all
for part in "$@"; do
  case $part in
  all) parts="shared holdout train0 train1" ;;
  shared | holdout | train0 | train1) parts=$part ;;
  *) echo "run-sweep: unknown part $part" >&2; exit 2 ;;
  esac
  for p in $parts; do
    case $p in
    train0) sel="--only train --start 0 --count 140" ;;
    train1) sel="--only train --start 140" ;;
    *) sel="--only $p" ;;
    esac
    echo "run-sweep [$(( $(date +%s) - START )) s] part $p: $SWEEP $sel"
    # shellcheck disable=SC2086
    "$SWEEP" --list "$LIST" $sel ${SWEEP_ARGS:-} --tsv "$OUT/sweep-$p.tsv" 2>"$OUT/sweep-$p.log" ||
      STATUS=1
    tail -n 1 "$OUT/sweep-$p.log"
  done
done
if [ -f "$OUT/sweep-shared.tsv" ] && [ -f "$OUT/sweep-holdout.tsv" ] &&
  [ -f "$OUT/sweep-train0.tsv" ] && [ -f "$OUT/sweep-train1.tsv" ]; then
  CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
  CC=${CC:-90}
  echo "run-sweep [$(( $(date +%s) - START )) s] train.py --cc $CC, select-bench"
  "$PY" "$TOP/bench/select/train.py" --cc "$CC" --out "$OUT/model_sm$CC.c" \
    "$OUT/sweep-train0.tsv" "$OUT/sweep-train1.tsv" "$OUT/sweep-holdout.tsv" \
    "$OUT/sweep-shared.tsv" >"$OUT/train.txt" 2>&1 || STATUS=1
  cat "$OUT/train.txt"
  "$BUILD/bench/select-bench" --cc "$CC" --tsv "$OUT/select-bench-rule.tsv" \
    "$OUT"/sweep-*.tsv >"$OUT/select-bench-rule.md" || STATUS=1
  grep -E '^(holdout|shared), ' "$OUT/select-bench-rule.md"
fi
echo "run-sweep [$(( $(date +%s) - START )) s] done, status $STATUS"
exit $STATUS
