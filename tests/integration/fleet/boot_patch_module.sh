#!/usr/bin/env bash
# piprov.pi.piprov_boot_patch through ansible: on Ubuntu 20.04's boot
# partition (U-Boot chain) check mode says "changed" and changes no byte, the
# first run changes it, the second reports ok and changes no byte; boot check
# through piprov.pi.piprov_boot_check passes then. On 24.04 (boots from USB as
# shipped) the module changes nothing.
# Usage: boot_patch_module.sh PIPROV_BIN SOURCE_DIR SHARED_DIR
export PIPROV_BIN=$1 PIPROV_SOURCE_DIR=$2 PIPROV_SHARED_DIR=$3
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools ansible gzip
require_shared config-txt

t=$(mktemp -d /var/tmp/piprov-fleet-patch.XXXXXX)
trap 'rm -rf "$t"' EXIT
with_collection "$t"

# mod MODULE ARGS [ANSIBLE OPTION...]: runs the module on localhost; sets $out, $rc.
mod() {
  local m=$1 a=$2
  shift 2
  rc=0
  out=$(ansible localhost -m "piprov.pi.$m" -a "$a piprov=$PIPROV_BIN" "$@" 2>&1) || rc=$?
}

boot_2004 "$t/b2004"
root_dir "$t/r2004"
args="boot_dir=$t/b2004 root_dir=$t/r2004"
before=$(tree_sum "$t")

mod piprov_boot_patch "$args" --check
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "check mode exited $rc"; }
expect_in "$out" "check mode reports it would change" '^localhost \| CHANGED =>'
expect_in "$out" "check mode is a dry run" '"--dry-run"'
[ "$(tree_sum "$t")" = "$before" ] || fail "check mode changed a file"

mod piprov_boot_patch "$args"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "first run exited $rc"; }
expect_in "$out" "first run changes" '^localhost \| CHANGED =>'
grep -qx 'kernel=vmlinux' "$t/b2004/config.txt" || fail "config.txt has no kernel=vmlinux after the first run"
[ -f "$t/b2004/vmlinux" ] || fail "no vmlinux after the first run"
[ -f "$t/r2004/etc/apt/apt.conf.d/99-piprov-kernel" ] || fail "no apt hook after the first run"
after=$(tree_sum "$t")

mod piprov_boot_patch "$args"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "second run exited $rc"; }
expect_in "$out" "second run is ok" '^localhost \| SUCCESS =>'
expect_in "$out" "second run reports no change" '"changed": false'
[ "$(tree_sum "$t")" = "$after" ] || fail "the second run changed a file"

mod piprov_boot_check "$args"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "boot check after the patch exited $rc"; }
expect_in "$out" "boot check passes" '^localhost \| SUCCESS =>'

boot_2404 "$t/b2404"
before=$(tree_sum "$t/b2404")
mod piprov_boot_patch "boot_dir=$t/b2404"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "24.04: exited $rc"; }
expect_in "$out" "24.04 boots as shipped: nothing changed" '^localhost \| SUCCESS =>'
[ "$(tree_sum "$t/b2404")" = "$before" ] || fail "24.04: the module changed a file"

rm "$t/b2004/vmlinuz"
mod piprov_boot_check "$args"
[ "$rc" = 2 ] || { printf '%s\n' "$out"; fail "boot check of a partition without vmlinuz: ansible exited $rc, not 2"; }
expect_in "$out" "a check with findings fails the task" '^localhost \| FAILED! =>'
expect_in "$out" "with the findings in the result" '"findings": \['
echo "$fleet_test: OK"
