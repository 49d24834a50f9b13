#!/usr/bin/env bash
# The main job on a built-in default, end to end (needs root: loop devices):
#   1. provision two images (scripts/make-test-image.sh, real Debian arm64
#      kernel) onto emulated USB SSDs, `boot check` each and show what provision
#      changed on the boot partition and the root fs: a Ubuntu 24.04 layout
#      (boots from USB as shipped: nothing to patch) and a Ubuntu 20.04 one
#      (U-Boot cannot boot from USB: patched);
#      then provision two emulated SSDs from one decode (the 24.04 image), each with
#      its own hostname, instance-id, address and disk identifier, and show each disk;
#   2. check a bootloader EEPROM config (a built-in one with the classic
#      BOOT_ORDER=0x1 mistake), and explain the fixed order;
#   3. benchmark an emulated USB SSD against an emulated microSD (profile quick).
# Emulated devices come from scripts/emulate-device.sh: loop devices throttled
# to a Pi 4's microSD card and USB 3 SSD (figures and sources: docs/bench.md);
# plain loop devices where the kernel cannot throttle them (the demo says so).
# Env: DEMO_DIR (default /var/tmp/piprov-demo), DEMO_SKIP_BENCH=1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
need_root "loop devices"
scripts/install-deps.sh
build_piprov build
piprov=$PWD/build/src/cli/piprov
demo_dir=${DEMO_DIR:-/var/tmp/piprov-demo}
mkdir -p "$demo_dir"
mnt=$(mktemp -d)
devices=()   # emulate-device names, or loop device paths, to remove at exit

