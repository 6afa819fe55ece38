# tests/solvers.mk: (filled in as the tests grow)
