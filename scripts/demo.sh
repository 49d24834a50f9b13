#!/usr/bin/env bash
# The main job on a built-in default, end to end (needs root: loop devices):
#   1. provision a Ubuntu 20.04 arm64+raspi layout image (scripts/make-test-image.sh,
#      real Debian arm64 kernel) onto an emulated USB SSD, then `boot check` it;
#      then provision two emulated SSDs from one decode, each with its own
#      hostname, instance-id, address and disk identifier, and show each disk;
#   2. check a bootloader EEPROM config (a built-in one with the classic
#      BOOT_ORDER=0x1 mistake), and explain the fixed order;
#   3. benchmark an emulated USB SSD against an emulated microSD (profile quick).
# Emulated devices come from ../shared/tools/emulate-device when present (Pi 4
# microSD and USB SSD figures), plain loop devices otherwise. Env: DEMO_DIR
# (default /var/tmp/piprov-demo), DEMO_SKIP_BENCH=1.
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
  umount "$mnt/root" 2>/dev/null || true
  umount "$mnt/boot" 2>/dev/null || true
  rm -rf "$mnt"
  for d in "${devices[@]}"; do
    if have_emulator; then destroy_emulated "$d"
    else losetup -d "$d" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT
have_emulator || echo "($emulator not found: using unthrottled loop devices)"

echo "== piprov devices"
"$piprov" devices

# --- 1. provision -----------------------------------------------------------
echo
echo "== building the demo image (Ubuntu 20.04 arm64+raspi layout; cached after the first run)"
scripts/make-test-image.sh "$demo_dir/ubuntu.img" 256 >/dev/null
ssd=$(make_device demo-ssd usb-ssd 3G)
if have_emulator; then devices+=(demo-ssd); else devices+=("$ssd"); fi
echo "== piprov provision $demo_dir/ubuntu.img.xz $ssd (emulated USB SSD)"
"${under[@]}" "$piprov" provision "$demo_dir/ubuntu.img.xz" "$ssd" --yes --progress plain

echo
echo "== piprov boot check on the provisioned SSD"
mkdir -p "$mnt/boot" "$mnt/root"
mount -o ro "${ssd}p2" "$mnt/root"
if ! mount -t vfat -o ro "${ssd}p1" "$mnt/boot" 2>/dev/null; then
  echo "(this kernel cannot mount vfat: checking a copy of the boot partition made with mtools)"
  MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "${ssd}p1" ::/ "$mnt/boot/" 2>/dev/null
fi
"$piprov" boot check "$mnt/boot" --root "$mnt/root"
umount "$mnt/root"; umount "$mnt/boot" 2>/dev/null || true

# --- 1b. two cluster nodes from one decode --------------------------------------
echo
echo "== two cluster nodes from one decode: piprov provision IMAGE DISK1 DISK2 --hostname 'node{1..2}' ..."
# The 20.04 test image has no cloud-init files; Ubuntu's own images do. Add its
# entry point and /etc/cloud to a copy, as cloud-init's package would.
cp --sparse=always "$demo_dir/ubuntu.img" "$demo_dir/cluster.img"
mount -o loop,offset=$((526336 * 512)) "$demo_dir/cluster.img" "$mnt/root"   # p2 (make-test-image.sh's layout)
mkdir -p "$mnt/root/usr/bin" "$mnt/root/etc/cloud"
printf '#!/usr/bin/python3\n' > "$mnt/root/usr/bin/cloud-init"
chmod 755 "$mnt/root/usr/bin/cloud-init"
printf 'datasource_list: [ NoCloud, None ]\n' > "$mnt/root/etc/cloud/cloud.cfg"
umount "$mnt/root"
xz -0 -T0 -f "$demo_dir/cluster.img"
rm -f "$demo_dir/cluster_key" "$demo_dir/cluster_key.pub"
ssh-keygen -q -t ed25519 -N '' -C admin@cluster -f "$demo_dir/cluster_key"
node1=$(make_device demo-node1 usb-ssd 3G)
node2=$(make_device demo-node2 usb-ssd 3G)
if have_emulator; then devices+=(demo-node1 demo-node2); else devices+=("$node1" "$node2"); fi
"${under[@]}" "$piprov" provision "$demo_dir/cluster.img.xz" "$node1" "$node2" --yes --progress none \
  --hostname 'node{1..2}' --user admin --ssh-key "$demo_dir/cluster_key.pub" --timezone UTC \
  --ip 192.168.50.11/24,192.168.50.12/24 --gateway 192.168.50.1 --dns 192.168.50.1
for dev in "$node1" "$node2"; do
  echo "-- $dev, as the Pi will read it:"
  echo "   PARTUUID of the root partition: $(partx -g -o UUID -n 2 "$dev")"
  echo "   cmdline.txt: $(MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::nobtcmd.txt 2>/dev/null | grep -o 'root=[^ ]*')"
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::meta-data 2>/dev/null | sed 's/^/   meta-data: /'
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::user-data 2>/dev/null | grep -E '^hostname:|- name:' | sed 's/^ */   user-data: /'
  MTOOLS_SKIP_CHECK=1 mtype -i "${dev}p1" ::network-config 2>/dev/null | grep -A1 'addresses:' | head -2 | sed 's/^ */   network-config: /'
done

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
  "${under[@]}" "$piprov" bench --profile quick --destructive --no-progress --size 512M "$bssd" "$bsd"
fi
echo
echo "demo: done"
