# shellcheck shell=bash
# shellcheck disable=SC2154  # w, t0, piprov, bt_user, bt_key, deb, deb_fifo: set by boot-test.sh
# The steps of scripts/boot-test.sh, one function per layout (sourced by it;
# uses its $w, $piprov, $deb, $deb_fifo and scripts/boot-vm.sh).

# step LAYOUT NAME CMD...: runs CMD, prints "[LAYOUT] NAME: ok (N s)" or FAILED
# with the console's end, and records the time for the table.
step() {
  local l=$1 name=$2 t rc=0
  shift 2
  t=$(date +%s)
  echo "[$l] $name ..."
  "$@" || rc=$?
  t=$(($(date +%s) - t))
  if [ $rc -eq 0 ]; then
    echo "[$l] $name: ok ($t s)"
    printf '%s\t%s\t%s\tok\n' "$l" "$name" "$t" >> "$w/steps.tsv"
  else
    echo "[$l] $name: FAILED ($t s, exit $rc)"
    printf '%s\t%s\t%s\tFAILED\n' "$l" "$name" "$t" >> "$w/steps.tsv"
    [ -f "$w/vm-$l/boot.n" ] && vm_console_tail "$w/vm-$l"
  fi
  return $rc
}

print_step_table() {
  echo "== boot test steps (seconds; two lanes run side by side)"
  [ -f "$w/steps.tsv" ] && awk -F '\t' '{ printf "   %-9s %-44s %5s  %s\n", $1, $2, $3, $4 }' "$w/steps.tsv"
  echo "   total $(($(date +%s) - t0)) s"
}

# expect WHAT ACTUAL PATTERN: ACTUAL must match the extended regex PATTERN.
expect() {
  if [[ "$2" =~ $3 ]]; then echo "  ok: $1: $2"; return 0; fi
  echo "  FAIL: $1 is '$2', expected /$3/"
  return 1
}

# prepare LAYOUT [PROVISION_ARG...]: image -> loop device -> piprov provision
# --board with the identity -> the disk file, an empty second disk (the
# fleet's bench target) and what the firmware would load. The pi5 node is the
# Raspberry Pi OS image provisioned for a Pi 5; the others are for a Pi 4.
prepare() {
  local l=$1 v=$w/vm-$1 dev image_layout=$1 board=pi4
  shift
  if [ "$l" = pi5 ]; then image_layout=raspios board=pi5; fi
  mkdir -p "$v"
  echo "$board" > "$v/board"
  scripts/make-test-image.sh --rootfs debian --layout "$image_layout" "$v/image.img" >/dev/null
  truncate -s 2G "$v/disk.raw"
  dev=$(losetup -f --show "$v/disk.raw")
  echo "$dev" > "$v/loop"
  "$piprov" provision "$v/image.img" "$dev" --yes --json --progress none --board "$board" --hostname "bt-$l" \
    --user "$bt_user" --ssh-key "$bt_key.pub" --ip 10.0.2.20/24 --gateway 10.0.2.2 --dns 10.0.2.3 "$@" > "$v/provision.json" ||
    { jq -r '.targets[0].error // empty' "$v/provision.json" 2>/dev/null; return 1; }
  losetup -d "$dev" && rm -f "$v/loop" "$v/image.img"
  echo "$v/disk.raw" > "$v/disk"
  truncate -s 64M "$v/bench.raw"
  break_disk "$v"
  jq -r '"  provisioned for '"$board"': layout \(.targets[0].layout), disk id \(.targets[0].identity.new_disk_id), instance-id \(.targets[0].identity.instance_id)"' "$v/provision.json"
  vm_boot_files "$v" "$piprov" "$board"
  echo "  firmware would load: kernel $(jq -r .layout.kernel "$v/check.json"), initramfs $(jq -r .layout.initramfs "$v/check.json"), cmdline: $(cat "$v/cmdline")"
}

