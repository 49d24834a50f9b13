#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/<name>/, executables fuzz_*) with
# clang and runs each for SECONDS (default 30). Seeds come from
# tests/fuzz/<name>/corpus/ and, where a target's CMakeLists lists them, from
# ../shared/data. Exit non-zero on the first crash. Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
build=${FUZZ_BUILD_DIR:-build-fuzz}
if ! ls tests/fuzz/*/CMakeLists.txt >/dev/null 2>&1; then echo "fuzz.sh: no fuzz targets"; exit 0; fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPIPROV_FUZZ=ON -DPIPROV_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
status=0
for exe in "$build"/tests/fuzz/*/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$(dirname "$exe")")
  work=$(mktemp -d)
  if [ -d "tests/fuzz/$name/corpus" ]; then cp -r "tests/fuzz/$name/corpus/." "$work/"; fi
  extra=()
  if [ -f "$build/tests/fuzz/$name/seeds.txt" ]; then
    while IFS= read -r d; do [ -e "$d" ] && extra+=("$d"); done < "$build/tests/fuzz/$name/seeds.txt"
  fi
  echo "== fuzz $(basename "$exe") for ${secs}s"
  if ! "$exe" -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=2048 "$work" "${extra[@]}" \
      > "$work.log" 2>&1; then
    tail -n 60 "$work.log"; echo "fuzz.sh: $(basename "$exe") crashed (log above)"; status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work.log" | tail -n 2 || true
  fi
  rm -rf "$work" "$work.log"
done
exit $status
