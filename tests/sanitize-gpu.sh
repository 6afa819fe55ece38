#!/bin/bash
# sanitize-gpu.sh: runs the GPU test programs and the CLI under compute-sanitizer (memcheck, initcheck, synccheck, racecheck) on a GPU machine, several at a time, spread over its GPUs, and prints one line per run.
#
#   tests/sanitize-gpu.sh OUTDIR [JOBS] [TIMEOUT_S] [TOOLS...]
#
# Run from a built tree (`make && make check TESTS=` builds the test programs). Every run is
#   SPS_TEST_DEVICE=cuda CUDA_VISIBLE_DEVICES=G ./libtool --mode=execute compute-sanitizer
#     --tool T --error-exitcode 9 PROGRAM ARGS
# with its log (each line starting with the seconds since the run began) in
# OUTDIR/<tool>-<name>.log; the summary (tool, run, GPU, exit code: 0 clean, 9 errors found, 124
# out of time; the TAP counts; the tool's summary line) goes to stdout and OUTDIR/summary.txt
# (sorted at the end; OUTDIR/summary-as-run.txt gets each line as its run ends, so a run cut
# short keeps what finished). No filter (--launch-count, --kernel-name): with them the tool
# itself failed ("Internal Sanitizer Error") on the H100 (doc/reliability.md). Long programs are
# split instead (racecheck's cost is on the host, so runs side by side finish sooner):
# tests/unit/solvers and krylov_steps run one group of checks per process; with
# SANITIZE_SHARDS=K every test program (those two whole) runs as K processes NAME-iofK
# (SPS_TEST_SHARD=i/K, tests/testlib.h: its cases dealt round-robin). The solvers' kernels are
# also run through the CLI (never sharded) on small bundled matrices with few iterations, each
# solver with each preconditioner; the regression programs as their *-cuda.sh wrappers run them,
# on the shared matrices of SPS_MATRICES (else configure's). SANITIZE_GPUS=G (default: the GPUs
# of nvidia-smi -L, or 1): the n-th run gets GPU n mod G (plus SANITIZE_GPU_FIRST). SANITIZE_ONLY=REGEX
# keeps the runs whose name matches (e.g. '^solvers-'); SANITIZE_RERUN (below) reruns what ran
# out of time, split finer. The environment passes through: SPSOLVE_GMRES_CLUSTER=0 runs GMRES's
# grid kernels where the cluster ones would run (racecheck is slow on clusters). Not a
# `make check` test: it needs a GPU and minutes. SANITIZE_LAUNCH_LOG=1 writes the kernels each
# run launched to OUTDIR/<tool>-<name>.kernels (tests/launch_log.c, preloaded), and the tool
# name "plain" runs the programs without compute-sanitizer: tests/race-coverage.sh then says
# which kernels of the suite have run under a tool in a run that finished clean, and which runs
# to take next. SANITIZE_OMP_THREADS (default 2): the OpenMP threads of each run. The
# distributed programs (mpi-*, 2 ranks under mpirun) run when configure had --with-mpi, both
# ranks on the run's GPU, or on SANITIZE_MPI_GPUS (e.g. 0,1) for NCCL's transport;
# SANITIZE_MPI_MAXIT=K stops tests/mpi/solvers' solves after K iterations (see run_one);
# SANITIZE_MPI_JOBS (default 1 with SANITIZE_MPI_GPUS) distributed runs at a time;
# SANITIZE_MPI_SLOTS=N at most N distributed runs at once on the machine, across invocations
# (lock files in SANITIZE_MPI_LOCKDIR, default /tmp/sanitize-gpu-mpi-slots; see run_one).
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
gpus=${SANITIZE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "${gpus:-0}" -ge 1 ] 2>/dev/null || gpus=1
# The shared matrices of the regression programs (they skip without them) and no write to the
# user's cache of --spmv tune, as in `make check`.
[ -n "${SPS_MATRICES:-}" ] || SPS_MATRICES=$(sed -n 's/^SPS_MATRICES = //p' Makefile 2>/dev/null)
SPSOLVE_CACHE_DIR=
export SPS_MATRICES SPSOLVE_CACHE_DIR

