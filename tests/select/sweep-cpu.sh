#!/bin/sh
# sweep-cpu.sh: select-sweep runs on the CPU on a few small specs of every kind and writes one well-formed TSV row per matrix; select-bench reads it.
: "${SPS_BUILDDIR:?SPS_BUILDDIR is not set (run through make check)}"
: "${SPS_SRCDIR:?SPS_SRCDIR is not set (run through make check)}"
SWEEP=$SPS_BUILDDIR/bench/select-sweep
if [ ! -x "$SWEEP" ]; then
  echo "Bail out! $SWEEP is not built"
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/select-sweep.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ntests=0
nfailed=0
ok() { ntests=$((ntests + 1)); echo "ok $ntests - $1"; }
not_ok() { ntests=$((ntests + 1)); nfailed=$((nfailed + 1)); echo "not ok $ntests - $1"; }
diag() { sed 's/^/# /' "$@"; }

specs="poisson2d:20 stencil2d9:17 poisson3d:7 stencil3d27:6 banded:500:3 blockdiag:600:7
random:700:5 circuit:900:2 powerlaw:800:2.0 slice:100:400:circuit:900:2"
# shellcheck disable=SC2086
"$SWEEP" --device cpu --repeat 1 --target-ms 1 --tsv "$tmp/s.tsv" $specs 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "runs on the CPU"; else not_ok "runs on the CPU (exit $rc)"; diag "$tmp/err"; fi

grep -v '^#' "$tmp/s.tsv" >"$tmp/body"
nspecs=$(echo $specs | wc -w)
nlines=$(wc -l <"$tmp/body")
if [ "$nlines" -eq $((nspecs + 1)) ]; then ok "one row per matrix and a header"; else
  not_ok "one row per matrix and a header ($nlines lines for $nspecs specs)"; diag "$tmp/s.tsv"; fi

# Every row has as many cells as the header.
if awk -F '\t' 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$tmp/body"; then
  ok "rows as wide as the header"; else not_ok "rows as wide as the header"; diag "$tmp/body"; fi

# The statistics columns are the fields of sps_matrix_stats, in order.
want="rows cols nnz density mean_len min_len max_len var_len cv_len empty_share over32_share over1024_share short_blocks long_blocks long_rows col_distance windows_per_row stats_s"
got=$(head -1 "$tmp/body" | cut -f5-22 | tr '\t' ' ')
if [ "$got" = "$want" ]; then ok "statistics columns"; else not_ok "statistics columns: $got"; fi

# csr-scalar always runs on the CPU and gives a time; cusparse is recorded as unavailable.
if awk -F '\t' 'NR == 1 { for (j = 1; j <= NF; j++) c[$j] = j; next }
  $c["us_csr-scalar"] !~ /^[0-9.]+$/ || $c["us_cusparse"] != "-" || $c["best"] == "-" { bad = 1 }
  END { exit bad }' "$tmp/body"; then ok "times and failures recorded"; else
  not_ok "times and failures recorded"; diag "$tmp/body"; fi

# ELL refuses the circuit (dense rows) and says so.
if grep '^circuit:900:2' "$tmp/body" | grep -q 'ell: refused'; then ok "ELL refusal recorded"; else
  not_ok "ELL refusal recorded"; diag "$tmp/body"; fi

# No wrong result.
if grep -q WRONG "$tmp/body"; then not_ok "no wrong results"; diag "$tmp/body"; else ok "no wrong results"; fi

# select-bench replays the choice on that TSV and prints its table and summary.
"$SPS_BUILDDIR/bench/select-bench" --sets train,holdout --tsv "$tmp/b.tsv" "$tmp/s.tsv" >"$tmp/b.md" 2>"$tmp/err"
if [ $? -eq 0 ] && grep -q '^train, [0-9]* matrices: time over the best' "$tmp/b.md" &&
  [ "$(grep -c -v '^set' "$tmp/b.tsv")" -eq "$nspecs" ]; then
  ok "select-bench on the sweep"; else not_ok "select-bench on the sweep"; diag "$tmp/b.md"; diag "$tmp/err"; fi

# The sets: the list file gives at least 320 specs, about a fifth of the generated ones held out.
"$SWEEP" --list "$SPS_SRCDIR/bench/select/sweep.list" --list-specs >"$tmp/sets" 2>"$tmp/err"
total=$(wc -l <"$tmp/sets")
hold=$(grep -c '^holdout' "$tmp/sets")
shared=$(grep -c '^shared' "$tmp/sets")
if [ "$total" -ge 320 ] && [ "$shared" -eq 19 ] && [ $((hold * 100)) -ge $(((total - shared) * 15)) ] &&
  [ $((hold * 100)) -le $(((total - shared) * 25)) ]; then
  ok "sweep.list: $total specs, $hold holdout, $shared shared"; else
  not_ok "sweep.list: $total specs, $hold holdout, $shared shared"; fi

# --only and --start/--count select a window of one set.
"$SWEEP" --list "$SPS_SRCDIR/bench/select/sweep.list" --only holdout --start 2 --count 3 --list-specs >"$tmp/win"
if [ "$(wc -l <"$tmp/win")" -eq 3 ] && ! grep -qv '^holdout' "$tmp/win" &&
  [ "$(sed -n 1p "$tmp/win")" = "$(grep '^holdout' "$tmp/sets" | sed -n 3p)" ]; then
  ok "--only, --start and --count"; else not_ok "--only, --start and --count"; diag "$tmp/win"; fi

# Bad usage is status 2.
"$SWEEP" --only nothing poisson2d:4 >/dev/null 2>&1
if [ $? -eq 2 ]; then ok "bad --only is status 2"; else not_ok "bad --only is status 2"; fi

# A shared matrix and its slice, when the shared matrices are here.
if [ -n "${SPS_MATRICES:-}" ] && [ -r "$SPS_MATRICES/nos3.mtx.gz" ]; then
  "$SWEEP" --device cpu --repeat 1 --target-ms 1 --tsv "$tmp/m.tsv" mtx:nos3 slice:100:500:mtx:nos3 2>"$tmp/err"
  if [ $? -eq 0 ] && [ "$(grep -v '^#' "$tmp/m.tsv" | awk -F '\t' '$1 == "slice:100:500:mtx:nos3" { print $5 }')" = 400 ]; then
    ok "mtx: and slice: specs"; else not_ok "mtx: and slice: specs"; diag "$tmp/err"; fi
else
  ntests=$((ntests + 1)); echo "ok $ntests - mtx: and slice: specs # SKIP no SPS_MATRICES"
fi

echo "1..$ntests"
[ "$nfailed" -eq 0 ]
