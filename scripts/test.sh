#!/usr/bin/env bash
# Installs dependencies, builds and runs every test stage. This is the
# README's test command and what .ci/run calls. Stages, in order:
#   deps      scripts/install-deps.sh --cross arm64        (skip: --no-deps)
#   lint      scripts/lint.sh: clang-format, clang-tidy, shellcheck; runs in
#             the background at nice 10 beside the stages below, its output
#             printed when it is joined before the native ctest
#                                                            PIPROV_SKIP_LINT=1
#   build     the native build (unity batches, -g1): piprov first (the boot
#             test starts on it), then the tests         PIPROV_SKIP_NATIVE_BUILD=1
#   cross     scripts/cross-test.sh arm64: cross build, unit tests and
#             smoke runs under qemu, the arm64 .deb (early: the boot test's
#             last steps install it)                   PIPROV_SKIP_CROSS=1
#   fuzz      scripts/fuzz.sh: libFuzzer, every seed and regression input,
#             then FUZZ_SECONDS (20) of mutations from a fixed seed per target
#                                                            PIPROV_SKIP_FUZZ=1
#   sanitize  scripts/sanitize-test.sh: all ctest on an ASan+UBSan build (the
#             fuzz build, tests added)                       PIPROV_SKIP_SANITIZE=1
#   package   scripts/package.sh + package-test.sh: the amd64 .deb
#             installs, works, upgrades, removes cleanly    PIPROV_SKIP_PACKAGE=1
#   rootfs    scripts/test-rootfs.sh: the boot test's arm64 Debian root fs
#             (built once per recipe, cached), in the background from the start
#   boot      scripts/boot-test.sh: every layout provisioned and booted in
#             QEMU, checked over SSH; in the background (nice 0) from the
#             moment the native piprov is built; gets the arm64 .deb from the cross stage
#             through a FIFO; joined after the native ctest   PIPROV_SKIP_BOOT=1
#   native    ctest of the native build (its summary is repeated last)
# Each build stage prints where its time went (ninja's log, by target); each
# ctest run its ten slowest tests; the stage times come before the native ctest.
# Every stage runs even when an earlier one failed; the failed ones are listed
# before the native ctest, and the exit status is non-zero if any failed.
# PIPROV_TESTS_REQUIRE_ALL=1 (the default here: this runs as root with
# ../shared and every tool installed) turns a test that would skip into a
# failure; after ctest's summary the number of skipped tests is printed.
# Usage: scripts/test.sh [--no-deps]     (env BUILD_DIR, default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
export PIPROV_TESTS_REQUIRE_ALL=${PIPROV_TESTS_REQUIRE_ALL:-1}
build=${BUILD_DIR:-build}
start=$(date +%s)
failed=()
timings=()

stage() {  # stage NAME SKIPVAR CMD... : run CMD unless $SKIPVAR=1, record result and time
  local name=$1 skip=$2; shift 2
  if [ "${!skip:-0}" = 1 ]; then echo "== [$name] skipped ($skip=1)"; timings+=("$name: skipped"); return 0; fi
  echo "== [$name] $*"
  local t0 rc=0; t0=$(date +%s)
  "$@" || rc=$?
  local note="$name: $(($(date +%s) - t0)) s"
  if [ $rc -ne 0 ]; then note+=" FAILED (exit $rc)"; failed+=("$name"); fi
  timings+=("$note")
}

# A stage can run in the background, at a lower CPU priority (nice 10, or
# $BG_NICE), while the stages after it run: it takes the CPU time they leave
# idle (tests that wait on throttled devices, on fsync, on a lock) and little
# else. Its output is kept and printed whole when it is joined; its time is
# its own wall time.
bg_dir=$(mktemp -d)
trap 'rm -rf "$bg_dir"' EXIT
declare -A bg_pid bg_start
stage_bg() {  # stage_bg NAME SKIPVAR CMD... : start CMD in the background unless $SKIPVAR=1
  local name=$1 skip=$2; shift 2
  if [ "${!skip:-0}" = 1 ]; then echo "== [$name] skipped ($skip=1)"; timings+=("$name: skipped"); return 0; fi
  local n=${BG_NICE:-10}
  echo "== [$name] started in the background (nice $n): $*"
  bg_start[$name]=$(date +%s)
  { local rc=0; nice -n "$n" "$@" || rc=$?; date +%s > "$bg_dir/$name.end"; exit $rc; } > "$bg_dir/$name.log" 2>&1 &
  bg_pid[$name]=$!
}
stage_join() {  # stage_join NAME : wait for a background stage, print its output, record result and time
  local name=$1 rc=0
  [ -n "${bg_pid[$name]:-}" ] || return 0
  wait "${bg_pid[$name]}" || rc=$?
  echo "== [$name] (ran in the background; its output:)"
  cat "$bg_dir/$name.log"
  local note="$name: $(($(cat "$bg_dir/$name.end") - bg_start[$name])) s (in the background)"
  if [ $rc -ne 0 ]; then note+=" FAILED (exit $rc)"; failed+=("$name"); fi
  timings+=("$note")
}

