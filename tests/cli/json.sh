#!/bin/sh
# json.sh: spsolve --json is one valid JSON object with the expected keys and values (an error object on exit 2 or 3); auto picks CG or GMRES from the matrix.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
orsreg=$(matrix orsreg_1)

if [ -z "$PYTHON3" ]; then
  echo "1..0 # SKIP no python3 to parse the JSON"
  exit 77
fi

expect_rc 0 "nos3 --json --history" --device cpu --json --history "$nos3"
keys="matrix rows cols nnz symmetry symmetry_checked rhs rhs_file seed device solver precond spmv
  spmv_threads_per_row spmv_requested spmv_source spmv_why spmv_tune_seconds
  spmv_tune_spmv_equivalents spmv_tune_timed spmv_candidates spmv_cache_file spmv_cache rtol atol maxit restart flexible iterations converged reason reason_text
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
the SpMV kernel comes from the AUTO rule or model, with its reasoning and no tuning | d["spmv_requested"] == "auto" and d["spmv_source"] in ("rule", "model") and d["spmv_why"] != "" and d["spmv_candidates"] == [] and d["spmv_tune_timed"] == 0
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
# Exit 2 and 3 print one JSON object with the error on stdout, since scripts read stdout.
nan=$SPS_TEST_DATA/bad/nan_value.mtx
expect_rc 2 "--json on a file with NaN" --device cpu --json "$nan"
json_checks <<'EOT'
an error object: failed true, exit_code 2 | d["failed"] is True and d["exit_code"] == 2
its status is SPS_ERR_IO with the status text | d["status"] == "SPS_ERR_IO" and d["status_text"].startswith("input/output error")
the message names the file and line 4 | "nan_value.mtx:4: value 'nan' is not finite" in d["message"]
the message names the tool's option, not the API flag | "--allow-nonfinite" in d["message"] and "SPS_MM_ALLOW_NONFINITE" not in d["message"]
no report keys | "iterations" not in d and "reason" not in d
EOT
check "stderr has the same message" err_has "nan_value.mtx:4: value 'nan' is not finite (use --allow-nonfinite"

expect_rc 1 "--allow-nonfinite reads the NaN (then the solve stops on it)" --device cpu --json --allow-nonfinite "$nan"
json_checks <<'EOT'
a report, not a failure: the solve stopped on NaN | "failed" not in d and d["reason"] == "SPS_DIVERGED_NAN" and d["exit_code"] == 1
EOT

expect_rc 2 "--json with a bad option value after it" --json --maxit=x "$nos3"
json_checks <<'EOT'
a usage error: SPS_ERR_ARGUMENT, exit 2, the option named | d["failed"] is True and d["status"] == "SPS_ERR_ARGUMENT" and d["exit_code"] == 2 and "'x' for --maxit" in d["message"]
EOT
expect_rc 2 "--json after an unknown option" --no-such-option --json "$nos3"
json_checks <<'EOT'
an unknown option before --json still gives the error object | d["failed"] is True and "unknown option '--no-such-option'" in d["message"]
EOT
expect_rc 2 "--json on a rectangular matrix" --device cpu --json "$(matrix ash219)"
json_checks <<'EOT'
a tool-level input error: SPS_ERR_SIZE, the sizes named | d["status"] == "SPS_ERR_SIZE" and "219 x 85" in d["message"] and d["exit_code"] == 2
EOT
expect_rc 2 "-q --json on bad input" --device cpu -q --json "$nan"
check "-q prints nothing on stdout, even with --json" test ! -s "$tmp/out"
expect_rc 2 "-q --json with a bad option" -q --json --maxit=0 "$nos3"
check "-q prints nothing on stdout for a usage error either" test ! -s "$tmp/out"
expect_rc 2 "an argument after -- that looks like --json" --device cpu -- "$nan" --json
check "after --, --json is a file name: no JSON" test ! -s "$tmp/out"

# Exit 3: host memory runs out (the data segment limited to 60 MB; a 1M-row system needs more).
# One OpenMP thread: under that limit libgomp cannot create the threads of a 16-core machine
# and ends the program itself ("Thread creation failed", exit 1) before the library runs out.
# (Not under AddressSanitizer: its shadow memory cannot be mapped under that limit.)
if [ -n "${SPS_SANITIZED:-}" ]; then
  skip "out of host memory: exit 3" "AddressSanitizer cannot run under a data-size limit"
elif (ulimit -d 60000) 2>/dev/null; then
  big=$tmp/diag1m.mtx
  { echo '%%MatrixMarket matrix coordinate real general'; echo 1048576 1048576 1048576
    awk 'BEGIN { for (i = 1; i <= 1048576; i++) print i, i, 2 }'; } >"$big"
  (ulimit -d 60000; OMP_NUM_THREADS=1 "$SPSOLVE" --device cpu --json "$big" >"$tmp/out" 2>"$tmp/err"); rc=$?
  if [ "$rc" -eq 3 ]; then ok "out of host memory: exit 3"; else not_ok "out of host memory: exit $rc, expected 3"; diag "$tmp/err"; fi
  json_checks <<'EOT'
a runtime error object: SPS_ERR_HOST_MEMORY, exit_code 3 | d["failed"] is True and d["status"] == "SPS_ERR_HOST_MEMORY" and d["exit_code"] == 3 and "memory" in d["message"]
EOT
  rm -f "$big"
else
  skip "out of host memory: exit 3" "ulimit -d is not available"
fi

# A message with bytes that are not UTF-8 (a token of a binary file) is still valid JSON.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 \377\376\n' >"$tmp/binary.mtx"
expect_rc 2 "--json on a value that is not UTF-8" --device cpu --json "$tmp/binary.mtx"
json_checks <<'EOT'
the bad bytes become U+FFFD in the message | d["failed"] is True and "\ufffd\ufffd" in d["message"]
EOT
expect_rc 0 "nos3 --json --precond amg" --device cpu --json --solver cg --precond amg \
  --precond-param amg.coarse_size=40 "$nos3"
json_checks <<'EOT'
amg reports its levels, finest first, and complexities >= 1 | d["precond"] == "amg" and (d["precond_info"]["amg"]["levels"][0]["rows"], d["precond_info"]["amg"]["levels"][0]["nnz"]) == (960, 15844) and len(d["precond_info"]["amg"]["levels"]) >= 2 and d["precond_info"]["amg"]["grid_complexity"] >= 1 and d["precond_info"]["amg"]["operator_complexity"] >= 1 and d["precond_info"]["amg"]["coarse_nnz"] > 0
amg times its setup by phase and by level, the phases adding up to at most the setup | (lambda a: sorted(a["setup_seconds"]) == sorted(["smoother", "strength", "splitting", "interpolation", "transpose", "galerkin", "matrices", "coarsest"]) and all(v >= 0 for v in a["setup_seconds"].values()) and a["setup_seconds"]["coarsest"] > 0 and all(l["setup_seconds"] > 0 for l in a["levels"]) and abs(sum(a["setup_seconds"].values()) - sum(l["setup_seconds"] for l in a["levels"])) <= 1e-9 * max(1.0, d["time_setup"]) + 1e-12 and sum(a["setup_seconds"].values()) <= d["time_setup"])(d["precond_info"]["amg"])
EOT

finish
