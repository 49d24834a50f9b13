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

# The demo image: Ubuntu 20.04 raspi layout (system-boot + writable), as .img.xz.
demo_dir=${DEMO_DIR:-/var/tmp/piprov-demo}
echo "== building the demo image (scripts/make-test-image.sh, cached)"
scripts/make-test-image.sh "$demo_dir/demo.img" 256 >/dev/null
image=$demo_dir/demo.img.xz

# An emulated USB SSD (throttled loop device) when ../shared/tools exists,
# else a plain loop device on a file in /var/tmp.
emulate=../shared/tools/emulate-device
run=()
if [ -x "$emulate" ]; then
  "$emulate" destroy demo-ssd >/dev/null 2>&1 || true  # a leftover of an interrupted demo
  dev=$("$emulate" create demo-ssd usb-ssd 3G)
  run=("$emulate" run --)
  cleanup() { "$emulate" destroy demo-ssd >/dev/null 2>&1 || true; }
else
  truncate -s 3G "$demo_dir/demo-ssd.img"
  dev=$(losetup -f --show --partscan "$demo_dir/demo-ssd.img")
  cleanup() { losetup -d "$dev" 2>/dev/null || true; rm -f "$demo_dir/demo-ssd.img"; }
fi
trap cleanup EXIT
echo "== emulated USB SSD: $dev"

echo "== piprov write --yes $image $dev"
"${run[@]}" "$piprov" write --yes --progress plain "$image" "$dev"
echo "== partitions on $dev"
for p in "$dev"p*; do blkid "$p" || echo "$p"; done
echo "== piprov verify $image $dev"
"${run[@]}" "$piprov" verify --progress none "$image" "$dev"
