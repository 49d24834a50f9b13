# shellcheck shell=bash
# shellcheck disable=SC2154  # w, piprov, bt_user, bt_key, layouts: set by boot-test.sh
# The keep steps of scripts/boot-test.sh (sourced by boot-test-steps.sh):
# moving, backing up and restoring a node (docs/keep.md), proven by boots.
# The raspios node stands for a Pi running from its microSD card (its root
# is a virtio disk); docs/keep.md "Moving a node to a USB SSD" is what a user
# runs on it.
#   disks    before its first boot, three more disks: an empty 3 GiB "SSD"
#            (virtio, serial piprov-ssd: larger than the 2 GiB card), an
#            empty 2 GiB second disk (piprov-new) and an ext4 disk holding
#            the Ubuntu 24.04 test image as a .img.zst (piprov-images)
#   on node  once the fleet's role installed the arm64 .deb, beside the
#            rest of the fleet's runs: a marker file, a writer appending to a file,
#            `piprov clone /dev/vda SSD` of the running system (file by
#            file); then `piprov provision IMAGE SECOND-DISK` with an identity
#            of its own (bt-ssd): a node provisioning an SSD from the Pi
#   host     the node shut down cleanly (poweroff): e2fsck -fn of its disk
#            and of the clone; `piprov backup` of its disk (a card in a
#            reader) into a .img.zst, `piprov write` of that onto a new disk
#   boots    side by side: the clone alone, the restored backup alone (both
#            virtio), the second disk (usb-storage, as a Pi 4 boots a USB SSD).
#            The clone and the restore are the same node: host name,
#            machine-id, the SSH host key (a known_hosts entry made from the
#            source's key accepts it), cloud-init's instance-id with new=False
#            (cloud-init did not run its first-boot modules again), the
#            marker, the writer's file a gapless prefix of what it wrote; / on
#            its disk's own PARTUUID (the clone's new one, the backup's the
#            source's), the clone's / grown to the SSD (df). bt-ssd passes
#            the identity checks of every layout (check_identity).
# PIPROV_BOOT_KEEP=0 leaves these steps out (they need the raspios node).

# keep_enabled: the keep steps run (the raspios node is among the layouts).
keep_enabled() { [ "${PIPROV_BOOT_KEEP:-1}" = 1 ] && [[ " $layouts " == *" raspios "* ]]; }

# keep_disks: the raspios node's extra disks (VM/extra-NAME.raw, boot-vm.sh).
keep_disks() {
  local v=$w/vm-raspios k=$w/keep size
  mkdir -p "$k/images"
  truncate -s 3G "$v/extra-ssd.raw"
  truncate -s 2G "$v/extra-new.raw"
  scripts/make-test-image.sh --rootfs debian --layout noble "$k/noble.img" >/dev/null || return 1
  zstd -q -T0 --rm "$k/noble.img" -o "$k/images/noble.img.zst" || return 1
  size=$(($(stat -c %s "$k/images/noble.img.zst") / 1048576 + 64))
  truncate -s "${size}M" "$v/extra-images.raw"
  mke2fs -q -F -t ext4 -L images -d "$k/images" "$v/extra-images.raw" || return 1
  echo "  SSD 3 GiB, second disk 2 GiB, images disk ${size} MiB: noble.img.zst ($(stat -c %s "$k/images/noble.img.zst") bytes)"
  rm -rf "$k/images"
}

# keep_get FILE KEY: the value of KEY=... in FILE.
keep_get() { sed -n "s/^$2=//p" "$1"; }

