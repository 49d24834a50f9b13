#!/usr/bin/env bash
# bench-keep.sh: piprov backup and clone where the card sets the pace (issue 28), one
# run of each row. bench-write.sh runs it after its own rows (KEEP=none: not);
# it also runs alone.
#
# The ~2 GiB Ubuntu-layout test image with its writable partition about half
# full (scripts/make-test-image.sh --fill 50, as bench-write-media.sh) is
# written onto an emulated Pi-class microSD (scripts/emulate-device.sh,
# profile microsd, EMULATE_SCOPE=device), then read back into a backup:
#   piprov backup      piprov backup --yes DEV OUT.img.xz   (used blocks only, xz -0 on all cores)
#   dd | xz -T0 -0     dd if=DEV bs=4M iflag=direct | xz -T0 -0 > OUT2.img.xz
# Target (issue 28): piprov backup <= 0.60x dd | xz.
# Then the card cloned onto an emulated USB SSD (profile usb-ssd, 256 MiB
# larger, so the root file system grows):
#   piprov clone       piprov clone --yes --no-verify DEV SSD   (used blocks only, grown, new disk id)
#   dd                 dd if=DEV of=SSD bs=4M iflag=direct oflag=direct
# Target (issue 28): piprov clone <= 0.60x dd.
# Needs root. Exit 3 when devices cannot be throttled here.
# Env: BENCH_DIR (/var/tmp/piprov-bench), ROOT_MIB (1750), FILL_PCT (50), BUILD_DIR (build).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
dir=${BENCH_DIR:-/var/tmp/piprov-bench}
root_mib=${ROOT_MIB:-1750}
fill=${FILL_PCT:-50}
build=${BUILD_DIR:-build}
piprov=$build/src/cli/piprov
need_root "emulated devices"
need_tools xz dd jq
need_emulated_devices
[ -x "$piprov" ] || build_piprov "$build"

mkdir -p "$dir"
scripts/make-test-image.sh --fill "$fill" "$dir/half.img" "$root_mib" >/dev/null
rm -f "$dir/half.img"
image=$dir/half.img.xz
img_bytes=$(xz --robot -l "$image" | awk '$1 == "totals" {print $5}')
dev_size=$((img_bytes / 1048576 + 64))M
ssd_size=$((img_bytes / 1048576 + 64 + 256))M
names=(bench-keep-microsd bench-keep-ssd)
cleanup() {
  destroy_emulated "${names[@]}"
  rm -f "$dir/keep-backup.img.xz" "$dir/keep-backup.img.xz.sha256" "$dir/keep-dd.img.xz" "$dir/keep-clone.json"
}
trap cleanup EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b - a}'; }
dev=$(emulated_device bench-keep-microsd microsd "$dev_size")
"$piprov" -q write --yes --no-verify --progress none "$image" "$dev" > /dev/null
row_backup() {
  "$piprov" -q backup --yes --progress none --json "$dev" "$dir/keep-backup.img.xz" > "$dir/keep-backup.json"
}
row_ddxz() { dd if="$dev" bs=4M iflag=direct status=none | xz -T0 -0 > "$dir/keep-dd.img.xz"; }
timed() { local t0 t1; t0=$(now); "$1"; t1=$(now); secs "$t0" "$t1"; }
backup=$(timed row_backup)
ddxz=$(timed row_ddxz)
printf '%-8s %-34s %8s s  %s bytes\n' microsd "piprov backup (used blocks, xz)" "$backup" \
  "$(stat -c %s "$dir/keep-backup.img.xz")" microsd "dd iflag=direct | xz -T0 -0" "$ddxz" \
  "$(stat -c %s "$dir/keep-dd.img.xz")"
echo "piprov:  $(jq -r '"read \(.read_bytes) of \(.disk_bytes) bytes; \(.limit)"' "$dir/keep-backup.json")"
echo "microsd: piprov backup / dd|xz: $(ratio "$backup" "$ddxz")x   (target <= 0.60)"

ssd=$(emulated_device bench-keep-ssd usb-ssd "$ssd_size")
row_clone() { "$piprov" -q clone --yes --no-verify --progress none --json "$dev" "$ssd" > "$dir/keep-clone.json"; }
row_dd() { dd if="$dev" of="$ssd" bs=4M iflag=direct oflag=direct status=none; }
clone=$(timed row_clone)
ddcopy=$(timed row_dd)
printf '%-8s %-34s %8s s\n' "sd->ssd" "piprov clone (used blocks, grown)" "$clone" "sd->ssd" \
  "dd iflag=direct oflag=direct" "$ddcopy"
echo "piprov:  $(jq -r '"read \(.read_bytes) of \(.copy_bytes) bytes; \(.targets[0].grown); \(.limit)"' \
  "$dir/keep-clone.json")"
echo "sd->ssd: piprov clone / dd: $(ratio "$clone" "$ddcopy")x   (target <= 0.60)"
