#!/bin/sh
# mm_gmres.sh: runs the mm_gmres example on the bundled orsreg_1 matrix, plain and with Jacobi (TESTS entries take no arguments).
# The matrix is unpacked first when gzip is at hand, so the test also passes in a build without zlib.
set -u
: "${SPS_TEST_DATA:?SPS_TEST_DATA is not set (run through make check)}"
: "${SPS_BUILDDIR:=.}"
prog=$SPS_BUILDDIR/examples/mm_gmres
matrix=$SPS_TEST_DATA/orsreg_1.mtx.gz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mm_gmres.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
if command -v gzip >/dev/null 2>&1; then
  gzip -dc "$matrix" > "$tmp/orsreg_1.mtx" || exit 99
  matrix=$tmp/orsreg_1.mtx
fi
status=0
"$prog" "$matrix" || status=1
"$prog" "$matrix" jacobi || status=1
exit $status
