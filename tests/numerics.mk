# tests/numerics.mk: norms and solves at any scale, the solver's guards (aliasing, initial guess, restart cap, divergence, breakdown against NaN), the allocation-failure loop and device out-of-memory.
check_PROGRAMS += tests/unit/scaling tests/unit/solver_guards tests/unit/alloc_fail \
	tests/unit/device_memory
TESTS += tests/unit/scaling tests/unit/solver_guards tests/unit/alloc_fail tests/unit/device_memory
EXTRA_DIST += %reldir%/unit/model_problems.h
tests_unit_scaling_SOURCES = %reldir%/unit/scaling.c
tests_unit_scaling_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_scaling_LDADD = $(TEST_LDADD)
tests_unit_solver_guards_SOURCES = %reldir%/unit/solver_guards.c
tests_unit_solver_guards_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_solver_guards_LDADD = $(TEST_LDADD)
# The allocation-failure loop runs the spsolve command's main path too: the command's sources
# are compiled into it with main renamed.
tests_unit_alloc_fail_SOURCES = %reldir%/unit/alloc_fail.c $(spsolve_SOURCES)
tests_unit_alloc_fail_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/cli \
	-Dmain=sps_cli_main
tests_unit_alloc_fail_LDADD = $(TEST_LDADD) $(MPI_LIBS)
tests_unit_device_memory_SOURCES = %reldir%/unit/device_memory.c
tests_unit_device_memory_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_device_memory_LDADD = $(TEST_LDADD)
# The progress callback (sps_solver_set_progress), on the CPU and on the GPU.
check_PROGRAMS += tests/unit/progress
TESTS += tests/unit/progress tests/unit/progress-cuda.sh
EXTRA_DIST += %reldir%/unit/progress-cuda.sh
tests_unit_progress_SOURCES = %reldir%/unit/progress.c
tests_unit_progress_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_unit_progress_LDADD = $(TEST_LDADD)
