#!/bin/sh
# tune.sh: --spmv tune on the CPU (a candidate picked from a timed table) and its disk cache: a hit without timing, concurrent writers, a directory that cannot be written, corrupted and foreign entries, one key per structure; --verbose says why.
. "${SPS_SRCDIR:-.}/tests/cli/common.sh"
nos3=$(matrix nos3)
orsreg=$(matrix orsreg_1)

if [ -z "$PYTHON3" ]; then
  echo "1..0 # SKIP no python3 to parse the JSON"
  exit 77
fi

cache=$tmp/cache
SPSOLVE_CACHE_DIR=$cache
export SPSOLVE_CACHE_DIR

# entries DIR: the number of cache entries in DIR.
entries() { ls "$1" 2>/dev/null | grep -c '^spmv-[0-9a-f]*\.txt$'; }

# The first tuning: a table of timed candidates, the fastest used, the entry stored.
expect_rc 0 "nos3 --spmv tune on the CPU" --device cpu --spmv tune --json "$nos3"
cp "$tmp/out" "$tmp/first.json"
json_checks <<'EOT'
the request is tune and the choice comes from tuning | d["spmv_requested"] == "tune" and d["spmv_source"] == "tune"
the table lists several candidates, each a variant | len(d["spmv_candidates"]) >= 3 and all(c["spmv"] not in ("auto", "tune") for c in d["spmv_candidates"])
every candidate of the CPU was timed | d["spmv_tune_timed"] == len(d["spmv_candidates"]) and all(c["status"] == "SPS_SUCCESS" and c["seconds"] > 0 for c in d["spmv_candidates"])
the AUTO rule's pick (csr-scalar on the CPU) comes first | d["spmv_candidates"][0]["spmv"] == "csr-scalar"
the variant in use is the one candidate marked used | [(c["spmv"], c["threads_per_row"]) for c in d["spmv_candidates"] if c["used"]] == [(d["spmv"], d["spmv_threads_per_row"] if d["spmv"] == "csr-vector" else 0)]
the variant in use is the fastest candidate | min(c["seconds"] for c in d["spmv_candidates"]) == [c["seconds"] for c in d["spmv_candidates"] if c["used"]][0]
the cost is reported in seconds and SpMV-equivalents | d["spmv_tune_seconds"] > 0 and d["spmv_tune_spmv_equivalents"] >= d["spmv_tune_timed"]
the reason names the fastest | d["spmv"] in d["spmv_why"] and "fastest" in d["spmv_why"]
the entry was stored in SPSOLVE_CACHE_DIR | d["spmv_cache"] == "stored" and d["spmv_cache_file"].startswith(__import__("os").environ["SPSOLVE_CACHE_DIR"] + "/spmv-")
the solve converged | d["converged"] is True
EOT
check "one cache entry, no temporary file left" test "$(entries "$cache")" -eq 1 -a "$(ls -A "$cache" | wc -l)" -eq 1

# The second run reads the entry: same choice, nothing timed.
expect_rc 0 "nos3 --spmv tune again" --device cpu --spmv tune --json "$nos3"
cp "$tmp/out" "$tmp/second.json"
json_checks <<'EOT'
the choice comes from the cache, nothing timed | d["spmv_source"] == "cache" and d["spmv_tune_timed"] == 0 and d["spmv_cache"] == "hit"
the reason names the cache entry | d["spmv_cache_file"] in d["spmv_why"]
EOT
check "the cached choice is the tuned one, with the same table" "$PYTHON3" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda d: (d["spmv"], d["spmv_threads_per_row"], [(c["spmv"], c["threads_per_row"]) for c in d["spmv_candidates"]])
sys.exit(0 if key(a) == key(b) else 1)' "$tmp/first.json" "$tmp/second.json"

# --verbose: the reason and the table (tune), the cache entry (hit), the rule's test (auto).
expect_rc 0 "--verbose with a cache hit" --device cpu --spmv tune --verbose "$nos3"
check "--verbose says the variant came from the cache" grep -E '^spmv +[a-z-]+.*\(chosen by cache\)' "$tmp/out"
check "--verbose names the cache file used" grep -E "^  cache +hit: $cache/spmv-[0-9a-f]+\.txt" "$tmp/out"
check "--verbose shows the table stored with the entry" grep -E '^  candidate +csr-scalar +[0-9.]+ us' "$tmp/out"
expect_rc 0 "--verbose with tuning" --device cpu --spmv tune --verbose "$nos3"
SPSOLVE_CACHE_DIR='' run --device cpu --spmv tune --verbose "$nos3"
check "--verbose tune without a cache: why, timing and the table with the one used" sh -c "
  grep -E '^  why +[a-z-]+.*fastest of [0-9]+ candidates' '$tmp/out' &&
  grep -E '^  tuning +[0-9]+ candidates timed in [0-9.]+ s \([0-9]+ SpMV-equivalents\)' '$tmp/out' &&
  grep -E '^  candidate .*\[used\]' '$tmp/out' && grep -E '^  cache +off' '$tmp/out'"
