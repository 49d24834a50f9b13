# shellcheck shell=bash
# shellcheck disable=SC2154  # bt_user, bt_key: set by boot-test.sh
# The QEMU side of scripts/boot-test.sh (sourced by it): boot a disk that piprov
# provisioned the way a Pi's firmware would, as far as QEMU can, and talk to it.
#
# QEMU cannot run the Pi firmware. It gets what the firmware would load, as
# `piprov boot check --json` resolves it from the disk's boot partition
# (config.txt, os_prefix, autoboot.txt): the kernel (`layout.kernel`), the
# initramfs (`layout.initramfs`) and the command line (`layout.cmdline_args`),
# on QEMU's `virt` machine with a Cortex-A72 (the Pi 4's core; `-cpu max`
# emulates pointer authentication and is slow under TCG), with no random
# device-tree nodes (`dtb-randomness=off`): without a kaslr-seed the kernel
# does not randomise its address, so it does not force page-table isolation
# (KPTI) on, whose address-space switch at every syscall and interrupt makes
# QEMU flush its TLB: a third of a boot's CPU time (noble to cloud-init done:
# 91 -> 59 CPU s). The guest's RNG is seeded by virtio-rng. The only additions to
# the command line are the virt machine's serial console (ttyAMA0: there is no
# serial0 there) and net.ifnames=0 (a Pi's NIC is eth0). Sources: QEMU docs,
# "'virt' generic virtual platform" and "Direct Linux Boot"; Raspberry Pi
# documentation, "config.txt: Boot options" and "The kernel command line".
# Needs: qemu-system-aarch64, mtools, jq, ssh, python3 (/usr/bin).

# A VM is a directory: kernel, initrd, cmdline, disk (path of its system disk),
# port (SSH, forwarded from 127.0.0.1), console-N.log, qemu.pid; bench.raw (a
# second disk, optional), extra-NAME.raw (more disks, optional), hostname (the
# host name the node must come up with, when not bt-LAYOUT).
vm_timeout=${PIPROV_BOOT_TIMEOUT:-1500}

# free_port: prints a TCP port free on 127.0.0.1 now.
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# fat_offset DISK: byte offset of partition 1 (the FAT boot partition).
fat_offset() { sfdisk -J "$1" | jq '.partitiontable.partitions[0].start * 512'; }

# vm_boot_files VM PIPROV [BOARD]: copies DISK's boot partition to VM/boot and
# resolves what the firmware would load there with `piprov boot check --json`
# (VM/check.json); fills VM/kernel, VM/initrd (empty: none) and VM/cmdline.
vm_boot_files() {
  local v=$1 piprov=$2 board=${3:-pi4} disk off rc=0
  disk=$(cat "$v/disk")
  off=$(fat_offset "$disk")
  rm -rf "${v:?}/boot" && mkdir -p "$v/boot"
  mcopy -s -n -i "$disk@@$off" '::/*' "$v/boot/" || { echo "cannot copy the boot partition of $disk" >&2; return 1; }
  "$piprov" boot check "$v/boot" --board "$board" --json > "$v/check.json" || rc=$?
  [ "$rc" -le 1 ] || { echo "piprov boot check failed (exit $rc)" >&2; return 1; }
  local kernel initrd
  kernel=$(jq -r .layout.kernel "$v/check.json")
  initrd=$(jq -r .layout.initramfs "$v/check.json")
  jq -r .layout.cmdline_args "$v/check.json" > "$v/cmdline"
  [ -n "$kernel" ] && [ -f "$v/boot/$kernel" ] || { echo "boot check names kernel '$kernel', not on the disk" >&2; return 1; }
  cp "$v/boot/$kernel" "$v/kernel"
  rm -f "$v/initrd"
  if [ -n "$initrd" ]; then cp "$v/boot/$initrd" "$v/initrd"; fi
}

