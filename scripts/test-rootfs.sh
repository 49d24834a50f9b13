#!/usr/bin/env bash
# test-rootfs.sh: builds (once) the arm64 Debian 12 root file system the boot
# test's images are made of, and prints the path of its tarball.
#
#   scripts/test-rootfs.sh            (as root; a fresh machine: several minutes)
#
# What it holds: systemd, udev, systemd-networkd/resolved, cloud-init,
# openssh-server, sudo, apt, initramfs-tools and Debian's arm64 kernel
# (linux-image-arm64), plus the shared libraries piprov's arm64 .deb depends
# on, so `apt-get install ./piprov_*_arm64.deb` works in the guest without a
# network, python3-apt (Ansible's apt module needs it), rsync and dosfstools
# (`piprov clone` of a live system copies with rsync into file systems it
# makes); Ubuntu's and Raspberry Pi OS's images carry all three. mmdebstrap(1) builds it; qemu-user-static runs the arm64 package
# scripts through binfmt_misc (registered here when the kernel has none).
# Trimmed for a guest that runs under QEMU's TCG: no man pages, locales or docs
# (mmdebstrap's own example), no CA certificates and locale sources (nothing
# here uses TLS or a locale but C.UTF-8; their package scripts loop over each
# one, a process per item, slow under qemu-user), kernel modules only for QEMU's virt machine
# (virtio, SCSI, USB storage, NVMe, ext4, vfat), an initramfs with MODULES=list
# (initramfs-tools(7): MODULES=dep would probe the build host), merged /usr
# set up by mmdebstrap's merged-usr hook (natively, where the usrmerge package
# would convert it under qemu-user), dpkg without fsync (the eatmydata hook).
#
# Cache: $PIPROV_CACHE_DIR (default /var/tmp/piprov-cache)/
#   rootfs-debian-bookworm-arm64-KEY.tar.zst   KEY = sha256 of the recipe: the
#                                              functions build, essential and
#                                              customize (the package list is
#                                              in build), suite and mirror
#   rootfs-debs/                               every .deb it installed
#                                              (mmdebstrap sync-in/sync-out):
#                                              a rebuild downloads nothing, and
#                                              the boot test repacks the kernel
#                                              .deb from here
# One builder at a time (flock); built to a .part name, then renamed.
# PIPROV_TEST_ROOTFS=FILE uses FILE instead (a tarball of an earlier recipe,
# while developing).
# Exit 2 on usage errors and without root, 3 when a tool is missing or fails.
set -euo pipefail

