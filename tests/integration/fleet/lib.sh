# shellcheck shell=bash
# What the fleet tests share: skipping (exit 77, ctest's SKIP_RETURN_CODE) or
# failing under PIPROV_TESTS_REQUIRE_ALL=1, assertions, and boot directories
# of the real layouts built from the stock files in ../shared/data/config-txt.
# Sourced by the test scripts with: PIPROV_BIN PIPROV_SOURCE_DIR PIPROV_SHARED_DIR set.
set -euo pipefail

fleet_test=$(basename "$0" .sh)

# skip WHY: exit 77 (skipped), or fail when PIPROV_TESTS_REQUIRE_ALL=1.
skip() {
  if [ "${PIPROV_TESTS_REQUIRE_ALL:-0}" = 1 ]; then
    echo "$fleet_test: FAIL: would skip (PIPROV_TESTS_REQUIRE_ALL=1): $*" >&2
    exit 1
  fi
  echo "$fleet_test: SKIP: $*"
  exit 77
}

fail() {
  echo "$fleet_test: FAIL: $*" >&2
  exit 1
}

# require_tools TOOL...: skip unless every TOOL is on PATH.
require_tools() {
  local t
  for t; do command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh)"; done
}

# require_loop: skip unless root with loop devices.
require_loop() {
  [ "$(id -u)" = 0 ] || skip "needs root (loop devices)"
  [ -e /dev/loop-control ] || skip "needs /dev/loop-control"
}

# require_shared REL: skip unless ../shared/data/REL exists.
require_shared() {
  [ -e "$PIPROV_SHARED_DIR/data/$1" ] || skip "../shared/data/$1 is not present"
}

# expect_in TEXT WHAT PATTERN: TEXT has a line matching the extended regex PATTERN.
expect_in() {
  grep -Eq -- "$3" <<<"$1" || { printf '%s\n' "$1" >&2; fail "$2: no line matches /$3/ (output above)"; }
}

# expect_not_in TEXT WHAT PATTERN: no line of TEXT matches PATTERN.
expect_not_in() {
  if grep -Eq -- "$3" <<<"$1"; then printf '%s\n' "$1" >&2; fail "$2: a line matches /$3/ (output above)"; fi
}

# tree_sum DIR: one hash of every file's path and content below DIR.
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

cfg() { printf '%s/data/config-txt/%s' "$PIPROV_SHARED_DIR" "$1"; }

# arm64_kernel OUT: a gzip'd arm64 Image (400000 bytes, "ARM\x64" at 0x38 as
# Linux Documentation/arch/arm64/booting.rst has it) as Ubuntu's vmlinuz is.
arm64_kernel() {
  local img
  img=$(mktemp)
  head -c 400000 /dev/urandom >"$img"
  printf 'ARMd' | dd of="$img" bs=1 seek=56 conv=notrunc status=none
  gzip -n -c "$img" >"$1"
  rm -f "$img"
}

# start4_elf OUT: a stand-in for the Pi 4 firmware's start4.elf whose version
# strings say it was built on 2022-08-26 (as Debian's raspi-firmware 2022-08 one does).
start4_elf() {
  { head -c 4096 /dev/zero; printf 'VC_BUILD_ID_TIME: Aug 26 2022\n12:34:56\n\0Aug 26 2022 12:34:56\0'; head -c 4096 /dev/zero; } >"$1"
}

# dtbs DIR [pi5]: the device trees a kernel package puts on the boot partition (a flattened
# device tree header, magic 0xd00dfeed): the Pi 4 family's, and with pi5 the Pi 5 family's.
dtbs() {
  local n names="bcm2711-rpi-4-b bcm2711-rpi-400 bcm2711-rpi-cm4"
  [ "${2:-}" = pi5 ] && names="$names bcm2712-rpi-5-b bcm2712-rpi-500 bcm2712-rpi-cm5-cm5io"
  for n in $names; do { printf '\320\015\376\355'; head -c 252 /dev/zero; } >"$1/$n.dtb"; done
}

# boot_2004 DIR: Ubuntu 20.04's system-boot (the U-Boot chain, as shipped).
boot_2004() {
  mkdir -p "$1"
  cp "$(cfg 01-ubuntu2004-ga-config.txt)" "$1/config.txt"
  cp "$(cfg 03-ubuntu2004-syscfg.txt)" "$1/syscfg.txt"
  cp "$(cfg 04-ubuntu2004-usercfg.txt)" "$1/usercfg.txt"
  cp "$(cfg cmdline-01-ubuntu2004.txt)" "$1/cmdline.txt"
  cp "$1/cmdline.txt" "$1/nobtcmd.txt"
  arm64_kernel "$1/vmlinuz"
  head -c 65536 /dev/urandom >"$1/initrd.img"
  head -c 65536 /dev/urandom >"$1/uboot_rpi_4.bin"
  dtbs "$1"
  chmod -R u+w "$1"
}

# boot_2404 DIR: Ubuntu 24.04's (kernel=vmlinuz under [all]: boots from USB as shipped).
boot_2404() {
  mkdir -p "$1"
  cp "$(cfg 14-ubuntu2404-noble-server-config.txt)" "$1/config.txt"
  cp "$(cfg cmdline-03-ubuntu2404-noble-server.txt)" "$1/cmdline.txt"
  arm64_kernel "$1/vmlinuz"
  head -c 65536 /dev/urandom >"$1/initrd.img"
  dtbs "$1" pi5
  start4_elf "$1/start4.elf"
  chmod -R u+w "$1"
}

# boot_2510 DIR: Ubuntu 25.10's A/B layout (os_prefix=current/, tryboot_a_b=1).
boot_2510() {
  mkdir -p "$1/current"
  cp "$(cfg 15-ubuntu2510-questing-server-config.txt)" "$1/config.txt"
  cp "$(cfg autoboot-01-ubuntu2510-questing.txt)" "$1/autoboot.txt"
  cp "$(cfg cmdline-04-ubuntu2510-questing-server-current.txt)" "$1/current/cmdline.txt"
  arm64_kernel "$1/current/vmlinuz"
  head -c 65536 /dev/urandom >"$1/current/initrd.img"
  dtbs "$1/current" pi5
  start4_elf "$1/start4.elf"
  chmod -R u+w "$1"
}

# root_dir DIR: an empty root file system with /etc/apt/apt.conf.d (for the apt hook).
root_dir() { mkdir -p "$1/etc/apt/apt.conf.d" "$1/usr/lib"; }

# with_collection: ansible finds piprov.pi in this checkout, no retry files, no cows.
with_collection() {
  export ANSIBLE_COLLECTIONS_PATH="$PIPROV_SOURCE_DIR/ansible" ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
  export ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_NOCOWS=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
  export ANSIBLE_LOCAL_TEMP="$1/ansible-local" ANSIBLE_REMOTE_TEMP="$1/ansible-remote" ANSIBLE_HOME="$1/ansible-home"
}
