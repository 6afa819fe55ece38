# bench/spgemm.mk: spgemm-bench, the GPU sparse product (A A, A P, P^T A P) against cuSPARSE's SpGEMM.
noinst_PROGRAMS += %reldir%/spgemm-bench
%canon_reldir%_spgemm_bench_SOURCES = %reldir%/spgemm_bench.c $(bench_common_sources)
%canon_reldir%_spgemm_bench_LDADD = libspsolve.la $(CUDA_LIBS)
