#!/usr/bin/env bash
# make-test-image.sh [--layout focal|noble|resolute|raspios] [--rootfs stub|debian] [--fill PCT] [--cloud-init VER] OUT.img [ROOT_MiB]
#
# Builds a disk image laid out like a Raspberry Pi OS image, without mounting
# anything: MBR (sfdisk); p1 FAT32 (type 0x0c, bootable) at sector 2048, 256 MiB;
# p2 ext4 (type 0x83) at sector 526336, ROOT_MiB (default 256) long.
# Every layout boots a real arm64 kernel (the Image from Debian's
# linux-image-*-arm64 package; gzipped as vmlinuz, as Ubuntu ships it) with an
# initrd.img and the Pi 4 device trees; the config files are written here from
# what each release ships (canonical/pi-gadget configs/<release>-arm64-server,
# RPi-Distro/pi-gen stage1/00-boot-files):
#   focal (default): Ubuntu 20.04 arm64+raspi: labels system-boot/writable, the
#     U-Boot chain ([pi4] kernel=uboot_rpi_4.bin, Debian's u-boot-rpi:arm64
#     binaries), config.txt + syscfg.txt + usercfg.txt, cmdline.txt/nobtcmd.txt.
#     No start4.elf (the firmware date is unknown), as before --layout existed.
#   noble: Ubuntu 24.04: [all] kernel=vmlinuz, initramfs initrd.img followkernel,
#     cmdline.txt with root=LABEL=writable.
#   resolute: Ubuntu 26.04 A/B boot: [all] os_prefix=current/, [tryboot]
#     os_prefix=new/; vmlinuz, initrd.img, cmdline.txt and device trees under
#     current/; autoboot.txt [all] tryboot_a_b=1; piboot-try in the dpkg status.
#   raspios: Raspberry Pi OS bookworm (64-bit): no kernel= (the firmware loads
#     kernel8.img on a Pi 4, kernel_2712.img on a Pi 5, both gzip), initramfs8,
#     cmdline.txt root=PARTUUID=<disk id>-02, labels bootfs/rootfs; the Pi 4
#     device trees and a stand-in bcm2712-rpi-5-b.dtb (dtc; pi5_dtb_standin).
# noble, resolute and raspios carry Debian's raspi-firmware start4.elf and
# fixup4.dat (firmware of 2022-08-30), so the firmware date is known.
# The root fs holds real files (a copy of part of this machine's /usr, filling
# about 60% of it; PCT% with --fill PCT, 1..90, stub root fs only) plus the
# release's /etc/os-release and fstab. What else each layout's root fs has:
#   focal: nothing more: no /etc/cloud (so no cloud-init, whatever the copied
#     /usr holds), no /var/lib/dpkg/status (so no flash-kernel), as before
#     --layout existed (an image without cloud-init);
#   noble: cloud-init (/usr/bin/cloud-init, /etc/cloud/) and a dpkg status
#     naming cloud-init, flash-kernel and linux-raspi;
#   resolute: the same with piboot-try instead of flash-kernel;
#   raspios: no cloud-init; a dpkg status naming raspberrypi-sys-mods and
#     raspi-firmware, /etc/rpi-issue, fstab by PARTUUID.
# --cloud-init VER adds cloud-init to any layout (below): on focal and raspios
# also the /etc/cloud and /usr/bin/cloud-init noble has.
#
# --cloud-init VER (22.4.2, 24.1, 25.2 or 26.2; stub root fs only): the root fs
# carries that cloud-init's own schema-cloud-config-v1.json (from
# ../shared/data/cloud-init-schemas, or $PIPROV_SHARED_DATA/cloud-init-schemas)
# where the cloud-init package installs it
# (usr/lib/python3/dist-packages/cloudinit/config/schemas/), its
# cloudinit/version.py, and dpkg status entries for cloud-init VER and the
# layout's netplan.io (focal 0.99, noble 1.0, resolute 1.1.2, raspios 1.1.2):
# for seeds judged by the image's own cloud-init (piprov seed check --image).
#
# --rootfs debian (for the boot test, scripts/boot-test.sh): the root fs is a
# real arm64 Debian 12 userland (scripts/test-rootfs.sh builds it once, as
# root) with the release's identity, and the boot files are its own kernel and
# initramfs (scripts/test-image-debian.sh); ROOT_MiB defaults to 1024; no .xz.
#
# Writes OUT.img and OUT.img.xz (xz -0 -T0, as Ubuntu's builds do). Both are
# cached in $PIPROV_CACHE_DIR (default /var/tmp/piprov-cache) keyed by layout,
# ROOT_MiB and this script's content, so a second run only copies.
# Needs: sfdisk, mkfs.vfat, mtools, mke2fs (-d), xz, apt-get (arm64 lists and the
# non-free-firmware component: run scripts/install-deps.sh first). Exit 2 on
# usage errors, 3 when a tool fails.
set -euo pipefail

