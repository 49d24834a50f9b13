#!/usr/bin/env bash
# Installs dependencies, configures, builds and runs the whole test suite.
# This is the README's test command and what .ci/run calls.
# Usage: scripts/test.sh [--no-deps]     (env BUILD_DIR, default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

if [ "${1:-}" != "--no-deps" ]; then
  scripts/install-deps.sh
fi

# libFuzzer smoke runs (30 s per target) before the native suite, so that
# ctest's summary is the last thing printed.
scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPROV_BUILD_TESTS=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900
