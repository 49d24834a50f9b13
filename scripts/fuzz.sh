#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/<name>/, executables fuzz_*) with
# clang, ASan and UBSan, and runs each one. Seeds come from
# tests/fuzz/<name>/corpus/ (which also keeps every input that once crashed,
# as a regression test) and, where a target's CMakeLists lists them, from
# ../shared/data.
#
#   scripts/fuzz.sh             CI mode (scripts/test.sh): every seed and
#                               regression input, then mutations from a fixed
#                               seed (-seed=1) for FUZZ_SECONDS (default 20) per
#                               target: a fixed cost however large the corpus
#                               grows (libFuzzer runs the whole seed corpus
#                               before it looks at the clock). The inputs are
#                               the same on every run (only how many of them
#                               fit in the time varies with the machine).
#   scripts/fuzz.sh SECONDS     exploring: a random seed for SECONDS per target.
#   FUZZ_TARGETS="bench_import eeprom_config" limits either mode to those targets.
#
# A crash stops nothing else: every target runs, the crashing input is kept in
# $build/fuzz-artifacts/ and its path printed (fix the bug, then copy it into
# tests/fuzz/<name>/corpus/ under a name that says what it broke). Exits 1 when
# any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
build=${FUZZ_BUILD_DIR:-build-fuzz}
secs=${1:-}
if [ -n "$secs" ] && ! [[ "$secs" =~ ^[0-9]+$ ]]; then echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; fi
ci_secs=${FUZZ_SECONDS:-20}
[[ "$ci_secs" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: FUZZ_SECONDS must be a number of seconds" >&2; exit 2; }
if ! ls tests/fuzz/*/CMakeLists.txt >/dev/null 2>&1; then echo "fuzz.sh: no fuzz targets"; exit 0; fi
# -O1 with line tables only: what libFuzzer's docs suggest for sanitizer
# builds (real stack traces), and much quicker to compile than -O2 -g; the
# sanitizer stage adds the tests to this build. Asserts stay on (no NDEBUG).
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DPIPROV_FUZZ=ON -DPIPROV_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
build_times "$build"
artifacts=$(realpath "$build")/fuzz-artifacts
mkdir -p "$artifacts"
# UBSan findings (overflowing casts, ...) are crashes too, not log lines.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# fuzz_one EXE: runs one target; prints its report (the whole of it
# only on a crash); returns 1 when it crashed.
fuzz_one() {
  local exe=$1 name work extra=() mode d
  name=$(basename "$(dirname "$exe")")
  work=$(mktemp -d)
  if [ -d "tests/fuzz/$name/corpus" ]; then cp -r "tests/fuzz/$name/corpus/." "$work/"; fi
  if [ -f "$build/tests/fuzz/$name/seeds.txt" ]; then
    while IFS= read -r d; do [ -e "$d" ] && extra+=("$d"); done < "$build/tests/fuzz/$name/seeds.txt"
  fi
  if [ -n "$secs" ]; then
    mode=(-max_total_time="$secs")
    echo "== fuzz $(basename "$exe") for ${secs}s (random seed)"
  else
    mode=(-seed=1 -max_total_time="$ci_secs")
    echo "== fuzz $(basename "$exe"): every seed, then ${ci_secs}s of mutations from -seed=1"
  fi
  local rc=0
  if ! "$exe" "${mode[@]}" -print_final_stats=1 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$name-" \
      "$work" "${extra[@]}" > "$work.log" 2>&1; then
    tail -n 60 "$work.log"
    echo "fuzz.sh: $(basename "$exe") crashed; input kept as $(grep -o "$artifacts/[^ ]*" "$work.log" | tail -n 1)"
    rc=1
  else
    # INITED: the seed corpus (every seed and regression input) has run.
    grep -E "INITED|stat::number_of_executed_units|Done [0-9]+ runs" "$work.log" | tail -n 3 || true
  fi
  rm -rf "$work" "$work.log"
  return $rc
}

# The targets run side by side, one per core (each libFuzzer process uses
# one); their reports are printed in order when all have ended.
targets=()
for exe in "$build"/tests/fuzz/*/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$(dirname "$exe")")
  if [ -n "${FUZZ_TARGETS:-}" ] && ! grep -qw -- "$name" <<<"$FUZZ_TARGETS"; then continue; fi
  targets+=("$exe")
done
logs=$(mktemp -d)
status=0
for i in "${!targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  { rc=0; fuzz_one "${targets[$i]}" || rc=$?; echo $rc > "$logs/$i.rc"; } > "$logs/$i" 2>&1 &
done
wait
for i in "${!targets[@]}"; do
  cat "$logs/$i"
  [ "$(cat "$logs/$i.rc" 2>/dev/null)" = 0 ] || status=1
done
rm -rf "$logs"
exit $status
