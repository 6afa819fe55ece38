#!/bin/bash
# sanitize-gpu.sh: runs the GPU test programs and the CLI under compute-sanitizer (memcheck, initcheck, synccheck, racecheck) on a GPU machine, several at a time, and prints one line per run.
#
#   tests/sanitize-gpu.sh OUTDIR [JOBS] [TIMEOUT_S] [TOOLS...]
#
# Run from a built tree (`make && make check TESTS=` builds the test programs). Every run is
#   SPS_TEST_DEVICE=cuda ./libtool --mode=execute compute-sanitizer --tool T --error-exitcode 9 PROGRAM ARGS
# with its log in OUTDIR/<tool>-<name>.log; the summary (tool, program, exit code: 0 clean, 9
# errors found, 124 out of time; the TAP counts; the tool's summary line) goes to stdout and
# OUTDIR/summary.txt (sorted at the end; OUTDIR/summary-as-run.txt gets each line as its run
# ends, so a run cut short keeps what finished). No filter (--launch-count, --kernel-name) is used: with them the tool
# itself failed ("Internal Sanitizer Error") on the H100 (doc/reliability.md). Long programs
# are split instead: tests/unit/solvers and tests/unit/krylov_steps run one group of checks per
# process (racecheck's cost is on the host, so runs side by side finish sooner), and the
# solvers' own kernels are also reached through the CLI on small bundled matrices with few
# iterations, each solver with each preconditioner. SANITIZE_ONLY=REGEX keeps the runs whose
# name matches (e.g. '^solvers-'). SANITIZE_SHARDS=K splits each unit solver group and
# krylov_steps' cuda_vs_cpu into K processes (SPS_TEST_SHARD=i/K, tests/testlib.h: the cases of
# the program dealt round-robin; under racecheck a GMRES inner iteration takes about a second).
# Each log line starts with the seconds since its run began. Not a `make check` test: it needs
# a GPU and minutes.
set -u
out=${1:?usage: tests/sanitize-gpu.sh OUTDIR [JOBS] [TIMEOUT_S] [TOOLS...]}
jobs=${2:-8}
limit=${3:-400}
shift $(($# < 3 ? $# : 3))
tools=${*:-memcheck initcheck synccheck racecheck}
mkdir -p "$out"

groups="known_solutions jacobi_scaled happy_breakdown reasons history_monitor_api monitor_batches
  jacobi_setup_errors flexible gmres_fused_setting zero_guess_and_report"
ksteps="cycle happy edges store_z bicgstab cuda_vs_cpu fused_1000 fused_5003 fused_16384 fused_limits"
cli_runs="cg:none cg:jacobi cg:ic0 cg:cheby cg:bjacobi cg:amg gmres:none gmres:ilu0 gmres:ilut
  gmres:jacobi gmres:amg bicgstab:none bicgstab:ilu0 bicgstab:jacobi"

shards=${SANITIZE_SHARDS:-1}

# One line per run: TOOL<TAB>NAME<TAB>COMMAND...[<TAB>SHARD]
list() {
  for t in $tools; do
    for g in $groups; do
      if [ "$shards" -gt 1 ]; then
        for i in $(seq 0 $((shards - 1))); do
          printf '%s\tsolvers-%s-%dof%d\ttests/unit/solvers %s\t%d/%d\n' "$t" "$g" "$i" "$shards" "$g" "$i" "$shards"
        done
      else
        printf '%s\tsolvers-%s\ttests/unit/solvers %s\n' "$t" "$g" "$g"
      fi
    done
    for g in $ksteps; do
      if [ "$shards" -gt 1 ] && [ "$g" = cuda_vs_cpu ]; then
        for i in 0 1; do
          printf '%s\tkrylov_steps-%s-%dof2\ttests/unit/krylov_steps %s\t%d/2\n' "$t" "$g" "$i" "$g" "$i"
        done
      else
        printf '%s\tkrylov_steps-%s\ttests/unit/krylov_steps %s\n' "$t" "$g" "$g"
      fi
    done
    for p in tests/unit/solver_guards tests/unit/scaling \
      tests/unit/progress tests/unit/wrap_gpu tests/unit/bjacobi tests/unit/vector_ops \
      tests/kernels/spmv_binned_gpu tests/kernels/spgemm_gpu tests/kernels/amg_aggregate_gpu \
      tests/kernels/amg_setup_gpu tests/unit/amg \
      tests/kernels/spmm_api_gpu tests/kernels/spmm_csr_gpu tests/kernels/spmm_sputnik_gpu \
      tests/kernels/spmm_balanced_gpu tests/kernels/spmm_spmv_gpu tests/kernels/spmm_cusparse_gpu \
      tests/kernels/spmv_dist_gpu tests/unit/block_steps tests/unit/solve_many tests/unit/pipelined; do
      [ -x "$p" ] && printf '%s\t%s\t%s\n' "$t" "${p##*/}" "$p"
    done
    printf '%s\tcli-gmres-fused\t./spsolve --device cuda --solver gmres --precond none --gmres-fused --maxit 8 --restart 4 -q tests/data/orsreg_1.mtx.gz\n' "$t"
    for r in $cli_runs; do
      s=${r%%:*} pc=${r#*:}
      m=tests/data/orsreg_1.mtx.gz
      case $s in cg) m=tests/data/nos3.mtx.gz ;; esac
      # Few iterations: racecheck slows the reductions' shared-memory traffic a thousandfold.
      printf '%s\tcli-%s-%s\t./spsolve --device cuda --solver %s --precond %s --maxit 8 --restart 4 -q %s\n' \
        "$t" "$s" "$pc" "$s" "$pc" "$m"
    done
  done
}

run_one() {
  local tool=$1 name=$2 cmd=$3 shard=${4:-} log rc
  log=$out/$tool-$name.log
  # Each line of the log starts with the seconds since the run began (line-buffered output), so
  # a run stopped by the time limit shows where its time went.
  # shellcheck disable=SC2086
  SPS_TEST_DEVICE=cuda SPS_TEST_SHARD=$shard timeout "$limit" stdbuf -oL -eL ./libtool --mode=execute compute-sanitizer \
    --tool "$tool" --error-exitcode 9 --print-limit 20 $cmd 2>&1 |
    { t0=$(date +%s); while IFS= read -r l; do printf '%5d %s\n' $(( $(date +%s) - t0 )) "$l"; done; } > "$log"
  rc=${PIPESTATUS[0]}
  printf '%s\t%s\trc=%s\tok=%s\tnot_ok=%s\tlast=%ss\t%s\n' "$tool" "$name" "$rc" \
    "$(grep -c '^ *[0-9]* ok ' "$log")" "$(grep -c '^ *[0-9]* not ok ' "$log")" \
    "$(tail -n 1 "$log" | awk '{print $1}')" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Internal Sanitizer' "$log" | tail -1 | cut -c7-)"
}
export -f run_one
export out limit

list | awk -F'\t' -v re="${SANITIZE_ONLY:-.}" '$2 ~ re' | tr '\t' '\034' |
  xargs -d '\n' -P "$jobs" -n 1 bash -c 'IFS=$'"'\\034'"' read -r a b c d <<< "$1"; run_one "$a" "$b" "$c" "$d"' _ |
  tee "$out/summary-as-run.txt" | sort | tee "$out/summary.txt"