# keep_clone_on_node: the source's identity saved, a marker and a writer
# started, `piprov clone` of the running system onto the SSD, the writer stopped.
keep_clone_on_node() {
  local v=$w/vm-raspios k=$w/keep marker rc=0
  # shellcheck disable=SC2016  # expanded on the guest
  vm_ssh "$v" 'echo "machine_id=$(cat /etc/machine-id)"
    echo "hostkey=$(cut -d" " -f1,2 /etc/ssh/ssh_host_ed25519_key.pub)"
    echo "instance_id=$(cat /var/lib/cloud/data/instance-id)"
    echo "partuuid=$(sudo -n blkid -s PARTUUID -o value "$(findmnt -no SOURCE /)")"
    echo "root_bytes=$(df -B1 --output=size / | tail -n 1 | tr -d " ")"' > "$k/source.id" ||
    { echo "  cannot read the node's identity"; return 1; }
  sed 's/^/  source: /' "$k/source.id"
  marker=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  echo "$marker" > "$k/marker"
  # shellcheck disable=SC2016  # expanded on the guest
  vm_ssh "$v" "echo $marker > keep-marker && sync && setsid -f sh -c 'i=0; while [ ! -e /tmp/writer.stop ]; do i=\$((i + 1)); echo \$i >> writer.log; sleep 0.05; done' < /dev/null > /dev/null 2>&1" ||
    { echo "  cannot start the writer"; return 1; }
  vm_ssh_job "$v" clone 'sleep 2; sudo -n piprov clone /dev/vda /dev/disk/by-id/virtio-piprov-ssd --yes --json --progress none' \
    > "$k/clone.json" 2> "$k/clone.err" || rc=$?
  vm_ssh "$v" 'touch /tmp/writer.stop; sleep 1; wc -l < writer.log' > "$k/writer.lines" || true
  echo "  the writer wrote $(cat "$k/writer.lines") lines, before, during and after the clone"
  jq -r '"  clone: live \(.live), \(.copy_bytes) bytes to the end of the last partition, in \(.seconds) s\n" +
    (.targets[] | "  \(.target): ok \(.ok) \(.error); grown: \(.grown); disk id \(.disk_identity.old_id) -> \(.disk_identity.new_id); rewritten \(.rewritten | join(", ")); copied: \(.copied | join("; ")); boot check: \(.boot_check.summary)")' \
    "$k/clone.json" 2>/dev/null || sed 's/^/  /' "$k/clone.err"
  expect "piprov clone exit" "$rc" '^0$' || return 1
  expect "clone of a mounted source (live)" "$(jq -r .live "$k/clone.json")" '^true$' || return 1
  expect "boot check of the clone" "$(jq -r '.targets[0].boot_check | "\(.ran) \(.ok)"' "$k/clone.json")" '^true true$'
}

# keep_provision_on_node: `piprov provision` on the node, from the images
# disk onto its second disk, with an identity of its own (bt-ssd).
keep_provision_on_node() {
  local v=$w/vm-raspios s=$w/vm-ssd rc=0
  mkdir -p "$s"
  vm_ssh "$v" 'cat > keep-key.pub' < "$bt_key.pub" || return 1
  # shellcheck disable=SC2016  # expanded on the guest
  vm_ssh_job "$v" provision 'sudo -n mkdir -p /mnt/images && sudo -n mount -o ro /dev/disk/by-id/virtio-piprov-images /mnt/images || exit 9
    sudo -n piprov provision /mnt/images/noble.img.zst /dev/disk/by-id/virtio-piprov-new --yes --json --progress none \
      --board pi4 --hostname bt-ssd --user '"$bt_user"' --ssh-key keep-key.pub --ip 10.0.2.20/24 --gateway 10.0.2.2 --dns 10.0.2.3
    rc=$?; sudo -n umount /mnt/images; exit $rc' > "$s/provision.json" 2> "$s/provision.err" || rc=$?
  jq -r '.targets[0] | "  provisioned on the node: layout \(.layout), disk id \(.identity.new_disk_id), instance-id \(.identity.instance_id) \(.error // "")"' \
    "$s/provision.json" 2>/dev/null || sed 's/^/  /' "$s/provision.err"
  expect "piprov provision exit (on the node)" "$rc" '^0$'
}

# keep_wait_installed: waits until the fleet's role has installed piprov on
# the node (dpkg's status of the package; asked every 10 s); fails when the
# fleet's first run ended without it, or after $PIPROV_BOOT_TIMEOUT.
keep_wait_installed() {
  local v=$w/vm-raspios end=$((SECONDS + vm_timeout))
  # shellcheck disable=SC2016  # expanded on the guest
  until vm_ssh "$v" 'dpkg-query -W -f "\${Status}" piprov 2>/dev/null' | grep -q '^install ok installed$'; do
    if grep -q '^PLAY RECAP' "$w/fleet/run-1.log" 2>/dev/null; then
      echo "  the fleet's first run ended without piprov installed on bt-raspios"
      return 1
    fi
    [ "$SECONDS" -lt "$end" ] || { echo "  piprov not installed on bt-raspios after $vm_timeout s"; return 1; }
    sleep 10
  done
  echo "  $(vm_ssh "$v" 'piprov --version') installed by the fleet's role"
}

