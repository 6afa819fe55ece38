# tests/python.mk: the Python package's pytest suite (python/tests) against the library just
# built, on the CPU (its CuPy tests skip without CuPy and a GPU); skips without a Python that
# has NumPy, SciPy and pytest.
TESTS += %reldir%/python/run-pytest.sh
EXTRA_DIST += %reldir%/python/run-pytest.sh
