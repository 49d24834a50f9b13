# shellcheck shell=bash
# What the scripts in scripts/ share. Source it after changing to the source
# tree's root (every path here is relative to it):
#   cd "$(dirname "$0")/.."
#   # shellcheck source=scripts/lib.sh
#   . scripts/lib.sh
# Messages name the calling script ("bench-write.sh: ...").

lib_script=$(basename "$0")
# ccache (used when installed) keys on paths relative to the checkout's parent,
# so a second clone (CI's clean one, a new user's) reuses what another compiled:
# the unity batches include sources by relative paths (CMakeLists.txt), and
# the build dir is not hashed (NOHASHDIR: an object's line tables may then
# name the other clone's build dir, nothing else differs). Depend mode: a miss
# costs one compile, not a preprocessor run and a compile (a cold run is all
# misses); hits still need every header unchanged.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
export CCACHE_DEPEND=${CCACHE_DEPEND:-true}

# die CODE MESSAGE...: prints "SCRIPT: MESSAGE" on stderr and exits with CODE.
die() {
  local code=$1
  shift
  echo "$lib_script: $*" >&2
  exit "$code"
}

# need_root WHY: exits 2 unless running as root.
need_root() { [ "$(id -u)" = 0 ] || die 2 "needs root ($1)"; }

# need_tools TOOL...: exits 3 naming the first TOOL that is not on PATH.
need_tools() {
  local t
  for t; do command -v "$t" >/dev/null || die 3 "$t is missing: run scripts/install-deps.sh"; done
}

# build_piprov BUILD_DIR [CMAKE_ARG...]: configures BUILD_DIR (Ninja,
# RelWithDebInfo unless an argument says otherwise) and builds the piprov
# binary, quietly. The binary is then BUILD_DIR/src/cli/piprov.
build_piprov() {
  local build=$1
  shift
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target piprov >/dev/null
}

# median NUMBER...: prints the median (mean of the middle two for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# ratio A B: prints A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# Emulated storage devices (loop devices throttled like a Pi 4's microSD card
# or USB 3 SSD): scripts/emulate-device.sh, the profiles in docs/bench.md.
# Its state lives in $EMULATE_DIR. Commands measured on such a device run
# under `"$emulator" run -- CMD...` (the limits apply to that cgroup only).
emulator=$PWD/scripts/emulate-device.sh

# have_emulator: true when devices can be throttled here (root, loop devices,
# cgroup block throttling); `"$emulator" available` says why not.
have_emulator() { "$emulator" available >/dev/null 2>&1; }

# need_emulated_devices: exits 3 unless throttled devices can be made here
# (emulate-device.sh available, this shell in the root blkio cgroup, where
# EMULATE_SCOPE=device limits apply), then exports EMULATE_SCOPE=device.
need_emulated_devices() {
  have_emulator || die 3 "no emulated devices here: $("$emulator" available 2>&1)"
  grep -qx '[0-9]*:blkio:/' /proc/self/cgroup ||
    die 3 "needs to run in the root blkio cgroup (EMULATE_SCOPE=device limits apply there only)"
  export EMULATE_SCOPE=device
}

# emulated_device NAME PROFILE SIZE: (re)creates device NAME (a leftover of an
# interrupted run is destroyed first) and prints its path.
emulated_device() {
  "$emulator" destroy "$1"
  "$emulator" create "$1" "$2" "$3"
}

# destroy_emulated NAME...: removes emulated devices; never fails.
destroy_emulated() { "$emulator" destroy "$@" >/dev/null 2>&1 || true; }

# build_times BUILD_DIR [N]: where a build's time went, from ninja's log (the
# last build of each output): the compile + link seconds of each target
# (summed over its steps; two cores run two steps at once), the N (default 10)
# biggest, and the total.
build_times() {
  local log=$1/.ninja_log n=${2:-10}
  [ -f "$log" ] || return 0
  awk -F '\t' -v n="$n" '
    /^#/ { next }
    { t[$4] = ($2 - $1) / 1000 }   # the last build of each output counts
    END {
      for (out in t) {
        total += t[out]; steps++; tgt = out
        if (match(out, /CMakeFiles\/[^\/]+\.dir\//)) tgt = substr(out, RSTART + 11, RLENGTH - 16)
        else sub(/.*\//, "", tgt)
        sec[tgt] += t[out]
      }
      printf "build times (%s): %d steps, %.0f s of compile/link in all; by target:\n", FILENAME, steps, total
          for (k in sec) printf "%10.1f s  %s\n", sec[k], k | "sort -rn | sed -n 1," n "p"
    }' "$log"
}

# run_ctest BUILD_DIR [CTEST_ARG...]: runs ctest (PIPROV_CTEST_JOBS at once,
# default: twice the cores, since most integration tests wait on devices),
# then the ten slowest tests and the number of skipped tests and their names,
# from ctest's JUnit report, and ctest's summary line once more, last (CI logs
# show the end). Returns ctest's status.
run_ctest() {
  local build=$1 rc=0 junit out t0
  shift
  t0=$(date +%s)
  junit=$(mktemp)
  out=$(mktemp)
  echo 0 > "$out.rc"
  { ctest --test-dir "$build" --output-on-failure -j "${PIPROV_CTEST_JOBS:-$(($(nproc) * 2))}" --timeout 900 \
      --output-junit "$junit" "$@" || echo $? > "$out.rc"; } | tee "$out"
  rc=$(cat "$out.rc")
  echo "$lib_script: the ten slowest tests:"
  awk '/<testcase /{ match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
                     match($0, /time="[^"]*"/); printf "%10.2f s  %s\n", substr($0, RSTART + 6, RLENGTH - 7), name }' \
    "$junit" | sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' | sort -rn | sed -n 1,10p
  local skipped
  skipped=$(awk '/<testcase /{ match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7) }
                 /<skipped/{ print name }' "$junit")
  echo "$lib_script: $(grep -c . <<<"$skipped") test(s) skipped (PIPROV_TESTS_REQUIRE_ALL=${PIPROV_TESTS_REQUIRE_ALL:-0})"
  if [ -n "$skipped" ]; then sed 's/^/  skipped: /' <<<"$skipped"; fi
  if [ "$rc" != 0 ]; then  # again at the end, where a CI log's tail shows it
    echo "$lib_script: the end of each failed test's output (all of it is above):"
    /usr/bin/python3 - "$junit" <<'PY' || true
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).iter("testcase"):
    if tc.get("status") == "fail" or tc.find("failure") is not None:
        print("--- " + (tc.get("name") or "?"))
        print("\n".join((tc.findtext("system-out") or "(no output)").splitlines()[-60:]))
PY
  fi
  echo "$lib_script: ctest took $(($(date +%s) - t0)) s${PIPROV_RUN_START:+; $(($(date +%s) - PIPROV_RUN_START)) s since the start}"
  grep -E '^[0-9]+% tests passed' "$out" || true
  rm -f "$junit" "$out" "$out.rc"
  return "$rc"
}
