#!/bin/sh
# race-coverage-check.sh: tests/race-coverage.sh on made-up launch logs (which kernels count as
# checked, the CLI's exit 1, the greedy pick of runs, the exit codes), and tests/launch_log.c
# builds as tests/sanitize-gpu.sh builds it, exporting every launch entry point it stands in for.
srcdir=${srcdir:-.}
rc=$srcdir/tests/race-coverage.sh
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
n=0 fail=0
check() { # description, then a command that must succeed
  n=$((n + 1)); d=$1; shift
  if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fail=1; fi
}
mkdir -p "$t/all" "$t/race"
printf '_Z1av\n_Z1bv\n' > "$t/all/plain-p-0of2.kernels"; printf '    3 ok 1\n' > "$t/all/plain-p-0of2.log"
printf '_Z1bv\n_Z1cv\n' > "$t/all/plain-p-1of2.kernels"; printf '   40 ok 1\n' > "$t/all/plain-p-1of2.log"
printf '_Z1dv\n' > "$t/all/plain-cli-x.kernels"; printf '    1 x\n' > "$t/all/plain-cli-x.log"
printf '_Z1cv\n' > "$t/all/plain-q-0of1.kernels"; printf '    5 ok 1\n' > "$t/all/plain-q-0of1.log"
# p-0of2 clean (its own log), p-1of2 out of time, cli-x exit 1 with no hazard (counts),
# q-0of1 hazards (rc 9: does not count)
printf 'racecheck\tp-0of2\tgpu=0\trc=0\tok=1\tnot_ok=0\tlast=3s\t========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n' > "$t/race/summary.txt"
printf 'racecheck\tp-1of2\tgpu=0\trc=124\tok=0\tnot_ok=0\tlast=9s\t\n' >> "$t/race/summary.txt"
printf 'racecheck\tcli-x\tgpu=0\trc=1\tok=0\tnot_ok=0\tlast=1s\t========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n' >> "$t/race/summary.txt"
printf 'racecheck\tq-0of1\tgpu=0\trc=9\tok=1\tnot_ok=0\tlast=5s\t========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n' >> "$t/race/summary.txt"
printf '_Z1av\n_Z1bv\n' > "$t/race/racecheck-p-0of2.kernels"
out=$(bash "$rc" "$t/all" "$t/race"); st=$?
check "one kernel of four not yet checked, exit 1" test "$st" = 1
check "the count line" sh -c "echo \"\$1\" | head -1 | grep -q 'launched by the runs of .*: 4; in a clean racecheck run: 3; not yet: 1'" _ "$out"
check "the kernel not checked is c(), with both runs that launch it, quickest first" \
  sh -c "echo \"\$1\" | tail -1 | grep -q '^c()	plain-q-0of1 (5s), plain-p-1of2 (40s)$'" _ "$out"
pick=$(bash "$rc" -r "$t/all" "$t/race")
check "-r picks the quickest run that launches c()" test "$pick" = "q-0of1"
printf 'racecheck\tq-0of1\tgpu=0\trc=0\tok=1\tnot_ok=0\tlast=5s\t========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n' > "$t/race2.txt"
mkdir -p "$t/race2" && mv "$t/race2.txt" "$t/race2/summary.txt"
bash "$rc" "$t/all" "$t/race" "$t/race2" > "$t/out2"; st=$?
check "a clean run of q (its kernels from the plain run of the same name) completes it, exit 0" \
  sh -c "test $st = 0 && head -1 '$t/out2' | grep -q 'not yet: 0'"
bash "$rc" -t memcheck "$t/all" "$t/race" > /dev/null; st=$?
check "no memcheck run: nothing checked under memcheck, exit 1" test "$st" = 1
bash "$rc" "$t/all" > /dev/null 2>&1; st=$?
check "bad use exits 2" test "$st" = 2
if ${CC:-cc} -shared -fPIC -o "$t/launch_log.so" "$srcdir/tests/launch_log.c" -ldl -lpthread 2> "$t/cc.log"; then
  # Every entry point exported as a function (T), whatever else the toolchain adds (older
  # binutils list _edata, _end and __bss_start too).
  nm -D --defined-only "$t/launch_log.so" 2> /dev/null | awk '$2 == "T" {print $3}' | sort > "$t/syms"
  missing=
  for f in __cudaGetKernel __cudaLaunchKernel __cudaLaunchKernel_ptsz cudaLaunchCooperativeKernel \
    cudaLaunchCooperativeKernel_ptsz cudaLaunchKernel cudaLaunchKernelExC cudaLaunchKernelExC_ptsz \
    cudaLaunchKernel_ptsz; do
    grep -qx "$f" "$t/syms" || missing="$missing $f"
  done
  [ -z "$missing" ] || echo "# not exported:$missing; exported: $(tr '\n' ' ' < "$t/syms")"
  check "launch_log.so exports the launch entry points it stands in for" test -z "$missing"
else
  cat "$t/cc.log"
  check "launch_log.c builds" false
fi
echo "1..$n"
exit $fail
