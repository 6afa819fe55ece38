# tests/select.mk: the SpMV choice: matrix statistics and the sweep harness on the CPU.
check_PROGRAMS += tests/unit/matrix_stats
TESTS += \
	tests/unit/matrix_stats \
	%reldir%/select/sweep-cpu.sh
tests_unit_matrix_stats_SOURCES = tests/unit/matrix_stats.c
tests_unit_matrix_stats_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_matrix_stats_LDADD = $(TEST_LDADD)
EXTRA_DIST += %reldir%/select/sweep-cpu.sh
