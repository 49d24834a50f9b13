#!/usr/bin/env bash
# bench-write-media.sh: piprov write where the device sets the pace (issue 20):
# an emulated Pi-class microSD and a USB 3 SSD (scripts/emulate-device.sh,
# profiles microsd and usb-ssd), one run of each row. bench-write.sh runs it
# after its own rows; it also runs alone.
#
# Image: the ~2 GiB Ubuntu-layout test image (scripts/make-test-image.sh
# --fill 50, ROOT 1750 MiB: the writable partition about half full; xz -0 -T0).
# Rows, on each device:
#   piprov (skip free)   piprov write --no-verify --yes IMAGE DEV   (the default)
#   piprov --full        the same with --full (every byte)
#   xz | dd              xz -dc -T0 IMAGE | dd of=DEV bs=4M oflag=direct iflag=fullblock
#   bmaptool + bmap      bmaptool copy --bmap IMAGE.bmap IMAGE DEV
# The .bmap: `bmaptool create` of a sparse copy of the image, made by
# `piprov write IMAGE FILE`: a regular-file target is truncated first and the
# free space piprov skips stays a hole, so the bmap maps exactly the ranges
# piprov writes and the row compares the writers, not the maps. (A
# distributor's bmap of an image built in a sparse file maps the same file
# system blocks.) bmaptool checks each range's SHA-256 as it copies, as it
# does by default; none of the rows reads the device back.
#
# Throttling: EMULATE_SCOPE=device (cgroup v1 blkio): the limits sit on the
# root cgroup, so they apply to every I/O to the device, also bmaptool's
# buffered writes, which the kernel's flusher threads write back; the
# devices then have the profiles' bandwidth limits only (see
# emulate-device.sh). Discards (BLKDISCARD of the skipped ranges) are
# nearly free on a loop device; on a real card they cost an erase.
# Prints wall times, piprov's summary line, and the ratios (targets: on the
# microSD piprov (skip free) <= 0.60x xz|dd, on the USB 3 SSD <= 0.50x xz|dd
# (issue 27: only the blocks written are decoded, on every core), and <= 1.00x bmaptool).
# Needs root. Exit 3 when devices cannot be throttled here.
# Env: BENCH_DIR (/var/tmp/piprov-bench), ROOT_MIB (1750), FILL_PCT (50),
# BUILD_DIR (build), MEDIA ("microsd usb-ssd").
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
dir=${BENCH_DIR:-/var/tmp/piprov-bench}
root_mib=${ROOT_MIB:-1750}
fill=${FILL_PCT:-50}
build=${BUILD_DIR:-build}
media=${MEDIA:-microsd usb-ssd}
piprov=$build/src/cli/piprov
need_root "emulated devices"
need_tools xz dd bmaptool jq /usr/bin/time
need_emulated_devices
[ -x "$piprov" ] || build_piprov "$build"

mkdir -p "$dir"
scripts/make-test-image.sh --fill "$fill" "$dir/half.img" "$root_mib" >/dev/null
rm -f "$dir/half.img"  # the .xz is what every row reads
image=$dir/half.img.xz
rm -f "$dir/half-sparse.img"
"$piprov" -q write --yes --no-verify --progress none --json "$image" "$dir/half-sparse.img" > "$dir/half-sparse.json"
img_bytes=$(jq -r .image_bytes "$dir/half-sparse.json")
bmaptool -q create -o "$dir/half.bmap" "$dir/half-sparse.img"
rm -f "$dir/half-sparse.img"
mapped=$(sed -n 's:.*<MappedBlocksCount> *\([0-9]*\) *</MappedBlocksCount>.*:\1:p' "$dir/half.bmap")
bsize=$(sed -n 's:.*<BlockSize> *\([0-9]*\) *</BlockSize>.*:\1:p' "$dir/half.bmap")
dev_size=$((img_bytes / 1048576 + 64))M
names=()
cleanup() { destroy_emulated "${names[@]}"; }
trap cleanup EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b - a}'; }
row_skip() { /usr/bin/time -f %M -o "$dir/rss" "$piprov" -q write --no-verify --yes --progress none "$image" "$dev" > /dev/null; }
row_full() { "$piprov" -q write --no-verify --yes --progress none --full "$image" "$dev" > /dev/null; }
row_xzdd() { xz -dc -T0 "$image" | dd of="$dev" bs=4M oflag=direct iflag=fullblock status=none; }
row_bmap() { bmaptool -q copy --bmap "$dir/half.bmap" "$image" "$dev" 2>/dev/null; }
timed() { local t0 t1; t0=$(now); "$1"; t1=$(now); secs "$t0" "$t1"; }

echo "media image: $image ($(stat -c %s "$image") bytes xz, $img_bytes bytes raw; writable ~${fill}% full)"
echo "piprov:      $(jq -r .summary "$dir/half-sparse.json")"
echo "bmap:        $((mapped * bsize)) bytes mapped (bmaptool create of piprov's sparse copy)"
cat "$image" > /dev/null  # same warm page cache for every row
for m in $media; do
  names+=("bench-media-$m")
  dev=$(emulated_device "bench-media-$m" "$m" "$dev_size")
  skip=$(timed row_skip) rss=$(tail -n1 "$dir/rss")
  full=$(timed row_full)
  xzdd=$(timed row_xzdd)
  bmap=$(timed row_bmap)
  destroy_emulated "bench-media-$m"
  printf '%-8s %-34s %8s s\n' "$m" "piprov write (skip free)" "$skip" "$m" "piprov write --full" "$full" \
    "$m" "xz -dc -T0 | dd oflag=direct" "$xzdd" "$m" "bmaptool copy --bmap" "$bmap"
  echo "$m: piprov (skip free) / xz|dd:    $(ratio "$skip" "$xzdd")x   (target <= 0.60 on microsd, <= 0.50 on usb-ssd)"
  echo "$m: piprov (skip free) / bmaptool: $(ratio "$skip" "$bmap")x   (target <= 1.00)"
  echo "$m: piprov --full / xz|dd:         $(ratio "$full" "$xzdd")x"
  echo "$m: piprov peak RSS:               $((rss / 1024)) MiB ($rss KiB; target < 100 MiB)"
done
