#!/bin/sh
# solvers-shards.sh: SPS_TEST_SHARD splits tests/unit/solvers into shards (for runs under compute-sanitizer): the three shards of 3 each pass, each runs fewer checks than the whole program, and together they run every check of the whole run (descriptions compared with their measured decimals masked).
set -u
prog="${SPS_BUILDDIR:-.}/tests/unit/solvers"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spsolve-shards.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# "ok 12 - text" -> "text", with decimals (times, residuals) masked; one line per check, sorted.
checks() { sed -n 's/^ok [0-9]* - //p' "$1" | sed -E 's/[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+/#/g' | sort -u; }

"$prog" > "$tmp/all.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then echo "1..0 # SKIP $(grep -m1 SKIP "$tmp/all.out")"; exit 77; fi
total=$(grep -c '^ok ' "$tmp/all.out")
if [ $rc -eq 0 ] && [ "$total" -gt 0 ]; then ok "the whole program: $total checks pass"; else not_ok "the whole program: exit $rc"; fi
checks "$tmp/all.out" > "$tmp/all.checks"
: > "$tmp/union.checks"
for i in 0 1 2; do
  SPS_TEST_SHARD=$i/3 "$prog" > "$tmp/s$i.out" 2>&1
  rc=$?
  c=$(grep -c '^ok ' "$tmp/s$i.out")
  bad=$(grep -c '^not ok ' "$tmp/s$i.out")
  if [ $rc -eq 0 ] && [ "$bad" -eq 0 ] && [ "$c" -gt 0 ] && [ "$c" -lt "$total" ]; then
    ok "shard $i/3: $c of the $total checks, all pass"
  else
    not_ok "shard $i/3: exit $rc, $c checks pass, $bad fail (the whole program: $total)"
  fi
  checks "$tmp/s$i.out" >> "$tmp/union.checks"
done
sort -u "$tmp/union.checks" -o "$tmp/union.checks"
missing=$(comm -23 "$tmp/all.checks" "$tmp/union.checks" | wc -l)
extra=$(comm -13 "$tmp/all.checks" "$tmp/union.checks" | wc -l)
if [ "$missing" -eq 0 ] && [ "$extra" -eq 0 ]; then
  ok "the three shards together run every check of the whole program ($(wc -l < "$tmp/all.checks") distinct)"
else
  not_ok "the shards miss $missing checks of the whole program and add $extra"
  comm -3 "$tmp/all.checks" "$tmp/union.checks" | head -n 10 | sed 's/^/# /'
fi
SPS_TEST_SHARD=3/3 "$prog" > "$tmp/bad.out" 2>&1
rc=$?
if [ $rc -eq 99 ] && grep -q 'Bail out! SPS_TEST_SHARD="3/3"' "$tmp/bad.out"; then
  ok "SPS_TEST_SHARD=3/3 is refused (exit 99, the value named)"
else
  not_ok "SPS_TEST_SHARD=3/3: exit $rc"
fi
echo "1..$n"
[ $failed -eq 0 ]
