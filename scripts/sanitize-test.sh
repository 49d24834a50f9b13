#!/usr/bin/env bash
# Runs every unit and integration test (ctest) on a build instrumented with
# AddressSanitizer + UndefinedBehaviorSanitizer. Any ASan report, leak or
# UBSan finding fails the test it happens in (halt_on_error).
#
# Two ways to get that build:
#   default            its own dir (SAN_BUILD_DIR, default build-asan/): gcc,
#                      -fsanitize=address,undefined -fno-sanitize-recover=all,
#                      -O1 with line tables (quick to build, real stack traces)
#   --reuse-fuzz-build the libFuzzer build of scripts/fuzz.sh (FUZZ_BUILD_DIR,
#                      default build-fuzz/), which is already clang with
#                      -fsanitize=address,undefined on everything: only the
#                      tests are added and built (what scripts/test.sh does, to
#                      save a full build). Falls back to the default when
#                      there is no fuzz build.
# Tests labelled no-build (they never run what was built: ansible-test,
# ansible-lint, pytest on a fake piprov) or drive piprov through
# ansible-playbook (labelled ansible-playbook: their time is Ansible's, and
# the piprov commands they run are run here by other tests) are left to the
# native ctest.
# Usage: scripts/sanitize-test.sh [--reuse-fuzz-build]
#        (extra ctest arguments via CTEST_ARGS, e.g. CTEST_ARGS="-L unit")
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

fuzz_build=${FUZZ_BUILD_DIR:-build-fuzz}
if [ "${1:-}" = --reuse-fuzz-build ] && [ -f "$fuzz_build/CMakeCache.txt" ] \
   && grep -q '^PIPROV_FUZZ:BOOL=ON' "$fuzz_build/CMakeCache.txt"; then
  build=$fuzz_build
  echo "$lib_script: reusing the ASan+UBSan libFuzzer build in $build (adding the tests)"
  cmake -S . -B "$build" -DPIPROV_BUILD_TESTS=ON >/dev/null
else
  build=${SAN_BUILD_DIR:-build-asan}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DCMAKE_CXX_FLAGS="-fno-sanitize-recover=all" -DCMAKE_C_FLAGS="-fno-sanitize-recover=all" \
    -DPIPROV_SANITIZE=address,undefined -DPIPROV_BUILD_TESTS=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
build_times "$build"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# shellcheck disable=SC2086  # CTEST_ARGS is a list of arguments
run_ctest "$build" -LE 'no-build|ansible-playbook' ${CTEST_ARGS:-}
