#!/usr/bin/env bash
# Builds piprov and every unit and integration test with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc, -O1, line tables only: quick to build, real
# stack traces) and runs ctest. Any ASan report, leak or UBSan finding fails
# the test it happens in (-fno-sanitize-recover=all, halt_on_error).
# Usage: scripts/sanitize-test.sh      (env SAN_BUILD_DIR, default build-asan/;
#        extra ctest arguments via CTEST_ARGS, e.g. CTEST_ARGS="-L unit")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SAN_BUILD_DIR:-build-asan}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DCMAKE_CXX_FLAGS="-fno-sanitize-recover=all" -DCMAKE_C_FLAGS="-fno-sanitize-recover=all" \
  -DPIPROV_SANITIZE=address,undefined -DPIPROV_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# shellcheck disable=SC2086  # CTEST_ARGS is a list of arguments
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900 ${CTEST_ARGS:-}
