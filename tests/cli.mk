# tests/cli.mk: (filled in as the tests grow)
