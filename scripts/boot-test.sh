#!/usr/bin/env bash
# boot-test.sh: proves that disks piprov provisioned boot, come up with their
# identity and survive a kernel update, on a real arm64 userland in QEMU.
#
# For each layout (make-test-image.sh --rootfs debian: Debian 12 arm64 with
# systemd, cloud-init, openssh; the boot partition as the release ships it):
#   focal     Ubuntu 20.04: U-Boot chain, no start4.elf -> patched to vmlinux + apt hook
#   noble     Ubuntu 24.04: kernel=vmlinuz, direct        (disk on usb-storage)
#   resolute  Ubuntu 26.04: A/B, os_prefix=current/, autoboot.txt
#   raspios   Raspberry Pi OS: kernel8.img, root=PARTUUID= (rewritten by provision)
#   pi5       Raspberry Pi OS provisioned with --board pi5: kernel_2712.img
#             (the others are provisioned for a Pi 4)   (disk on NVMe)
# it runs `piprov provision` onto a loop device with an identity (host name,
# user, SSH key, static address 10.0.2.20/24 on QEMU's user network, DNS), boots
# what `piprov boot check --json` says the firmware would load (scripts/boot-vm.sh)
# and checks over SSH with the provisioned key: host name, user and sudo,
# address, route and DNS, cloud-init done without errors with piprov's
# instance-id, / from the partition piprov wrote (nvme0n1p2 on the Pi 5),
# /boot/firmware mounted. Each node stays up for the fleet. Also:
#   raspios   first with the old PARTUUID put back in cmdline.txt (a provision
#             without the rewrite): it must not come up (the negative case)
#   focal     a kernel update with apt-get from a local repository (the apt
#             hook regenerates vmlinux), then one with dpkg -i (the path unit
#             does), a reboot into the new kernel (uname -v)
#   fleet     once the lanes are done, Ansible from this host against the nodes
#             that are up (scripts/boot-test-fleet.sh): the collection's role
#             installs the arm64 .deb on each, its report playbook checks and
#             benches them all (one table); a second run changes nothing
#             (changed=0) and fails for focal alone, broken on purpose (its
#             vmlinux made stale); piprov devices and eeprom check on focal
#   keep      on the raspios node (a Pi on its microSD card), beside the
#             fleet's second run: `piprov clone` of the running system onto a
#             larger disk, `piprov provision` onto another; then the node shut
#             down, `piprov backup` of its disk and `piprov write` of the
#             backup onto a new one, and the clone, the restore and the
#             provisioned disk each booted alone: the clone and the restore
#             the same node (host name, machine-id, SSH host key, cloud-init
#             not run again, a marker, a writer's file), the clone grown, the
#             provisioned one with its own identity (scripts/boot-test-keep.sh)
# Every wait is for an event (a console line, SSH answering, QEMU exiting),
# bounded by PIPROV_BOOT_TIMEOUT (1500 s: two VMs beside the other CI
# stages on 2 cores boot slowly); a failure prints the console's end.
#
# Usage: scripts/boot-test.sh [--piprov BIN] [--deb FILE | --deb-fifo FIFO]
#                             [--layouts "raspios noble resolute focal pi5"] [--keep]
#   --piprov    the host piprov that provisions (default build/src/cli/piprov)
#   --deb       piprov's arm64 .deb; --deb-fifo: read its path from FIFO when
#               first needed (scripts/test.sh writes it after the cross stage);
#               neither: build it (cross build + scripts/package.sh)
#   --layouts   the nodes to run (the fleet runs on the ones that come up)
#   --keep      keep the work dir (disks, console logs, the fleet's inventory,
#               playbook, Ansible logs and report) under /var/tmp
# PIPROV_BOOT_LANES=1 boots one VM at a time (default 2: one per core; lane b
# is focal, then pi5 when three others run in lane a).
# PIPROV_BOOT_BREAK=seed|hook breaks each provisioned disk on purpose (the
# seed's user-data or the apt hook removed), =vmlinux the focal node before the
# fleet's first run: the run must then fail.
# Needs root (loop devices, the root fs build), scripts/install-deps.sh
# (--cross arm64 too when no --deb or --deb-fifo is given: the .deb is built).
# Exit 0 when every step passed, 1 when one failed, 2 on usage errors.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=scripts/boot-vm.sh
. scripts/boot-vm.sh
# shellcheck source=scripts/boot-test-steps.sh
. scripts/boot-test-steps.sh