usage() { echo "usage: $0 [--layout focal|noble|resolute|raspios] [--rootfs stub|debian] [--fill PCT] [--cloud-init VER] OUT.img [ROOT_MiB]   (ROOT_MiB: 64..65536, default 256; 1024 for debian; PCT: 1..90, default 60)" >&2; exit 2; }
layout=focal
cloud_init=
rootfs=stub
fill=60
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --layout) [ $# -ge 2 ] || usage; layout=$2; shift 2 ;;
    --layout=*) layout=${1#--layout=}; shift ;;
    --rootfs) [ $# -ge 2 ] || usage; rootfs=$2; shift 2 ;;
    --rootfs=*) rootfs=${1#--rootfs=}; shift ;;
    --fill) [ $# -ge 2 ] || usage; fill=$2; shift 2 ;;
    --fill=*) fill=${1#--fill=}; shift ;;
    --cloud-init) [ $# -ge 2 ] || usage; cloud_init=$2; shift 2 ;;
    --cloud-init=*) cloud_init=${1#--cloud-init=}; shift ;;
    -*) usage ;;
    *) args+=("$1"); shift ;;
  esac
done
case $layout in
  focal | noble | resolute | raspios) ;;
  *) echo "make-test-image.sh: unknown --layout '$layout' (focal, noble, resolute or raspios)" >&2; exit 2 ;;
esac
case $rootfs in
  stub | debian) ;;
  *) echo "make-test-image.sh: unknown --rootfs '$rootfs' (stub or debian)" >&2; exit 2 ;;
esac
[[ "$fill" =~ ^[0-9]+$ ]] && [ "$fill" -ge 1 ] && [ "$fill" -le 90 ] ||
  { echo "make-test-image.sh: --fill takes a percentage 1..90 (got '$fill')" >&2; exit 2; }
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || usage
schema_src=
if [ -n "$cloud_init" ]; then
  [ "$rootfs" = stub ] || { echo "make-test-image.sh: --cloud-init needs --rootfs stub" >&2; exit 2; }
  [[ "$cloud_init" =~ ^[0-9]+(\.[0-9]+)+$ ]] || { echo "make-test-image.sh: --cloud-init takes a version such as 24.1 (got '$cloud_init')" >&2; exit 2; }
  shared_data=${PIPROV_SHARED_DATA:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
  schema_src=$shared_data/cloud-init-schemas/schema-cloud-config-v1-$cloud_init.json
  [ -s "$schema_src" ] || { echo "make-test-image.sh: no schema for cloud-init $cloud_init ($schema_src)" >&2; exit 2; }
fi
out=${args[0]}
root_mib=${args[1]:-256}
[ "$rootfs" = debian ] && root_mib=${args[1]:-1024}
[[ "$root_mib" =~ ^[0-9]+$ ]] && [ "$root_mib" -ge 64 ] && [ "$root_mib" -le 65536 ] || usage
case "$out" in *.img) ;; *) echo "make-test-image.sh: OUT must end in .img (got '$out')" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
cache=${PIPROV_CACHE_DIR:-/var/tmp/piprov-cache}
mkdir -p "$cache"
key=$(sha256sum "$here/make-test-image.sh" | cut -c1-12)
# focal keeps the cache name it had before --layout existed.
name=$layout-layout; [ "$layout" = focal ] && name=ubuntu-layout
# A --fill other than the default is part of the cache name (the default keeps the old names).
[ "$fill" = 60 ] || name=$name-fill$fill
# An image carrying a cloud-init schema: the version (and the schema's content) name it.
if [ -n "$cloud_init" ]; then
  name=$name-ci$cloud_init
  key=$(cat "$here/make-test-image.sh" "$schema_src" | sha256sum | cut -c1-12)
