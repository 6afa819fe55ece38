#!/bin/sh
# exit_codes.sh: spsolve's exit status and message for each outcome: converged, not converged, usage and input errors.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)

expect_rc 0 "nos3 with CG converges" --device cpu --solver cg "$nos3"
expect_rc 1 "nos3 with CG and --maxit 2 does not converge" --device cpu --solver cg --maxit 2 "$nos3"
check "the text report says why it stopped" out_has SPS_DIVERGED_MAX_ITERATIONS

expect_rc 2 "missing matrix file" "$tmp/no-such-file.mtx"
check "the message names the missing file" err_has "no-such-file.mtx"
expect_rc 2 "no matrix at all"
expect_rc 2 "unknown option" --no-such-option "$nos3"
check "the message names the unknown option" err_has "--no-such-option"
expect_rc 2 "bad number for --rtol" --rtol 1e-8x "$nos3"
check "the message names the option and the value" err_has "'1e-8x' for --rtol"
expect_rc 2 "negative --rtol" --rtol=-1 "$nos3"
expect_rc 2 "--maxit 0" --maxit 0 "$nos3"
expect_rc 2 "--maxit not an integer" --maxit=2.5 "$nos3"
expect_rc 2 "--restart 0" --restart 0 "$nos3"
expect_rc 2 "value given to --flexible" --flexible=yes "$nos3"
expect_rc 0 "orsreg_1 with flexible Jacobi-GMRES converges" --device cpu --solver gmres --flexible --precond jacobi "$(matrix orsreg_1)"
check "the report says gmres(30), flexible" out_has "gmres(30), flexible"
expect_rc 2 "value given to --gmres-fused" --gmres-fused=yes "$nos3"
expect_rc 0 "orsreg_1 with --gmres-fused converges (the fused cycle on a GPU that has it)" --solver gmres --precond none --gmres-fused "$(matrix orsreg_1)"
expect_rc 2 "--seed negative" --seed -3 "$nos3"
expect_rc 2 "--rtol 0 --atol 0" --rtol 0 --atol 0 "$nos3"
expect_rc 2 "option missing its value" "$nos3" --rtol
expect_rc 2 "value given to a flag" --json=yes "$nos3"
expect_rc 2 "unknown solver" --solver lu "$nos3"
expect_rc 2 "unknown preconditioner" --precond ilu "$nos3"
expect_rc 2 "unknown SpMV variant" --spmv no-such-kernel "$nos3"
check "the message lists the variants" err_has "csr-scalar"
expect_rc 2 "GPU-only SpMV variant on the CPU" --device cpu --spmv cusparse "$nos3"
check "the message lists the variants that exist" err_has "csr-scalar"
expect_rc 2 "bad threads per row" --spmv-threads-per-row 3 "$nos3"
check "the message lists the accepted values" err_has "0 (choose), 1, 2, 4, 8, 16 or 32"
expect_rc 0 "one thread per row, as the library accepts" --device cpu --spmv csr-vector --spmv-threads-per-row 1 "$nos3"
expect_rc 2 "unknown device" --device gpu "$nos3"
expect_rc 2 "CUDA device that does not exist" --device cuda:99 "$nos3"
check "the message names the device" err_has "cuda:99"
"$SPSOLVE" --version >"$tmp/version" 2>&1
if grep -F "no CUDA device" "$tmp/version" >/dev/null; then
  expect_rc 2 "--device cuda without a GPU" --device cuda "$nos3"
else
  skip "--device cuda without a GPU" "a CUDA device is present"
fi

# A malformed file: a bad value on its fourth line (the second entry).
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n2 2 x.5\n3 3 1.0\n' >"$tmp/bad.mtx"
expect_rc 2 "malformed matrix file" "$tmp/bad.mtx"
check "the message names the file" err_has "bad.mtx"
check "the message names the line" grep -E '(line|:)[ ]*4([^0-9]|$)' "$tmp/err"

expect_rc 2 "rectangular matrix ash219" "$(matrix ash219)"
check "the message says A is 219 x 85 and must be square" err_has "A is 219 x 85: a linear solve needs a square matrix"

# b of the wrong length.
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >"$tmp/b3.mtx"
expect_rc 2 "b of the wrong length" "$nos3" "$tmp/b3.mtx"
check "the message gives both lengths" err_has "b has 3 entries but A has 960 rows"
expect_rc 2 "b given twice" --rhs ones "$nos3" "$tmp/b3.mtx"
expect_rc 2 "three positional arguments" "$nos3" "$tmp/b3.mtx" "$tmp/b3.mtx"

# The .gz file itself (a build without zlib refuses it with a message about gzip).
run --device cpu --quiet "$SPS_TEST_DATA/nos3.mtx.gz"
if [ "$rc" -eq 0 ]; then
  ok "reads nos3.mtx.gz directly"
elif [ "$rc" -eq 2 ] && grep -i -E 'zlib|gzip|\.gz' "$tmp/err" >/dev/null; then
  skip "reads nos3.mtx.gz directly" "built without zlib"
else
  not_ok "reads nos3.mtx.gz directly: exit $rc"
  diag "$tmp/err"
fi
finish
