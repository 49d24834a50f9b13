#!/usr/bin/env bash
# emulate-device.sh: loop devices as fast as a Raspberry Pi 4's storage, so the
# demo and the tests can put piprov's bench (and writes) on something that
# behaves like a microSD card or a USB 3 SSD on any Linux machine.
#
#   scripts/emulate-device.sh profiles                     the profiles and their figures
#   scripts/emulate-device.sh available                    exit 0 when devices can be throttled here
#   scripts/emulate-device.sh create NAME PROFILE [SIZE]   a new loop device (SIZE default 1G); prints /dev/loopN
#   scripts/emulate-device.sh run -- CMD [ARG...]          runs CMD where the limits apply
#   scripts/emulate-device.sh destroy NAME...              detaches and removes (a missing NAME is no error)
#
# How: a loop device over a sparse file, and the kernel's block-layer
# throttling (blk-throttle) capping that device's bytes/s and I/Os/s for one
# cgroup, "piprov-emulate": cgroup v2's io.max, or cgroup v1's
# blkio.throttle.* files. Throttling applies to I/O that processes in that
# cgroup submit, so commands measured on the device run under `run`; anything
# outside (mkfs in a test fixture, say) sees a plain loop device. The limits
# are per device (MAJ:MIN), so one cgroup serves every emulated device, and
# `destroy` removes a device's limits before it frees the loop device.
#
# EMULATE_SCOPE=device (cgroup v1 only) puts a new device's limits on the
# root blkio cgroup instead: then every I/O to the device is throttled, also
# the page cache's writeback, which the kernel's flusher threads submit from
# the root cgroup. Buffered writers (bmaptool copy, dd without oflag=direct)
# are only throttled that way; `run` is not needed then, when the callers
# are in the root cgroup (/proc/self/cgroup "blkio:/"). Such a device has the
# profile's bandwidth limits only, no IOPS limits: blk-throttle counts the
# writeback of the page cache as one I/O per 4 KiB page (before merging), so
# an IOPS cap would make a sequential buffered write a random one.
#
# The backing file lives in RAM (/dev/shm) when there is room for all of it,
# else beside the state: the host disk behind a loop device must not be what
# limits it (a QD1 sync 4k write there ends in a flush of the host disk, a few
# ms on a loaded VM: ~250 IOPS, below a USB SSD's 551). EMULATE_BACKING=disk
# (or ram) forces one. State: $EMULATE_DIR (default /var/tmp/piprov-emulate).
#
# Profiles (docs/bench.md, "Emulated devices"): the Pi 4 figures of the
# published USB SSD vs microSD post that `piprov bench import` reproduces
# (fio, 4M QD32 sequential, 4k QD1 sync random): a SanDisk Extreme Pro 64 GB
# microSD and a Kingspec 128 GB mSATA SSD on a USB 3.0 shield.
# Needs root and /dev/loop-control. Exit codes: 0 ok; 2 usage; 3 cannot (no
# root, no loop devices, no block throttling here, a NAME in use).
set -euo pipefail

me=emulate-device.sh
state_dir=${EMULATE_DIR:-/var/tmp/piprov-emulate}
ram_dir=/dev/shm/piprov-emulate
group=piprov-emulate

fail() {
  local code=$1
  shift
  echo "$me: $*" >&2
  exit "$code"
}

# profile_limits PROFILE: "READ_MIB_S WRITE_MIB_S READ_IOPS WRITE_IOPS" (0: no limit).
profile_limits() {
  case "$1" in
    microsd) echo "43.3 25.5 1875 163" ;;  # SanDisk Extreme Pro 64 GB in a Pi 4
    usb-ssd) echo "379 277 5185 551" ;;    # Kingspec mSATA SSD on a Pi 4's USB 3.0 port
    unlimited) echo "0 0 0 0" ;;
    *) fail 2 "unknown profile '$1' (microsd, usb-ssd, unlimited)" ;;
  esac
}

profile_text() {
  case "$1" in
    microsd) echo "Pi 4 microSD card (SanDisk Extreme Pro 64 GB, A2)" ;;
    usb-ssd) echo "Pi 4 USB 3.0 SSD (Kingspec mSATA 128 GB on a GeeekPi X857 shield)" ;;
    unlimited) echo "a plain loop device" ;;
  esac
}

