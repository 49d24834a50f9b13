#!/usr/bin/env bash
# The main job on a built-in default. Grows with each module:
# provision a Ubuntu-layout image onto an emulated USB SSD, check an EEPROM
# config, benchmark SSD vs microSD. Needs root (loop devices).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
piprov=build/src/cli/piprov
echo "== piprov devices"
"$piprov" devices

# --- provision: the Ubuntu 20.04 layout image onto an emulated USB SSD, then boot check.
echo "== piprov provision (Ubuntu 20.04 arm64+raspi layout -> emulated USB SSD)"
demo_dir=${DEMO_DIR:-/var/tmp/piprov-demo}
mkdir -p "$demo_dir"
scripts/make-test-image.sh "$demo_dir/ubuntu.img" 256 >/dev/null
emu=../shared/tools/emulate-device
ssd_name=${DEMO_SSD_NAME:-ssd}
mnt=$(mktemp -d)
if [ -x "$emu" ]; then
  ssd=$("$emu" create "$ssd_name" usb-ssd 3G)
  under=("$emu" run --)
else
  rm -f "$demo_dir/ssd.img"; truncate -s 3G "$demo_dir/ssd.img"
  ssd=$(losetup -f --show --partscan "$demo_dir/ssd.img")
  under=()
fi
provision_cleanup() {
  umount "$mnt/root" 2>/dev/null || true
  umount "$mnt/boot" 2>/dev/null || true
  rm -rf "$mnt"
  if [ -x "$emu" ]; then "$emu" destroy "$ssd_name" >/dev/null; else losetup -d "$ssd"; fi
}
trap provision_cleanup EXIT
echo "target: $ssd"
"${under[@]}" "$piprov" provision "$demo_dir/ubuntu.img.xz" "$ssd" --yes --progress plain

echo "== piprov boot check on the provisioned SSD"
mkdir -p "$mnt/boot" "$mnt/root"
mount -o ro "${ssd}p2" "$mnt/root"
if ! mount -t vfat -o ro "${ssd}p1" "$mnt/boot" 2>/dev/null; then
  echo "(this kernel cannot mount vfat: checking a copy made with mtools)"
  MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "${ssd}p1" ::/ "$mnt/boot/" 2>/dev/null
fi
"$piprov" boot check "$mnt/boot" --root "$mnt/root"