expect_rc 0 "--verbose with auto" --device cpu --verbose "$nos3"
check "--verbose gives the AUTO rule's reasoning" grep -E '^  why +CPU: csr-scalar \(every CPU variant is a row loop\)' "$tmp/out"
expect_rc 0 "auto without --verbose" --device cpu "$nos3"
check "the report says who chose, without the reasoning" sh -c "grep -E '^spmv +csr-scalar \(chosen by rule\)' '$tmp/out' && ! grep -E '^  why' '$tmp/out'"
expect_rc 0 "a named variant" --device cpu --spmv merge --json "$nos3"
json_checks <<'EOT'
a named variant is the user's, with no table and no cache | d["spmv_source"] == "user" and d["spmv_candidates"] == [] and d["spmv_cache_file"] is None and d["spmv_tune_seconds"] == 0
EOT

# A different structure is a different key; the values do not matter.
expect_rc 0 "orsreg_1 --spmv tune" --device cpu --spmv tune --json "$orsreg"
check "a second matrix structure adds a second entry" test "$(entries "$cache")" -eq 2
"$PYTHON3" -c '
import sys
src, dst = sys.argv[1:3]
out = []
size_seen = False
for line in open(src):
    if line.startswith("%") or not size_seen:
        size_seen = size_seen or not line.startswith("%")
        out.append(line)
        continue
    i, j, v = line.split()
    out.append("%s %s %.17g\n" % (i, j, 2.0 * float(v) + 1.0))
open(dst, "w").write("".join(out))' "$nos3" "$tmp/nos3_scaled.mtx"
expect_rc 0 "nos3 with other values, same structure" --device cpu --spmv tune --json "$tmp/nos3_scaled.mtx"
json_checks <<'EOT'
the same structure with other values hits the same entry | d["spmv_source"] == "cache"
EOT
check "still two entries" test "$(entries "$cache")" -eq 2

# Corrupted entries are ignored and overwritten: truncated, a byte changed, another version.
entry=$(ls "$cache"/spmv-*.txt | while read -r f; do grep -q '^matrix 960 ' "$f" && echo "$f"; done)
head -c 100 "$entry" >"$tmp/trunc" && cp "$tmp/trunc" "$entry"
expect_rc 0 "a truncated entry" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
a truncated entry is ignored, the matrix re-tuned and the entry rewritten | d["spmv_source"] == "tune" and d["spmv_tune_timed"] > 0 and d["spmv_cache"].startswith("stored; ignored:") and "truncated" in d["spmv_cache"]
EOT
expect_rc 0 "the rewritten entry" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
the rewritten entry is valid | d["spmv_source"] == "cache"
EOT
sed 's/^choice \([a-z-]*\) /choice \1x /' "$entry" >"$tmp/garbled" && cp "$tmp/garbled" "$entry"
expect_rc 0 "an entry with a changed byte" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
an entry whose checksum fails is ignored and rewritten | d["spmv_source"] == "tune" and "checksum" in d["spmv_cache"]
EOT
printf 'not a cache entry\n' >"$entry"
expect_rc 0 "an entry of garbage" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
garbage is ignored and rewritten | d["spmv_source"] == "tune" and d["spmv_cache"].startswith("stored; ignored:")
EOT
# Another version's entry, with a valid checksum (FNV-1a 64 of the text before the last line).
"$PYTHON3" -c '
import sys
path = sys.argv[1]
lines = [l for l in open(path) if not l.startswith("checksum ")]
lines = [("version 0.0.0-other\n" if l.startswith("version ") else l) for l in lines]
body = "".join(lines).encode()
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
open(path, "w").write(body.decode() + "checksum %016x\n" % h)' "$entry"
expect_rc 0 "an entry of another version" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
another version's entry is ignored, saying so, and rewritten | d["spmv_source"] == "tune" and "0.0.0-other" in d["spmv_cache"]
EOT
expect_rc 0 "after the rewrite" --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
the entry is valid again | d["spmv_source"] == "cache"
EOT

# Four processes tune the same matrix at once: one valid entry, no temporary file left.
race=$tmp/race
pids=
for k in 1 2 3 4; do
  SPSOLVE_CACHE_DIR=$race "$SPSOLVE" --device cpu --spmv tune --json "$orsreg" >"$tmp/race$k.json" 2>&1 &
  pids="$pids $!"
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
check "four concurrent tunings all succeed" test "$fails" -eq 0
check "they leave exactly one file, an entry" test "$(entries "$race")" -eq 1 -a "$(ls -A "$race" | wc -l)" -eq 1
SPSOLVE_CACHE_DIR=$race run --device cpu --spmv tune --json "$orsreg"
json_checks <<'EOT'
the entry they left is valid | d["spmv_source"] == "cache"
EOT

# A cache directory that cannot be made or written: the tuning works, nothing is stored, no error.
printf 'x\n' >"$tmp/afile"
SPSOLVE_CACHE_DIR=$tmp/afile/cache run --device cpu --spmv tune --json "$nos3"
check "a cache path below a regular file: exit 0, nothing on stderr" test "$rc" -eq 0 -a ! -s "$tmp/err"
json_checks <<'EOT'
a cache path below a regular file: tuned, not stored, saying why | d["spmv_source"] == "tune" and d["spmv_cache"].startswith("not stored:")
EOT
# A read-only directory. Permissions do not bind root: then the run is made as the user nobody
# (setpriv), on a copy of the matrix it can read.
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
ro_run=
if ! touch "$tmp/ro/probe" 2>/dev/null; then
  ro_run=plain