deps() {
  if [ "${PIPROV_SKIP_CROSS:-0}" = 1 ]; then scripts/install-deps.sh; else scripts/install-deps.sh --cross arm64; fi
}
# Line tables only (-g1) where no one runs a debugger: the .deb strips the
# binary anyway, and the debug info was most of a 100 MB piprov to write and link.
native_build() {  # native_build [TARGET]: configure and build TARGET (default: everything)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPROV_BUILD_TESTS=ON \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" &&
    cmake --build "$build" -j "$(nproc)" ${1:+--target "$1"} && { [ -n "${1:-}" ] || build_times "$build"; }
}
package() {
  local out
  out=$(scripts/package.sh "$build") || { echo "$out"; return 1; }
  echo "$out"
  scripts/package-test.sh "$(tail -n 1 <<<"$out")"
}

if [ "${1:-}" != "--no-deps" ]; then stage deps PIPROV_SKIP_DEPS deps; fi
# lint (clang-tidy most of it) runs beside everything else, in the CPU time
# the other stages leave (ctest's waits, package's one core).
stage_bg lint PIPROV_SKIP_LINT scripts/lint.sh
# The boot test's root fs (mmdebstrap under qemu-user, one core) from the start,
# and the boot test from the end of the build, at the foreground's priority:
# they are the run's longest chain (root fs, images, VM boots), while the
# foreground's stages use both cores, so they need their share from the start.
BG_NICE=0 stage_bg rootfs PIPROV_SKIP_BOOT scripts/test-rootfs.sh
# piprov alone first: the boot test, the run's longest chain, starts on it.
stage build-piprov PIPROV_SKIP_NATIVE_BUILD native_build piprov
# The boot test needs the native piprov (it provisions) and, late, the arm64
# .deb: its path goes through a FIFO this script holds open (read-write, so
# neither side blocks on open and a line written before the reader comes waits).
mkfifo "$bg_dir/deb.fifo"
exec {deb_fd}<>"$bg_dir/deb.fifo"
BG_NICE=0 stage_bg boot PIPROV_SKIP_BOOT scripts/boot-test.sh --piprov "$build/src/cli/piprov" --deb-fifo "$bg_dir/deb.fifo"
stage build PIPROV_SKIP_NATIVE_BUILD native_build
# The cross stage before fuzz and sanitize: the boot test's last steps wait
# for its .deb.
stage cross PIPROV_SKIP_CROSS env NATIVE_BUILD_DIR="$build" scripts/cross-test.sh arm64
# The newest arm64 .deb, or an empty line when cross was skipped or failed.
deb=
if [ "${PIPROV_SKIP_CROSS:-0}" != 1 ] && [[ " ${failed[*]} " != *" cross "* ]]; then
  deb=$(find "$PWD/build-arm64" -maxdepth 1 -name 'piprov_*_arm64.deb' -printf '%T@ %p\n' 2>/dev/null | sort -rn | sed -n 1p | cut -d' ' -f2-)
fi
echo "$deb" >&"$deb_fd"
stage fuzz PIPROV_SKIP_FUZZ scripts/fuzz.sh
# The fuzz build is already ASan+UBSan instrumented: the sanitizer stage adds
# the tests to it instead of building everything once more.
stage sanitize PIPROV_SKIP_SANITIZE scripts/sanitize-test.sh --reuse-fuzz-build
stage package PIPROV_SKIP_PACKAGE package
stage_join lint
stage_join rootfs

echo "== stage times (total so far $(($(date +%s) - start)) s)"
printf '   %s\n' "${timings[@]}"
if [ ${#failed[@]} -gt 0 ]; then echo "test.sh: FAILED stages: ${failed[*]} (their output is above)"; fi

echo "== [native] ctest"
rc=0
PIPROV_RUN_START=$start run_ctest "$build" | tee "$bg_dir/native.log" || rc=$?
if [ -n "${bg_pid[boot]:-}" ]; then
  stage_join boot
  echo "== stage times (total $(($(date +%s) - start)) s)"
  printf '   %s\n' "${timings[@]}"
  grep -E '^[0-9]+% tests passed' "$bg_dir/native.log" | tail -n 1
fi
# Repeated after ctest's summary: CI shows only the end of a long log.
if [ ${#failed[@]} -gt 0 ]; then
  printf 'test.sh: stage %s\n' "${timings[@]}"
  echo "test.sh: FAILED stages: ${failed[*]} (their output is above); native ctest exit $rc"
  rc=1
fi
exit $rc
