#!/bin/sh
# json.sh: spsolve --json is one valid JSON object with the expected keys and values; auto picks CG or GMRES from the matrix.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
orsreg=$(matrix orsreg_1)

if [ -z "$PYTHON3" ]; then
  echo "1..0 # SKIP no python3 to parse the JSON"
  exit 77
fi

expect_rc 0 "nos3 --json --history" --device cpu --json --history "$nos3"
keys="matrix rows cols nnz symmetry symmetry_checked rhs rhs_file seed device solver precond spmv
  spmv_threads_per_row rtol atol maxit restart flexible iterations converged reason reason_text
  residual_abs residual_rel error time_load time_setup time_solve time_per_iteration history
  exit_code"
# Tolerances: the true residual may exceed rtol = 1e-8 by the drift of the recurrence (allow a
# factor 10); ||x - x*||/||x*|| <= cond(A) * residual, and cond(nos3) is about 4e4.
json_checks <<EOT
every documented key is present | all(k in d for k in "$(echo $keys)".split())
rows = cols = 960 | d["rows"] == 960 and d["cols"] == 960
nnz = 15844 (the lower triangle expanded) | d["nnz"] == 15844
symmetry is symmetric, declared by the file | d["symmetry"] == "symmetric" and d["symmetry_checked"] is False
auto picks cg for the symmetric nos3 | d["solver"] == "cg"
iterations > 0 | d["iterations"] > 0
converged is true | d["converged"] is True
reason is SPS_CONVERGED_RTOL with its text | d["reason"] == "SPS_CONVERGED_RTOL" and d["reason_text"].startswith("converged")
exit_code is 0 | d["exit_code"] == 0
defaults: rtol 1e-8, atol 0, maxit 10000, restart 30, seed 1 | (d["rtol"], d["atol"], d["maxit"], d["restart"], d["seed"]) == (1e-8, 0, 10000, 30, 1)
true relative residual <= 1e-7 | 0 <= d["residual_rel"] <= 1e-7
error against x* < 1e-2 | d["error"] is not None and 0 <= d["error"] < 1e-2
history has iterations + 1 finite entries | len(d["history"]) == d["iterations"] + 1 and all(v is not None for v in d["history"])
time per iteration = solve time / iterations | abs(d["time_per_iteration"] * d["iterations"] - d["time_solve"]) <= 1e-9 + 1e-6 * d["time_solve"]
EOT

expect_rc 1 "nos3 --json --maxit 2" --device cpu --json --solver cg --maxit 2 "$nos3"
json_checks <<'EOT'
not converged: converged false, max iterations, 2 iterations, exit_code 1 | d["converged"] is False and d["reason"] == "SPS_DIVERGED_MAX_ITERATIONS" and d["iterations"] == 2 and d["exit_code"] == 1
no history without --history | "history" not in d
EOT

expect_rc 0 "orsreg_1 --json (auto solver, Jacobi)" --device cpu --json --precond jacobi "$orsreg"
json_checks <<'EOT'
auto picks gmres for the nonsymmetric orsreg_1 | d["solver"] == "gmres" and d["symmetry"] == "general"
orsreg_1 converges | d["converged"] is True and d["precond"] == "jacobi"
not flexible by default | d["flexible"] is False
EOT

expect_rc 0 "orsreg_1 --json --solver gmres --flexible --precond jacobi" --device cpu --json --solver gmres --flexible --precond jacobi "$orsreg"
json_checks <<'EOT'
flexible Jacobi-GMRES converges on orsreg_1 | d["solver"] == "gmres" and d["flexible"] is True and d["converged"] is True and d["reason"] == "SPS_CONVERGED_RTOL"
its true relative residual <= 1e-7 | 0 <= d["residual_rel"] <= 1e-7
EOT

expect_rc 0 "nos3 --json --solver cg --flexible" --device cpu --json --solver cg --flexible "$nos3"
json_checks <<'EOT'
CG ignores --flexible: converged, flexible false | d["solver"] == "cg" and d["flexible"] is False and d["converged"] is True
EOT

expect_rc 0 "--rhs ones --json --verbose" --device cpu --json --verbose --rhs ones "$nos3"
json_checks <<'EOT'
rhs ones: no x*, so error is null | d["rhs"] == "ones" and d["error"] is None
verbose adds the row statistics | d["nnz_per_row"]["min"] >= 1 and d["nnz_per_row"]["max"] >= d["nnz_per_row"]["min"] and d["empty_rows"] == 0 and d["file_bytes"] > 0
EOT

# A file name that needs escaping still gives valid JSON.
cp "$nos3" "$tmp/we\"ird\\name.mtx"
expect_rc 0 "file name with a quote and a backslash" --device cpu --json "$tmp/we\"ird\\name.mtx"
json_checks <<'EOT'
the name comes back unchanged | d["matrix"].endswith('we"ird\\name.mtx')
EOT
finish