# make_device NAME PROFILE SIZE -> prints the device path
make_device() {
  if have_emulator; then
    emulated_device "$1" "$2" "$3"
  else
    rm -f "$demo_dir/$1.img"; truncate -s "$3" "$demo_dir/$1.img"
    losetup -f --show --partscan "$demo_dir/$1.img"
  fi
}
under=()
if have_emulator; then under=("$emulator" run --); fi
cleanup() {
  local m
  for m in "$mnt"/*/root; do umount "$m" 2>/dev/null || true; done
  rm -rf "$mnt"
  for d in "${devices[@]}"; do
    if have_emulator; then destroy_emulated "$d"
    else losetup -d "$d" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT
if ! have_emulator; then
  echo "(no emulated devices here: $("$emulator" available 2>&1 | sed 's/^emulate-device.sh: //'); using unthrottled loop devices)"
fi

# release_device NAME PATH: removes a device the demo no longer needs (its
# backing file may be in RAM).
release_device() {
  if have_emulator; then destroy_emulated "$1"; else losetup -d "$2" 2>/dev/null || true; fi
}

echo "== piprov devices"
"$piprov" devices

# --- 1. provision -----------------------------------------------------------
# boot_files DEV_OR_IMAGE DIR: the boot partition's files, read with mtools (no mount).
boot_files() {
  mkdir -p "$2"
  MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "$1" ::/ "$2/" 2>/dev/null
}

# provision_demo LAYOUT TITLE: builds the image, provisions it onto a new
# emulated USB SSD, boot-checks it and prints what provision changed.
provision_demo() {
  local layout=$1 title=$2 img="$demo_dir/$1.img"
  echo
  echo "== building the demo image ($title layout; cached after the first run)"
  scripts/make-test-image.sh --layout "$layout" "$img" 256 >/dev/null
  local ssd; ssd=$(make_device "demo-$layout" usb-ssd 3G)
  if have_emulator; then devices+=("demo-$layout"); else devices+=("$ssd"); fi
  echo "== piprov provision $img.xz $ssd (emulated USB SSD)"
  "${under[@]}" "$piprov" provision "$img.xz" "$ssd" --yes --progress plain

  echo
  echo "== piprov boot check on the provisioned SSD"
  local w="$mnt/$layout"
  mkdir -p "$w/root"
  mount -o ro "${ssd}p2" "$w/root"
  boot_files "${ssd}p1" "$w/boot"
  "$piprov" boot check "$w/boot" --root "$w/root"

  echo
  echo "== what provision changed ($title)"
  boot_files "$img@@1M" "$w/image-boot"
  local changed
  changed=$(diff -rq "$w/image-boot" "$w/boot" | sed -e "s|$w/image-boot|image|g" -e "s|$w/boot|SSD|g" || true)
  if [ -z "$changed" ]; then echo "boot partition: every file as in the image"
  else echo "boot partition:"; echo "$changed" | sed 's/^/  /'; fi
  local hooks
  hooks=$(cd "$w/root" && ls -d etc/apt/apt.conf.d/99-piprov-kernel usr/lib/piprov/piprov-kernel-sync \
            etc/systemd/system/piprov-kernel-sync.path etc/systemd/system/piprov-kernel-sync.service 2>/dev/null || true)
  if [ -z "$hooks" ]; then echo "root fs: no piprov hook installed"
  else echo "root fs: the kernel-sync hook installed:"; echo "$hooks" | sed 's|^|  /|'; fi
  umount "$w/root"
  rm -rf "$w"
  release_device "demo-$layout" "$ssd"
  changes[$layout]=$(printf '%s%s' "$changed" "$hooks" | grep -c . || true)
}
declare -A changes

provision_demo noble "Ubuntu 24.04"
provision_demo focal "Ubuntu 20.04"
if [ "${changes[noble]}" -ne 0 ] || [ "${changes[focal]}" -eq 0 ]; then
  echo "demo: expected provision to change nothing on Ubuntu 24.04 and to patch Ubuntu 20.04" >&2; exit 1
fi
echo
echo "== the difference"
echo "Ubuntu 24.04 boots a Pi 4 from USB as shipped ([all] kernel=vmlinuz, which the firmware"
echo "decompresses itself): provision wrote and checked it and changed nothing. Ubuntu 20.04 boots"
echo "U-Boot ([pi4] kernel=uboot_rpi_4.bin), which cannot read USB disks: provision decompressed"
echo "vmlinuz to vmlinux, pointed [pi4] at it and installed the hook that keeps it fresh."

# --- 1b. two cluster nodes from one decode --------------------------------------
echo
echo "== two cluster nodes from one decode: piprov provision IMAGE DISK1 DISK2 --hostname 'node{1..2}' ..."
rm -f "$demo_dir/cluster_key" "$demo_dir/cluster_key.pub"
ssh-keygen -q -t ed25519 -N '' -C admin@cluster -f "$demo_dir/cluster_key"
node1=$(make_device demo-node1 usb-ssd 3G)
node2=$(make_device demo-node2 usb-ssd 3G)
if have_emulator; then devices+=(demo-node1 demo-node2); else devices+=("$node1" "$node2"); fi
"${under[@]}" "$piprov" provision "$demo_dir/noble.img.xz" "$node1" "$node2" --yes --progress none \
  --hostname 'node{1..2}' --user admin --ssh-key "$demo_dir/cluster_key.pub" --timezone UTC \
  --ip 192.168.50.11/24,192.168.50.12/24 --gateway 192.168.50.1 --dns 192.168.50.1
for dev in "$node1" "$node2"; do
  echo "-- $dev, as the Pi will read it:"
  echo "   PARTUUID of the root partition: $(partx -g -o UUID -n 2 "$dev")"
  echo "   cmdline.txt: $(MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::cmdline.txt 2>/dev/null | grep -o 'root=[^ ]*')"
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::meta-data 2>/dev/null | sed 's/^/   meta-data: /'
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::user-data 2>/dev/null | grep -E '^hostname:|- name:' | sed 's/^ */   user-data: /'
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::network-config 2>/dev/null | grep -A1 'addresses:' | sed -n 1,2p | sed 's/^ */   network-config: /'
done
release_device demo-node1 "$node1"
release_device demo-node2 "$node2"

# --- 2. EEPROM config ---------------------------------------------------------
echo
echo "== piprov eeprom check (a config migrated from the 2020-04-16 bootloader: BOOT_ORDER=0x1)"
cat > "$demo_dir/bootconf.txt" <<'CFG'
[all]
BOOT_UART=0
WAKE_ON_GPIO=1
POWER_OFF_ON_HALT=0
DHCP_TIMEOUT=45000
DHCP_REQ_TIMEOUT=4000
TFTP_FILE_TIMEOUT=30000
ENABLE_SELF_UPDATE=1
DISABLE_HDMI=0
BOOT_ORDER=0x1
CFG
rc=0
"$piprov" eeprom check --board pi4 --want usb "$demo_dir/bootconf.txt" || rc=$?
if [ "$rc" -ne 1 ]; then echo "demo: expected eeprom check to report the missing USB mode (exit 1), got $rc" >&2; exit 1; fi
echo "(exit 1: the check found the problem, as it should)"
echo "== piprov eeprom explain 0xf41 (the fix)"
"$piprov" eeprom explain 0xf41

# --- 3. benchmark -------------------------------------------------------------
if [ "${DEMO_SKIP_BENCH:-0}" != 1 ]; then
  echo
  echo "== piprov bench --profile quick: emulated USB SSD vs emulated microSD (raw devices, ~1 min)"
  bssd=$(make_device demo-bench-ssd usb-ssd 1G)
  bsd=$(make_device demo-bench-sd microsd 1G)
  if have_emulator; then devices+=(demo-bench-ssd demo-bench-sd); else devices+=("$bssd" "$bsd"); fi
  rc=0
  table=$("${under[@]}" "$piprov" bench --profile quick --destructive --progress none --size 512M "$bssd" "$bsd") || rc=$?
  echo "$table"
  [ "$rc" = 0 ] || { echo "demo: piprov bench exited $rc" >&2; exit 1; }
  if have_emulator; then
    # The table's last column is B/A MiB/s (microSD / SSD): below 1 where the SSD is faster.
    slower=$(awk '/^test .*B\/A/ { t = 1; next } t && NF == 0 { t = 0 }
                  t && $NF >= 1 { n = ""; for (i = 1; i <= NF - 9; i++) n = n (i > 1 ? " " : "") $i; print "  " n ": B/A " $NF }' <<<"$table")
    if [ -z "$slower" ]; then
      echo "(A, the emulated USB SSD, is faster than B, the emulated microSD, in every test, as on a Pi 4)"
    else
      echo "demo: warning: the emulated SSD was not faster in these tests (a busy host adds its own latency to both):"
      echo "$slower"
    fi
  fi
fi
echo
echo "demo: done"