# All in one function: bash has read it whole before it runs, so an edit of
# this file during a run (it takes a while) cannot change what runs.
# shellcheck disable=SC2034  # deb, deb_fifo: read by boot-test-steps.sh
main() {
piprov=build/src/cli/piprov
deb=
deb_fifo=
layouts="raspios noble resolute focal pi5"
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --piprov) piprov=$2; shift 2 ;;
    --deb) deb=$2; shift 2 ;;
    --deb-fifo) deb_fifo=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) die 2 "unknown argument '$1' (see the header of scripts/boot-test.sh)" ;;
  esac
done
for l in $layouts; do
  case $l in focal | noble | resolute | raspios | pi5) ;; *) die 2 "unknown layout '$l' (focal noble resolute raspios pi5)" ;; esac
done
need_root "loop devices, the root fs build"
need_tools qemu-system-aarch64 mcopy jq ssh ssh-keygen sfdisk losetup mke2fs e2fsck zstd sha256sum dpkg-deb dpkg-scanpackages ansible-playbook
[ -x "$piprov" ] || die 2 "$piprov is not an executable piprov: build it or pass --piprov"
piprov=$(realpath "$piprov")
if [ -n "$deb" ]; then [ -f "$deb" ] || die 2 "--deb $deb: no such file"; deb=$(realpath "$deb"); fi

w=$(mktemp -d /var/tmp/piprov-boot.XXXXXX)
bt_user=tester
bt_key=$w/id
export bt_user bt_key
cleanup() {
  local v
  for v in "$w"/vm-*; do [ -d "$v" ] && vm_kill "$v"; done
  for v in "$w"/vm-*/loop; do [ -f "$v" ] && losetup -d "$(cat "$v")" 2>/dev/null; done
  if [ "$keep" = 1 ]; then echo "boot-test.sh: work dir kept: $w"; else rm -rf "$w"; fi
}
trap cleanup EXIT
ssh-keygen -q -t ed25519 -N '' -C piprov-boot-test -f "$bt_key"

# The root fs and images are built before the lanes start (one builder at a time).
t0=$(date +%s)
scripts/test-rootfs.sh >/dev/null
echo "boot-test.sh: root fs ready ($(($(date +%s) - t0)) s)"

lanes=${PIPROV_BOOT_LANES:-2}
lane_a=() lane_b=()
# Lane b: focal (two boots, two kernel updates), then pi5 when lane a has three
# others (pi5's image is raspios', built by then); lane a: the others.
for l in $layouts; do [ "$l" = focal ] && lane_b+=("$l"); done
for l in $layouts; do case $l in focal | pi5) ;; *) lane_a+=("$l") ;; esac; done
if [[ " $layouts " == *" pi5 "* ]]; then
  if [ ${#lane_a[@]} -ge 3 ]; then lane_b+=(pi5); else lane_a+=(pi5); fi
fi
run_lane() {  # run_lane NAME LAYOUT...: each layout's steps, stopping the layout at its first failure
  local l rc=0
  shift
  for l; do "layout_$l" || rc=1; done
  return $rc
}
rc=0
if [ "$lanes" -ge 2 ] && [ ${#lane_a[@]} -gt 0 ] && [ ${#lane_b[@]} -gt 0 ]; then
  run_lane b "${lane_b[@]}" > "$w/lane-b.log" 2>&1 &
  pb=$!
  run_lane a "${lane_a[@]}" 2>&1 | tee "$w/lane-a.log" || rc=1
  wait "$pb" || rc=1
  echo "== lane b (ran beside the one above):"
  cat "$w/lane-b.log"
else
  run_lane a "${lane_a[@]}" "${lane_b[@]}" || rc=1
fi
# The fleet: Ansible against every node the lanes left up (the keep steps on
# the raspios node beside its second run); then the keep steps' boots.
layout_fleet || rc=1
if keep_enabled; then layout_keep || rc=1; fi
print_step_table
exit $rc
}
main "$@"