# One run, or with SANITIZE_SHARDS=K > 1 its K shards: TOOL<TAB>NAME<TAB>COMMAND...<TAB>[SHARD]
emit() {
  if [ "$shards" -gt 1 ]; then
    for i in $(seq 0 $((shards - 1))); do
      printf '%s\t%s-%dof%d\t%s\t%d/%d\n' "$1" "$2" "$i" "$shards" "$3" "$i" "$shards"
    done
  else
    printf '%s\t%s\t%s\t\n' "$1" "$2" "$3"
  fi
}

list() {
  for t in $tools; do
    if [ "$shards" -gt 1 ]; then
      emit "$t" solvers tests/unit/solvers
      emit "$t" krylov_steps tests/unit/krylov_steps
    else
      for g in $groups; do emit "$t" "solvers-$g" "tests/unit/solvers $g"; done
      for g in $ksteps; do emit "$t" "krylov_steps-$g" "tests/unit/krylov_steps $g"; done
    fi
    for p in tests/unit/solver_guards tests/unit/scaling \
      tests/unit/progress tests/unit/wrap_gpu tests/unit/bjacobi tests/unit/vector_ops \
      tests/kernels/spmv_binned_gpu tests/kernels/spgemm_gpu tests/kernels/amg_aggregate_gpu \
      tests/kernels/amg_setup_gpu tests/unit/amg \
      tests/kernels/spmm_api_gpu tests/kernels/spmm_csr_gpu tests/kernels/spmm_sputnik_gpu \
      tests/kernels/spmm_balanced_gpu tests/kernels/spmm_spmv_gpu tests/kernels/spmm_cusparse_gpu \
      tests/kernels/spmv_dist_gpu tests/unit/block_steps tests/unit/solve_many tests/unit/pipelined \
      tests/unit/spmv_tune tests/kernels/precond_kernels_gpu tests/kernels/precond_bjacobi_gpu \
      tests/kernels/stats_gpu tests/kernels/spmv_large_gpu tests/kernels/spmv_bitwise_gpu \
      tests/kernels/spmv_ell_gpu tests/kernels/spmv_csr_scalar_gpu tests/kernels/spmv_csr_vector_gpu \
      tests/kernels/spmv_coo_gpu tests/kernels/spmv_hyb_gpu tests/kernels/spmv_merge_gpu \
      tests/kernels/spmv_blockwise_gpu tests/kernels/spmv_cusparse_gpu; do
      [ -x "$p" ] && emit "$t" "${p##*/}" "$p"
    done
    # The regression programs (regress-cuda.sh, amg-cuda.sh, defaults-cuda.sh; cpu_vs_gpu runs
    # both backends itself), named apart from the unit programs.
    for p in solvers amg defaults cpu_vs_gpu; do
      [ -x "tests/regress/$p" ] && emit "$t" "regress-$p" "tests/regress/$p"
    done
    # The distributed programs on 2 ranks sharing the GPU, as `make check` runs them
    # (tests/mpi/*-cuda-np2.sh; built with --with-mpi): the tool follows mpirun's children
    # (run_one adds --target-processes all), whose split reductions and halo kernels no other
    # program launches. solvers deals its configurations to shards (SPS_TEST_SHARD reaches
    # the ranks through mpirun's environment); spmv and api run whole.
    [ -x tests/mpi/solvers ] && emit "$t" mpi-solvers-np2 tests/mpi/solvers-cuda-np2.sh
    for p in spmv api; do
      [ -x "tests/mpi/$p" ] && printf '%s\tmpi-%s-np2\ttests/mpi/%s-cuda-np2.sh\t\n' "$t" "$p" "$p"
    done
    printf '%s\tcli-gmres-fused\t./spsolve --device cuda --solver gmres --precond none --gmres-fused --maxit 8 --restart 4 -q tests/data/orsreg_1.mtx.gz\t\n' "$t"
    for r in $cli_runs; do
      s=${r%%:*} pc=${r#*:}
      m=tests/data/orsreg_1.mtx.gz
      case $s in cg) m=tests/data/nos3.mtx.gz ;; esac
      # Few iterations: racecheck slows the reductions' shared-memory traffic a thousandfold.
      printf '%s\tcli-%s-%s\t./spsolve --device cuda --solver %s --precond %s --maxit 8 --restart 4 -q %s\t\n' \
        "$t" "$s" "$pc" "$s" "$pc" "$m"
    done
  done
}

