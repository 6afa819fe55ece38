# tests/local.mk: the test suite; each group of tests has its own fragment.
# SPSOLVE_CACHE_DIR is set empty so that no test writes the user's cache of --spmv tune (the
# cache tests name their own directory).
# Test programs exit 0 (pass), 1 (fail), 77 (skip: no GPU, no shared matrices), 99 (hard error)
# and print TAP lines for the reader of their log.
AM_TESTS_ENVIRONMENT = \
	SPS_TEST_DATA='$(abs_top_srcdir)/tests/data'; export SPS_TEST_DATA; \
	SPS_BUILDDIR='$(abs_top_builddir)'; export SPS_BUILDDIR; \
	SPS_SRCDIR='$(abs_top_srcdir)'; export SPS_SRCDIR; \
	PYTHON3='$(PYTHON3)'; export PYTHON3; \
	SPS_MPIRUN='$(MPIRUN)'; export SPS_MPIRUN; \
	SPSOLVE_CACHE_DIR=; export SPSOLVE_CACHE_DIR; \
	if test -z "$$SPS_MATRICES" && test -n '$(SPS_MATRICES)'; then \
	  SPS_MATRICES='$(SPS_MATRICES)'; export SPS_MATRICES; fi;

# Under --enable-sanitizers: the CUDA driver maps memory where AddressSanitizer's shadow gap
# would be protected, so the gap is left open; UBSan prints the stack of a finding.
if SPS_SANITIZERS
AM_TESTS_ENVIRONMENT += \
	SPS_SANITIZED=1; export SPS_SANITIZED; SPS_CC='$(CC)'; export SPS_CC; \
	ASAN_OPTIONS="protect_shadow_gap=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}"; export ASAN_OPTIONS; \
	UBSAN_OPTIONS="print_stacktrace=1$${UBSAN_OPTIONS:+:$$UBSAN_OPTIONS}"; export UBSAN_OPTIONS;
endif

TEST_LDADD = libspsolve.la
EXTRA_DIST += %reldir%/testlib.h %reldir%/data %reldir%/sanitize-gpu.sh %reldir%/shard-check.sh \
	%reldir%/launch_log.c %reldir%/race-coverage.sh
# The test programs' shards (sps_case) stay exact: shard-check.sh on each fast one.
TESTS += %reldir%/shards.sh
EXTRA_DIST += %reldir%/shards.sh
# The sanitizer runs' kernel count (race-coverage.sh, launch_log.c) on made-up launch logs.
TESTS += %reldir%/race-coverage-check.sh
EXTRA_DIST += %reldir%/race-coverage-check.sh

include %reldir%/io.mk
include %reldir%/solvers.mk
include %reldir%/cli.mk
include %reldir%/kernels.mk
include %reldir%/precond.mk
include %reldir%/bjacobi.mk
include %reldir%/numerics.mk
include %reldir%/wrap.mk
include %reldir%/python.mk
include %reldir%/select.mk
include %reldir%/mpi.mk
