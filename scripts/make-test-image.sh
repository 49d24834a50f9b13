#!/usr/bin/env bash
# make-test-image.sh OUT.img [ROOT_MiB]
#
# Builds a disk image laid out like Ubuntu 20.04 arm64+raspi preinstalled server
# (as `fdisk -l` shows Ubuntu's published .img), without mounting anything:
#   MBR; p1 FAT32 (type 0x0c, bootable) label "system-boot", 256 MiB at sector 2048;
#   p2 ext4 (type 0x83) label "writable" at sector 526336, ROOT_MiB (default 256) long.
# The boot partition holds a real arm64 kernel (the Image from Debian's
# linux-image-*-arm64 package, gzipped as vmlinuz), an initrd.img, Debian's
# u-boot-rpi:arm64 binaries as uboot_rpi_{3,4,arm64}.bin, the Pi 4 device trees,
# and Ubuntu 20.04's config.txt/syscfg.txt/usercfg.txt/cmdline.txt settings.
# The root fs holds real files (a copy of part of this machine's /usr, filling
# about 60% of it) plus an Ubuntu-like /etc.
#
# Writes OUT.img and OUT.img.xz (xz -0 -T0, as Ubuntu's builds do). Both are
# cached in $PIPROV_CACHE_DIR (default /var/tmp/piprov-cache) keyed by ROOT_MiB
# and this script's content, so a second run only copies.
# Needs: sfdisk, mkfs.vfat, mtools, mke2fs (-d), xz, apt-get (arm64 lists: run
# scripts/install-deps.sh first). Exit 2 on usage errors, 3 when a tool fails.
set -euo pipefail

usage() { echo "usage: $0 OUT.img [ROOT_MiB]   (ROOT_MiB: 64..65536, default 256)" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
out=$1
root_mib=${2:-256}
[[ "$root_mib" =~ ^[0-9]+$ ]] && [ "$root_mib" -ge 64 ] && [ "$root_mib" -le 65536 ] || usage
case "$out" in *.img) ;; *) echo "make-test-image.sh: OUT must end in .img (got '$out')" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
cache=${PIPROV_CACHE_DIR:-/var/tmp/piprov-cache}
mkdir -p "$cache"
key=$(sha256sum "$here/make-test-image.sh" | cut -c1-12)
cached="$cache/ubuntu-layout-$root_mib-$key.img"

fail() { echo "make-test-image.sh: $*" >&2; exit 3; }

fetch_debs() { # -> $cache/debs/{kernel.deb,uboot.deb}
  local d="$cache/debs"
  mkdir -p "$d"
  [ -s "$d/kernel.deb" ] && [ -s "$d/uboot.deb" ] && return 0
  dpkg --print-foreign-architectures | grep -qx arm64 || fail "arm64 package lists are missing: run scripts/install-deps.sh"
  local kpkg
  kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  if [ -z "$kpkg" ]; then apt-get update -qq; kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'); fi
  [ -n "$kpkg" ] || fail "cannot resolve Debian's linux-image-arm64 kernel package"
  local tmp; tmp=$(mktemp -d)
  ( cd "$tmp" && apt-get download -q "$kpkg" u-boot-rpi:arm64 >/dev/null 2>&1 ) \
    || ( apt-get update -qq && cd "$tmp" && apt-get download -q "$kpkg" u-boot-rpi:arm64 >/dev/null 2>&1 ) \
    || fail "apt-get download $kpkg u-boot-rpi:arm64 failed"
  mv "$tmp"/linux-image-*.deb "$d/kernel.deb"
  mv "$tmp"/u-boot-rpi_*.deb "$d/uboot.deb"
  rm -rf "$tmp"
}

build_boot_dir() { # $1 = dir to fill
  local b=$1 x; x=$(mktemp -d)
  dpkg-deb -x "$cache/debs/kernel.deb" "$x/k"
  dpkg-deb -x "$cache/debs/uboot.deb" "$x/u"
  local image; image=$(ls "$x"/k/boot/vmlinuz-*-arm64 | head -n1)
  # Debian ships the uncompressed arm64 Image; Ubuntu's vmlinuz is that Image gzipped.
  gzip -9 -n -c "$image" > "$b/vmlinuz"
  cp "$x"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-4-b.dtb "$x"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-400.dtb \
     "$x"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-cm4-io.dtb "$b/"
  cp "$x/u/usr/lib/u-boot/rpi_4/u-boot.bin" "$b/uboot_rpi_4.bin"
  cp "$x/u/usr/lib/u-boot/rpi_3/u-boot.bin" "$b/uboot_rpi_3.bin"
  cp "$x/u/usr/lib/u-boot/rpi_arm64/u-boot.bin" "$b/uboot_rpi_arm64.bin"
  # initrd.img: a real gzip'd newc cpio holding a few kernel modules and an init script.
  mkdir -p "$x/initrd/lib/modules" "$x/initrd/bin"
  find "$x/k/lib/modules" -name '*.ko' -path '*usb/storage*' -exec cp {} "$x/initrd/lib/modules/" \;
  printf '#!/bin/sh\nmount -t proc proc /proc\nexec /sbin/init\n' > "$x/initrd/init"
  chmod +x "$x/initrd/init"
  ( cd "$x/initrd" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9 -n ) > "$b/initrd.img"
  rm -rf "$x"

  # Ubuntu 20.04 GA boot configuration (../shared/data/config-txt/01, 03, 04, cmdline-01).
  cat > "$b/config.txt" <<'CFG'
# Please DO NOT modify this file; if you need to modify the boot config, the
# "usercfg.txt" file is the place to include user changes. Please refer to
# the README file for a description of the various configuration files on
# the boot partition.

# The unusual ordering below is deliberate; older firmwares (in particular the
# version initially shipped with bionic) don't understand the conditional
# [sections] below and simply ignore them. The Pi4 doesn't boot at all with
# firmwares this old so it's safe to place at the top. Of the Pi2 and Pi3, the
# Pi3 uboot happens to work happily on the Pi2, so it needs to go at the bottom
# to support old firmwares.

[pi4]
kernel=uboot_rpi_4.bin
max_framebuffers=2

[pi2]
kernel=uboot_rpi_2.bin

[pi3]
kernel=uboot_rpi_3.bin

[all]
arm_64bit=1
device_tree_address=0x03000000

# The following settings are "defaults" expected to be overridden by the
# included configuration. The only reason they are included is, again, to
# support old firmwares which don't understand the "include" command.

enable_uart=1
cmdline=nobtcmd.txt

include syscfg.txt
include usercfg.txt
CFG
  cat > "$b/syscfg.txt" <<'CFG'
# This file is intended to be modified by the pibootctl utility. User
# configuration changes should be placed in "usercfg.txt". Please refer to the
# README file for a description of the various configuration files on the boot
# partition.

enable_uart=1
dtparam=audio=on
dtparam=i2c_arm=on
dtparam=spi=on
cmdline=cmdline.txt
CFG
  cat > "$b/usercfg.txt" <<'CFG'
# Place "config.txt" changes (dtparam, dtoverlay, disable_overscan, etc.) in
# this file. Please refer to the README file for a description of the various
# configuration files on the boot partition.
CFG
  local cmdline='net.ifnames=0 dwc_otg.lpm_enable=0 console=serial0,115200 console=tty1 root=LABEL=writable rootfstype=ext4 elevator=deadline rootwait fixrtc'
  echo "$cmdline" > "$b/cmdline.txt"
  echo "$cmdline" > "$b/nobtcmd.txt"
  echo "$cmdline" > "$b/btcmd.txt"
}

