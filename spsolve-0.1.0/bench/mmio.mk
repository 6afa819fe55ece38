# bench/mmio.mk: the Matrix Market reading benchmark and its comparison with zcat.
noinst_PROGRAMS += bench/mm_read_bench
bench_mm_read_bench_SOURCES = bench/mm_read_bench.c
bench_mm_read_bench_LDADD = libspsolve.la
EXTRA_DIST += bench/mm-read-vs-zcat.sh
