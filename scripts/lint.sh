#!/usr/bin/env bash
# Quality gates (CI runs all three; each prints its findings and fails):
#   1. clang-format --dry-run --Werror on every tracked .cpp/.hpp under src/ and
#      tests/ (.clang-format; fix with `clang-format -i FILE`)
#   2. clang-tidy (.clang-tidy: bugprone-*, performance-*, a few modernize-*) on
#      every src/ translation unit in the build's compile_commands.json
#   3. shellcheck on the shell scripts (scripts/, cross/, packaging/, apt-hooks/)
# Usage: scripts/lint.sh [format|tidy|shell]...   (default: all; env BUILD_DIR,
#        default build/, is configured if it has no compile_commands.json)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(format tidy shell)
status=0

lint_format() {
  mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp')
  echo "== clang-format: ${#files[@]} files"
  if ! clang-format --dry-run --Werror "${files[@]}"; then
    echo "lint.sh: clang-format: files above are not formatted (clang-format -i FILE)"; return 1
  fi
}

lint_tidy() {
  if [ ! -f "$build/compile_commands.json" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  # src/ translation units of the build.
  mapfile -t files < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$build/compile_commands.json" \
    | grep "^$PWD/src/" | sort -u)
  echo "== clang-tidy: ${#files[@]} translation units under src/"
  local log; log=$(mktemp)
  if ! printf '%s\n' "${files[@]}" | xargs -r -P "$(nproc)" -n 1 \
      clang-tidy -p "$build" --quiet > "$log" 2>&1; then
    grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter' "$log"
    rm -f "$log"; echo "lint.sh: clang-tidy found problems (above)"; return 1
  fi
  rm -f "$log"
}

lint_shell() {
  mapfile -t files < <(git ls-files 'scripts/*.sh' 'cross/qemu-run' 'packaging/*.sh' \
    'packaging/piprov.bash-completion' 'apt-hooks/piprov-kernel-sync' .ci/run)
  echo "== shellcheck: ${#files[@]} scripts"
  if ! shellcheck -S warning "${files[@]}"; then echo "lint.sh: shellcheck found problems (above)"; return 1; fi
}

for s in "${stages[@]}"; do
  case "$s" in
    format) lint_format || status=1 ;;
    tidy) lint_tidy || status=1 ;;
    shell) lint_shell || status=1 ;;
    *) echo "lint.sh: unknown stage '$s' (format|tidy|shell)" >&2; exit 2 ;;
  esac
done
[ $status -eq 0 ] && echo "lint.sh: clean (${stages[*]})"
exit $status
