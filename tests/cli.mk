# tests/cli.mk: shell tests of the spsolve tool (POSIX sh, TAP lines); they use $SPS_BUILDDIR/spsolve and $SPS_TEST_DATA.
TESTS += \
	%reldir%/cli/exit_codes.sh \
	%reldir%/cli/json.sh \
	%reldir%/cli/output.sh \
	%reldir%/cli/info.sh \
	%reldir%/cli/numerics.sh \
	%reldir%/cli/progress.sh \
	%reldir%/cli/stats.sh \
	%reldir%/cli/tune.sh \
	%reldir%/cli/mpi.sh \
	%reldir%/cli/many.sh
EXTRA_DIST += \
	%reldir%/cli/common.sh \
	%reldir%/cli/exit_codes.sh \
	%reldir%/cli/json.sh \
	%reldir%/cli/output.sh \
	%reldir%/cli/info.sh \
	%reldir%/cli/numerics.sh \
	%reldir%/cli/progress.sh \
	%reldir%/cli/stats.sh \
	%reldir%/cli/tune.sh \
	%reldir%/cli/mpi.sh \
	%reldir%/cli/many.sh
