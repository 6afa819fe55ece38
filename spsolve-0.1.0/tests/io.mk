# tests/io.mk: tests of Matrix Market input and output, CSR assembly and the status tables.
check_PROGRAMS += \
	tests/unit/mm_read \
	tests/unit/csr_assembly \
	tests/unit/status
TESTS += \
	tests/unit/mm_read \
	tests/unit/csr_assembly \
	tests/unit/status

tests_unit_mm_read_SOURCES = tests/unit/mm_read.c
tests_unit_mm_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_mm_read_LDADD = $(TEST_LDADD)
tests_unit_csr_assembly_SOURCES = tests/unit/csr_assembly.c
tests_unit_csr_assembly_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_csr_assembly_LDADD = $(TEST_LDADD)
tests_unit_status_SOURCES = tests/unit/status.c
tests_unit_status_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_status_LDADD = $(TEST_LDADD)
