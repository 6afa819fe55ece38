#!/bin/sh
# output.sh: -o writes the solution as a Matrix Market array that reads back, with A x = b to the solver's tolerance.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)

expect_rc 0 "nos3 --rhs ones -o x.mtx" --device cpu --rhs ones --rtol 1e-10 -o "$tmp/x.mtx" "$nos3"
check "x.mtx exists" test -s "$tmp/x.mtx"
check "x.mtx has the array header" grep -i -E '^%%MatrixMarket[ ]+matrix[ ]+array[ ]+real[ ]+general' "$tmp/x.mtx"
# The size line and 960 finite numbers after the comments.
check "x.mtx holds 960 x 1 numbers" awk '
  /^%/ { next }
  !size { if ($1 != 960 || $2 != 1) exit 1; size = 1; next }
  $1 ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ { n++; next }
  { exit 1 }
  END { exit !(size && n == 960) }' "$tmp/x.mtx"

# The library reads the file back: as b, it has the right length.
expect_rc 0 "x.mtx read back as --rhs" --device cpu --rhs "$tmp/x.mtx" "$nos3"
expect_rc 0 "x.mtx read back as the b.mtx argument, --output=FILE" --device cpu \
  --output="$tmp/y.mtx" "$nos3" "$tmp/x.mtx"

# The values: ||1 - A x||/||1|| from the written x and the matrix file, in Python.
if [ -n "$PYTHON3" ]; then
  check "A x = ones to 1e-9 from the written x" "$PYTHON3" -c '
import math, sys
def data_lines(path):
    with open(path) as f:
        header = f.readline().lower()
        lines = [l for l in f if not l.startswith("%") and l.strip()]
    return header, lines
header, lines = data_lines(sys.argv[1])
n = int(lines[0].split()[0])
y = [0.0] * n
x = [float(v) for v in data_lines(sys.argv[2])[1][1:]]
for l in lines[1:]:
    i, j, v = l.split()
    i, j, v = int(i) - 1, int(j) - 1, float(v)
    y[i] += v * x[j]
    if "symmetric" in header and i != j:
        y[j] += v * x[i]
r = math.sqrt(sum((1.0 - yi) ** 2 for yi in y)) / math.sqrt(n)
print("# ||1 - A x||/||1|| = %.3e" % r)
sys.exit(0 if len(x) == n and r <= 1e-9 else 1)' "$nos3" "$tmp/x.mtx"
else
  skip "A x = ones from the written x" "no python3"
fi

expect_rc 2 "-o into a folder that does not exist" --device cpu -o "$tmp/no/such/dir/x.mtx" "$nos3"
finish