build_root_dir() { # $1 = dir, $2 = budget in bytes for /usr content
  local r=$1 budget=$2
  mkdir -p "$r"/{etc/apt/apt.conf.d,boot/firmware,home/ubuntu,var/log,tmp,root,usr/local/bin}
  cat > "$r/etc/os-release" <<'OS'
NAME="Ubuntu"
VERSION="20.04 LTS (Focal Fossa)"
ID=ubuntu
ID_LIKE=debian
PRETTY_NAME="Ubuntu 20.04 LTS"
VERSION_ID="20.04"
VERSION_CODENAME=focal
OS
  printf 'LABEL=writable\t/\t ext4\tdefaults\t0 0\nLABEL=system-boot       /boot/firmware  vfat    defaults        0       1\n' > "$r/etc/fstab"
  echo ubuntu > "$r/etc/hostname"
  # Real files, not zeros: part of this machine's /usr up to the budget.
  local list; list=$(mktemp)
  { find /usr/lib /usr/share /usr/bin -xdev -type f -readable -size -16M -printf '%s\t%p\n' 2>/dev/null || true; } \
    | LC_ALL=C sort -t "$(printf '\t')" -k2 \
    | awk -F '\t' -v b="$budget" '!full { if (t + $1 > b) full = 1; else { t += $1; print $2 } }' > "$list"
  tar -cf - --no-recursion -T "$list" 2>/dev/null | tar -xf - -C "$r" 2>/dev/null || true
  rm -f "$list"
}

build_image() { # $1 = output .img
  local img=$1 work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  fetch_debs
  mkdir -p "$work/boot" "$work/root"
  build_boot_dir "$work/boot"
  local boot_sectors=524288 root_start=526336
  local root_bytes=$((root_mib * 1048576))
  build_root_dir "$work/root" $((root_bytes * 6 / 10))

  truncate -s $((boot_sectors * 512)) "$work/boot.fat"
  mkfs.vfat -F 32 -n system-boot "$work/boot.fat" >/dev/null 2>&1 || fail "mkfs.vfat failed"
  mcopy -s -i "$work/boot.fat" "$work"/boot/* ::/ || fail "mcopy failed"
  mke2fs -q -F -t ext4 -b 4096 -L writable -d "$work/root" "$work/root.ext4" "${root_mib}M" >/dev/null 2>&1 || fail "mke2fs -d failed"

  rm -f "$img"
  truncate -s $(((root_start * 512) + root_bytes)) "$img"
  printf 'label: dos\nlabel-id: 0x4ec8ea53\nunit: sectors\n\nstart=2048, size=%d, type=c, bootable\nstart=%d, type=83\n' \
    "$boot_sectors" "$root_start" | sfdisk -q "$img" || fail "sfdisk failed"
  dd if="$work/boot.fat" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
  dd if="$work/root.ext4" of="$img" bs=4M seek=$((root_start * 512)) oflag=seek_bytes conv=notrunc,sparse status=none
}

# One builder at a time (parallel tests may ask for the same image).
exec 9>"$cache/.lock"
flock 9
if [ ! -s "$cached" ] || [ ! -s "$cached.xz" ]; then
  echo "make-test-image.sh: building $(basename "$cached") (ROOT ${root_mib} MiB; cached for next time)" >&2
  # Images built by an older version of this script are stale: drop them.
  find "$cache" -maxdepth 1 -name "ubuntu-layout-$root_mib-*" ! -name "ubuntu-layout-$root_mib-$key.*" -delete
  build_image "$cached.part"
  xz -0 -T0 -k -c "$cached.part" > "$cached.xz.part"
  mv "$cached.xz.part" "$cached.xz"
  mv "$cached.part" "$cached"
fi
mkdir -p "$(dirname "$out")"
cp --reflink=auto --sparse=always "$cached" "$out"
cp --reflink=auto "$cached.xz" "$out.xz"
echo "$out"