elif command -v setpriv >/dev/null 2>&1 && chmod 755 "$tmp" && cp "$nos3" "$tmp/nos3-ro.mtx" &&
  chmod 644 "$tmp/nos3-ro.mtx" &&
  setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
  ro_run=nobody
fi
rm -f "$tmp/ro/probe"
if [ "$ro_run" = plain ]; then
  SPSOLVE_CACHE_DIR=$tmp/ro run --device cpu --spmv tune --json "$nos3"
elif [ "$ro_run" = nobody ]; then
  SPSOLVE_CACHE_DIR=$tmp/ro setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$SPSOLVE" --device cpu --spmv tune --json "$tmp/nos3-ro.mtx" >"$tmp/out" 2>"$tmp/err"
  rc=$?
fi
if [ -n "$ro_run" ]; then
  check "a read-only cache directory ($ro_run): exit 0, nothing on stderr, no file" \
    test "$rc" -eq 0 -a ! -s "$tmp/err" -a -z "$(ls -A "$tmp/ro")"
  json_checks <<'EOT'
a read-only cache directory: tuned, not stored, saying why | d["spmv_source"] == "tune" and d["spmv_cache"].startswith("not stored:") and "ermission" in d["spmv_cache"]
EOT
else
  skip "a read-only cache directory" "root, and no setpriv to run as another user"
fi
chmod 755 "$tmp/ro"

# SPSOLVE_CACHE_DIR set and empty turns the cache off; unset, XDG_CACHE_HOME, then HOME.
SPSOLVE_CACHE_DIR='' run --device cpu --spmv tune --json "$nos3"
json_checks <<'EOT'
SPSOLVE_CACHE_DIR= turns the cache off | d["spmv_cache"] == "off" and d["spmv_cache_file"] is None and d["spmv_source"] == "tune"
EOT
(unset SPSOLVE_CACHE_DIR; XDG_CACHE_HOME=$tmp/xdg HOME=$tmp/home "$SPSOLVE" --device cpu --spmv tune -q "$nos3")
check "without SPSOLVE_CACHE_DIR the entry goes to \$XDG_CACHE_HOME/spsolve" test "$(entries "$tmp/xdg/spsolve")" -eq 1 -a ! -d "$tmp/home/.cache"
(unset SPSOLVE_CACHE_DIR XDG_CACHE_HOME; HOME=$tmp/home "$SPSOLVE" --device cpu --spmv tune -q "$nos3")
check "without XDG_CACHE_HOME it goes to \$HOME/.cache/spsolve" test "$(entries "$tmp/home/.cache/spsolve")" -eq 1

# Threads per row set with tune restrict csr-vector's candidates to that value.
SPSOLVE_CACHE_DIR='' run --device cpu --spmv tune --spmv-threads-per-row 4 --json "$nos3"
json_checks <<'EOT'
--spmv-threads-per-row 4 leaves one csr-vector candidate, with 4 | [c["threads_per_row"] for c in d["spmv_candidates"] if c["spmv"] == "csr-vector"] == [4]
EOT

# On a GPU: the candidates timed in CUDA graphs, cusparse among them; another device key.
if "$SPSOLVE" --version | grep -q '^CUDA device: no CUDA device'; then
  skip "--spmv tune on a GPU" "no CUDA device"
else
  gcache=$tmp/gpu-cache
  SPSOLVE_CACHE_DIR=$gcache run --device cuda --spmv tune --json "$nos3"
  check "--device cuda --spmv tune: exit 0" test "$rc" -eq 0
  json_checks <<'EOT'
GPU: tuned, every candidate timed in a CUDA graph, cusparse among them | d["spmv_source"] == "tune" and all(c["note"].startswith("graph") for c in d["spmv_candidates"] if c["status"] == "SPS_SUCCESS") and any(c["spmv"] == "cusparse" for c in d["spmv_candidates"])
GPU: the fastest is used and the entry stored | [c["seconds"] for c in d["spmv_candidates"] if c["used"]] == [min(c["seconds"] for c in d["spmv_candidates"] if c["seconds"])] and d["spmv_cache"] == "stored"
GPU: the solve converged | d["converged"] is True
EOT
  SPSOLVE_CACHE_DIR=$gcache run --device cuda --spmv tune --json "$nos3"
  json_checks <<'EOT'
GPU: the second run reads the entry | d["spmv_source"] == "cache" and d["spmv_tune_timed"] == 0
EOT
  SPSOLVE_CACHE_DIR=$gcache run --device cpu --spmv tune --json "$nos3"
  json_checks <<'EOT'
the CPU does not read the GPU's entry: another device, another key | d["spmv_source"] == "tune"
EOT
  check "the GPU's and the CPU's entries side by side" test "$(entries "$gcache")" -eq 2
fi

finish