# keep_on_node: the steps on the running node, beside the fleet's runs.
keep_on_node() {
  step keep "node: wait for the role to install piprov" keep_wait_installed || return 1
  step keep "node: piprov clone of the running system" keep_clone_on_node || return 1
  step keep "node: piprov provision onto a second disk" keep_provision_on_node || return 1
  touch "$w/keep/on-node.ok"
}

# keep_shutdown: the source node powered off from inside (its file systems
# unmounted cleanly, as a user shuts a Pi down before taking its card out).
keep_shutdown() {
  local v=$w/vm-raspios
  vm_ssh "$v" 'sudo -n systemctl poweroff' || true
  vm_wait_exit "$v" 300 || { echo "  the node did not power off"; return 1; }
}

# keep_fsck: e2fsck -fn of the source's and the clone's root file systems.
keep_fsck() {
  local d dev rc=0 out off size
  for d in "$w/vm-raspios/disk.raw" "$w/vm-raspios/extra-ssd.raw"; do
    # Partition 2 through a loop device of its own (partition nodes of a
    # --partscan loop device need udev, which a container may not run).
    off=$(sfdisk -J "$d" | jq '.partitiontable.partitions[1].start * 512')
    size=$(sfdisk -J "$d" | jq '.partitiontable.partitions[1].size * 512')
    dev=$(losetup -f --show -r -o "$off" --sizelimit "$size" "$d") || return 1
    out=$(e2fsck -fn "$dev" 2>&1) || { rc=1; echo "$out" | tail -n 5 | sed 's/^/  /'; }
    expect "e2fsck -fn of $(basename "$d") partition 2" "$(tail -n 1 <<<"$out")" ' [0-9]+/[0-9]+ files .*, [0-9]+/[0-9]+ blocks$' || rc=1
    losetup -d "$dev"
  done
  return $rc
}

# keep_backup_restore: `piprov backup` of the source disk, then `piprov
# write` of the backup onto a new 2 GiB disk (the restore VM's).
keep_backup_restore() {
  local k=$w/keep r=$w/vm-restore src dst rc=0
  mkdir -p "$r"
  src=$(losetup -f --show -r "$w/vm-raspios/disk.raw") || return 1
  "$piprov" backup "$src" "$k/node.img.zst" --yes --progress none 2>&1 | sed 's/^/  /' || rc=1
  losetup -d "$src"
  [ $rc -eq 0 ] || { echo "  piprov backup failed"; return 1; }
  (cd "$k" && sha256sum -c --quiet node.img.zst.sha256) || { echo "  node.img.zst.sha256 does not match"; return 1; }
  truncate -s 2G "$r/disk.raw"
  dst=$(losetup -f --show "$r/disk.raw") || return 1
  "$piprov" write "$k/node.img.zst" "$dst" --yes --progress none 2>&1 | sed 's/^/  /' || rc=1
  losetup -d "$dst"
  [ $rc -eq 0 ] || { echo "  piprov write of the backup failed"; return 1; }
  echo "$r/disk.raw" > "$r/disk"
  echo bt-raspios > "$r/hostname"
}

