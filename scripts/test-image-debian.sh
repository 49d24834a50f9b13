# shellcheck shell=bash
# shellcheck disable=SC2154  # layout, rootfs_tar, raspios_disk_id: set by make-test-image.sh, which sources this
# make-test-image.sh --rootfs debian: the images the boot test (scripts/boot-test.sh)
# boots in QEMU. Sourced by make-test-image.sh (its $layout, $x, fail, os_release
# and the boot_<layout> config writers are used here).
#
# The root fs is the arm64 Debian 12 userland of scripts/test-rootfs.sh, given
# the identity of the release the layout stands for: its os-release, fstab and
# host name, and cloud-init set up as Ubuntu's raspi images set it up (NoCloud,
# the seed read from the FAT partition by its label: livecd-rootfs,
# live-build/ubuntu-cpc/hooks.d/chroot/999-ubuntu-image-customization.chroot,
# which writes 99-fake_cloud.cfg and the two drop-ins below). Boot files come
# from that root fs, so the kernel matches its modules: vmlinuz is Debian's
# arm64 Image gzipped (Ubuntu's vmlinuz is a gzip'd Image), initrd.img is the
# initramfs initramfs-tools made for it.

# debian_root_dir DIR: unpacks the root fs into DIR and gives it the layout's identity.
debian_root_dir() {
  local r=$1 label=system-boot
  tar --numeric-owner -xpf "$rootfs_tar" -C "$r" || fail "cannot unpack $rootfs_tar"
  rm -f "$r/etc/os-release"
  os_release > "$r/etc/os-release"
  mkdir -p "$r/boot/firmware" "$r/etc/cloud/cloud.cfg.d"
  # An empty machine-id, as Ubuntu's preinstalled images ship it: systemd makes
  # one on first boot (machine-id(5)); systemd-firstboot would stop that boot
  # at an interactive prompt on the console, so it is masked, as on cloud images.
  : > "$r/etc/machine-id"
  ln -sf /dev/null "$r/etc/systemd/system/systemd-firstboot.service"
  if [ "$layout" = raspios ]; then
    label=bootfs
    printf 'PARTUUID=%s-01  /boot/firmware  vfat    defaults          0       2\nPARTUUID=%s-02  /               ext4    defaults,noatime  0       1\n' \
      "$raspios_disk_id" "$raspios_disk_id" > "$r/etc/fstab"
    echo raspberrypi > "$r/etc/hostname"
    echo 'Raspberry Pi reference 2024-11-19' > "$r/etc/rpi-issue"
  else
    printf 'LABEL=writable\t/\t ext4\tdefaults\t0 1\nLABEL=system-boot       /boot/firmware  vfat    defaults        0       1\n' > "$r/etc/fstab"
    echo ubuntu > "$r/etc/hostname"
    # The flash-kernel stand-in of test-rootfs.sh copies a new kernel to /boot/firmware.
    mkdir -p "$r/etc/piprov-test"
    touch "$r/etc/piprov-test/flash-kernel"
  fi
  # With one data source listed, ds-identify enables it without probing (cloud-init
  # docs, "ds-identify"); NoCloud reads the seed from the file system labelled
  # fs_label (cloud-init docs, NoCloud: "fs_label"). Raspberry Pi OS's own
  # setting (seedfrom: file:///boot/firmware) would drop network-config on
  # cloud-init 22.4, so its image names its FAT label too.
  printf 'datasource_list: [ NoCloud, None ]\ndatasource:\n  NoCloud:\n    fs_label: %s\n' "$label" \
    > "$r/etc/cloud/cloud.cfg.d/99-fake_cloud.cfg"
  mkdir -p "$r/etc/systemd/system/cloud-init-local.service.d" "$r/etc/systemd/system/cloud-config.service.d"
  printf '[Unit]\nRequiresMountsFor=/boot/firmware\n' > "$r/etc/systemd/system/cloud-init-local.service.d/mount-seed.conf"
  printf '[Unit]\nBefore=getty.target\n' > "$r/etc/systemd/system/cloud-config.service.d/getty-wait.conf"
  # The boot test updates the kernel on focal to a build of the same ABI: the
  # initramfs it has stays valid, and making a new one (mkinitramfs under
  # TCG) would cost minutes. run-parts(8) skips a hook that is not executable.
  if [ "$layout" = focal ]; then chmod -x "$r/etc/kernel/postinst.d/initramfs-tools"; fi
  debian_tcg_trims "$r"
  case $layout in
    focal | noble) debian_dummy_pkg "$r" flash-kernel ;;
    resolute) debian_dummy_pkg "$r" piboot-try ;;
  esac
}

