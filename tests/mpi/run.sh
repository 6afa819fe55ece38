#!/bin/sh
# run.sh: runs one distributed test program under mpirun with N ranks (as root too, the ranks oversubscribing the cores, one OpenMP thread each), or skips (exit 77) when MPI is not built.
#   run.sh N PROGRAM [ARGS...]   (PROGRAM in tests/mpi of the build tree)
np=$1
prog=$2
shift 2
exe="${SPS_BUILDDIR:-.}/tests/mpi/$prog"
if [ ! -x "$exe" ]; then
  echo "1..0 # SKIP built without MPI (configure --with-mpi)"
  exit 77
fi
mpirun=${SPS_MPIRUN:-mpirun}
if ! command -v "$mpirun" >/dev/null 2>&1; then
  echo "1..0 # SKIP no mpirun"
  exit 77
fi
# Open MPI refuses root without --allow-run-as-root and more ranks than cores without
# --oversubscribe; MPICH's mpiexec needs neither and knows neither.
flags=
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
  flags="--oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
  # Shared memory between the ranks by plain copies: containers often forbid the
  # cross-process reads of the default single-copy mechanism.
  OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
  # A rank that waits gives its core up at once: there are more ranks than cores.
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
OMP_NUM_THREADS=${SPS_MPI_THREADS:-1}
export OMP_NUM_THREADS
# A rank that waits for a failed one would wait forever: the whole run is bounded.
if command -v timeout >/dev/null 2>&1; then
  exec timeout 600 "$mpirun" $flags -np "$np" "$exe" "$@"
fi
exec "$mpirun" $flags -np "$np" "$exe" "$@"
