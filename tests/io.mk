# tests/io.mk: (filled in as the tests grow)