# debian_tcg_trims ROOT: what a first boot under QEMU's TCG (one emulated core,
# beside the other CI stages) spends time on and the boot test does not look
# at, measured with systemd-analyze blame and cloud-init analyze blame in the
# guest. Masked units: e2scrub_reap (90 s: LVM snapshot clean-up, no LVM here),
# binfmt, the debug/tracing/hugepage/mqueue/config file systems and the
# modprobe@ units of modules nothing here uses (about 10 s each); the journal
# kept in memory (no flush to /var/log/journal). cloud-init without the
# modules no Pi seed of piprov's uses and that cost seconds each
# (grub-dpkg 13 s, apt-configure 5 s, keys-to-console 5 s): the lists are
# Debian's cloud.cfg ones without them (cloud-init docs, "Base configuration":
# a module list in cloud.cfg.d replaces the list).
debian_tcg_trims() {
  local r=$1 u
  for u in e2scrub_reap.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount dev-hugepages.mount \
    dev-mqueue.mount sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount \
    modprobe@configfs.service modprobe@dm_mod.service modprobe@efi_pstore.service modprobe@fuse.service \
    modprobe@drm.service modprobe@loop.service systemd-pstore.service; do
    ln -sf /dev/null "$r/etc/systemd/system/$u"
  done
  mkdir -p "$r/etc/systemd/journald.conf.d"
  printf '[Journal]\nStorage=volatile\n' > "$r/etc/systemd/journald.conf.d/piprov-test.conf"
  cat > "$r/etc/cloud/cloud.cfg.d/91-piprov-tcg.cfg" <<'CFG'
# piprov boot test image: Debian's module lists without grub-dpkg, apt-configure,
# apt-pipelining and keys-to-console (scripts/test-image-debian.sh)
cloud_config_modules:
 - snap
 - ssh-import-id
 - keyboard
 - locale
 - set-passwords
 - ntp
 - timezone
 - disable-ec2-metadata
 - runcmd
 - byobu
cloud_final_modules:
 - package-update-upgrade-install
 - fan
 - landscape
 - lxd
 - write-files-deferred
 - puppet
 - chef
 - mcollective
 - salt-minion
 - reset_rmc
 - refresh_rmc_and_interface
 - rightscale_userdata
 - scripts-vendor
 - scripts-per-once
 - scripts-per-boot
 - scripts-per-instance
 - scripts-user
 - ssh-authkey-fingerprints
 - install-hotplug
 - phone-home
 - final-message
 - power-state-change
CFG
}

# debian_dummy_pkg ROOT NAME: installs an empty package NAME (no files, no
# scripts) into ROOT with the host's dpkg, so the dpkg database names it as
# the release's would.
debian_dummy_pkg() {
  local r=$1 p=$2 d; d=$(mktemp -d)
  mkdir -p "$d/DEBIAN"
  printf 'Package: %s\nVersion: 1.0-piprovtest\nArchitecture: all\nMaintainer: piprov tests <root@localhost>\nDescription: %s (empty stand-in, piprov boot test)\n' \
    "$p" "$p" > "$d/DEBIAN/control"
  dpkg-deb -Znone -b "$d" "$d.deb" >/dev/null && dpkg --root="$r" --force-not-root --force-script-chrootless -i "$d.deb" >/dev/null ||
    fail "cannot install the stand-in package $p"
  rm -rf "$d" "$d.deb"
}

# debian_kernel_files ROOT DIR: DIR/vmlinuz, DIR/initrd.img and the Pi 4 device
# trees, from the root fs ROOT.
debian_kernel_files() {
  local r=$1 b=$2 image v
  image=$(ls "$r"/boot/vmlinuz-*-arm64 | sed -n 1p)
  [ -n "$image" ] || fail "the root fs has no /boot/vmlinuz-*-arm64"
  v=${image##*/vmlinuz-}
  gzip -6 -n -c "$image" > "$b/vmlinuz"
  cp "$r/boot/initrd.img-$v" "$b/initrd.img" || fail "the root fs has no /boot/initrd.img-$v"
  cp "$r/usr/lib/linux-image-$v/broadcom/bcm2711-rpi-4-b.dtb" "$r/usr/lib/linux-image-$v/broadcom/bcm2711-rpi-400.dtb" \
    "$r/usr/lib/linux-image-$v/broadcom/bcm2711-rpi-cm4-io.dtb" "$b/"
}