# One of SANITIZE_MPI_SLOTS lock files of SANITIZE_MPI_LOCKDIR (default
# /tmp/sanitize-gpu-mpi-slots: every invocation on the machine shares it), held on fd 9 by
# run_one's shell until the run ends (the run's own processes do not inherit it). Runs 30 and
# 32: two runs a GPU a rank finished beside three distributed runs sharing a GPU, and stalled at
# their first NCCL communicator beside six. Waits while all are held; returns 1 without one once
# SANITIZE_DEADLINE is within 30 s.
mpi_slot() {
  local dir=${SANITIZE_MPI_LOCKDIR:-/tmp/sanitize-gpu-mpi-slots} i
  mkdir -p "$dir"
  while :; do
    for i in $(seq 0 $((SANITIZE_MPI_SLOTS - 1))); do
      exec 9>> "$dir/slot$i"
      flock -n 9 && return 0
    done
    exec 9>&-
    [ -n "${SANITIZE_DEADLINE:-}" ] && [ $((SANITIZE_DEADLINE - $(date +%s))) -lt 30 ] && return 1
    sleep 1
  done
}

run_one() {
  local tool=$1 name=$2 cmd=$3 shard=${4:-} gpu=${5:-0} log rc lim=$limit left
  log=$out/$tool-$name.log
  # SANITIZE_MPI_SLOTS=N: at most N distributed runs at once on the machine (mpi_slot, above);
  # a run that gets no slot before the deadline is reported not run by the check after this.
  case $name in mpi-*) [ -n "${SANITIZE_MPI_SLOTS:-}" ] && mpi_slot ;; esac
  # SANITIZE_DEADLINE (seconds since the epoch): no run starts within 30 s of it, and none
  # runs past it (rc=notrun for those never started; SANITIZE_RERUN takes them up again).
  if [ -n "${SANITIZE_DEADLINE:-}" ]; then
    left=$((SANITIZE_DEADLINE - $(date +%s)))
    if [ "$left" -lt 30 ]; then
      printf '%s\t%s\tgpu=%s\trc=notrun\n' "$tool" "$name" "$gpu"
      return
    fi
    [ "$left" -lt "$lim" ] && lim=$left
  fi
  # Each line of the log starts with the seconds since the run began (line-buffered output), so
  # a run stopped by the time limit shows where its time went.
  # SANITIZE_LAUNCH_LOG=1: the kernels the run launched, one name each, in OUTDIR/<tool>-<name>.kernels
  # (tests/launch_log.c preloaded). The tool "plain" runs the program without compute-sanitizer.
  local pre=() san=(compute-sanitizer --tool "$tool" --error-exitcode 9)
  [ -n "${SANITIZE_LAUNCH_LOG:-}" ] && pre=(env LD_PRELOAD="$out/launch_log.so" SPS_LAUNCH_LOG="$out/$tool-$name.kernels")
  # The distributed runs see the GPUs of SANITIZE_MPI_GPUS when set (e.g. 0,1: a GPU a rank,
  # which NCCL needs; its reductions' fold and close kernels run only then), else the run's.
  # With a GPU a rank, NCCL's legacy IPC (NCCL_CUMEM_ENABLE=0), the setting memcheck ran to the
  # end with (run 28, one run at a time; so did NCCL's P2P and SHM transports off, and a plain
  # run with the defaults). Runs 27 and 29 crawled at the first 2-rank context whatever the
  # setting, 40 runs side by side: hence SANITIZE_MPI_JOBS below. NCCL's setup asks cudaFuncGetAttributes
  # of kernels that have no image for the GPU and ignores the error; memcheck reports each such
  # call, so these runs print every error (the classification below needs them all).
  # SANITIZE_MPI_MAXIT=K: tests/mpi/solvers stops every solve after K iterations
  # (SPS_TEST_MAXIT; the bitwise checks stand; the per-rank preconditioners' check becomes a stop
  # within K iterations with the true residual below the start's).
  local vis=$gpu mpienv=()
  case $name in mpi-*)
    san+=(--print-limit 1000000 --target-processes all); vis=${SANITIZE_MPI_GPUS:-$gpu}
    [ -n "${SANITIZE_MPI_GPUS:-}" ] && mpienv+=(NCCL_CUMEM_ENABLE="${NCCL_CUMEM_ENABLE:-0}")
    [ -n "${SANITIZE_MPI_MAXIT:-}" ] && mpienv+=(SPS_TEST_MAXIT="$SANITIZE_MPI_MAXIT") ;;
    *) san+=(--print-limit 20) ;;
  esac
  [ "$tool" = plain ] && san=()
  # OpenMP: SANITIZE_OMP_THREADS (default 2) threads a run, waiting passively: dozens of runs
  # side by side, each with a thread per core spinning, left the CPU halves of the tests (the
  # CPU backend's solves they compare with) crawling for minutes (run 21).
  # The run is a session of its own (setsid; its id in $sidf): `timeout` stops the tool (KILL
  # 20 s after TERM), but processes it leaves (mpirun's ranks under --target-processes all,
  # stuck in the driver) keep the log's pipe open, and the run would never end (run 27). So the
  # log is read no longer than 30 s after the limit, and whatever is left of the session is
  # killed when the run ends.
  local sidf=$out/.$tool-$name.sid
  rm -f "$sidf"
  # shellcheck disable=SC2086
  SPS_TEST_DEVICE=cuda SPS_TEST_SHARD=$shard CUDA_VISIBLE_DEVICES=$vis OMP_NUM_THREADS=${SANITIZE_OMP_THREADS:-2} \
    OMP_WAIT_POLICY=passive env "${mpienv[@]}" setsid --wait bash -c 'echo $$ > "$0"; exec "$@"' "$sidf" timeout -k 20 "$lim" stdbuf -oL -eL \
    "${pre[@]}" ./libtool --mode=execute "${san[@]}" $cmd 2>&1 9>&- |
    { t0=$(date +%s); end=$((t0 + lim + 30)); while :; do
        w=$((end - $(date +%s))); [ "$w" -gt 0 ] || break
        IFS= read -r -t "$w" l || break
        printf '%5d %s\n' $(( $(date +%s) - t0 )) "$l"
      done; } > "$log"
  rc=${PIPESTATUS[0]}
  [ -s "$sidf" ] && pkill -KILL -s "$(cat "$sidf")" 2> /dev/null
  rm -f "$sidf"
  # killed by timeout's KILL: out of time, as for its TERM's 124
  [ "$rc" = 137 ] && rc=124
  # A distributed run whose only errors are NCCL's ignored cudaFuncGetAttributes (above): clean,
  # with their count in the note. Every error is printed in these runs, so the count of those
  # must equal the tool's ERROR SUMMARY count (one for all the ranks), and no check may have failed.
  local note
  note=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Internal Sanitizer' "$log" | tail -1 | cut -c7-)
  case $name in mpi-*)
    if [ "$rc" = 9 ]; then
      local total nccl
      total=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors*$/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
      nccl=$(awk '/Program hit cudaErrorNoKernelImageForDevice/ { hit = 1; next }
                  hit && /Host Frame:/ { if ($0 ~ /Host Frame: ncclInitKernelsForDevice/) n++; hit = 0 }
                  END { print n + 0 }' "$log")
      if [ "$total" -gt 0 ] && [ "$nccl" = "$total" ] && ! grep -q '^ *[0-9]* not ok ' "$log"; then
        rc=0 note="clean but for NCCL's $nccl ignored cudaFuncGetAttributes errors (ncclInitKernelsForDevice)"
      fi
    fi ;;
  esac
  printf '%s\t%s\tgpu=%s\trc=%s\tok=%s\tnot_ok=%s\tlast=%ss\t%s\n' "$tool" "$name" "$gpu" "$rc" \
    "$(grep -c '^ *[0-9]* ok ' "$log")" "$(grep -c '^ *[0-9]* not ok ' "$log")" \
    "$(tail -n 1 "$log" | awk '{print $1}')" "$note"
}
export -f run_one mpi_slot
if [ -n "${SANITIZE_LAUNCH_LOG:-}" ]; then
  src=$(dirname "$0")/launch_log.c
  ${CC:-cc} -O1 -shared -fPIC -o "$out/launch_log.so" "$src" -ldl -lpthread ||
    { echo "sanitize-gpu.sh: cannot build $src" >&2; exit 1; }