fi
# xz: the suffix of the compressed copy (none for debian: provision takes the .img).
xz_suffix=.xz
if [ "$rootfs" = debian ]; then
  # shellcheck source=scripts/test-image-debian.sh
  . "$here/test-image-debian.sh"
  rootfs_tar=$("$here/test-rootfs.sh") || exit 3
  name=$layout-debian
  key=$(cat "$here/make-test-image.sh" "$here/test-image-debian.sh" <(basename "$rootfs_tar") | sha256sum | cut -c1-12)
  xz_suffix=
fi
cached="$cache/$name-$root_mib-$key.img"

fail() { echo "make-test-image.sh: $*" >&2; exit 3; }

# The Debian packages the images are made of, downloaded once into $cache/debs.
fetch_debs() { # -> $cache/debs/{kernel.deb,uboot.deb,firmware.deb}
  local d="$cache/debs"
  mkdir -p "$d"
  [ -s "$d/kernel.deb" ] && [ -s "$d/uboot.deb" ] && [ -s "$d/firmware.deb" ] && return 0
  dpkg --print-foreign-architectures | grep -x arm64 >/dev/null || fail "arm64 package lists are missing: run scripts/install-deps.sh"
  local kpkg
  kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  if [ -z "$kpkg" ]; then apt-get update -qq; kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'); fi
  [ -n "$kpkg" ] || fail "cannot resolve Debian's linux-image-arm64 kernel package"
  local tmp; tmp=$(mktemp -d)
  # raspi-firmware (arch all) is in the non-free-firmware component.
  local pkgs=("$kpkg" u-boot-rpi:arm64 raspi-firmware)
  ( cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1 ) \
    || ( apt-get update -qq && cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1 ) \
    || fail "apt-get download ${pkgs[*]} failed (raspi-firmware needs the non-free-firmware component: scripts/install-deps.sh)"
  mv "$tmp"/linux-image-*.deb "$d/kernel.deb"
  mv "$tmp"/u-boot-rpi_*.deb "$d/uboot.deb"
  mv "$tmp"/raspi-firmware_*.deb "$d/firmware.deb"
  rm -rf "$tmp"
}