# break_disk VM: PIPROV_BOOT_BREAK=seed|hook undoes part of what provision
# did, to show that the test then fails: seed deletes user-data from the boot
# partition (no user, no key: SSH never answers), hook deletes the apt hook
# from the root fs (the focal kernel update then leaves vmlinux stale).
# PIPROV_BOOT_BREAK=vmlinux breaks the booted focal node before the fleet's
# first Ansible run instead (boot-test-fleet.sh).
break_disk() {
  local v=$1 disk off
  disk=$(cat "$v/disk")
  case ${PIPROV_BOOT_BREAK:-} in
    "" | vmlinux) return 0 ;;
    seed)
      off=$(fat_offset "$disk")
      mdel -i "$disk@@$off" ::/user-data ;;
    hook)
      off=$(sfdisk -J "$disk" | jq '.partitiontable.partitions[1].start * 512')
      local dev; dev=$(losetup -f --show -o "$off" "$disk")
      debugfs -w -R 'rm /etc/apt/apt.conf.d/99-piprov-kernel' "$dev" >/dev/null 2>&1
      losetup -d "$dev" ;;
    *) echo "  unknown PIPROV_BOOT_BREAK=$PIPROV_BOOT_BREAK (seed, hook or vmlinux)"; return 1 ;;
  esac
  echo "  broken on purpose: PIPROV_BOOT_BREAK=$PIPROV_BOOT_BREAK"
}

# boot_up LAYOUT N BUS [QEMU_ARG...]: boot N until SSH answers with the key.
# The login prompt comes after cloud-init's config stage (the image orders
# getty after it), so the host name it shows is the seed's, or the seed was
# not applied: that fails at once rather than after the SSH timeout.
boot_up() {
  local l=$1 v=$w/vm-$1 host want
  want=$(cat "$v/hostname" 2>/dev/null || echo "bt-$l")
  echo "$3" > "$v/bus"
  vm_start "$v" "$2" "$3" "${@:4}"
  vm_wait_console "$v" ' login: ' || { echo "  no login prompt on the console"; return 1; }
  host=$(grep -a -m1 -oE '[A-Za-z0-9.-]+ login: ' "$v/console-$2.log")
  host=${host% login: }
  [ "$host" = "$want" ] ||
    { echo "  the console's login prompt names host '$host', not $want: the node's host name was not applied"; return 1; }
  vm_wait_ssh "$v" || { echo "  SSH on 10.0.2.20:22 did not answer (as $bt_user, with the provisioned key)"; return 1; }
}