fi
export out limit SANITIZE_DEADLINE SANITIZE_LAUNCH_LOG SANITIZE_OMP_THREADS SANITIZE_MPI_GPUS \
  SANITIZE_MPI_SLOTS SANITIZE_MPI_LOCKDIR

# SANITIZE_RERUN=SUMMARY SANITIZE_SPLIT=S: only the runs that SUMMARY (an earlier summary.txt)
# shows out of time (rc=124) or never started (rc=notrun), each shard i/K split into S runs (i + jK)/(SK), j < S (named
# NAME-iofK-jofS): together they run exactly the cases of shard i/K.
rerun() {
  if [ -z "${SANITIZE_RERUN:-}" ]; then cat; return; fi
  awk -F'\t' -v S="${SANITIZE_SPLIT:-4}" '
    NR == FNR { if ($4 == "rc=124" || $4 == "rc=notrun") late[$1 "\t" $2] = 1; next }
    !(($1 "\t" $2) in late) { next }
    $4 == "" { print; next }
    { split($4, f, "/"); for (j = 0; j < S; j++)
        printf "%s\t%s-%dof%d\t%s\t%d/%d\n", $1, $2, j, S, $3, f[1] + j * f[2], S * f[2] }
  ' "$SANITIZE_RERUN" -
}

