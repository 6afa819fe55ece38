# bench/many.mk: many right-hand sides: solve-many-bench (together against one at a time), the CuPy peer script, the plot and the GPU run script.
noinst_PROGRAMS += %reldir%/solve-many-bench
%canon_reldir%_solve_many_bench_SOURCES = %reldir%/solve_many_bench.c $(bench_common_sources)
%canon_reldir%_solve_many_bench_LDADD = libspsolve.la $(CUDA_LIBS)
EXTRA_DIST += %reldir%/many-peers.py %reldir%/plot-many.py %reldir%/run-many.sh
