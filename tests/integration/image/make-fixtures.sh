#!/usr/bin/env bash
# make-fixtures.sh DIR: the inputs of the image integration tests, made with
# the real tools from scripts/make-test-image.sh's image (ROOT 64 MiB):
#   t.img t.img.xz (xz -0 -T0) t.img.gz t.img.zst t.img.bz2 t.img.lz4 t.zip
#   two.zip (two files), trunc.img.xz (first half), flip.img.xz (one byte
#   flipped in the middle), SHA256SUMS.
# Idempotent (DIR/.done); callers serialise with flock(1) on DIR.lock.
set -euo pipefail
dir=$1
here=$(cd "$(dirname "$0")/../../.." && pwd)
[ -e "$dir/.done" ] && exit 0
mkdir -p "$dir"
cd "$dir"
"$here/scripts/make-test-image.sh" "$dir/t.img" 64 >/dev/null
gzip -1 -n -c t.img > t.img.gz
zstd -q -1 -c t.img > t.img.zst
bzip2 -1 -c t.img > t.img.bz2
lz4 -q -1 -c t.img > t.img.lz4
rm -f t.zip two.zip
zip -q -1 t.zip t.img
zip -q -0 two.zip t.img.gz t.img.lz4
size=$(stat -c %s t.img.xz)
head -c $((size / 2)) t.img.xz > trunc.img.xz
cp t.img.xz flip.img.xz
# Invert one byte in the middle of the compressed data.
off=$((size / 2))
byte=$(od -An -tu1 -j "$off" -N1 t.img.xz | tr -d ' ')
printf '%b' "\\$(printf '%03o' $((255 - byte)))" | dd of=flip.img.xz bs=1 seek="$off" conv=notrunc status=none
sha256sum t.img.xz > SHA256SUMS
touch .done
