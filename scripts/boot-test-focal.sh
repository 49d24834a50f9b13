# shellcheck shell=bash
# shellcheck disable=SC2154  # w, piprov: set by boot-test.sh
# The 20.04-style layout of scripts/boot-test.sh (sourced by boot-test-steps.sh):
# provisioned with the vmlinux method (a start4.elf of unknown date), then two
# kernel updates as a user gets them and a reboot into the new kernel; the
# fleet's Ansible runs then install piprov's arm64 .deb and re-check it
# (boot-test-fleet.sh).

# make_kernel_repo: a local apt repository (an ext4 image, attached to the VM as
# a read-only virtio disk with serial piprov-repo) holding the root fs's kernel
# package twice more, as versions V+piprov1 and V+piprov2. Each is Debian's own
# package with the build date in the kernel's version string replaced by
# "piprov-t01"/"piprov-t02" (same length, so the Image is otherwise
# unchanged; `uname -v` shows it) and the drivers the test image leaves out
# dropped (smaller to unpack under TCG). The kernel ABI (uname -r) and modules
# stay as they are.
make_kernel_repo() {
  local cache=${PIPROV_CACHE_DIR:-/var/tmp/piprov-cache} tarball pkg ver src n k
  tarball=$(scripts/test-rootfs.sh)
  read -r pkg ver < <(tar --zstd -xOf "$tarball" ./etc/piprov-test/kernel-package)
  src="$cache/rootfs-debs/${pkg}_${ver//:/%3a}_arm64.deb"
  [ -f "$src" ] || { echo "  $src is missing (kept by scripts/test-rootfs.sh)"; return 1; }
  echo "$pkg $ver" > "$w/kernel-package"
  mkdir -p "$w/repo"
  for n in 1 2; do
    k=$w/kpkg$n
    rm -rf "$k"
    dpkg-deb -R "$src" "$k"
    sed -i "s/^Version: .*/Version: $ver+piprov$n/" "$k/DEBIAN/control"
    # What the image's dpkg would leave out anyway (test-rootfs.sh's path-exclude rules).
    find "$k"/lib/modules/*/kernel/drivers -mindepth 1 -maxdepth 1 -type d \
      ! -name virtio ! -name block ! -name scsi ! -name usb ! -name char ! -name net ! -name nvme -exec rm -rf {} +
    find "$k"/lib/modules/*/kernel/drivers/net -mindepth 1 ! -name virtio_net.ko ! -name net_failover.ko -delete
    rm -rf "$k"/lib/modules/*/kernel/sound
    perl -0777 -pi -e "s/(SMP Debian \\Q$ver\\E )\\(\\d{4}-\\d\\d-\\d\\d\\)/\${1}(piprov-t0$n)/g" "$k"/boot/vmlinuz-*
    [ "$(grep -c -a "piprov-t0$n" "$k"/boot/vmlinuz-*)" -ge 1 ] || { echo "  no build date found in $src's kernel"; return 1; }
    (cd "$k" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum > DEBIAN/md5sums)
    dpkg-deb -Znone -b "$k" "$w/repo/${pkg}_$ver+piprov${n}_arm64.deb" >/dev/null
    rm -rf "$k"
  done
  (cd "$w/repo" && dpkg-scanpackages --multiversion . /dev/null > Packages 2>/dev/null)
  mke2fs -q -F -t ext4 -L piprov-repo -d "$w/repo" "$w/repo.img" 1G >/dev/null
  rm -rf "$w/repo"
  echo "  repository: $pkg $ver+piprov1, $ver+piprov2"
}

focal_boot() {  # focal_boot N: boots with the repository attached (and the bench disk, as every node)
  boot_up focal "$1" virtio -drive "file=$w/repo.img,format=raw,if=none,id=r0,readonly=on" \
    -device virtio-blk-pci,drive=r0,serial=piprov-repo
}

# kernel_update_apt: `apt-get install` of V+piprov1 from the local repository;
# the apt hook (DPkg::Post-Invoke) must decompress the new vmlinuz to vmlinux.
# The path unit is stopped first, so it is the hook that does it.
kernel_update_apt() {
  local v=$w/vm-focal pkg ver out
  read -r pkg ver < "$w/kernel-package"
  # shellcheck disable=SC2016  # $O is expanded on the guest
  out=$(vm_ssh_job "$v" apt-install "set -e
    sudo -n mount -o ro /dev/disk/by-id/virtio-piprov-repo /mnt
    echo 'deb [trusted=yes] file:/mnt ./' | sudo -n tee /etc/apt/sources.list.d/piprov-test.list >/dev/null
    sudo -n systemctl stop piprov-kernel-sync.path
    O='-o Dir::Etc::sourcelist=/etc/apt/sources.list.d/piprov-test.list -o Dir::Etc::sourceparts=-'
    sudo -n apt-get \$O update -q >/dev/null
    sudo -n DEBIAN_FRONTEND=noninteractive apt-get \$O install -y -q $pkg=$ver+piprov1 </dev/null 2>&1") ||
    { echo "$out" | tail -n 20; return 1; }
  echo "$out" | grep -a 'piprov-kernel-sync' | sed 's/^/  apt: /'
  grep -aq 'piprov-kernel-sync: vmlinux updated' <<<"$out" || { echo "  the apt hook did not update vmlinux"; return 1; }
  expect "vmlinux holds the new kernel" "$(vm_ssh "$v" 'grep -c -a piprov-t01 /boot/firmware/vmlinux')" '^[1-9]'
}

# kernel_update_dpkg: `dpkg -i` of V+piprov2 (no apt, so no apt hook): the path
# unit (PathChanged=/boot/firmware/vmlinuz) must update vmlinux.
kernel_update_dpkg() {
  local v=$w/vm-focal pkg ver
  read -r pkg ver < "$w/kernel-package"
  vm_ssh_job "$v" dpkg-install "set -e
    sudo -n systemctl start piprov-kernel-sync.path
    sudo -n dpkg -i /mnt/${pkg}_$ver+piprov2_arm64.deb </dev/null >/dev/null 2>&1
    timeout 600 sh -c 'until journalctl -u piprov-kernel-sync.service -o cat | grep -a \"vmlinux updated\"; do sleep 2; done' |
      sed 's/^/  unit: /'" || { echo "  the path unit did not update vmlinux within 600 s"; return 1; }
  expect "vmlinux holds the newer kernel" "$(vm_ssh "$v" 'grep -c -a piprov-t02 /boot/firmware/vmlinux')" '^[1-9]'
}

# reboot_new_kernel: reboot (QEMU ends), boot what the boot partition names now.
reboot_new_kernel() {
  local v=$w/vm-focal
  rm -f "$v/up"
  vm_ssh "$v" 'sudo -n systemctl reboot' || true
  vm_wait_exit "$v" || { echo "  the guest did not reboot"; return 1; }
  vm_boot_files "$v" "$piprov" "$(cat "$v/board")" || return 1
  expect "kernel the firmware loads" "$(jq -r .layout.kernel "$v/check.json")" '^vmlinux$' || return 1
  focal_boot 2 || return 1
  echo "  console: $(grep -a -m1 'Linux version' "$v/console-2.log" | tr -d '\r')"
  expect "uname -v after the update" "$(vm_ssh "$v" 'uname -v')" 'piprov-t02' || return 1
  touch "$v/up"
}

layout_focal() {
  step focal "kernel repository (2 versions)" make_kernel_repo || return 1
  step focal provision prepare focal --method vmlinux || return 1
  expect "kernel the firmware loads" "$(jq -r .layout.kernel "$w/vm-focal/check.json")" '^vmlinux$' || return 1
  step focal "boot to SSH (virtio disk)" focal_boot 1 || return 1
  step focal "identity over SSH" check_identity focal || return 1
  step focal "kernel update: apt-get install (apt hook)" kernel_update_apt || return 1
  step focal "kernel update: dpkg -i (path unit)" kernel_update_dpkg || return 1
  step focal "reboot into the new kernel" reboot_new_kernel
}
