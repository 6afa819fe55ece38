#!/bin/sh
# progress.sh: --monitor K (both spellings) with the relative residual and the time, the progress line (--progress), and Ctrl-C: a solve stops, reports "interrupted" and exits 130.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
bcsstk14=$(matrix bcsstk14)

expect_rc 0 "--monitor 5 (the value as the next word)" --device cpu --monitor 5 "$nos3"
check "--monitor 5 prints iteration 5" grep -E 'iteration +5 ' "$tmp/err"
check "--monitor 5 prints no iteration between multiples of 5" sh -c "! grep -E 'iteration +[1-4] ' '$tmp/err'"
check "--monitor prints ||r||/||b|| and the elapsed seconds" \
  grep -E 'iteration +5  \|\|r\|\| = [0-9.e+-]+  \|\|r\|\|/\|\|b\|\| = [0-9.e+-]+  [0-9]+\.[0-9]{3} s$' "$tmp/err"
check "--monitor at iteration 0 gives ||r||/||b|| = 1 (x0 = 0)" \
  grep -E 'iteration +0  .*\|\|r\|\|/\|\|b\|\| = 1\.000000e\+00' "$tmp/err"
expect_rc 2 "--progress sometimes" --device cpu --progress sometimes "$nos3"
check "--progress with a bad value names the choices" err_has "expected auto, always or never"

# A solve that cannot end by itself (rtol 1e-300, maxit 10^8): it runs until Ctrl-C.
long_solve() {
  "$SPSOLVE" --device cpu --solver cg --precond none --rtol 1e-300 --maxit 100000000 "$@" \
    >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  sleep 2
  kill -INT "$pid"
  wait "$pid"
  rc=$?
}
long_solve --progress always "$bcsstk14"
check "Ctrl-C during a solve: exit 130 (got $rc)" test "$rc" -eq 130
check "Ctrl-C: the report is printed with reason interrupted" \
  grep -E '^reason +interrupted: Ctrl-C stopped the solve \(SPS_INTERRUPTED\)' "$tmp/out"
check "Ctrl-C: the report has the true residual of the iterate reached" \
  grep -E '^residual +[0-9]\.[0-9]{3}e[-+][0-9]+  true' "$tmp/out"
check "Ctrl-C: stderr says the solve stops" err_has "interrupted: stopping at the next check"
check "--progress always: the line shows the iteration, rel, rate and elapsed time after a second" \
  sh -c "tr '\r' '\n' < '$tmp/err' | grep -E '^spsolve: iteration [0-9]+  rel [0-9.e+-]+  rate [0-9.]+/it  elapsed [0-9.]+ s'"
check "--progress always: the line is cleared before the report (ESC[K)" \
  sh -c "tr '\r' '\n' < '$tmp/err' | grep -E '^.\[K$'"

long_solve --progress never --json "$bcsstk14"
check "Ctrl-C with --json: exit 130 (got $rc)" test "$rc" -eq 130
check "--progress never: no progress line" sh -c "! grep -F 'rel ' '$tmp/err'"
if [ -n "$PYTHON3" ]; then
  json_checks <<'CHECKS'
the JSON reason is SPS_INTERRUPTED | d["reason"] == "SPS_INTERRUPTED"
the JSON iterations are counted (> 0) | d["iterations"] > 0
the JSON residual is the finite true residual | 0 < d["residual_rel"] < 1
CHECKS
else
  skip "the JSON of an interrupted solve" "no python3"
fi

# GMRES stops inside its cycle: x is formed from the part of the cycle done.
"$SPSOLVE" --device cpu --solver gmres --restart 500 --precond none --rtol 1e-300 \
  --maxit 100000000 --progress never "$bcsstk14" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C during GMRES(500): exit 130 (got $rc)" test "$rc" -eq 130
check "Ctrl-C during GMRES(500): the residual is below the start's" \
  grep -E '^residual +[0-9]\.[0-9]{3}e-[0-9]+  true' "$tmp/out"

# stderr is not a terminal here: --progress auto draws nothing.
expect_rc 0 "--progress auto, stderr a file" --device cpu "$nos3"
check "--progress auto: no line when stderr is not a terminal" sh -c "! grep -F 'rel ' '$tmp/err'"
finish
