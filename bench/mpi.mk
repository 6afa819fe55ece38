# bench/mpi.mk: the distributed benchmark (mpi-bench: scaling, the time split, one rank against a single process, reading) and its scripts (run-mpi-cpu.sh, run-mpi-gpu.sh, mpi-table.py, mpi-gpu-table.py, plot-timeline.py, mpi-model.py).
if SPS_MPI
noinst_PROGRAMS += %reldir%/mpi-bench
%canon_reldir%_mpi_bench_SOURCES = %reldir%/mpi_bench.c $(bench_common_sources)
%canon_reldir%_mpi_bench_LDADD = libspsolve.la $(MPI_LIBS) $(CUDA_LIBS)
else
EXTRA_DIST += %reldir%/mpi_bench.c
endif
EXTRA_DIST += %reldir%/run-mpi-cpu.sh %reldir%/run-mpi-gpu.sh %reldir%/mpi-table.py %reldir%/plot-timeline.py \
	%reldir%/mpi-model.py %reldir%/mpi-gpu-table.py