# Debian's own tools first: mmdebstrap runs its helpers (mmtarfilter, once per
# package) with the python3 on PATH, and a version manager's shim there costs
# seconds per call.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
suite=bookworm
mirror=${PIPROV_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${PIPROV_CACHE_DIR:-/var/tmp/piprov-cache}

# The settings of the test userland itself (not of any seed): cloud-init as on
# a cloud image, with the datasource chosen per image by make-test-image.sh.
customize() {
  local r=$1
  local f
  for f in /usr/sbin/update-initramfs /usr/bin/py3compile /usr/lib/python3.11/py_compile.py; do
    rm -f "$r$f"
    chroot "$r" dpkg-divert --quiet --local --rename --remove "$f"
  done
  # What python3.11's postinst (py_compile) and py3compile would have compiled
  # under qemu-user, compiled natively: the host's Python is the guest's 3.11,
  # and .pyc files do not depend on the architecture (timestamp-checked, as
  # Debian's; sitecustomize.py is a link to /etc, resolved on the guest).
  /usr/bin/python3.11 -m compileall -q -j 0 --invalidation-mode timestamp -s "$r" -p / -x sitecustomize \
    "$r/usr/lib/python3.11" "$r/usr/lib/python3/dist-packages" "$r/usr/share/python3" >&2
  local abi
  abi=$(ls "$r/lib/modules" | sed -n 1p)
  chroot "$r" update-initramfs -c -k "$abi"
  # Each image makes its own identity on first boot: SSH host keys (cloud-init's
  # cc_ssh) and the machine-id, which test-image-debian.sh empties per image
  # (machine-id(5): an empty one gets a new id on first boot, without the
  # first-boot preset run "uninitialized" would start: 40 s under TCG).
  rm -f "$r"/etc/ssh/ssh_host_*
  rm -f "$r/var/lib/dbus/machine-id"
  printf 'LANG=C.UTF-8\n' > "$r/etc/default/locale"
  mkdir -p "$r/etc/cloud/cloud.cfg.d"
  # C.UTF-8 needs no locale-gen; no RSA host key (slow under TCG); keep the
  # image's apt sources; networkd renders the seed's network-config (no netplan
  # on Debian 12: cloud-init's own v2 parser is what is tested).
  cat > "$r/etc/cloud/cloud.cfg.d/90-piprov-test.cfg" <<'CFG'
# piprov boot test image (scripts/test-rootfs.sh)
locale: C.UTF-8
ssh_genkeytypes: [ed25519, ecdsa]
apt:
  preserve_sources_list: true
system_info:
  network:
    renderers: [networkd]
    activators: [networkd]
CFG
  systemctl --root="$r" enable systemd-networkd.service systemd-resolved.service >/dev/null 2>&1
  systemctl --root="$r" mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
    systemd-networkd-wait-online.service >/dev/null 2>&1
  # A guest under TCG is slow and, beside other CI stages, starved: wait long
  # for units and devices rather than fail (systemd-system.conf(5)).
  mkdir -p "$r/etc/systemd/system.conf.d" "$r/etc/systemd/system/ssh.service.d"
  printf '[Manager]\nDefaultTimeoutStartSec=600s\nDefaultDeviceTimeoutSec=600s\n' \
    > "$r/etc/systemd/system.conf.d/piprov-test.conf"
  # sshd without cloud-init (the boot test's negative case) still gets a host
  # key: ed25519 only, when missing. Not `ssh-keygen -A`: after cloud-init made
  # its ed25519 and ecdsa keys (ssh_genkeytypes above) it made an RSA key too,
  # 15 s of every boot under TCG; sshd starts with the host keys it finds
  # (sshd_config(5), HostKey).
  cat > "$r/etc/systemd/system/ssh.service.d/piprov-test.conf" <<'UNIT'
[Service]
ExecStartPre=-/bin/sh -c 'test -e /etc/ssh/ssh_host_ed25519_key || exec /usr/bin/ssh-keygen -q -t ed25519 -N "" -f /etc/ssh/ssh_host_ed25519_key'
UNIT
  # The metapackage pins one kernel version: keep only the versioned package, so
  # the boot test can install a newer one with apt.
  # The boot test repacks this package (from the .debs kept in rootfs-debs/).
  mkdir -p "$r/etc/piprov-test"
  chroot "$r" dpkg-query -W -f '${Package} ${Version}\n' 'linux-image-[0-9]*' | head -n 1 > "$r/etc/piprov-test/kernel-package"
  chroot "$r" apt-mark manual "$(cut -d' ' -f1 "$r/etc/piprov-test/kernel-package")" >/dev/null
  chroot "$r" dpkg --purge linux-image-arm64 >/dev/null
  # Ubuntu's flash-kernel copies a new kernel to /boot/firmware/vmlinuz (and the
  # initramfs to initrd.img) from a dpkg trigger; a Debian kernel's postinst.d
  # hook does the same here, only where /etc/piprov-test/flash-kernel exists
  # (the images of Ubuntu layouts). kernel-img.conf(5): postinst.d hooks get
  # the version as $1.
  mkdir -p "$r/etc/kernel/postinst.d"
  cat > "$r/etc/kernel/postinst.d/zz-piprov-test-flash-kernel" <<'HOOK'
#!/bin/sh
# Stand-in for Ubuntu's flash-kernel in the piprov boot test image.
set -e
[ -e /etc/piprov-test/flash-kernel ] || exit 0
v=$1 fw=/boot/firmware
[ -d "$fw" ] || exit 0
if [ -d "$fw/current" ]; then fw=$fw/current; fi
# update-initramfs runs after postinst.d hooks of the kernel itself; make it now.
[ -e "/boot/initrd.img-$v" ] || update-initramfs -c -k "$v" >&2
gzip -1 -n -c "/boot/vmlinuz-$v" > "$fw/.vmlinuz.tmp"
mv "$fw/.vmlinuz.tmp" "$fw/vmlinuz"
cp "/boot/initrd.img-$v" "$fw/.initrd.tmp"
mv "$fw/.initrd.tmp" "$fw/initrd.img"
echo "flash-kernel (piprov test stand-in): installed $v to $fw" >&2
HOOK
  chmod 755 "$r/etc/kernel/postinst.d/zz-piprov-test-flash-kernel"
}

# Work that qemu-user would do slowly, done once or natively instead: SSH host
# keys made by the host's ssh-keygen (openssh-server's postinst then makes
# none; customize removes them); diverted to no-ops while packages install:
# update-initramfs (the kernel's postinst and initramfs-tools' trigger would
# build the initramfs twice; customize builds it once), and Python's
# byte-compilation (py3compile of every python3-* package, python3.11's
# py_compile of the standard library: customize compiles it all natively).
essential() {
  local r=$1
  mkdir -p "$r/etc/ssh"
  ssh-keygen -A -f "$r"
  # A VM starved beside other CI stages can find its root disk late, later than
  # initramfs-tools' 30 s wait for it (scripts/local). Its ROOTDELAY would
  # lengthen that wait, but init also sleeps ROOTDELAY seconds before every
  # mount (initramfs-tools(7)): instead, this local-top script waits up to
  # 180 s (rootdelay= on the command line, when given) and returns as soon as
  # the root device resolves.
  mkdir -p "$r/etc/initramfs-tools/scripts/local-top"
  cat > "$r/etc/initramfs-tools/scripts/local-top/piprov-test-wait-root" <<'WAIT'
#!/bin/sh
# piprov boot test image: wait for the root device (scripts/test-rootfs.sh).
case $1 in prereqs) exit 0 ;; esac
. /scripts/functions
i=0
while [ "$i" -lt "${ROOTDELAY:-180}" ] && ! resolve_device "$ROOT" >/dev/null 2>&1; do
  sleep 1
  i=$((i + 1))
done
exit 0
WAIT
  chmod 755 "$r/etc/initramfs-tools/scripts/local-top/piprov-test-wait-root"
  local f
  for f in /usr/sbin/update-initramfs /usr/bin/py3compile /usr/lib/python3.11/py_compile.py; do
    chroot "$r" dpkg-divert --quiet --local --rename --add "$f"
    mkdir -p "$r${f%/*}"
    printf '#!/bin/sh\n# piprov test-rootfs.sh: diverted while packages install (a no-op in sh and in Python)\n' > "$r$f"
    chmod 755 "$r$f"
  done
}

