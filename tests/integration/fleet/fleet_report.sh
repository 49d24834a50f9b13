#!/usr/bin/env bash
# ansible-playbook runs the collection's playbook piprov.pi.fleet_report against three
# nodes on this machine (ansible_connection=local): Ubuntu 20.04 patched by
# piprov, 24.04 as shipped, 25.10 A/B as shipped (boot directories built from
# ../shared/data/config-txt), each with its own bootloader config
# (../shared/data/bootloader-configs) and a loop device to bench. The
# table must show each node's layout, findings and bench figures, and the run
# changes nothing (changed=0: the playbook only reads the nodes); then one
# node's boot directory is broken: only its row fails, and the play fails for
# that node alone (ansible-playbook exits 2, the recap's failed=1 for it only).
# Usage: fleet_report.sh PIPROV_BIN SOURCE_DIR SHARED_DIR
export PIPROV_BIN=$1 PIPROV_SOURCE_DIR=$2 PIPROV_SHARED_DIR=$3
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools ansible-playbook gzip losetup
require_loop
require_shared config-txt
require_shared bootloader-configs
emulator=$PIPROV_SOURCE_DIR/scripts/emulate-device.sh

t=$(mktemp -d /var/tmp/piprov-fleet.XXXXXX)
export EMULATE_DIR=$t/emulate
cleanup() {
  for n in 1 2 3; do "$emulator" destroy "fleet-node$n" >/dev/null 2>&1 || true; done
  rm -rf "$t"
}
trap cleanup EXIT
with_collection "$t"

boot_2004 "$t/node1/boot"
root_dir "$t/node1/root"
"$PIPROV_BIN" boot patch "$t/node1/boot" --root "$t/node1/root" >/dev/null
boot_2404 "$t/node2/boot"
boot_2510 "$t/node3/boot"
configs=$PIPROV_SHARED_DIR/data/bootloader-configs
dev=("")
# Profile unlimited: the table needs figures, not a device's speed (the playbook's bench is not throttled).
for n in 1 2 3; do dev+=("$("$emulator" create "fleet-node$n" unlimited 64M)"); done

cat >"$t/inventory.yml" <<YAML
fleet:
  hosts:
    node1:
      piprov_boot_dir: $t/node1/boot
      piprov_root_dir: $t/node1/root
      piprov_board: pi4
      piprov_eeprom_config: $configs/05-pi4-default-2026-05-17.txt
      piprov_bench_targets: [${dev[1]}]
    node2:
      piprov_boot_dir: $t/node2/boot
      piprov_board: pi4
      piprov_eeprom_config: $configs/10-issue423-usb-first.txt
      piprov_bench_targets: [${dev[2]}]
    node3:
      piprov_boot_dir: $t/node3/boot
      piprov_board: pi5
      piprov_eeprom_config: $configs/28-usbboot-recovery5-pi5-default.txt
      piprov_bench_targets: [${dev[3]}]
  vars:
    ansible_connection: local
    piprov_bin: $PIPROV_BIN
    piprov_bench_profile: quick
    piprov_bench_destructive: true
    piprov_bench_runtime: 0.2
    piprov_bench_ramp: 0
    piprov_bench_size: 16M
YAML

play() {  # play EXIT: runs the playbook, which must exit EXIT
  local rc=0
  out=$(cd "$t" && ansible-playbook -i inventory.yml piprov.pi.fleet_report \
    -e fleet_report_dir="$t/report" -e fleet_report_piprov="$PIPROV_BIN" 2>&1) || rc=$?
  [ "$rc" = "$1" ] || { printf '%s\n' "$out" >&2; fail "ansible-playbook exited $rc, not $1 (output above)"; }
  report=$(cat "$t/report/report.txt")
  printf '%s\n' "$report"
}

# Rows: host, status, layout, USB boot, boot E/W/I, BOOT_ORDER, eeprom E/W/I, first error.
echo "== three healthy nodes"
play 0
expect_in "$report" "node1 ok" '^node1 +ok +piprov Ubuntu 20\.04.* +yes +0/0/[0-9]+ +0xf41 +0/[0-9]+/[0-9]+ +-$'
expect_in "$report" "node2 ok" '^node2 +ok +ubuntu-direct Ubuntu .* +yes +0/0/[0-9]+ +0xf14 +0/[0-9]+/[0-9]+ +-$'
expect_in "$report" "node3 ok" '^node3 +ok +ubuntu-ab Ubuntu 25\.10.* +yes +0/0/[0-9]+ +0xf461 +0/[0-9]+/[0-9]+ +-$'
expect_in "$report" "bench header" '^host +target +seq read 4M QD32 MiB/s +rand read 4k QD1 sync IOPS +seq write 4M QD32 MiB/s +rand write 4k QD1 sync IOPS$'
for n in 1 2 3; do
  expect_in "$report" "node$n bench figures" "^node$n +${dev[n]}( +[0-9]+(\.[0-9]+)?){4}$"
done
expect_in "$report" "summary" '^report: 3 host\(s\), all ok$'
expect_in "$out" "the table in the play output" '"node2 +ok +ubuntu-direct'
for n in 1 2 3; do
  expect_in "$out" "recap: node$n changed nothing" "^node$n +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0 "
done
expect_in "$out" "recap: the controller changed nothing" '^localhost +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0 '

echo "== node2's kernel is gone"
rm "$t/node2/boot/vmlinuz"
play 2
expect_in "$report" "node2 failed" '^node2 +FAILED +ubuntu-direct Ubuntu .* +[a-z-]+ +[1-9][0-9]*/[0-9]+/[0-9]+ +0xf14 +.* boot check: [a-z0-9-]+: .*vmlinuz'
expect_in "$report" "node1 still ok" '^node1 +ok +piprov'
expect_in "$report" "node3 still ok" '^node3 +ok +ubuntu-ab'
expect_in "$report" "node2 still benched" "^node2 +${dev[2]}( +[0-9]+(\.[0-9]+)?){4}$"
expect_in "$report" "summary" '^report: 3 host\(s\), 1 failed: node2$'
expect_in "$out" "recap: node2 failed alone, after its failed check was reported" '^node2 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=1 +skipped=[0-9]+ +rescued=0 +ignored=1'
expect_in "$out" "recap: node1 had no failure" '^node1 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0 +skipped=[0-9]+ +rescued=0 +ignored=0'
expect_in "$out" "recap: node3 had no failure" '^node3 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0 +skipped=[0-9]+ +rescued=0 +ignored=0'
expect_in "$out" "node2's failure names its check" 'fatal: \[node2\]: FAILED! .*piprov boot check found problems'
echo "$fleet_test: OK"
