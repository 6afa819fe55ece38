#!/bin/sh
# run-mpi-gpu.sh: the GPU measurements of the distributed solves (doc/performance.md "Several GPUs"): strong scaling of CG and GMRES(30) on 1, 2 and 4 GPUs (one rank each) on generated 3-D Poisson and convection-diffusion problems and on G3_circuit, the halo over MPI and over NCCL side by side, the reductions over NCCL against MPI, one rank against the single-process solver, and a timeline of the overlap.
#
# Usage: bench/run-mpi-gpu.sh OUTDIR [BUILDDIR [SECTION...]]
#   BUILDDIR: a build configured --with-mpi and CUDA (NCCL too for the NCCL rows; default .);
#   SECTION: serial poisson convdiff reduce g3 timeline (default all). MATRICES: the folder of
#   the shared matrices (default ../shared/matrices); N: the box of the generated problems
#   (default 256: 16.8 million rows, 1.2e8 entries); RANKS: the rank counts (default "1 2 4",
#   at most the node's GPUs); VIA: the transports to compare, each HALO or HALO,REDUCTIONS
#   (default "mpi,mpi nccl,mpi nccl,nccl"; a bare HALO leaves the reductions to AUTO).
# Every file starts with comment lines (#): the date, the GPUs, the command. Each TSV row is
# one mpi-bench run (the columns of bench/mpi_bench.c: time per iteration, the time split,
# the halo's size, and what carried the halo and the reductions).
set -u
out=${1:?usage: run-mpi-gpu.sh OUTDIR [BUILDDIR [SECTION...]]}
build=${2:-.}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
sections=${*:-serial poisson convdiff reduce g3 timeline}
m=${MATRICES:-../shared/matrices}
n=${N:-256}
ranks=${RANKS:-1 2 4}
vias=${VIA:-mpi,mpi nccl,mpi nccl,nccl}
bench=$build/bench/mpi-bench
mkdir -p "$out"

flags="--bind-to none"
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  flags="$flags --oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
fi
# NVLink multicast stays off (the machines' rule); one OpenMP thread a rank.
NCCL_NVLS_ENABLE=0
OMP_NUM_THREADS=1
export NCCL_NVLS_ENABLE OMP_NUM_THREADS

gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
open() {
  f=$1
  shift
  {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# machine: $(uname -n), $(getconf _NPROCESSORS_ONLN) cores, GPUs: $gpus"
    echo "# command: $*"
  } >"$f"
}

# mb FILE NP ARGS...: mpi-bench on NP ranks (one GPU each), its TSV appended to FILE (the
# header once); a run that fails leaves its message as a comment line and the rest goes on.
mb() {
  f=$1
  np=$2
  shift 2
  [ -f "$f" ] || open "$f" "mpirun -np P $bench ..."
  echo "# np $np: mpirun -np $np mpi-bench $*" >>"$f"
  if timeout "${RUN_LIMIT:-120}" mpirun $flags -np "$np" "$bench" "$@" >"$f.part" 2>"$f.err"; then
    if grep -q '^date' "$f"; then grep -v '^date' "$f.part" >>"$f"; else cat "$f.part" >>"$f"; fi
  else
    echo "# failed (exit $?): $(tail -n 3 "$f.err" | tr '\n' ' ')" >>"$f"
  fi
  rm -f "$f.part" "$f.err"
  tail -n 1 "$f"
}

# strong FILE ARGS...: mpi-bench ARGS on each rank count and each halo transport (one rank:
# no halo, so only once), the rows into FILE.
strong() {
  f=$1
  shift
  for np in $ranks; do
    for via in $vias; do
      halo=${via%%,*}
      [ "$np" = 1 ] && [ "$halo" != mpi ] && continue
      case $via in *,*) red=${via#*,} ;; *) red=auto ;; esac
      mb "$f" "$np" --device cuda "$@" --halo "$halo" --reduce "$red"
    done
  done
}
most=$(echo "$ranks" | tr ' ' '\n' | tail -n 1)

for s in $sections; do
  case $s in
  serial)
    # one rank's distributed CG against the single-process solver (the abstraction's price)
    mb "$out/compare-serial.tsv" 1 --device cuda --compare-serial 128 --iterations 500 --repeat 5
    mb "$out/compare-serial.tsv" 1 --device cuda --compare-serial 128 --iterations 500 --repeat 5 --solver gmres
    ;;
  poisson)
    # CG to 1e-8 (the time to solution) with Jacobi, and the halo over each transport
    strong "$out/strong-poisson-cg.tsv" --strong "$n" --rtol 1e-8 --iterations 20000 --repeat 3
    ;;
  convdiff)
    # GMRES(30), 300 iterations, on the convection-diffusion operator (nonsymmetric)
    strong "$out/strong-convdiff-gmres.tsv" --strong "$n" --solver gmres --convection 0.5 \
      --iterations 300 --repeat 3
    ;;
  reduce)
    # the reductions over NCCL against MPI on the most ranks, CG and pipelined CG
    for red in mpi nccl; do
      mb "$out/reduce.tsv" "$most" --device cuda --strong "$n" --iterations 300 --repeat 3 --reduce "$red"
      mb "$out/reduce.tsv" "$most" --device cuda --strong "$n" --iterations 300 --repeat 3 --reduce "$red" --pipelined
    done
    ;;
  g3)
    # G3_circuit, every rank reading its rows: CG+Jacobi to 1e-8
    strong "$out/strong-g3-cg.tsv" --matrix "$m/G3_circuit.mtx.gz" --rtol 1e-8 --iterations 20000 \
      --repeat 3
    ;;
  timeline)
    for via in mpi nccl; do
      mb "$out/timeline-runs.tsv" "$most" --device cuda --strong "$n" --iterations 50 --repeat 1 \
        --halo "$via" --timeline "$out/timeline-$via.tsv"
    done
    ;;
  *)
    echo "run-mpi-gpu.sh: unknown section $s" >&2
    exit 2
    ;;
  esac
done
