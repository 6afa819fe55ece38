# tests/precond.mk: tests of the preconditioners: the ILUTP factorisation on small matrices
# against dense references, and GMRES + ILUT on the shared matrices (skips without them).
check_PROGRAMS += tests/unit/ilut_factor tests/regress/ilut_gmres
TESTS += tests/unit/ilut_factor tests/regress/ilut_gmres
tests_unit_ilut_factor_SOURCES = %reldir%/unit/ilut_factor.c
tests_unit_ilut_factor_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/precond -I$(top_srcdir)/tests
tests_unit_ilut_factor_LDADD = $(TEST_LDADD)
tests_regress_ilut_gmres_SOURCES = %reldir%/regress/ilut_gmres.c
tests_regress_ilut_gmres_LDADD = $(TEST_LDADD)
# The matching, its scaling and Ruiz equilibration (precond/reorder.c).
check_PROGRAMS += tests/unit/reorder
TESTS += tests/unit/reorder
tests_unit_reorder_SOURCES = %reldir%/unit/reorder.c
tests_unit_reorder_LDADD = $(TEST_LDADD)