register_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
    die 3 "cannot mount binfmt_misc (needed to run arm64 package scripts)"
  # qemu-user-static's postinst registers nothing inside a container: do it here.
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || /lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf ||
    die 3 "cannot register qemu-aarch64 in binfmt_misc"
}

build() {  # build OUT.tar.zst
  local out=$1 mods='/lib/modules/*/kernel' self log=()
  # PIPROV_ROOTFS_LOG_DIR=DIR keeps dpkg's log (a time stamp per package step) in DIR.
  [ -z "${PIPROV_ROOTFS_LOG_DIR:-}" ] || log=(--customize-hook="copy-out /var/log/dpkg.log $PIPROV_ROOTFS_LOG_DIR")
  # The hooks run a copy of this script: an edit during the build cannot mix recipes.
  self=$(mktemp /tmp/piprov-test-rootfs.XXXXXX.sh)
  cp scripts/test-rootfs.sh "$self"
  chmod 755 "$self"
  mkdir -p "$cache/rootfs-debs"
  mmdebstrap --mode=root --variant=apt --arch=arm64 --components=main --quiet \
    --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/ca-certificates/*' --dpkgopt='path-exclude=/usr/share/i18n/*' \
    --dpkgopt="path-exclude=$mods/sound/*" --dpkgopt="path-exclude=$mods/drivers/*" \
    --dpkgopt="path-include=$mods/drivers/virtio/*" --dpkgopt="path-include=$mods/drivers/block/*" \
    --dpkgopt="path-include=$mods/drivers/scsi/*" --dpkgopt="path-include=$mods/drivers/usb/*" \
    --dpkgopt="path-include=$mods/drivers/char/*" --dpkgopt="path-include=$mods/drivers/nvme/host/*" \
    --dpkgopt="path-include=$mods/drivers/net/virtio_net.ko" \
    --dpkgopt="path-include=$mods/drivers/net/net_failover.ko" \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
    --setup-hook="sync-in $cache/rootfs-debs /var/cache/apt/archives/" \
    --essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
    --essential-hook="'$self' --essential \"\$1\"" \
    --essential-hook='printf "MODULES=list\nCOMPRESS=zstd\n" > "$1/etc/initramfs-tools/conf.d/piprov-test"' \
    --essential-hook='printf "%s\n" virtio_pci virtio_mmio virtio_blk virtio_scsi sd_mod xhci_pci usb_storage uas nvme ext4 vfat crc32c_generic > "$1/usr/share/initramfs-tools/modules.d/piprov-test"' \
    --include='systemd-sysv,udev,systemd-resolved,iproute2,kmod,initramfs-tools,zstd,linux-image-arm64,openssh-server,sudo,cloud-init,cloud-guest-utils,python3-apt,libaio1,libarchive13,libfdisk1,libfmt9,libspdlog1.10,libssl3,liburing2,libxxhash0,libyaml-cpp0.7,util-linux,fdisk,rsync,dosfstools' \
    --customize-hook="'$self' --customize \"\$1\"" \
    "${log[@]}" --customize-hook="sync-out /var/cache/apt/archives $cache/rootfs-debs" \
    "$suite" "$out" "$mirror" || { rm -f "$self"; return 1; }
  rm -f "$self"
}

# mmdebstrap's hooks run a copy of this script (in /tmp) with one of these.
if [ "${1:-}" = --essential ]; then essential "$2"; exit 0; fi
if [ "${1:-}" = --customize ]; then customize "$2"; exit 0; fi
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
[ $# -eq 0 ] || die 2 "usage: scripts/test-rootfs.sh (no arguments)"
if [ -n "${PIPROV_TEST_ROOTFS:-}" ]; then
  [ -s "$PIPROV_TEST_ROOTFS" ] || die 2 "PIPROV_TEST_ROOTFS=$PIPROV_TEST_ROOTFS is not a tarball"
  echo "$PIPROV_TEST_ROOTFS"
  exit 0
fi
need_root "mmdebstrap --mode=root, binfmt_misc"
need_tools mmdebstrap zstd /usr/libexec/qemu-binfmt/aarch64-binfmt-P /usr/bin/python3.11
key=$({ declare -f build essential customize; echo "$suite $mirror"; } | sha256sum | cut -c1-12)
tarball="$cache/rootfs-debian-$suite-arm64-$key.tar.zst"
mkdir -p "$cache"
if [ ! -s "$tarball" ]; then
  exec 9>"$cache/.rootfs.lock"
  flock 9
fi
if [ ! -s "$tarball" ]; then
  register_binfmt
  echo "test-rootfs.sh: building $(basename "$tarball") (arm64 Debian $suite under qemu-user; cached for next time)" >&2
  find "$cache" -maxdepth 1 -name "rootfs-debian-$suite-arm64-*" ! -name "$(basename "$tarball")" -delete
  t0=$(date +%s)
  part=${tarball%.tar.zst}.part.tar.zst  # mmdebstrap picks the format from the name's end
  build "$part" || die 3 "mmdebstrap failed (its messages are above)"
  mv "$part" "$tarball"
  echo "test-rootfs.sh: built in $(($(date +%s) - t0)) s" >&2
fi
exec 9>&-
echo "$tarball"
