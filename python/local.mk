# python/local.mk: the Python package (ctypes over the installed libspsolve) and its overhead
# benchmark, shipped in the release tarball; tests/python.mk runs its tests.
EXTRA_DIST += \
	bench/python-overhead.py \
	%reldir%/README.md \
	%reldir%/pyproject.toml \
	%reldir%/spsolve/__init__.py \
	%reldir%/spsolve/_core.py \
	%reldir%/spsolve/_lib.py \
	%reldir%/spsolve/plot.py \
	%reldir%/tests/conftest.py \
	%reldir%/tests/test_abi.py \
	%reldir%/tests/test_cupy.py \
	%reldir%/tests/test_errors.py \
	%reldir%/tests/test_plot.py \
	%reldir%/tests/test_scipy_compare.py \
	%reldir%/tests/test_solve_many.py \
	%reldir%/tests/test_solver.py
