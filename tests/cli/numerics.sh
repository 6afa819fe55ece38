#!/bin/sh
# numerics.sh: --x0 (an initial guess as -o writes it: from the solution 0 iterations, the wrong length refused), --dtol (a diverging solve stops, bad values refused) and the GMRES restart capped at n in the report.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)

# --x0: solve once to a tighter tolerance, then start from that solution.
expect_rc 0 "nos3 --rtol 1e-12 -o x.mtx" --device cpu --solver cg --precond ic0 --rhs ones \
  --rtol 1e-12 -o "$tmp/x.mtx" "$nos3"
expect_rc 0 "nos3 --x0 x.mtx" --device cpu --solver cg --precond ic0 --rhs ones --x0 "$tmp/x.mtx" "$nos3"
check "from the solution: 0 iterations" grep -E '^iterations +0$' "$tmp/out"
check "the report names x0" grep -F "x0              $tmp/x.mtx" "$tmp/out"
expect_rc 0 "nos3 from x0 = 0" --device cpu --solver cg --precond ic0 --rhs ones "$nos3"
check "from 0: more than 0 iterations" grep -E '^iterations +[1-9][0-9]*$' "$tmp/out"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >"$tmp/short.mtx"
expect_rc 2 "--x0 of 3 entries for 960 rows" --device cpu --x0 "$tmp/short.mtx" "$nos3"
if err_has "x0 has 3 entries but A has 960 rows"; then ok "the message names the lengths"; else not_ok "the message names the lengths"; diag "$tmp/err"; fi
expect_rc 2 "--x0 of a missing file" --device cpu --x0 "$tmp/none.mtx" "$nos3"

# --dtol: BiCGSTAB with Jacobi on olm1000 diverges (a residual of 1e17 after 10000 iterations
# without the test); with the default dtol it stops early, not converged.
olm=${SPS_MATRICES:-}/olm1000.mtx.gz
if [ -n "${SPS_MATRICES:-}" ] && [ -f "$olm" ]; then
  expect_rc 1 "olm1000 bicgstab+jacobi --rhs ones" --device cpu --solver bicgstab --precond jacobi \
    --rhs ones "$olm"
  check "it stops as diverged" grep -F "SPS_DIVERGED_DTOL" "$tmp/out"
  check "well before maxit" grep -E '^iterations +[0-9]{1,3}$' "$tmp/out"
  expect_rc 1 "the same with --dtol inf" --device cpu --solver bicgstab --precond jacobi \
    --rhs ones --dtol inf --maxit 2000 "$olm"
  check "then it runs to maxit" grep -F "SPS_DIVERGED_MAX_ITERATIONS" "$tmp/out"
else
  skip "olm1000 with and without --dtol" "no shared matrices (SPS_MATRICES)"
fi
expect_rc 2 "--dtol 0.5" --device cpu --dtol 0.5 "$nos3"
expect_rc 2 "--dtol nan" --device cpu --dtol nan "$nos3"
expect_rc 0 "--dtol 1e3" --device cpu --dtol 1e3 "$nos3"

# The GMRES restart is capped at n, and the report says so.
expect_rc 0 "gmres --restart 5000 on 960 rows" --device cpu --solver gmres --precond ilu0 \
  --restart 5000 "$nos3"
check "the report gives gmres(960), capped" grep -F "gmres(960) (restart 5000 capped at n)" "$tmp/out"
finish