# Which throttling this machine has: sets $cg_mode (v2, v1 or none), $cg_root
# (the hierarchy's root) and $cg (our group in it). v2 needs the io
# controller in the root's cgroup.controllers; v1 a mounted blkio hierarchy.
find_cgroup() {
  cg_mode=none cg_root="" cg=""
  local v1
  if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
    cg_mode=v2 cg_root=/sys/fs/cgroup
  else
    v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
    if [ -n "$v1" ] && [ -e "$v1/blkio.throttle.read_bps_device" ]; then cg_mode=v1 cg_root=$v1; fi
  fi
  [ "$cg_mode" = none ] || cg=$cg_root/$group
}

# make_group: creates our cgroup (v2: with the io controller enabled for the
# root's children). Fails when the kernel refuses (e.g. a container's cgroup
# that holds processes cannot delegate io).
make_group() {
  [ "$cg_mode" != none ] || return 1
  if [ "$cg_mode" = v2 ] && ! grep -qw io "$cg_root/cgroup.subtree_control"; then
    echo +io >"$cg_root/cgroup.subtree_control" 2>/dev/null || return 1
  fi
  mkdir -p "$cg" 2>/dev/null || return 1
  [ "$cg_mode" = v1 ] || [ -e "$cg/io.max" ]
}

# set_limits MAJ:MIN READ_MIB_S WRITE_MIB_S READ_IOPS WRITE_IOPS (0: none),
# in the cgroup $lim_cg (default: ours).
set_limits() {
  local dev=$1 rbps wbps riops=$4 wiops=$5 cg=${lim_cg:-$cg}
  rbps=$(awk -v m="$2" 'BEGIN { printf "%.0f", m * 1048576 }')
  wbps=$(awk -v m="$3" 'BEGIN { printf "%.0f", m * 1048576 }')
  if [ "$cg_mode" = v1 ]; then
    # v1: one file per limit, "MAJ:MIN VALUE"; 0 removes the rule.
    echo "$dev $rbps" >"$cg/blkio.throttle.read_bps_device"
    echo "$dev $wbps" >"$cg/blkio.throttle.write_bps_device"
    echo "$dev $riops" >"$cg/blkio.throttle.read_iops_device"
    echo "$dev $wiops" >"$cg/blkio.throttle.write_iops_device"
  else
    # v2: one line per device; "max" is no limit.
    local v line=$dev
    for v in "rbps=$rbps" "wbps=$wbps" "riops=$riops" "wiops=$wiops"; do
      [ "${v#*=}" != 0 ] || v=${v%=*}=max
      line+=" $v"
    done
    echo "$line" >"$cg/io.max"
  fi
}

# backing_dir SIZE_BYTES: where the new device's file goes: RAM when
# /dev/shm is a tmpfs with room for SIZE plus what the devices already there
# may still grow to, and 256 MiB to spare; else the state directory.
backing_dir() {
  local want=${EMULATE_BACKING:-auto}
  [ "$want" != disk ] || { echo "$state_dir"; return; }
  if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && mkdir -p "$ram_dir" 2>/dev/null; then
    [ "$want" = ram ] && { echo "$ram_dir"; return; }
    local growth avail
    growth=$(find "$ram_dir" -maxdepth 1 -name '*.img' -printf '%s %b\n' | awk '{ g += $1 - $2 * 512 } END { printf "%.0f", g }')
    avail=$(df -B1 --output=avail /dev/shm | tail -1)
    if [ $(($1 + growth + 268435456)) -le "$avail" ]; then echo "$ram_dir"; return; fi
  fi
  echo "$state_dir"
}

need_root() {
  [ "$(id -u)" = 0 ] || fail 3 "needs root (loop devices, cgroups)"
  [ -e /dev/loop-control ] || fail 3 "no /dev/loop-control here"
}