# keep_same_node VM: the clone or the restore is the source node (above).
keep_same_node() {
  local l=$1 v=$w/vm-$1 k=$w/keep out rc=0 part lines
  printf 'bt-raspios %s\n' "$(keep_get "$k/source.id" hostkey)" > "$v/known_hosts"
  if vm_ssh_once "$v" -o HostKeyAlias=bt-raspios -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$v/known_hosts" \
    -o HostKeyAlgorithms=ssh-ed25519 -- true; then
    echo "  ok: SSH host key: the source's (its known_hosts entry accepts it)"
  else
    echo "  FAIL: SSH host key: not the source's (known_hosts refused it)"
    rc=1
  fi
  # shellcheck disable=SC2016  # expanded on the guest
  out=$(vm_ssh "$v" 'st=$(cloud-init status --wait 2>&1); src=$(findmnt -no SOURCE /)
    echo "hostname=$(hostname)"; echo "machine_id=$(cat /etc/machine-id)"
    echo "instance_id=$(cat /var/lib/cloud/data/instance-id)"
    echo "status=$(printf "%s\n" "$st" | sed -n "s/^status: //p")"
    echo "targeting=$(sudo -n grep "will now be targeting instance id" /var/log/cloud-init.log | tail -n 1 | sed "s/.*will now/will now/")"
    echo "marker=$(cat keep-marker)"
    echo "writer=$(awk "NR != \$1 { gap = 1 } END { print (gap ? \"gap at line \" NR : NR) }" writer.log)"
    echo "root_dev=$src"; echo "root_partuuid=$(sudo -n blkid -s PARTUUID -o value "$src")"
    echo "cmdline_root=$(tr " " "\n" < /proc/cmdline | sed -n "s/^root=//p")"
    echo "root_bytes=$(df -B1 --output=size / | tail -n 1 | tr -d " ")"') || { echo "  SSH command failed"; return 1; }
  get() { sed -n "s/^$1=//p" <<<"$out"; }
  expect "host name" "$(get hostname)" '^bt-raspios$' || rc=1
  expect "machine-id (the source's)" "$(get machine_id)" "^$(keep_get "$k/source.id" machine_id)\$" || rc=1
  expect "instance-id (the source's)" "$(get instance_id)" "^$(keep_get "$k/source.id" instance_id)\$" || rc=1
  expect "cloud-init status" "$(get status)" '^done$' || rc=1
  expect "cloud-init this boot: not a new instance" "$(get targeting)" 'new=False$' || rc=1
  expect "marker" "$(get marker)" "^$(cat "$k/marker")\$" || rc=1
  lines=$(get writer)
  expect "the writer's file (lines, gapless)" "$lines" '^[0-9]+$' || rc=1
  if [ "$l" = clone ]; then
    part=$(jq -r '.targets[0].disk_identity.new_id' "$k/clone.json")
    part="${part#0x}-02"
    [ "${lines:-0}" -le "$(cat "$k/writer.lines")" ] 2>/dev/null || { echo "  FAIL: more lines than the writer wrote"; rc=1; }
    expect "/ grown to the SSD (df, bytes; the card's: $(keep_get "$k/source.id" root_bytes))" "$(get root_bytes)" '^[0-9]+$' || rc=1
    [ "$(get root_bytes)" -gt $(($(keep_get "$k/source.id" root_bytes) + 900 * 1048576)) ] 2>/dev/null ||
      { echo "  FAIL: / is not 1 GiB larger than the card's"; rc=1; }
  else
    part=$(keep_get "$k/source.id" partuuid)
    expect "the writer's file, whole (the node was shut down)" "$lines" "^$(cat "$k/writer.lines")\$" || rc=1
  fi
  expect "/ on the virtio disk" "$(get root_dev)" '^/dev/vda2$' || rc=1
  expect "PARTUUID of /" "$(get root_partuuid)" "^${part,,}\$" || rc=1
  expect "root= on the kernel command line" "$(get cmdline_root)" "^PARTUUID=${part,,}\$" || rc=1
  return $rc
}

# keep_boot NAME DISK BUS: boots DISK alone as VM NAME and checks it.
keep_boot() {
  local l=$1 v=$w/vm-$1
  mkdir -p "$v"
  echo "$2" > "$v/disk"
  vm_boot_files "$v" "$piprov" pi4 || return 1
  step "$l" "boot alone ($3 disk)" boot_up "$l" 1 "$3" || return 1
  if [ "$l" = ssd ]; then
    step "$l" "identity over SSH (provisioned on the node)" check_identity "$l"
  else
    step "$l" "the same node over SSH" keep_same_node "$l"
  fi
}

layout_keep() {
  local k=$w/keep rc=0 l
  if [ ! -f "$k/on-node.ok" ]; then
    echo "[keep] the steps on the node did not pass: nothing to boot"
    vm_stop raspios
    return 1
  fi
  step keep "source: poweroff (clean)" keep_shutdown || return 1
  step keep "host: e2fsck -fn of the card and the SSD" keep_fsck || rc=1
  step keep "host: piprov backup of the card, write" keep_backup_restore || return 1
  mkdir -p "$w/vm-clone" && echo bt-raspios > "$w/vm-clone/hostname"
  keep_boot clone "$w/vm-raspios/extra-ssd.raw" virtio > "$k/clone.log" 2>&1 &
  local pc=$!
  keep_boot ssd "$w/vm-raspios/extra-new.raw" usb > "$k/ssd.log" 2>&1 &
  local ps=$!
  keep_boot restore "$w/vm-restore/disk.raw" virtio || rc=1
  wait "$pc" || rc=1
  wait "$ps" || rc=1
  for l in clone ssd; do
    echo "== $l (booted beside the one above):"
    cat "$k/$l.log"
  done
  for l in clone ssd restore; do vm_stop "$l" || true; done
  return $rc
}
