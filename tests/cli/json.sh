#!/bin/sh
# json.sh: spsolve --json is one valid JSON object with the expected keys and values; auto picks CG or GMRES from the matrix.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
orsreg=$(matrix orsreg_1)

if [ -z "$PYTHON3" ]; then
  echo "1..0 # SKIP no python3 to parse the JSON"
  exit 77
fi

expect_rc 0 "nos3 --json" --device cpu --json --history "$nos3"
check "the output parses as JSON" json_check 'isinstance(d, dict)'
for key in matrix rows cols nnz symmetry device solver precond spmv iterations converged \
  reason reason_text residual_abs residual_rel error time_load time_setup time_solve \
  time_per_iteration history exit_code; do
  check "key $key is present" json_check "'$key' in d"
done
check "rows = cols = 960" json_check 'd["rows"] == 960 and d["cols"] == 960'
check "nnz = 15844 (the lower triangle expanded)" json_check 'd["nnz"] == 15844'
check "auto picks cg for the symmetric nos3" json_check 'd["solver"] == "cg"'
check "iterations > 0" json_check 'd["iterations"] > 0'
check "converged is true" json_check 'd["converged"] is True'
check "reason is SPS_CONVERGED_RTOL" json_check 'd["reason"] == "SPS_CONVERGED_RTOL"'
check "exit_code is 0" json_check 'd["exit_code"] == 0'
# The true residual may exceed rtol = 1e-8 by the drift of the recurrence; allow a factor 10.
check "true relative residual <= 1e-7" json_check '0 <= d["residual_rel"] <= 1e-7'
# ||x - x*||/||x*|| <= cond(A) * residual; cond(nos3) is about 4e4.
check "error against x* < 1e-2" json_check 'd["error"] is not None and d["error"] < 1e-2'
check "history has iterations + 1 entries, all finite" \
  json_check 'len(d["history"]) == d["iterations"] + 1 and all(v is not None for v in d["history"])'
check "time per iteration = solve time / iterations" \
  json_check 'abs(d["time_per_iteration"] * d["iterations"] - d["time_solve"]) <= 1e-9 + 1e-6 * d["time_solve"]'

expect_rc 1 "nos3 --json --maxit 2" --device cpu --json --solver cg --maxit 2 "$nos3"
check "not converged: converged false, max iterations" \
  json_check 'd["converged"] is False and d["reason"] == "SPS_DIVERGED_MAX_ITERATIONS" and d["iterations"] == 2 and d["exit_code"] == 1'

expect_rc 0 "orsreg_1 --json (auto)" --device cpu --json --precond jacobi "$orsreg"
check "auto picks gmres for the nonsymmetric orsreg_1" json_check 'd["solver"] == "gmres"'
check "orsreg_1 converges" json_check 'd["converged"] is True'

expect_rc 0 "--rhs ones --json" --device cpu --json --rhs ones "$nos3"
check "rhs ones: no x*, so error is null" json_check 'd["rhs"] == "ones" and d["error"] is None'

expect_rc 0 "--json --verbose" --device cpu --json --verbose "$nos3"
check "verbose adds the row statistics" \
  json_check 'd["nnz_per_row"]["min"] >= 1 and d["nnz_per_row"]["max"] >= d["nnz_per_row"]["min"] and d["empty_rows"] == 0 and d["file_bytes"] > 0'

# A file name that needs escaping still gives valid JSON.
cp "$nos3" "$tmp/we\"ird\\name.mtx"
expect_rc 0 "file name with a quote and a backslash" --device cpu --json "$tmp/we\"ird\\name.mtx"
check "the name comes back unchanged" json_check 'd["matrix"].endswith("we\"ird\\name.mtx")'
finish
