#!/usr/bin/env bash
# Quality gates (CI runs all three; each prints its findings and fails):
#   1. clang-format --dry-run --Werror on every tracked .cpp/.hpp under src/ and
#      tests/ (.clang-format; fix with `clang-format -i FILE`)
#   2. clang-tidy (.clang-tidy: bugprone-*, performance-*, a few modernize-*) on
#      every src/ file, in the build's unity batches (findings name the src/
#      file and line), with the compile database of a configure-only build dir
#      (TIDY_BUILD_DIR, default build-tidy/: cmake runs, nothing is compiled)
#   3. shellcheck on the shell scripts (scripts/, cross/, packaging/, apt-hooks/)
# Usage: scripts/lint.sh [format|tidy|shell]...   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TIDY_BUILD_DIR:-build-tidy}
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

# clang-tidy runs on the unity batches of src/ (the files CMakeLists.txt's
# piprov_unity() writes to include 8 sources each), like the compiler: most of its time goes to matching
# the checks over the AST of the headers (the standard library, nlohmann/json,
# fmt, CLI11), and a batch does that once for 8 files. Each source is then a
# header of its batch: .clang-tidy's HeaderFilterRegex (/src/) reports its
# findings, NOLINT works as always.
#
# Results are cached: a translation unit whose run was clean is not run again
# while nothing that decides the result has changed: clang-tidy's version,
# .clang-tidy, the compile flags, and the file as clang's preprocessor sees it
# with comments kept (clang++ -E -C: every header's content, every NOLINT).
# Findings are never cached. The cache is $PIPROV_TIDY_CACHE, by default
# beside ccache's objects ($CCACHE_DIR/piprov-clang-tidy), so a run with an
# empty ccache is a cold run here too.
lint_tidy() {
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPROV_UNITY=ON -DPIPROV_BUILD_TESTS=OFF >/dev/null
  local db; db=$(mktemp -d)
  # src/'s translation units (unity batches, and any source outside one),
  # their commands without the launcher (ccache).
  jq --arg src "$PWD/src/" --arg gen "$(realpath "$build")/src/" \
    '[.[] | select((.file | startswith($src)) or ((.file | startswith($gen)) and (.file | test("[.]unity[0-9]+[.]cpp$"))))
          | .command |= sub("^[^ ]*ccache "; "")]' "$build/compile_commands.json" > "$db/compile_commands.json"
  mapfile -t files < <(jq -r '.[].file' "$db/compile_commands.json" | sort -u)
  local cache=${PIPROV_TIDY_CACHE:-${CCACHE_DIR:-$HOME/.cache/ccache}/piprov-clang-tidy}
  mkdir -p "$cache"
  # What every key starts with: the tool and its configuration.
  { clang-tidy --version; clang++ --version; cat .clang-tidy; } | sha256sum | cut -c1-64 > "$db/tool.key"
  echo "== clang-tidy: ${#files[@]} translation units (unity batches of src/; clean results cached in $cache)"
  export db cache root=$PWD
  local log; log=$(mktemp)
  # One file: its key, then clang-tidy unless that key was clean before.
  # Prints "cached" or "ran" on stdout (counted below), findings on stderr.
  # shellcheck disable=SC2016  # the script is expanded by the inner bash
  if ! printf '%s\n' "${files[@]}" | xargs -r -P "$(nproc)" -n 1 bash -c '
      f=$1
      cmd=$(jq -r --arg f "$f" "[.[] | select(.file == \$f)][0].command" "$db/compile_commands.json")
      dir=$(jq -r --arg f "$f" "[.[] | select(.file == \$f)][0].directory" "$db/compile_commands.json")
      # The flags without the compiler, the output and the -c: clang++ -E -C preprocesses.
      read -r -a argv <<<"$cmd"
      flags=(); skip=0
      for a in "${argv[@]:1}"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case $a in -o) skip=1 ;; -c | "$f") ;; *) flags+=("$a") ;; esac
      done
      # The path of the checkout is taken out: another clone of the same tree hits.
      key=$( { cat "$db/tool.key"; printf "%s\n" "${flags[@]}"; (cd "$dir" && clang++ "${flags[@]}" -E -C "$f") ; } \
             | sed "s|$root|<checkout>|g" | sha256sum | cut -c1-64) || exit 255
      if [ -e "$cache/$key" ]; then echo cached; exit 0; fi
      clang-tidy -p "$db" --quiet "$f" >&2 || exit 1
      touch "$cache/$key"; echo ran' _ > "$log.count" 2> "$log"; then
    grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter' "$log"
    rm -rf "$log" "$log.count" "$db"; echo "lint.sh: clang-tidy found problems (above)"; return 1
  fi
  echo "clang-tidy: clean; $(grep -c '^ran$' "$log.count") run, $(grep -c '^cached$' "$log.count") clean before with the same key"
  rm -rf "$log" "$log.count" "$db"
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
