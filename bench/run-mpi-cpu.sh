#!/bin/sh
# run-mpi-cpu.sh: the CPU measurements of the distributed solves (doc/performance.md "Distributed"): weak and strong scaling of CG on 3-D Poisson with 1, 2 and 4 ranks and the split of its time, one rank against a single process, the two ways of reading G3_circuit, pipelined CG's iteration counts against CG's, and a timeline of the overlap.
#
# Usage: bench/run-mpi-cpu.sh OUTDIR [BUILDDIR [SECTION...]]
#   BUILDDIR: a build configured --with-mpi (default .); SECTION: weak strong serial read
#   pipelined timeline (default all). MATRICES: the folder of the shared matrices (default
#   ../shared/matrices); PYTHON: a Python with matplotlib for the timeline's picture
#   (default python3).
# Every file starts with comment lines (#): the date, the machine, the command and the load
# average before; it ends with the load average after, since the machine may be shared.
# Ranks get one OpenMP thread each (OMP_NUM_THREADS=1) unless a line says otherwise; Open
# MPI's ranks give their core up while they wait (mpi_yield_when_idle), so that more ranks
# than cores (oversubscription) still make progress.
set -eu
out=${1:?usage: run-mpi-cpu.sh OUTDIR [BUILDDIR [SECTION...]]}
build=${2:-.}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
sections=${*:-weak strong serial read pipelined timeline}
m=${MATRICES:-../shared/matrices}
bench=$build/bench/mpi-bench
spsolve=$build/spsolve
here=$(dirname "$0")
mkdir -p "$out"

flags=
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  flags="--oversubscribe --bind-to none"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  OMPI_MCA_mpi_yield_when_idle=1
  export OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_mpi_yield_when_idle
fi
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
# open FILE COMMAND...: the file's comment lines.
open() {
  f=$1
  shift
  {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# machine: $(uname -n), $(getconf _NPROCESSORS_ONLN) cores ($cpu), $(uname -sr)"
    echo "# command: $*"
    echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  } >"$f"
}
close() { echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$1"; }

# mb FILE NP ARGS...: mpi-bench on NP ranks, its TSV appended to FILE (the header once).
mb() {
  f=$1
  np=$2
  shift 2
  echo "# np $np, OMP_NUM_THREADS=$OMP_NUM_THREADS, load $(cut -d' ' -f1-3 /proc/loadavg): mpirun -np $np mpi-bench $*" >>"$f"
  mpirun $flags -np "$np" "$bench" "$@" >"$f.part"
  if grep -q '^date' "$f"; then sed 1d "$f.part" >>"$f"; else cat "$f.part" >>"$f"; fi
  rm -f "$f.part"
}

for s in $sections; do
  case $s in
  weak)
    # N^3 rows a rank (N x N x P N box): the time per iteration should stay flat
    for n in 32 48; do
      f=$out/weak-$n.tsv
      open "$f" "mpi-bench --weak $n --iterations 300 --repeat 5 on 1, 2 and 4 ranks"
      for np in 1 2 4; do mb "$f" "$np" --weak "$n" --iterations 300 --repeat 5; done
      close "$f"
    done
    ;;
  strong)
    # N^3 rows in all: 1, 2, 4 ranks of one thread, and one rank of 2 threads
    for n in 64 96; do
      f=$out/strong-$n.tsv
      open "$f" "mpi-bench --strong $n --iterations 200 --repeat 5 on 1, 2 and 4 ranks; 1 rank x 2 threads"
      for np in 1 2 4; do mb "$f" "$np" --strong "$n" --iterations 200 --repeat 5; done
      OMP_NUM_THREADS=2 mb "$f" 1 --strong "$n" --iterations 200 --repeat 5
      close "$f"
    done
    ;;
  serial)
    # one rank's distributed context against a single-process one (and the split reductions)
    f=$out/compare-serial.tsv
    open "$f" "mpi-bench --compare-serial N --iterations 300 --repeat 5 on 1 rank"
    for n in 32 64; do
      for pc in none jacobi; do
        mb "$f" 1 --compare-serial "$n" --iterations 300 --repeat 5 --precond "$pc"
      done
    done
    close "$f"
    ;;
  read)
    # G3_circuit: rank 0 reads and scatters (contiguous, METIS) or every rank reads its rows
    f=$out/read-G3_circuit.tsv
    open "$f" "mpi-bench --read $m/G3_circuit.mtx.gz --repeat 3 on 1, 2 and 4 ranks"
    for np in 1 2 4; do mb "$f" "$np" --read "$m/G3_circuit.mtx.gz" --repeat 3; done
    close "$f"
    ;;
  pipelined)
    # CG and pipelined CG to rtol 1e-8 from b = A 1 (laplacian7pt_100 is negative definite:
    # CG runs on it as on -A); single process of 2 threads, and pipelined on 2 ranks
    f=$out/pipelined-iterations.tsv
    open "$f" "spsolve --json --device cpu --solver cg --precond P --rhs ones [--pipelined] A"
    echo "matrix	precond	ranks	cg_iterations	cg_reason	pipelined_iterations	pipelined_reason	difference" >>"$f"
    # it: "iterations reason" from spsolve's JSON on stdin, "- none" when there is none
    it() {
      python3 -c 'import json,sys
try:
    d = json.load(sys.stdin); print(d["iterations"], d["reason"])
except ValueError:
    print("-", "none")'
    }
    diff_it() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else echo $(($2 - $1)); fi; }
    for case in nos3:none nos3:jacobi nos3:ic0 bcsstk13:none bcsstk13:jacobi bcsstk13:ic0 \
                bcsstk14:none bcsstk14:jacobi bcsstk14:ic0 1138_bus:none 1138_bus:jacobi 1138_bus:ic0 \
                laplacian7pt_100:none laplacian7pt_100:jacobi laplacian7pt_100:ic0 \
                G3_circuit:jacobi G3_circuit:ic0; do
      a=${case%%:*}
      pc=${case#*:}
      common="--json --device cpu --solver cg --precond $pc --rhs ones $m/$a.mtx.gz"
      # shellcheck disable=SC2086
      set -- $(OMP_NUM_THREADS=2 "$spsolve" $common | it || true) \
             $(OMP_NUM_THREADS=2 "$spsolve" --pipelined $common | it || true)
      echo "$a	$pc	1	$1	$2	$3	$4	$(diff_it "$1" "$3")" >>"$f"
      case $a in
      laplacian7pt_100 | G3_circuit) ;;
      *)
        # shellcheck disable=SC2086
        set -- $(mpirun $flags -np 2 "$spsolve" $common | it || true) \
               $(mpirun $flags -np 2 "$spsolve" --pipelined $common | it || true)
        echo "$a	$pc	2	$1	$2	$3	$4	$(diff_it "$1" "$3")" >>"$f"
        ;;
      esac
    done
    close "$f"
    ;;
  timeline)
    # every rank's events of 20 CG iterations on 2 ranks, and their picture
    f=$out/timeline-weak-48-np2.tsv
    mpirun $flags -np 2 "$bench" --weak 48 --iterations 20 --repeat 1 --timeline "$f" \
      >"$out/timeline-weak-48-np2.run.tsv"
    "${PYTHON:-python3}" "$here/plot-timeline.py" "$f" -o "$out/timeline-weak-48-np2.png" \
      >"$out/timeline-weak-48-np2.summary.txt"
    ;;
  *)
    echo "run-mpi-cpu.sh: unknown section $s" >&2
    exit 2
    ;;
  esac
done