cmd_create() {
  local name=${1:?create NAME PROFILE [SIZE]} profile=${2:?create NAME PROFILE [SIZE]} size=${3:-1G}
  case "$name" in */* | .* | "") fail 2 "bad NAME '$name'" ;; esac
  local limits scope=${EMULATE_SCOPE:-cgroup}
  limits=$(profile_limits "$profile")
  need_root
  find_cgroup
  [ "$profile" = unlimited ] || make_group || fail 3 "no block throttling here (cgroup v2 io or v1 blkio) for profile $profile"
  case "$scope" in
    cgroup) ;;
    device) [ "$profile" = unlimited ] || [ "$cg_mode" = v1 ] || fail 3 "EMULATE_SCOPE=device needs cgroup v1 blkio (here: $cg_mode)" ;;
    *) fail 2 "bad EMULATE_SCOPE '$scope' (cgroup or device)" ;;
  esac
  mkdir -p "$state_dir"
  [ ! -e "$state_dir/$name.state" ] || fail 3 "$name exists ($(cut -d' ' -f1 "$state_dir/$name.state")); destroy it first"
  local bytes dir img dev majmin
  bytes=$(numfmt --from=iec "${size%B}") || fail 2 "bad SIZE '$size' (e.g. 512M, 3G)"
  dir=$(backing_dir "$bytes")
  mkdir -p "$dir"
  img=$(mktemp "$dir/$name.XXXXXX.img")
  truncate -s "$bytes" "$img"
  # Direct I/O keeps the host's page cache out of a disk-backed device; tmpfs
  # may not take it, and then the device is buffered (RAM either way).
  dev=$(losetup -f --show --partscan --direct-io=on "$img" 2>/dev/null || losetup -f --show --partscan "$img") ||
    { rm -f "$img"; fail 3 "losetup failed for $img"; }
  majmin=$(lsblk -dn -o MAJ:MIN "$dev" | tr -d ' ')
  echo "$dev $majmin $profile $img $scope" >"$state_dir/$name.state"
  local lim_cg=$cg
  [ "$scope" = cgroup ] || { lim_cg=$cg_root; limits=$(awk '{ print $1, $2, 0, 0 }' <<<"$limits"); }
  # shellcheck disable=SC2086  # the four figures
  [ "$profile" = unlimited ] || set_limits "$majmin" $limits
  echo "$dev"
}

cmd_destroy() {
  local name dev majmin profile img scope lim_cg
  for name; do
    [ -e "$state_dir/$name.state" ] || continue
    read -r dev majmin profile img scope <"$state_dir/$name.state"
    find_cgroup
    lim_cg=$cg
    [ "${scope:-cgroup}" = cgroup ] || lim_cg=$cg_root
    # The limits go before the loop device is freed: its MAJ:MIN may be reused at once.
    if [ "$profile" != unlimited ] && [ -n "$lim_cg" ] && [ -d "$lim_cg" ]; then set_limits "$majmin" 0 0 0 0 2>/dev/null || true; fi
    losetup -d "$dev" 2>/dev/null || true
    rm -f "$img" "$state_dir/$name.state"
  done
}

cmd_run() {
  [ "${1:-}" != -- ] || shift
  [ $# -gt 0 ] || fail 2 "run -- CMD [ARG...]"
  find_cgroup
  if make_group 2>/dev/null; then
    echo $$ >"$cg/cgroup.procs"
  else
    echo "$me: warning: no block throttling here; $1 runs unthrottled" >&2
  fi
  exec "$@"
}

cmd_profiles() {
  local p r w ri wi
  printf '%-10s %10s %10s %10s %10s  %s\n' profile "read MiB/s" "write MiB/s" "read IOPS" "write IOPS" "what"
  for p in microsd usb-ssd unlimited; do
    read -r r w ri wi <<<"$(profile_limits "$p")"
    printf '%-10s %10s %10s %10s %10s  %s\n' "$p" "$r" "$w" "$ri" "$wi" "$(profile_text "$p")"
  done
}

case "${1:-}" in
  profiles) cmd_profiles ;;
  available) need_root; find_cgroup; make_group || fail 3 "no block throttling here (cgroup v2 io or v1 blkio)" ;;
  create) shift; cmd_create "$@" ;;
  run) shift; cmd_run "$@" ;;
  destroy) shift; cmd_destroy "$@" ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
