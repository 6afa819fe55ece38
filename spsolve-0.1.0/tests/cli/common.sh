# common.sh: helpers sourced by the spsolve CLI tests: TAP lines, a temporary folder, running the tool.
# The tests find the tool as $SPS_BUILDDIR/spsolve and the bundled matrices in $SPS_TEST_DATA.
: "${SPS_BUILDDIR:?SPS_BUILDDIR is not set (run through make check)}"
: "${SPS_TEST_DATA:?SPS_TEST_DATA is not set (run through make check)}"
: "${PYTHON3:=}"
SPSOLVE=$SPS_BUILDDIR/spsolve
if [ ! -x "$SPSOLVE" ]; then
  echo "Bail out! $SPSOLVE is not built"
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spsolve-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ntests=0
nfailed=0

ok() { ntests=$((ntests + 1)); echo "ok $ntests - $1"; }
not_ok() { ntests=$((ntests + 1)); nfailed=$((nfailed + 1)); echo "not ok $ntests - $1"; }
skip() { ntests=$((ntests + 1)); echo "ok $ntests - $1 # SKIP $2"; }
diag() { sed 's/^/# /' "$@"; }

# check DESCRIPTION COMMAND...: one TAP line from the status of COMMAND.
check() {
  desc=$1
  shift
  if "$@" >"$tmp/check.out"; then ok "$desc"; else not_ok "$desc"; diag "$tmp/check.out"; fi
}

# run ARGS...: run spsolve; stdout in $tmp/out, stderr in $tmp/err, exit status in $rc.
run() {
  "$SPSOLVE" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

# expect_rc STATUS DESCRIPTION ARGS...: run spsolve and check its exit status.
expect_rc() {
  want=$1
  desc=$2
  shift 2
  run "$@"
  if [ "$rc" -eq "$want" ]; then
    ok "$desc: exit $rc"
  else
    not_ok "$desc: exit $rc, expected $want"
    diag "$tmp/out" "$tmp/err"
  fi
}

# err_has TEXT: the last run's stderr contains TEXT.
err_has() { grep -F -e "$1" "$tmp/err" >/dev/null; }
out_has() { grep -F -e "$1" "$tmp/out" >/dev/null; }

# matrix NAME: the path of bundled matrix NAME, unpacked into $tmp when gzip is at hand so that
# the tests also pass in a build without zlib (the .gz path itself is tested separately).
matrix() {
  if [ ! -f "$tmp/$1.mtx" ] && command -v gzip >/dev/null 2>&1; then
    gzip -dc "$SPS_TEST_DATA/$1.mtx.gz" >"$tmp/$1.mtx" || rm -f "$tmp/$1.mtx"
  fi
  if [ -f "$tmp/$1.mtx" ]; then echo "$tmp/$1.mtx"; else echo "$SPS_TEST_DATA/$1.mtx.gz"; fi
}

# json_checks < LINES: each line "DESCRIPTION | EXPRESSION" is one check that the Python
# EXPRESSION over d, the JSON object printed by the last run, is true; one Python run for all
# (strict parsing: NaN or Infinity in the output is a failure). Needs $PYTHON3.
json_checks() {
  "$PYTHON3" -c '
import json, sys
def refuse(token):
    raise ValueError("not JSON: " + token)
try:
    d = json.load(open(sys.argv[1]), parse_constant=refuse)
    print("ok the output parses as one JSON object")
except Exception as e:
    d = None
    print("fail the output parses as one JSON object: %s" % e)
for line in sys.stdin:
    if " | " not in line:
        continue
    desc, expr = line.strip().split(" | ", 1)
    try:
        good = d is not None and bool(eval(expr))
    except Exception:
        good = False
    print(("ok " if good else "fail ") + desc)
' "$tmp/out" >"$tmp/results"
  while read -r verdict desc; do
    if [ "$verdict" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
  done <"$tmp/results"
}

finish() {
  echo "1..$ntests"
  if [ "$nfailed" -ne 0 ]; then
    echo "# $nfailed of $ntests checks failed"
    exit 1
  fi
  exit 0
}