# stub_kernel: sets stub_kernel_dir to the directory holding the stub layouts' kernel files,
# made once per kernel package and version of this script (unpacking the
# kernel and gzip -9 of its Image were half of an image's build):
# vmlinuz (Debian's arm64 Image, gzipped as Ubuntu ships it), initrd.img and
# the Pi 4 device trees.
stub_kernel() {
  local k
  k=$cache/debs/stub-kernel-$( { cat "$here/make-test-image.sh"; stat -c '%s %Y' "$cache/debs/kernel.deb"; } | sha256sum | cut -c1-12)
  if [ ! -s "$k/initrd.img" ]; then
    exec 8>"$k.lock"
    flock 8
    if [ ! -s "$k/initrd.img" ]; then
      find "$cache/debs" -maxdepth 1 -name 'stub-kernel-*' ! -name "$(basename "$k")*" -exec rm -rf {} +
      local t; t=$(mktemp -d "$k.part.XXXXXX")
      dpkg-deb -x "$cache/debs/kernel.deb" "$t/k"
      local image; image=$(ls "$t"/k/boot/vmlinuz-*-arm64 | sed -n 1p)
      mkdir -p "$t/out"
      # Debian ships the uncompressed arm64 Image; Ubuntu's vmlinuz is that Image gzipped.
      gzip -9 -n -c "$image" > "$t/out/vmlinuz"
      cp "$t"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-4-b.dtb "$t"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-400.dtb \
         "$t"/k/usr/lib/linux-image-*/broadcom/bcm2711-rpi-cm4-io.dtb "$t/out/"
      # initrd.img: a real gzip'd newc cpio holding a few kernel modules and an init script.
      mkdir -p "$t/initrd/lib/modules" "$t/initrd/bin"
      find "$t/k/lib/modules" -name '*.ko' -path '*usb/storage*' -exec cp {} "$t/initrd/lib/modules/" \;
      printf '#!/bin/sh\nmount -t proc proc /proc\nexec /sbin/init\n' > "$t/initrd/init"
      chmod +x "$t/initrd/init"
      ( cd "$t/initrd" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9 -n ) > "$t/out/initrd.img"
      rm -rf "$k"
      mv "$t/out" "$k"
      rm -rf "$t"
    fi
    exec 8>&-
  fi
  stub_kernel_dir=$k
}

