# tests/solvers.mk: (filled in as the tests grow)
# Device-driven GMRES(m) and BiCGSTAB steps of the backend ops table (core/krylov_state.h).
check_PROGRAMS += tests/unit/krylov_steps
TESTS += tests/unit/krylov_steps
tests_unit_krylov_steps_SOURCES = %reldir%/unit/krylov_steps.c
tests_unit_krylov_steps_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/spmv -I$(top_srcdir)/tests
tests_unit_krylov_steps_LDADD = $(TEST_LDADD)
