#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/<name>/, executables fuzz_*) with
# clang, ASan and UBSan, and runs each one. Seeds come from
# tests/fuzz/<name>/corpus/ (which also keeps every input that once crashed,
# as a regression test) and, where a target's CMakeLists lists them, from
# ../shared/data.
#
#   scripts/fuzz.sh             CI mode (scripts/test.sh): every seed, then RUNS
#                               mutations from a fixed seed (-seed=1). The same
#                               tree gives the same inputs on every run, so a
#                               green run here is a green run in CI.
#                               FUZZ_RUNS (default 20000) per target.
#   scripts/fuzz.sh SECONDS     exploring: a random seed for SECONDS per target.
#   FUZZ_TARGETS="bench_import eeprom_config" limits either mode to those targets.
#
# A crash stops nothing else: every target runs, the crashing input is kept in
# $build/fuzz-artifacts/ and its path printed (fix the bug, then copy it into
# tests/fuzz/<name>/corpus/ under a name that says what it broke). Exits 1 when
# any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD_DIR:-build-fuzz}
secs=${1:-}
if [ -n "$secs" ] && ! [[ "$secs" =~ ^[0-9]+$ ]]; then echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; fi
runs=${FUZZ_RUNS:-20000}
if ! ls tests/fuzz/*/CMakeLists.txt >/dev/null 2>&1; then echo "fuzz.sh: no fuzz targets"; exit 0; fi
# -O1 with line tables only: what libFuzzer's docs suggest for sanitizer
# builds (real stack traces), and much quicker to compile than -O2 -g; the
# sanitizer stage adds the tests to this build. Asserts stay on (no NDEBUG).
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DPIPROV_FUZZ=ON -DPIPROV_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
artifacts=$(realpath "$build")/fuzz-artifacts
mkdir -p "$artifacts"
# UBSan findings (overflowing casts, ...) are crashes too, not log lines.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
for exe in "$build"/tests/fuzz/*/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$(dirname "$exe")")
  if [ -n "${FUZZ_TARGETS:-}" ] && ! grep -qw -- "$name" <<<"$FUZZ_TARGETS"; then continue; fi
  work=$(mktemp -d)
  if [ -d "tests/fuzz/$name/corpus" ]; then cp -r "tests/fuzz/$name/corpus/." "$work/"; fi
  extra=()
  if [ -f "$build/tests/fuzz/$name/seeds.txt" ]; then
    while IFS= read -r d; do [ -e "$d" ] && extra+=("$d"); done < "$build/tests/fuzz/$name/seeds.txt"
  fi
  if [ -n "$secs" ]; then
    mode=(-max_total_time="$secs")
    echo "== fuzz $(basename "$exe") for ${secs}s (random seed)"
  else
    mode=(-seed=1 -runs="$runs" -max_total_time=600)
    echo "== fuzz $(basename "$exe"): seeds + $runs runs from -seed=1"
  fi
  if ! "$exe" "${mode[@]}" -print_final_stats=1 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$name-" \
      "$work" "${extra[@]}" > "$work.log" 2>&1; then
    tail -n 60 "$work.log"
    echo "fuzz.sh: $(basename "$exe") crashed; input kept as $(grep -o "$artifacts/[^ ]*" "$work.log" | tail -n 1)"
    status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work.log" | tail -n 2 || true
  fi
  rm -rf "$work" "$work.log"
done
exit $status
