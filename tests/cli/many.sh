#!/bin/sh
# many.sh: several right-hand sides: --nrhs K, a k-column --rhs file, -o of all columns, --x0 of one or k columns, --solver block-cg, the per-column report and --json, and column 0 equal to the one-column solve to the bit.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
orsreg=$(matrix orsreg_1)

expect_rc 0 "nos3 --nrhs 4, CG + Jacobi" --device cpu --solver cg --precond jacobi --nrhs 4 "$nos3"
check "the report says how the columns ran" out_has "columns         4, batched cg, up to 4 columns together"
check "the report counts the converged columns" out_has "reason          4 of 4 converged"
check "the report has one line per column" test "$(grep -c -E '^[0-3] +SPS_CONVERGED_RTOL' "$tmp/out")" -eq 4
check "the report gives the largest error against x*_j" out_has "error           max "

# Column 0 of --nrhs is the problem of one right-hand side (seed 1): the same x, to the bit.
expect_rc 0 "nos3, one right-hand side, -o" --device cpu --solver cg --precond jacobi -o "$tmp/x1.mtx" "$nos3"
its1=$(sed -n 's/^iterations *\([0-9]*\)$/\1/p' "$tmp/out")
expect_rc 0 "nos3 --nrhs 3 -o" --device cpu --solver cg --precond jacobi --nrhs 3 -o "$tmp/X.mtx" "$nos3"
check "-o writes all columns: an array of 960 x 3" sed -n '2{/^960 3$/!q1}' "$tmp/X.mtx"
check "-o writes 960 x 3 values" test "$(($(wc -l <"$tmp/X.mtx") - 2))" -eq 2880
sed -n '3,962p' "$tmp/X.mtx" >"$tmp/col0"
sed -n '3,$p' "$tmp/x1.mtx" >"$tmp/x1vals"
check "column 0 is the one-column solution to the last digit" cmp -s "$tmp/col0" "$tmp/x1vals"
check "column 0 took the one-column solve's $its1 iterations" grep -E "^0 +SPS_CONVERGED_RTOL +$its1 " "$tmp/out"

# A file of k columns is k right-hand sides; --nrhs must agree with it.
expect_rc 0 "--rhs X.mtx (3 columns)" --device cpu --solver cg --precond jacobi --rhs "$tmp/X.mtx" "$nos3"
check "the report names the file and its 3 columns" out_has "(3 columns)"
check "3 columns solved" out_has "reason          3 of 3 converged"
expect_rc 2 "--rhs X.mtx --nrhs 2" --device cpu --rhs "$tmp/X.mtx" --nrhs 2 "$nos3"
check "the message names --nrhs and the file's columns" err_has "--nrhs 2, but"
expect_rc 2 "--nrhs 0" --device cpu --nrhs 0 "$nos3"
printf '%%%%MatrixMarket matrix array real general\n960 2\n' >"$tmp/x0bad.mtx"
i=0
while [ $i -lt 1920 ]; do echo 0; i=$((i + 1)); done >>"$tmp/x0bad.mtx"
expect_rc 2 "--nrhs 3 --x0 of 2 columns" --device cpu --nrhs 3 --x0 "$tmp/x0bad.mtx" "$nos3"
check "the message says x0 needs one column or 3" err_has "x0 needs one column or 3"
# One column of x0 serves every right-hand side; from the solutions themselves: 0 iterations.
expect_rc 0 "--rhs random --nrhs 3 --x0 x1.mtx" --device cpu --solver cg --precond jacobi --rhs random --nrhs 3 --x0 "$tmp/x1.mtx" "$nos3"
expect_rc 0 "--x0 X.mtx from the 3 solutions" --device cpu --solver cg --precond jacobi --nrhs 3 --x0 "$tmp/X.mtx" "$nos3"
check "from the solutions every column takes 0 iterations" out_has "iterations      max 0, total 0"

expect_rc 1 "--nrhs 2 --maxit 3: not converged" --device cpu --solver cg --nrhs 2 --maxit 3 "$nos3"
check "the report says which reason stopped the others" out_has "0 of 2 converged; the first other: not converged"
expect_rc 0 "--nrhs 2 --monitor 10" --device cpu --solver cg --precond jacobi --nrhs 2 --monitor 10 "$nos3"
check "the monitor shows the largest relative residual of the running columns" err_has "max ||r_j||/||b_j|| ="

# Block CG, on a rank-one block (three equal columns of ones).
expect_rc 0 "--solver block-cg --rhs ones --nrhs 3" --device cpu --solver block-cg --precond jacobi --rhs ones --nrhs 3 "$nos3"
check "block CG over the columns" out_has "columns         3, block CG"
check "block CG converged on every equal column" out_has "reason          3 of 3 converged"

if [ -z "$PYTHON3" ]; then
  skip "the --json checks" "no python3 to parse the JSON"
else
  expect_rc 0 "orsreg_1 --nrhs 5 --json --history" --device cpu --solver gmres --precond ilu0 --nrhs 5 --json --history "$orsreg"
  json_checks <<'EOT'
nrhs 5 and five column objects | d["nrhs"] == 5 and len(d["columns"]) == 5 and [c["column"] for c in d["columns"]] == list(range(5))
every column converged, batched GMRES | d["columns_converged"] == 5 and d["solve_many_mode"] == "batched" and all(c["converged"] and c["reason"] == "SPS_CONVERGED_RTOL" for c in d["columns"])
each column's history has its iterations + 1 entries | all(len(c["history"]) == c["iterations"] + 1 for c in d["columns"])
the totals: iterations the most, iterations_total the sum | d["iterations"] == max(c["iterations"] for c in d["columns"]) and d["iterations_total"] == sum(c["iterations"] for c in d["columns"])
the error is the largest column error | d["error"] == max(c["error"] for c in d["columns"])
the residual_rel_max is the largest column residual | d["residual_rel_max"] == max(c["residual_rel"] for c in d["columns"]) and d["residual_rel_max"] <= 1e-7
no column was solved again | not any(c["resolved"] for c in d["columns"])
exit_code 0 | d["exit_code"] == 0
EOT
  expect_rc 0 "--spmv coo --nrhs 2 --json: one column at a time" --device cpu --solver cg --precond jacobi --spmv coo --nrhs 2 --json "$nos3"
  json_checks <<'EOT'
an SpMV that rounds unlike csr-scalar: the columns run one by one, and say why | d["solve_many_mode"] == "one-by-one" and "csr-scalar" in d["solve_many_note"] and d["columns_converged"] == 2
EOT
fi

finish
