# tests/select.mk: the SpMV choice: matrix statistics, the chooser, the model generator and the sweep harness on the CPU.
check_PROGRAMS += tests/unit/matrix_stats tests/unit/spmv_select
TESTS += \
	tests/unit/matrix_stats \
	tests/unit/spmv_select \
	%reldir%/select/train.sh \
	%reldir%/select/sweep-cpu.sh
tests_unit_matrix_stats_SOURCES = tests/unit/matrix_stats.c
tests_unit_matrix_stats_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_matrix_stats_LDADD = $(TEST_LDADD)
# The generated model of the synthetic sweep is compiled into the test, not the library.
tests_unit_spmv_select_SOURCES = tests/unit/spmv_select.c %reldir%/select/model_sm99.c
tests_unit_spmv_select_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/spmv
tests_unit_spmv_select_LDADD = $(TEST_LDADD)
EXTRA_DIST += \
	%reldir%/select/sweep-cpu.sh \
	%reldir%/select/train.sh \
	%reldir%/select/synthetic.tsv
