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
# Smoothed-aggregation multigrid (precond/amg*.c): the hierarchy's properties, the cycle's
# symmetry, solves with recorded counts and the bad parameters; amg-cuda.sh runs the same
# program on the GPU with the same expectations (77 without one).
check_PROGRAMS += tests/unit/amg
TESTS += tests/unit/amg %reldir%/unit/amg-cuda.sh
EXTRA_DIST += %reldir%/unit/amg-cuda.sh
tests_unit_amg_SOURCES = %reldir%/unit/amg.c
tests_unit_amg_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core -I$(top_srcdir)/precond -I$(top_srcdir)/tests
tests_unit_amg_LDADD = $(TEST_LDADD)
# CG + AMG on the shared SPD matrices (b = A*ones) against recorded counts, on the CPU and
# (amg-cuda.sh) the GPU with the same expectations.
check_PROGRAMS += tests/regress/amg
TESTS += tests/regress/amg %reldir%/regress/amg-cuda.sh
EXTRA_DIST += %reldir%/regress/amg-cuda.sh
tests_regress_amg_SOURCES = %reldir%/regress/amg.c
tests_regress_amg_LDADD = $(TEST_LDADD)
