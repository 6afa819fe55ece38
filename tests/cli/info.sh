#!/bin/sh
# info.sh: --help, --version, --list-spmv, the text report, --verbose, --monitor and --quiet.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
man=${SPS_SRCDIR:-.}/doc/spsolve.1

expect_rc 0 "--help" --help
cp "$tmp/out" "$tmp/help"
check "--help gives the usage line" grep -F "Usage: spsolve [OPTIONS] A.mtx[.gz] [b.mtx]" "$tmp/help"
check "--help documents exit status 3" grep -E '^  3  ' "$tmp/help"
# The options named in --help and in the man page are the same set, and the parser knows each.
grep -o -e '--[a-z][a-z-]*' -e ' -[a-z],' "$tmp/help" | sed 's/^ //; s/,$//' | sort -u >"$tmp/help-opts"
sed 's/\\-/-/g; s/\\f[BIR]//g' "$man" | grep -o -e '--[a-z][a-z-]*' -e '^\.B[IR]* -[a-z]' |
  sed 's/^\.B[IR]* //' | sort -u >"$tmp/man-opts"
if cmp -s "$tmp/help-opts" "$tmp/man-opts"; then
  ok "--help and spsolve(1) name the same $(wc -l <"$tmp/help-opts") options"
else
  not_ok "--help and spsolve(1) name different options (< help, > man)"
  diff "$tmp/help-opts" "$tmp/man-opts" | diag
fi
for o in solver precond rtol atol maxit restart flexible gmres-fused device spmv spmv-threads-per-row list-spmv rhs \
  seed output monitor history json quiet verbose help version; do
  check "--help mentions --$o" grep -F -e "--$o" "$tmp/help"
done
expect_rc 0 "--version" --version
check "--version names the package version" grep -E '^spsolve [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out"
check "--version says whether CUDA is built" grep -E '^CUDA support: (yes|no)$' "$tmp/out"
check "--version names the CUDA device or says there is none" grep -E '^CUDA device: .+' "$tmp/out"

expect_rc 0 "--list-spmv" --list-spmv
missing=
for name in $(sed -n '/define SPS_SPMV_LIST/,/^$/s/^ *X(SPS_SPMV_[A-Z_]*, *"\([a-z-]*\)".*/\1/p' "${SPS_SRCDIR:-.}/include/spsolve.h"); do
  grep -E "^$name +(yes|no) +(yes|no) +[A-Za-z]" "$tmp/out" >/dev/null || missing="$missing $name"
done
check "--list-spmv lists every variant of spsolve.h with cpu, cuda and a description${missing:+ (missing:$missing)}" test -z "$missing"
check "csr-scalar is available on the CPU" grep -E '^csr-scalar +yes' "$tmp/out"

expect_rc 0 "the text report" --device cpu "$nos3"
for field in matrix size device solver preconditioner spmv iterations reason residual error time; do
  check "the report has a '$field' line" grep -E "^$field " "$tmp/out"
done
check "the report gives the size" grep -E '^size +960 x 960, 15844 nonzeros' "$tmp/out"
check "the report names the reason" grep -E '^reason .*SPS_CONVERGED_RTOL' "$tmp/out"

expect_rc 0 "--verbose" --device cpu --verbose "$nos3"
check "--verbose gives nonzeros per row" grep -E '^nonzeros/row +min [0-9]+, mean [0-9.]+, max [0-9]+; 0 empty rows' "$tmp/out"
check "--verbose gives the symmetry" grep -E '^symmetry +symmetric' "$tmp/out"
check "--verbose gives the file size" grep -E '^file size +[1-9][0-9]* bytes' "$tmp/out"

expect_rc 0 "--monitor=10" --device cpu --monitor=10 "$nos3"
check "--monitor prints residuals on stderr" grep -E 'iteration +10 ' "$tmp/err"
expect_rc 0 "--monitor takes no separate value: the next word is A" --device cpu --monitor "$nos3"
check "--monitor defaults to every iteration" grep -E 'iteration +1 ' "$tmp/err"

expect_rc 0 "--quiet" --device cpu --quiet "$nos3"
check "--quiet prints nothing" test ! -s "$tmp/out"
expect_rc 1 "--quiet, not converged" --device cpu -q --maxit=1 "$nos3"
check "--quiet prints nothing when not converged" test ! -s "$tmp/out"

expect_rc 0 "--rhs random --seed 7 and the bicgstab solver" --device cpu --rhs random --seed 7 \
  --solver bicgstab --precond jacobi "$nos3"
check "the report names bicgstab" grep -E '^solver +bicgstab' "$tmp/out"
finish