# check_identity LAYOUT: what the seed and the PARTUUID rewrite promised, seen from SSH.
check_identity() {
  local l=$1 v=$w/vm-$1 out rc=0
  # shellcheck disable=SC2016  # expanded on the guest
  # Each Python start costs seconds under TCG: one cloud-init status (it waits,
  # then prints the long form) and one python3 for result.json.
  out=$(vm_ssh "$v" 'st=$(cloud-init status --wait --long 2>&1)
    src=$(findmnt -no SOURCE /)
    echo "hostname=$(hostname)"; echo "user=$(id -un)"; echo "sudo_uid=$(sudo -n id -u)"
    echo "addr=$(ip -4 -o addr show dev eth0 | awk "{print \$4}" | tr "\n" " ")"
    echo "route=$(ip -4 route show default | tr "\n" " ")"
    echo "dns=$(resolvectl dns eth0 2>&1 | tr "\n" " ")"
    echo "status=$(printf "%s\n" "$st" | sed -n "s/^status: //p")"
    python3 -c "import json; r = json.load(open(\"/run/cloud-init/result.json\"))[\"v1\"]; print(\"errors=%s\" % r[\"errors\"]); print(\"datasource=%s\" % r[\"datasource\"])"
    echo "instance_id=$(cat /var/lib/cloud/data/instance-id)"
    echo "root_dev=$src"
    echo "root_partuuid=$(sudo -n blkid -s PARTUUID -o value "$src")"
    echo "cmdline_root=$(tr " " "\n" < /proc/cmdline | sed -n "s/^root=//p")"
    echo "firmware_fs=$(findmnt -no FSTYPE /boot/firmware)"') || { echo "  SSH command failed"; return 1; }
  get() { sed -n "s/^$1=//p" <<<"$out"; }
  local iid new root
  iid=$(jq -r '.targets[0].identity.instance_id' "$v/provision.json")
  new=$(jq -r '.targets[0].identity.new_disk_id' "$v/provision.json")
  new=${new#0x}
  root=$(jq -r .layout.root "$v/check.json")
  expect "host name" "$(get hostname)" "^bt-$l\$" || rc=1
  expect "user" "$(get user)" "^$bt_user\$" || rc=1
  expect "sudo -n id -u" "$(get sudo_uid)" '^0$' || rc=1
  expect "eth0 address" "$(get addr)" '(^| )10\.0\.2\.20/24( |$)' || rc=1
  expect "default route" "$(get route)" 'default via 10\.0\.2\.2 ' || rc=1
  expect "DNS of eth0" "$(get dns)" '10\.0\.2\.3' || rc=1
  expect "cloud-init status" "$(get status)" '^done$' || rc=1
  expect "cloud-init errors" "$(get errors)" '^\[\]$' || rc=1
  expect "cloud-init datasource" "$(get datasource)" 'NoCloud' || rc=1
  expect "instance-id" "$(get instance_id)" "^$iid\$" || rc=1
  local dev_re='^/dev/vd[a-z]2$'
  case $(cat "$v/bus") in usb) dev_re='^/dev/sd[a-z]2$' ;; nvme) dev_re='^/dev/nvme0n1p2$' ;; esac
  expect "/ on the $(cat "$v/bus") disk" "$(get root_dev)" "$dev_re" || rc=1
  expect "PARTUUID of /" "$(get root_partuuid)" "^${new,,}-02\$" || rc=1
  expect "root= on the kernel command line" "$(get cmdline_root)" "^${root//./\\.}\$" || rc=1
  expect "/boot/firmware file system" "$(get firmware_fs)" '^vfat$' || rc=1
  # Up for the fleet's Ansible runs (boot-test-fleet.sh).
  [ $rc -ne 0 ] || touch "$v/up"
  return $rc
}

# vm_stop LAYOUT: ends a VM whose checks are done: QEMU is killed (its disk
# is not used again; a clean shutdown under TCG cost 30-90 s of CPU the other
# lane needs) and waited for.
vm_stop() {
  vm_kill "$w/vm-$1"
  vm_wait_exit "$w/vm-$1" 60
}

# get_deb: prints the arm64 .deb's path (from --deb, the FIFO once, or a build).
get_deb() {
  local lk d
  exec {lk}>"$w/deb.lock"
  flock "$lk"
  if [ ! -e "$w/deb.path" ]; then
    if [ -n "$deb" ]; then d=$deb
    elif [ -n "$deb_fifo" ]; then read -r d < "$deb_fifo" || d=
    else d=$(build_deb) || d=
    fi
    echo "$d" > "$w/deb.path"
  fi
  exec {lk}>&-
  d=$(cat "$w/deb.path")
  [ -n "$d" ] && [ -f "$d" ] || { echo "  no arm64 .deb (the cross stage failed or was skipped; pass --deb)" >&2; return 1; }
  echo "$d"
}

# build_deb: the arm64 .deb from a cross build of piprov (build-arm64/).
build_deb() {
  cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cross/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DPIPROV_BUILD_TESTS=OFF >/dev/null && cmake --build build-arm64 --target piprov >/dev/null &&
    scripts/package.sh build-arm64 | tail -n 1
}