# kernel_files DIR: DIR/vmlinuz, DIR/initrd.img and the Pi 4 device trees:
# stub_kernel's, or a debian image's own kernel and initramfs.
kernel_files() {
  local b=$1
  if [ "$rootfs" = debian ]; then debian_kernel_files "$work/root" "$b"; return; fi
  stub_kernel
  cp "$stub_kernel_dir"/* "$b/"
}

# pi4_firmware DIR: Debian raspi-firmware's start4.elf and fixup4.dat (the Pi 4
# firmware reads them from the boot partition; a Pi 5's is in its EEPROM).
pi4_firmware() {
  dpkg-deb -x "$cache/debs/firmware.deb" "$x/fw"
  cp "$x/fw/usr/lib/raspi-firmware/start4.elf" "$x/fw/usr/lib/raspi-firmware/fixup4.dat" "$1/"
}

boot_focal() { # Ubuntu 20.04 GA (../shared/data/config-txt/01, 03, 04, cmdline-01).
  local b=$1
  kernel_files "$b"
  dpkg-deb -x "$cache/debs/uboot.deb" "$x/u"
  cp "$x/u/usr/lib/u-boot/rpi_4/u-boot.bin" "$b/uboot_rpi_4.bin"
  cp "$x/u/usr/lib/u-boot/rpi_3/u-boot.bin" "$b/uboot_rpi_3.bin"
  cp "$x/u/usr/lib/u-boot/rpi_arm64/u-boot.bin" "$b/uboot_rpi_arm64.bin"
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

# The boot settings Ubuntu's server images share from 20.10 on (pi-gadget's
# configs/noble-arm64-server/config.txt after its boot lines).
ubuntu_config_tail() {
  cat <<'CFG'

dtparam=audio=on
dtparam=i2c_arm=on
dtparam=spi=on
disable_overscan=1
dtoverlay=vc4-kms-v3d
disable_fw_kms_setup=1
enable_uart=1
camera_auto_detect=1
display_auto_detect=1
dtoverlay=dwc2

[pi4]
max_framebuffers=2
arm_boost=1

[cm4]
dtoverlay=dwc2,dr_mode=host

[all]
CFG
}
ubuntu_cmdline='console=serial0,115200 multipath=off dwc_otg.lpm_enable=0 console=tty1 root=LABEL=writable rootfstype=ext4 rootwait fixrtc'

boot_noble() { # Ubuntu 24.04 (../shared/data/config-txt/14, cmdline-03).
  local b=$1
  kernel_files "$b"
  pi4_firmware "$b"
  { printf '[all]\narm_64bit=1\nkernel=vmlinuz\ncmdline=cmdline.txt\ninitramfs initrd.img followkernel\n'
    ubuntu_config_tail; } > "$b/config.txt"
  echo "$ubuntu_cmdline" > "$b/cmdline.txt"
}

boot_resolute() { # Ubuntu 25.10/26.04 A/B (../shared/data/config-txt/15, cmdline-04, autoboot-01).
  local b=$1
  mkdir -p "$b/current"
  kernel_files "$b/current"
  pi4_firmware "$b"
  { printf '[all]\nos_prefix=current/\n\n[tryboot]\nos_prefix=new/\n\n'
    printf '[all]\narm_64bit=1\nkernel=vmlinuz\ncmdline=cmdline.txt\ninitramfs initrd.img followkernel\n'
    ubuntu_config_tail; } > "$b/config.txt"
  printf '[all]\ntryboot_a_b=1\n' > "$b/autoboot.txt"
  echo "$ubuntu_cmdline" > "$b/current/cmdline.txt"
}

# pi5_dtb_standin FILE MODEL COMPATIBLE: a device tree with the board's model and
# compatible strings (dtc). Raspberry Pi OS carries the Pi 5's bcm2712-rpi-5-b.dtb
# beside kernel_2712.img (the firmware loads the board's DTB by that name:
# Raspberry Pi documentation, config_txt: device_tree); Debian 12's kernel
# (Linux 6.1) ships no BCM2712 device trees, and QEMU's virt machine makes its own.
pi5_dtb_standin() {
  printf '/dts-v1/;\n/ {\n\tmodel = "%s (piprov test stand-in)";\n\tcompatible = "%s", "brcm,bcm2712";\n\t#address-cells = <2>;\n\t#size-cells = <1>;\n};\n' \
    "$2" "$3" | dtc -q -I dts -O dtb -o "$1" - || fail "dtc could not make $1 (scripts/install-deps.sh installs device-tree-compiler)"
}

raspios_disk_id=6c586e13
boot_raspios() { # Raspberry Pi OS bookworm (../shared/data/config-txt/16, cmdline-05).
  local b=$1
  kernel_files "$b"
  pi4_firmware "$b"
  # Raspberry Pi OS ships its kernels gzip-compressed under the firmware's default names.
  mv "$b/vmlinuz" "$b/kernel8.img"
  cp "$b/kernel8.img" "$b/kernel_2712.img"
  mv "$b/initrd.img" "$b/initramfs8"
  cp "$b/initramfs8" "$b/initramfs_2712"
  pi5_dtb_standin "$b/bcm2712-rpi-5-b.dtb" "Raspberry Pi 5 Model B" raspberrypi,5-model-b
  cat > "$b/config.txt" <<'CFG'
# For more options and information see
# http://rptl.io/configtxt
# Some settings may impact device functionality. See link above for details

dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1

# Automatically load initramfs files, if found
auto_initramfs=1

dtoverlay=vc4-kms-v3d
max_framebuffers=2
disable_fw_kms_setup=1
disable_overscan=1
arm_boost=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
CFG
  echo "console=serial0,115200 console=tty1 root=PARTUUID=$raspios_disk_id-02 rootfstype=ext4 fsck.repair=yes rootwait" > "$b/cmdline.txt"
}

build_boot_dir() { # $1 = dir to fill
  local x; x=$(mktemp -d)
  "boot_$layout" "$1"
  rm -rf "$x"
}

os_release() {
  case $layout in
    focal) printf 'NAME="Ubuntu"\nVERSION="20.04 LTS (Focal Fossa)"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 20.04 LTS"\nVERSION_ID="20.04"\nVERSION_CODENAME=focal\n' ;;
    noble) printf 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nVERSION="24.04.3 LTS (Noble Numbat)"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=noble\n' ;;
    resolute) printf 'PRETTY_NAME="Ubuntu 26.04 LTS"\nNAME="Ubuntu"\nVERSION_ID="26.04"\nVERSION="26.04 LTS (Resolute Raccoon)"\nVERSION_CODENAME=resolute\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=resolute\n' ;;
    raspios) printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n' ;;
  esac
}

# dpkg_status PACKAGE[=VERSION]...: a /var/lib/dpkg/status naming each package as installed (version 1.0 unless given).
dpkg_status() {
  local p v
  for p in "$@"; do
    v=1.0
    case $p in *=*) v=${p#*=}; p=${p%%=*} ;; esac
    printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nArchitecture: arm64\nVersion: %s\nDescription: %s (test image)\n\n' "$p" "$v" "$p"
  done
}

# cloud_init_stub ROOT: /etc/cloud/cloud.cfg (NoCloud) and a /usr/bin/cloud-init stand-in, what
# piprov looks for to tell that an image runs cloud-init.
cloud_init_stub() {
  local r=$1
  mkdir -p "$r/etc/cloud/cloud.cfg.d" "$r/usr/bin"
  printf '# cloud-init configuration (test image)\ndatasource_list: [ NoCloud, None ]\n' > "$r/etc/cloud/cloud.cfg"
  printf '#!/usr/bin/python3\n# cloud-init (test image stand-in for the entry point)\n' > "$r/usr/bin/cloud-init"
  chmod 755 "$r/usr/bin/cloud-init"
}

# cloud_init_files ROOT: --cloud-init's schema, version.py and dpkg status entries (appended),
# and on a layout without cloud-init of its own (focal, raspios) cloud_init_stub.
cloud_init_files() {
  local r=$1 d netplan
  [ -n "$cloud_init" ] || return 0
  [ -d "$r/etc/cloud" ] || cloud_init_stub "$r"
  d=$r/usr/lib/python3/dist-packages/cloudinit
  mkdir -p "$d/config/schemas" "$r/var/lib/dpkg"
  cp "$schema_src" "$d/config/schemas/schema-cloud-config-v1.json"
  printf '__VERSION__ = "%s"\n' "$cloud_init" > "$d/version.py"
  case $layout in focal) netplan=0.99-0ubuntu3~20.04.2 ;; noble) netplan=1.0-2ubuntu1 ;; *) netplan=1.1.2-2 ;; esac
  # dpkg keeps the first entry of a package: drop the stand-in cloud-init entry.
  if [ -f "$r/var/lib/dpkg/status" ]; then
    awk -v RS= -v ORS='\n\n' '!/^Package: cloud-init\n/' "$r/var/lib/dpkg/status" > "$r/var/lib/dpkg/status.new"
    mv "$r/var/lib/dpkg/status.new" "$r/var/lib/dpkg/status"
  fi
  dpkg_status "cloud-init=$cloud_init-0ubuntu1" "netplan.io=$netplan" >> "$r/var/lib/dpkg/status"
}

# The release's identity files: cloud-init on Ubuntu (its NoCloud seed is read
# from the boot partition), the boot packages in the dpkg status.
root_release_files() {
  local r=$1
  case $layout in
    focal) return 0 ;;
    raspios)
      printf 'PARTUUID=%s-01  /boot/firmware  vfat    defaults          0       2\nPARTUUID=%s-02  /               ext4    defaults,noatime  0       1\n' \
        "$raspios_disk_id" "$raspios_disk_id" > "$r/etc/fstab"
      echo raspberrypi > "$r/etc/hostname"
      echo 'Raspberry Pi reference 2024-11-19' > "$r/etc/rpi-issue"
      mkdir -p "$r/var/lib/dpkg"
      dpkg_status raspberrypi-sys-mods raspi-firmware > "$r/var/lib/dpkg/status"
      return 0 ;;
  esac
  mkdir -p "$r/var/lib/dpkg"
  cloud_init_stub "$r"
  if [ "$layout" = resolute ]; then dpkg_status cloud-init piboot-try linux-raspi > "$r/var/lib/dpkg/status"
  else dpkg_status cloud-init flash-kernel linux-raspi > "$r/var/lib/dpkg/status"; fi
}

build_root_dir() { # $1 = dir, $2 = budget in bytes for /usr content
  local r=$1 budget=$2
  mkdir -p "$r"/{etc/apt/apt.conf.d,boot/firmware,home/ubuntu,var/log,tmp,root,usr/local/bin}
  os_release > "$r/etc/os-release"
  printf 'LABEL=writable\t/\t ext4\tdefaults\t0 0\nLABEL=system-boot       /boot/firmware  vfat    defaults        0       1\n' > "$r/etc/fstab"
  echo ubuntu > "$r/etc/hostname"
  root_release_files "$r"
  cloud_init_files "$r"
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
  local boot_sectors=524288 root_start=526336
  local root_bytes=$((root_mib * 1048576))
  # kernel_files takes a debian image's kernel from its root fs.
  if [ "$rootfs" = debian ]; then debian_root_dir "$work/root"; fi
  build_boot_dir "$work/boot"
  if [ "$rootfs" = stub ]; then build_root_dir "$work/root" $((root_bytes * fill / 100)); fi
  local boot_label=system-boot root_label=writable disk_id=4ec8ea53
  if [ "$layout" = raspios ]; then boot_label=bootfs root_label=rootfs disk_id=$raspios_disk_id; fi

  truncate -s $((boot_sectors * 512)) "$work/boot.fat"
  mkfs.vfat -F 32 -n "$boot_label" "$work/boot.fat" >/dev/null 2>&1 || fail "mkfs.vfat failed"
  mcopy -s -i "$work/boot.fat" "$work"/boot/* ::/ || fail "mcopy failed"

  rm -f "$img"
  truncate -s $(((root_start * 512) + root_bytes)) "$img"
  printf 'label: dos\nlabel-id: 0x%s\nunit: sectors\n\nstart=2048, size=%d, type=c, bootable\nstart=%d, type=83\n' \
    "$disk_id" "$boot_sectors" "$root_start" | sfdisk -q "$img" || fail "sfdisk failed"
  dd if="$work/boot.fat" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
  # The root file system is made in place, at its partition's offset (no copy).
  mke2fs -q -F -t ext4 -b 4096 -L "$root_label" -d "$work/root" -E offset=$((root_start * 512)) "$img" "${root_mib}M" >/dev/null 2>&1 \
    || fail "mke2fs -d failed"
}

# One builder at a time (parallel tests may ask for the same image); a built
# image is never changed again (renamed into place, .xz first), so the copies
# need no lock.
if [ ! -s "$cached" ] || [ ! -s "$cached$xz_suffix" ]; then
  exec 9>"$cache/.lock"
  flock 9
fi
if [ ! -s "$cached" ] || [ ! -s "$cached$xz_suffix" ]; then
  echo "make-test-image.sh: building $(basename "$cached") (layout $layout, root fs $rootfs, ROOT ${root_mib} MiB; cached for next time)" >&2
  # Images built by an older version of this script are stale: drop them.
  find "$cache" -maxdepth 1 -name "$name-$root_mib-*" ! -name "$name-$root_mib-$key.*" -delete
  build_image "$cached.part"
  if [ -n "$xz_suffix" ]; then
    xz -0 -T0 -k -c "$cached.part" > "$cached.xz.part"
    mv "$cached.xz.part" "$cached.xz"
  fi
  mv "$cached.part" "$cached"
fi
exec 9>&-
mkdir -p "$(dirname "$out")"
cp --reflink=auto --sparse=always "$cached" "$out"
if [ -n "$xz_suffix" ]; then cp --reflink=auto "$cached.xz" "$out.xz"; fi
echo "$out"
