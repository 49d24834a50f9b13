#!/bin/sh
# Writes the piprov(1) man page with help2man from `piprov --help`, adding one
# COMMANDS subsection per subcommand (and sub-subcommand, e.g. `boot check`)
# with its own --help text, so the page follows whatever commands the build has.
# Usage: packaging/make-man.sh HELP2MAN PIPROV_BIN OUTPUT.1
set -eu
help2man=$1 bin=$2 out=$3
inc=$out.h2m

# subcommands_of ARGS...: names listed under "Subcommands:" in `piprov ARGS --help`.
subcommands_of() {
  "$bin" "$@" --help 2>/dev/null | awk '
    /^[A-Za-z].*:$/ { in_sub = ($0 ~ /^Subcommands:$/); next }
    /^$/ { in_sub = 0; next }
    in_sub && /^  [a-z0-9]/ { print $1 }'
}
# roff_block ARGS...: `piprov ARGS --help` as a no-fill roff block.
roff_block() {
  printf '.SS "piprov %s"\n.nf\n' "$*"
  "$bin" "$@" --help 2>/dev/null | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" \
    -e 's|^Usage: [^ ]*/piprov|Usage: piprov|' -e '/^Exit codes:/,$d'
  printf '.fi\n'
}

{
  printf '[COMMANDS]\n'
  for c in $(subcommands_of); do
    roff_block "$c"
    for s in $(subcommands_of "$c"); do roff_block "$c" "$s"; done
  done
  printf '[SEE ALSO]\n'
  printf 'The apt hook: /etc/apt/apt.conf.d/99-piprov-kernel and /usr/lib/piprov/piprov-kernel-sync.\n'
} > "$inc"

"$help2man" --no-info --section 1 --source "piprov" \
  --name "provision Raspberry Pi 4/5 boards onto USB SSDs" \
  --include "$inc" --output "$out" "$bin"
rm -f "$inc"
