#!/bin/sh
# stats.sh: spsolve --stats prints the statistics of A (rectangular allowed), as text and as JSON, and exits without solving.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
ash=$(matrix ash219)
nos3=$(matrix nos3)

expect_rc 0 "--stats on a rectangular matrix" --stats "$ash"
check "--stats gives rows, cols and nnz" grep -qx -e 'rows: 219' "$tmp/out"
if out_has "cols: 85" && out_has "nnz: 438" && out_has "windows_per_row:" && out_has "seconds:" &&
  ! out_has "iterations"; then ok "--stats prints every field and no solve"; else
  not_ok "--stats prints every field and no solve"; diag "$tmp/out"; fi
# nos3 (960 rows, 8402 stored entries of a symmetric matrix: 15844 with both triangles).
expect_rc 0 "--stats --json" --stats --json --device cpu "$nos3"
if [ -n "$PYTHON3" ]; then
  json_checks <<'CHECKS'
matrix and device | d["matrix"].endswith("nos3.mtx") or d["matrix"].endswith("nos3.mtx.gz")
the CPU | d["device"].startswith("CPU")
sizes | (d["stats"]["rows"], d["stats"]["cols"], d["stats"]["nnz"]) == (960, 960, 15844)
mean row length | abs(d["stats"]["mean_len"] - 15844 / 960) < 1e-12
the fields of sps_matrix_stats, in order | list(d["stats"]) == ["rows", "cols", "nnz", "density", "mean_len", "min_len", "max_len", "var_len", "cv_len", "empty_share", "over32_share", "over1024_share", "short_blocks", "long_blocks", "long_rows", "col_distance", "windows_per_row", "seconds"]
CHECKS
else
  skip "--stats --json checks" "no python3"
fi
expect_rc 2 "--stats without a matrix" --stats
expect_rc 2 "--stats on a missing file" --stats "$tmp/none.mtx"
echo "1..$ntests"
[ "$nfailed" -eq 0 ]