# vm_start VM N BUS [QEMU_ARG...]: boots VM (boot N: console in VM/console-N.log)
# with its disk on BUS (virtio: virtio-blk-pci; usb: usb-storage behind xHCI,
# as a Pi 4 boots a USB SSD; nvme: an NVMe controller, as a Pi 5 boots an NVMe
# SSD on its PCIe connector: QEMU docs, "NVMe Emulation"). VM/bench.raw, when
# it exists, is a second disk (virtio, serial piprov-bench: the guest's
# /dev/disk/by-id/virtio-piprov-bench); each VM/extra-NAME.raw one more
# (virtio, serial piprov-NAME: the keep steps' SSD, second disk and images
# disk). SSH is forwarded from 127.0.0.1:VM/port to the
# static address the seed gives the node (10.0.2.20), so an answer proves
# that address. $VM_CMDLINE_EXTRA is appended to the command line (the
# negative case's rootdelay). `-no-reboot`: a reboot ends QEMU, and the caller boots again
# with what the boot partition names then (as the firmware would).
vm_start() {
  local v=$1 n=$2 bus=$3
  shift 3
  local disk drive bus_args initrd_args=()
  disk=$(cat "$v/disk")
  free_port > "$v/port"
  drive="file=$disk,format=raw,if=none,id=d0,cache=unsafe"
  # shellcheck disable=SC2054  # commas separate QEMU sub-options
  case $bus in
    virtio) bus_args=(-device virtio-blk-pci,drive=d0) ;;
    usb) bus_args=(-device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=d0) ;;
    nvme) bus_args=(-device nvme,serial=piprov-root,drive=d0) ;;
    *) echo "vm_start: unknown bus $bus" >&2; return 2 ;;
  esac
  if [ -f "$v/bench.raw" ]; then
    # shellcheck disable=SC2054  # commas separate QEMU sub-options
    bus_args+=(-drive "file=$v/bench.raw,format=raw,if=none,id=b0,cache=unsafe" -device virtio-blk-pci,drive=b0,serial=piprov-bench)
  fi
  local x name
  for x in "$v"/extra-*.raw; do
    [ -f "$x" ] || continue
    name=$(basename "$x" .raw)
    name=${name#extra-}
    # shellcheck disable=SC2054  # commas separate QEMU sub-options
    bus_args+=(-drive "file=$x,format=raw,if=none,id=x-$name,cache=unsafe" -device "virtio-blk-pci,drive=x-$name,serial=piprov-$name")
  done
  if [ -s "$v/initrd" ]; then initrd_args=(-initrd "$v/initrd"); fi
  : > "$v/console-$n.log"
  qemu-system-aarch64 -M virt,dtb-randomness=off -cpu cortex-a72 -smp 1 -m 1024 -nodefaults -display none -no-reboot \
    -kernel "$v/kernel" "${initrd_args[@]}" \
    -append "$(cat "$v/cmdline") console=ttyAMA0,115200 net.ifnames=0${VM_CMDLINE_EXTRA:+ $VM_CMDLINE_EXTRA}" \
    -serial "file:$v/console-$n.log" -drive "$drive" "${bus_args[@]}" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$(cat "$v/port")-10.0.2.20:22" -device virtio-net-pci,netdev=n0,romfile= \
    -device virtio-rng-pci "$@" > "$v/qemu-$n.log" 2>&1 &
  echo $! > "$v/qemu.pid"
  echo "$n" > "$v/boot.n"
}

# vm_wait_console VM REGEX [SECONDS]: waits until the current boot's console
# shows a line matching REGEX (grep -E). Fails when QEMU exits first or after
# SECONDS (default $PIPROV_BOOT_TIMEOUT, 1500).
vm_wait_console() {
  local v=$1 re=$2 secs=${3:-$vm_timeout} pid log fd tp rc=0
  pid=$(cat "$v/qemu.pid")
  log="$v/console-$(cat "$v/boot.n").log"
  exec {fd}< <(exec timeout "$secs" tail -n +1 -F --pid="$pid" "$log" 2>/dev/null)
  tp=$!
  grep -aE -m1 "$re" <&"$fd" >/dev/null || rc=1
  kill "$tp" 2>/dev/null || true
  exec {fd}<&-
  return $rc
}

# vm_ssh_once VM [SSH_OPTION...] -- CMD...: one SSH connection to the VM as the
# provisioned user, with the provisioned key (no password: BatchMode); ssh's
# errors go to stderr (LogLevel ERROR: "Permission denied (publickey)"
# included) unless -q is among the options.
vm_ssh_once() {
  local v=$1 opts=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  ssh "${opts[@]}" -i "$bt_key" -p "$(cat "$v/port")" -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o ConnectTimeout=30 -o ServerAliveInterval=30 -o LogLevel=ERROR \
    "$bt_user@127.0.0.1" "$@"
}