# The distributed runs on a GPU a rank (SANITIZE_MPI_GPUS) go SANITIZE_MPI_JOBS at a time
# (default 1) beside the others: forty of them side by side on one pair of GPUs crawled at their
# first NCCL communicator, plain runs too (run 29: mpi-api's 87 checks take 14 s alone; 54 were
# done after 300 s), where one at a time finished (run 28). Other distributed runs beside them
# count too: two a GPU a rank (two invocations, one a pair) beside three runs with the ranks on one
# GPU finished (run 30), beside six they stalled the same way (run 32): SANITIZE_MPI_SLOTS caps
# them across invocations.
mpijobs=$jobs
[ -n "${SANITIZE_MPI_GPUS:-}" ] && mpijobs=${SANITIZE_MPI_JOBS:-1}
# The runs kept, each with its GPU (SANITIZE_GPU_FIRST, default 0, plus its index among them
# mod G) as a fifth field.
runs=$(list | rerun | awk -F'\t' -v re="${SANITIZE_ONLY:-.}" -v g="$gpus" -v g0="${SANITIZE_GPU_FIRST:-0}" \
  '$2 ~ re { print $0 "\t" (g0 + n++ % g) }')
# shellcheck disable=SC2016 # $1 and the fields are the inner bash's
run_all() {
  tr '\t' '\034' |
    xargs -d '\n' -r -P "$1" -n 1 bash -c 'IFS=$'"'\\034'"' read -r a b c d e <<< "$1"; run_one "$a" "$b" "$c" "$d" "$e"' _
}
{
  awk -F'\t' '$2 !~ /^mpi-/' <<< "$runs" | run_all "$jobs" &
  awk -F'\t' '$2 ~ /^mpi-/' <<< "$runs" | run_all "$mpijobs" &
  wait
} | tee "$out/summary-as-run.txt" | sort | tee "$out/summary.txt"
