# tests/select.mk: the SpMV choice: matrix statistics.
check_PROGRAMS += tests/unit/matrix_stats
TESTS += tests/unit/matrix_stats
tests_unit_matrix_stats_SOURCES = tests/unit/matrix_stats.c
tests_unit_matrix_stats_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_matrix_stats_LDADD = $(TEST_LDADD)