# vm_ssh VM CMD...: runs CMD on the VM (vm_ssh_once). A connection that fails
# (ssh's exit 255: cloud-init restarts sshd during first boot) is tried again,
# up to 5 times; CMD's own exit status is returned as it is.
vm_ssh() {
  local v=$1 try rc
  shift
  for try in 1 2 3 4 5; do
    rc=0
    vm_ssh_once "$v" -q -- "$@" || rc=$?
    [ "$rc" -eq 255 ] || return "$rc"
    [ "$try" -eq 5 ] || sleep 3
  done
  return 255
}

# vm_ssh_job VM NAME SCRIPT: runs SCRIPT (sh) on the VM once, detached from
# the SSH connection (setsid; its output in ~/jobs/NAME.*), then waits for it
# and prints its stdout and stderr (to stderr) and returns its exit status.
# For long or non-idempotent commands (piprov clone, apt-get install): a
# connection that drops under load (ServerAlive, exit 255) is only asked
# again; the job is never started twice (vm_ssh would run CMD again). Fails
# with 255 when QEMU exits first or after $PIPROV_BOOT_TIMEOUT.
vm_ssh_job() {
  local v=$1 n=$2 script=$3 pid end rc
  pid=$(cat "$v/qemu.pid")
  vm_ssh "$v" "mkdir -p jobs && cat > jobs/$n.sh" <<<"$script" || return 255
  # shellcheck disable=SC2016  # expanded on the guest
  vm_ssh "$v" "[ -e jobs/$n.started ] && exit 0; touch jobs/$n.started
    setsid -f sh -c 'sh jobs/$n.sh < /dev/null > jobs/$n.out 2> jobs/$n.err; echo \$? > jobs/$n.rc.new; mv jobs/$n.rc.new jobs/$n.rc' \
      < /dev/null > /dev/null 2>&1" || return 255
  end=$((SECONDS + vm_timeout))
  until rc=$(vm_ssh "$v" "cat jobs/$n.rc 2>/dev/null") && [ -n "$rc" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "  QEMU exited while job $n ran" >&2; return 255; }
    [ "$SECONDS" -lt "$end" ] || { echo "  job $n did not end within $vm_timeout s" >&2; return 255; }
    sleep 5
  done
  vm_ssh "$v" "cat jobs/$n.out" || return 255
  vm_ssh "$v" "cat jobs/$n.err" >&2 || return 255
  return "$rc"
}

# vm_wait_ssh VM [SECONDS]: waits until SSH answers with the provisioned key
# (each try waits for the connection, up to 30 s); fails when QEMU exits
# first, after SECONDS, or at once when sshd refuses the key: boot_up calls
# this after the login prompt, which the image shows only after cloud-init
# made the user and installed its key, so a refusal is final.
vm_wait_ssh() {
  local v=$1 secs=${2:-$vm_timeout} end pid err
  end=$((SECONDS + secs))
  pid=$(cat "$v/qemu.pid")
  until err=$(vm_ssh_once "$v" -- true 2>&1 >/dev/null); do
    if [[ $err == *"Permission denied"* ]]; then
      echo "  sshd refused the provisioned key: ${err//$'\n'/ }"
      return 1
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 2
  done
}

# vm_wait_exit VM [SECONDS]: waits for QEMU to end (after a poweroff or reboot
# in the guest); kills it after SECONDS (default 300) and fails.
vm_wait_exit() {
  local v=$1 secs=${2:-300} pid
  pid=$(cat "$v/qemu.pid")
  if timeout "$secs" tail --pid="$pid" -f /dev/null; then return 0; fi
  kill "$pid" 2>/dev/null || true
  return 1
}

# vm_kill VM: ends QEMU now (never fails). Only a process that is still this
# VM's QEMU (its command line names VM/kernel): a VM that ended long ago left
# its pid in VM/qemu.pid, and the kernel may have given that pid to another
# process since (a cleanup killed another boot test's lane that way).
vm_kill() {
  local pid
  pid=$(cat "$1/qemu.pid" 2>/dev/null) || return 0
  tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -qF -- "-kernel $1/kernel " || return 0
  kill "$pid" 2>/dev/null || true
}

# vm_console_tail VM [N]: the current boot's last N (40) console lines, for a failure.
vm_console_tail() {
  local v=$1
  echo "--- last console lines of $(basename "$v") (boot $(cat "$v/boot.n" 2>/dev/null)):"
  tail -n "${2:-40}" "$v/console-$(cat "$v/boot.n" 2>/dev/null).log" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g'
  echo "---"
}
