#!/bin/sh
# shard-check.sh: checks a test program's split by SPS_TEST_SHARD (tests/testlib.h, sps_case): the
# K shards each pass, count the same cases as the whole run and run each case once between them,
# and their 'ok' lines together are those of the whole run, as a multiset (the check numbers
# stripped, the decimals masked: times and residuals vary from run to run; SHARD_CHECK_MASK=ERE
# masks more, e.g. '[0-9]+ SpMV-equivalents' for a count measured by timing).
#
#   tests/shard-check.sh K PROGRAM [ARGS...]
#
# The environment passes through (SPS_TEST_DEVICE, SPS_MATRICES, SPS_TEST_DATA). Prints one line,
# PASS, SKIP (the whole run exits 77, and so does every shard) or FAIL with the reason and the
# first differences; exits 1 on FAIL, else 0. `make check` runs it with K = 3 on the fast
# programs (tests/shards.sh).
set -u
if [ $# -lt 2 ] || ! [ "$1" -ge 1 ] 2>/dev/null; then
  echo "usage: tests/shard-check.sh K PROGRAM [ARGS...]" >&2
  exit 2
fi
k=$1
shift
name="$*"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spsolve-shard-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# "ok 12 - text" -> "text" (and "ok 3 # SKIP why" -> "# SKIP why"), decimals masked, sorted.
checks() {
  sed -n 's/^ok [0-9]* //p' "$1" |
    sed -E "s/[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+/#/g${SHARD_CHECK_MASK:+; s/$SHARD_CHECK_MASK/#/g}" |
    LC_ALL=C sort
}
# "# cases: ran M of N" -> "M N", empty for a program that never asks sps_case().
cases() { sed -n 's/^# cases: ran \([0-9]*\) of \([0-9]*\)$/\1 \2/p' "$1"; }
fail() {
  echo "FAIL $name: $1"
  [ -s "$tmp/why" ] && sed 's/^/#   /' "$tmp/why"
  exit 1
}

"$@" > "$tmp/all.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  i=0
  while [ $i -lt "$k" ]; do
    SPS_TEST_SHARD=$i/$k "$@" > "$tmp/s$i.out" 2>&1
    r=$?
    [ $r -eq 77 ] || fail "the whole run skips (77), shard $i/$k exits $r"
    i=$((i + 1))
  done
  echo "SKIP $name: exit 77 ($(sed -n 's/^1\.\.0 # SKIP //p' "$tmp/all.out" | head -n 1))"
  exit 0
fi
[ $rc -eq 0 ] || { grep '^not ok\|^Bail' "$tmp/all.out" | head -n 5 > "$tmp/why"; fail "the whole run exits $rc"; }
read -r ran total <<EOF
$(cases "$tmp/all.out")
EOF
[ -n "${total:-}" ] || fail "no '# cases:' line: the program never asks sps_case()"
[ "$ran" -eq "$total" ] || fail "the whole run ran $ran of its $total cases"
checks "$tmp/all.out" > "$tmp/all.checks"
: > "$tmp/union.checks"
i=0
sum=0
counts=
while [ $i -lt "$k" ]; do
  SPS_TEST_SHARD=$i/$k "$@" > "$tmp/s$i.out" 2>&1
  r=$?
  if [ $r -ne 0 ]; then
    grep '^not ok\|^Bail' "$tmp/s$i.out" | head -n 5 > "$tmp/why"
    fail "shard $i/$k exits $r"
  fi
  read -r m n <<EOF
$(cases "$tmp/s$i.out")
EOF
  [ "${n:-}" = "$total" ] || fail "shard $i/$k counts ${n:-no} cases, the whole run $total"
  sum=$((sum + m))
  c=$(grep -c '^ok ' "$tmp/s$i.out")
  counts="$counts${counts:++}$c"
  checks "$tmp/s$i.out" >> "$tmp/union.checks"
  i=$((i + 1))
done
[ "$sum" -eq "$total" ] || fail "the shards ran $sum cases between them, of $total"
LC_ALL=C sort "$tmp/union.checks" -o "$tmp/union.checks"
if ! cmp -s "$tmp/all.checks" "$tmp/union.checks"; then
  LC_ALL=C comm -3 "$tmp/all.checks" "$tmp/union.checks" | head -n 10 |
    awk '{ if (sub(/^\t/, "")) print "shards only: " $0; else print "whole only: " $0 }' > "$tmp/why"
  fail "the shards' checks differ from the whole run's ($(wc -l < "$tmp/all.checks") against $(wc -l < "$tmp/union.checks"))"
fi
echo "PASS $name: $total cases, $(wc -l < "$tmp/all.checks") checks = $counts in $k shards"
