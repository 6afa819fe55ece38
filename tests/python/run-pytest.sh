#!/bin/sh
# run-pytest.sh: the Python package's tests (python/tests, pytest) against the library of this build; skips (77) without a Python that has NumPy, SciPy and pytest.
# The first of $SPS_PYTHON, configure's $PYTHON3, python3 and /usr/bin/python3 that imports
# numpy, scipy and pytest runs them. The package is taken from the source tree and the library
# from the build ($SPS_BUILDDIR/.libs) through SPSOLVE_LIB; nothing is written into the source
# tree (no bytecode, no pytest cache), so it also runs from a read-only tree (make distcheck).
: "${SPS_BUILDDIR:?SPS_BUILDDIR is not set (run through make check)}"
: "${SPS_SRCDIR:?SPS_SRCDIR is not set (run through make check)}"

lib=
for f in "$SPS_BUILDDIR/.libs/libspsolve.so" "$SPS_BUILDDIR/.libs/libspsolve.dylib"; do
  if [ -f "$f" ]; then lib=$f; break; fi
done
if [ -z "$lib" ]; then
  echo "1..0 # SKIP no shared libspsolve in $SPS_BUILDDIR/.libs (configured --disable-shared?)"
  exit 77
fi

py=
for cand in "${SPS_PYTHON:-}" "${PYTHON3:-}" python3 /usr/bin/python3; do
  [ -n "$cand" ] || continue
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c "import numpy, scipy, pytest" >/dev/null 2>&1; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "1..0 # SKIP no python3 with numpy, scipy and pytest (apt-get install python3-numpy python3-scipy python3-pytest)"
  exit 77
fi
echo "# $("$py" -c 'import sys, numpy, scipy, pytest; print(sys.executable, sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "pytest", pytest.__version__)')"

# Under --enable-sanitizers the library needs the ASan runtime first in the process: preload it
# (Python itself keeps memory at exit, so leak detection is left to the C tests).
if [ -n "${SPS_SANITIZED:-}" ]; then
  asan=$(${SPS_CC:-gcc} -print-file-name=libasan.so 2>/dev/null)
  if [ -f "$asan" ]; then
    LD_PRELOAD=$asan${LD_PRELOAD:+:$LD_PRELOAD}
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LD_PRELOAD ASAN_OPTIONS
  else
    echo "1..0 # SKIP the sanitizer build's library needs libasan.so preloaded, and $(${SPS_CC:-gcc} --version | head -n 1) names none"
    exit 77
  fi
fi
PYTHONPATH=$SPS_SRCDIR/python${PYTHONPATH:+:$PYTHONPATH}
SPSOLVE_LIB=$lib
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH SPSOLVE_LIB PYTHONDONTWRITEBYTECODE
"$py" -m pytest -p no:cacheprovider -v -rs --rootdir="$SPS_SRCDIR/python" "$SPS_SRCDIR/python/tests"
rc=$?
case $rc in
  0) exit 0 ;;
  1) exit 1 ;;
  5) echo "# no test collected"; exit 77 ;;
  *) exit 99 ;;
esac
