#!/bin/sh
# run.sh: runs each libFuzzer target for SECONDS on its committed corpus (read only) plus a scratch folder of new inputs, prints executions and crashes per target, exits 1 on any crash.
# Usage: run.sh BUILD_DIR SOURCE_DIR SECONDS TARGET...   (called by `make fuzz`)
build=$1
src=$2
seconds=$3
shift 3
status=0
summary=$build/summary.txt
: >"$summary"
mkdir -p "$build/crashes"
total=0
for t in "$@"; do
  new=$build/new/$t
  mkdir -p "$new"
  seeds=$src/fuzz/corpus/$t
  case $t in
  mm_read) seeds="$seeds $src/tests/data/bad $src/tests/data/compressed" maxlen=8192 ;;
  mm_gzip) seeds="$seeds $src/tests/data/compressed $src/tests/data/bad" maxlen=4096 ;;
  cli_options) maxlen=1024 ;;
  *) maxlen=2048 ;;
  esac
  log=$build/$t.log
  # New inputs go to $new (the first folder); the committed seeds are only read.
  # shellcheck disable=SC2086
  UBSAN_OPTIONS=print_stacktrace=1 "$build/fuzz-$t" -max_total_time="$seconds" \
    -print_final_stats=1 -timeout=30 -rss_limit_mb=2048 -max_len="$maxlen" \
    -artifact_prefix="$build/crashes/$t-" "$new" $seeds >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  crashes=$(find "$build/crashes" -name "$t-*" | wc -l)
  line="fuzz: $t: ${execs:-0} executions in ${seconds} s, $crashes crash files, exit $rc"
  echo "$line"
  echo "$line" >>"$summary"
  total=$((total + ${execs:-0}))
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    echo "fuzz: $t failed; the end of $log:"
    tail -n 60 "$log"
    for f in $(find "$build/crashes" -name "$t-*"); do
      echo "fuzz: crash input $f, in base64:"
      head -c 4096 "$f" | base64
    done
  fi
done
echo "fuzz: $total executions in all" | tee -a "$summary"
exit $status
