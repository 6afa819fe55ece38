# tests/kernels.mk: (filled in as the tests grow)
