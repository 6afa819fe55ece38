#!/bin/sh
# mpi.sh: spsolve under mpirun with 2 and 4 ranks: the same iterations, reason and solution file (byte for byte) as the single-process run with a preconditioner the partition does not change; METIS and every-rank reading; the report's partition and communication lines, the JSON object, the timeline file, --transport, and exit codes agreed by the ranks. Skips (77) in a build without MPI.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
if ! "$SPSOLVE" --version | grep -q '^MPI support: yes'; then
  echo "1..0 # SKIP built without MPI (configure --with-mpi)"
  exit 77
fi
mpirun=${SPS_MPIRUN:-mpirun}
if ! command -v "$mpirun" >/dev/null 2>&1; then
  echo "1..0 # SKIP no mpirun"
  exit 77
fi
flags=
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
  flags="--oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
  OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
  OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
  export OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_mpi_yield_when_idle
  # A sanitizer build (configure --enable-sanitizers): Open MPI's blocks live until exit, in
  # components it loads and unloads; kept loaded and unwound fully, their stacks name Open
  # MPI's libraries, which tests/mpi/lsan-openmpi.supp suppresses (no effect in other builds).
  LSAN_OPTIONS="suppressions=${SPS_SRCDIR:-.}/tests/mpi/lsan-openmpi.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
  OMPI_MCA_mca_base_component_disable_dlclose=1
  export LSAN_OPTIONS ASAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose
fi
OMP_NUM_THREADS=1
export OMP_NUM_THREADS
# mrun NP ARGS...: spsolve on NP ranks; stdout in $tmp/out, stderr in $tmp/err, status in $rc.
mrun() {
  np=$1
  shift
  timeout 300 "$mpirun" $flags -np "$np" "$SPSOLVE" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
A=$(matrix bcsstk14)
B=$(matrix orsreg_1)
value() { sed -n "s/^$1 *//p" "$2" | head -n 1; }

# The single-process runs the distributed ones are held to.
run --solver cg --precond jacobi -o "$tmp/x1.mtx" "$A"
cp "$tmp/out" "$tmp/serial-cg.out"
run --solver gmres --precond jacobi -o "$tmp/y1.mtx" "$B"
cp "$tmp/out" "$tmp/serial-gmres.out"
for np in 2 4; do
  mrun "$np" --solver cg --precond jacobi -o "$tmp/x$np.mtx" "$A"
  if [ "$rc" -eq 0 ] && out_has "ranks           $np (contiguous partition" &&
     [ "$(value iterations "$tmp/out")" = "$(value iterations "$tmp/serial-cg.out")" ] &&
     [ "$(value reason "$tmp/out")" = "$(value reason "$tmp/serial-cg.out")" ] &&
     cmp -s "$tmp/x1.mtx" "$tmp/x$np.mtx"; then
    ok "bcsstk14, cg + jacobi on $np ranks: $(value iterations "$tmp/out") iterations, reason and x (-o, byte for byte) as on one process"
  else
    not_ok "bcsstk14, cg + jacobi on $np ranks: exit $rc, $(value iterations "$tmp/out") iterations against $(value iterations "$tmp/serial-cg.out"), x files $(cmp "$tmp/x1.mtx" "$tmp/x$np.mtx" 2>&1)"
    diag "$tmp/out" "$tmp/err"
  fi
  mrun "$np" --solver gmres --precond jacobi --partition metis -o "$tmp/y$np.mtx" "$B"
  if [ "$rc" -eq 0 ] && out_has "(metis partition" &&
     [ "$(value iterations "$tmp/out")" = "$(value iterations "$tmp/serial-gmres.out")" ] &&
     cmp -s "$tmp/y1.mtx" "$tmp/y$np.mtx"; then
    ok "orsreg_1, gmres + jacobi on $np ranks, METIS: iterations and x as on one process"
  elif err_has "no METIS"; then
    skip "orsreg_1, gmres + jacobi on $np ranks, METIS" "built without METIS"
  else
    not_ok "orsreg_1, gmres + jacobi on $np ranks, METIS: exit $rc, $(value iterations "$tmp/out") iterations against $(value iterations "$tmp/serial-gmres.out")"
    diag "$tmp/out" "$tmp/err"
  fi
done

# Every rank reads its rows; the automatic choice with per-rank factorisations converges.
mrun 4 --read each "$B"
if [ "$rc" -eq 0 ] && out_has "every rank read its rows" && out_has "converged"; then
  ok "orsreg_1 on 4 ranks, every rank reading its rows, automatic choice: converged"
else
  not_ok "orsreg_1 on 4 ranks, --read each: exit $rc"
  diag "$tmp/out" "$tmp/err"
fi

# The report's partition and communication lines, and the JSON object.
mrun 2 --solver cg --precond jacobi --pipelined "$A"
if [ "$rc" -eq 0 ] && out_has "cg (pipelined)" && out_has "  halo          " &&
   out_has "  overlap       " && out_has "  communication " && out_has "  products      "; then
  ok "the text report: pipelined CG, ranks, halo, overlap, communication and product lines"
else
  not_ok "the text report of a distributed run"
  diag "$tmp/out" "$tmp/err"
fi
mrun 2 --json --timeline "$tmp/tl.tsv" "$A"
if [ "$rc" -eq 0 ] && [ -n "$PYTHON3" ]; then
  if "$PYTHON3" - "$tmp/out" "$tmp/tl.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["distributed"]
assert d["ranks"] == 2 and d["partition"] == "contiguous" and d["read"] == "root", d
assert d["halo_exchanges"] > r["iterations"] and d["reductions"] >= 2 * r["iterations"], d
assert d["time_comm"] >= d["time_reduce"] >= 0 and d["timeline"] == sys.argv[2], d
# auto: both over NCCL where it serves (a GPU a rank), else both over MPI
assert d["halo_via"] in ("mpi", "nccl") and d["reduce_via"] == d["halo_via"], d
rows = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
assert rows[0] == ["rank", "event", "start_s", "end_s"], rows[0]
ranks = {int(x[0]) for x in rows[1:]}
kinds = {x[1] for x in rows[1:]}
assert ranks == {0, 1}, ranks
# the steps' reductions kept on the GPUs (over NCCL) are no host events; the start's norms are
assert kinds == {"halo-start", "spmv-local", "halo-wait", "spmv-boundary", "reduce"}, kinds
assert all(float(x[3]) >= float(x[2]) >= 0 for x in rows[1:])
PY
  then
    ok "--json has the distributed object; --timeline wrote every rank's events of each kind"
  else
    not_ok "--json and --timeline of a distributed run"
    diag "$tmp/out" "$tmp/err"
  fi
elif [ "$rc" -eq 0 ]; then
  skip "--json and --timeline of a distributed run" "no python3"
else
  not_ok "--json --timeline: exit $rc"
  diag "$tmp/out" "$tmp/err"
fi

# Failures: every rank exits with the same status; one message, from rank 0.
mrun 2 "$tmp/missing.mtx"
if [ "$rc" -eq 2 ] && [ "$(grep -c '^spsolve:' "$tmp/err")" -eq 1 ] && err_has "cannot read A"; then
  ok "a missing file: exit 2, one message"
else
  not_ok "a missing file: exit $rc"
  diag "$tmp/err"
fi
mrun 2 --precond amg "$A"
if [ "$rc" -eq 2 ] && err_has "does not run on a distributed matrix"; then
  ok "--precond amg on ranks: exit 2, refused"
else
  not_ok "--precond amg on ranks: exit $rc"
  diag "$tmp/err"
fi
mrun 2 --read each --partition metis "$A"
if [ "$rc" -eq 2 ] && err_has "--read each takes contiguous blocks"; then
  ok "--read each with --partition metis: exit 2"
else
  not_ok "--read each with --partition metis: exit $rc"
  diag "$tmp/err"
fi
# --transport: a bad value is a usage error; MPI is taken everywhere and named in the report;
# NCCL where it cannot serve (the CPU here, or ranks sharing a GPU) is refused with the reason.
mrun 2 --transport nccl,tcp "$A"
if [ "$rc" -eq 2 ] && err_has "invalid value 'nccl,tcp' for --transport"; then
  ok "--transport nccl,tcp: exit 2, the value named"
else
  not_ok "--transport nccl,tcp: exit $rc"
  diag "$tmp/err"
fi
mrun 2 --solver cg --precond jacobi --transport mpi,mpi "$A"
if [ "$rc" -eq 0 ] && out_has "halo exchanges over mpi" && out_has "reductions over mpi"; then
  ok "--transport mpi,mpi: the report names MPI for both"
else
  not_ok "--transport mpi,mpi: exit $rc"
  diag "$tmp/out" "$tmp/err"
fi
mrun 2 --device cpu --transport nccl "$A"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && err_has "--transport: NCCL cannot serve this context: the context computes on the CPU"; then
  ok "--device cpu --transport nccl: exit $rc, refused with the reason"
else
  not_ok "--device cpu --transport nccl: exit $rc"
  diag "$tmp/err"
fi
echo "1..$ntests"
[ "$nfailed" -eq 0 ]
