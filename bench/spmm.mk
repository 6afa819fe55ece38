# bench/spmm.mk: the SpMM benchmark driver (spmm-bench) and its summary script.
noinst_PROGRAMS += %reldir%/spmm-bench
%canon_reldir%_spmm_bench_SOURCES = %reldir%/spmm_bench.c $(bench_common_sources)
%canon_reldir%_spmm_bench_LDADD = libspsolve.la $(CUDA_LIBS)
EXTRA_DIST += %reldir%/spmm-summary.py %reldir%/run-spmm.sh