# negative_partuuid: the raspios disk with its old PARTUUID put back in
# cmdline.txt (what the disk would say had provision not rewritten it) must
# not come up: the initramfs finds no such root.
negative_partuuid() {
  local v=$w/vm-raspios disk off old
  disk=$(cat "$v/disk")
  off=$(fat_offset "$disk")
  old=$(jq -r '.targets[0].identity.old_disk_id' "$v/provision.json")
  old=${old#0x}
  cp "$v/boot/cmdline.txt" "$v/cmdline.txt.good"
  sed -E "s/root=PARTUUID=[0-9a-fA-F]+-02/root=PARTUUID=${old,,}-02/" "$v/cmdline.txt.good" > "$v/cmdline.txt.bad"
  grep -q "PARTUUID=${old,,}-02" "$v/cmdline.txt.bad" || { echo "  cmdline.txt has no root=PARTUUID= to break"; return 1; }
  mcopy -o -i "$disk@@$off" "$v/cmdline.txt.bad" ::/cmdline.txt
  vm_boot_files "$v" "$piprov" "$(cat "$v/board")"
  echo "  root=$(jq -r .layout.root "$v/check.json"); the disk's own is now PARTUUID=$(jq -r '.targets[0].identity.new_disk_id' "$v/provision.json" | sed 's/^0x//')-02"
  # rootdelay=1: the initramfs waits its minimum, 30 s, for the missing root
  # (the test image's own wait of up to 180 s is for a starved VM finding a
  # root that exists: test-rootfs.sh).
  echo virtio > "$v/bus"
  VM_CMDLINE_EXTRA=rootdelay=1 vm_start "$v" 0 virtio
  local rc=0
  # initramfs-tools (scripts/local): "ALERT!  PARTUUID=... does not exist.  Dropping to a shell!"
  vm_wait_console "$v" 'ALERT! .*does not exist|login: ' || rc=1
  if grep -aq ' login: ' "$v/console-0.log"; then echo "  it came up anyway"; rc=1; fi
  [ $rc -eq 0 ] && echo "  console: $(grep -a -m1 'ALERT!' "$v/console-0.log" | tr -d '\r')"
  vm_kill "$v"
  vm_wait_exit "$v" 60 || true
  mcopy -o -i "$disk@@$off" "$v/cmdline.txt.good" ::/cmdline.txt
  vm_boot_files "$v" "$piprov" "$(cat "$v/board")"
  return $rc
}

# Each layout leaves its node running for the fleet (boot-test-fleet.sh).
layout_raspios() {
  step raspios provision prepare raspios || return 1
  if keep_enabled; then step raspios "keep: SSD, second disk, images disk" keep_disks || return 1; fi
  step raspios "negative: old PARTUUID does not boot" negative_partuuid || return 1
  step raspios "boot to SSH (virtio disk)" boot_up raspios 1 virtio || return 1
  step raspios "identity over SSH" check_identity raspios
}

layout_noble() {
  step noble provision prepare noble || return 1
  step noble "boot to SSH (usb-storage disk)" boot_up noble 1 usb || return 1
  step noble "identity over SSH" check_identity noble
}

layout_resolute() {
  step resolute provision prepare resolute || return 1
  expect "kernel the firmware loads" "$(jq -r .layout.kernel "$w/vm-resolute/check.json")" '^current/vmlinuz$' || return 1
  step resolute "boot to SSH (virtio disk)" boot_up resolute 1 virtio || return 1
  step resolute "identity over SSH" check_identity resolute
}

# The Pi 5 on NVMe: Raspberry Pi OS provisioned with --board pi5 (its
# firmware loads kernel_2712.img and initramfs_2712), the disk on an NVMe
# controller; `/` must be nvme0n1p2.
layout_pi5() {
  step pi5 "provision --board pi5" prepare pi5 || return 1
  expect "kernel the Pi 5 firmware loads" "$(jq -r '"\(.layout.kernel) \(.layout.initramfs)"' "$w/vm-pi5/check.json")" \
    '^kernel_2712\.img initramfs_2712$' || return 1
  step pi5 "boot to SSH (NVMe disk)" boot_up pi5 1 nvme || return 1
  step pi5 "identity over SSH" check_identity pi5
}

# shellcheck source=scripts/boot-test-focal.sh
. scripts/boot-test-focal.sh
# shellcheck source=scripts/boot-test-fleet.sh
. scripts/boot-test-fleet.sh
# shellcheck source=scripts/boot-test-keep.sh
. scripts/boot-test-keep.sh
