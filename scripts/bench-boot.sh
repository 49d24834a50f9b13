#!/usr/bin/env bash
# bench-boot.sh [RUNS]: time `piprov boot patch` on the boot partition of
# scripts/make-test-image.sh's image (real Debian arm64 kernel) and the no-op
# `piprov boot sync-kernel` / apt-hooks/piprov-kernel-sync, RUNS times each
# (default 10), next to the way Pi 4 USB-boot how-tos do it ("peer": zcat + sed; md5sum -c).
# Prints min/median/max per case and piprov/peer ratios. Needs mtools.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
runs=${1:-10}
piprov=${PIPROV:-build/src/cli/piprov}
[ -x "$piprov" ] || build_piprov build
need_tools mcopy gzip md5sum
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/make-test-image.sh "$work/u.img" 64 >/dev/null
mkdir -p "$work/pristine"
MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "$work/u.img@@1M" ::/ "$work/pristine/"
rm -f "$work/u.img" "$work/u.img.xz"
kernel_mb=$(( $(gzip -dc "$work/pristine/vmlinuz" | wc -c) / 1000000 ))

now_ns() { date +%s%N; }
# stats NAME FILE-of-ns-per-line: prints min/median/max in ms; the median goes to FILE.median
stats() {
  local ms m
  mapfile -t ms < <(awk '{ printf "%f\n", $1 / 1e6 }' "$2" | sort -g)
  m=$(median "${ms[@]}")
  echo "$m" > "$2.median"
  printf '%-58s min %8.1f ms  median %8.1f ms  max %8.1f ms  (%d runs)\n' "$1" "${ms[0]}" "$m" "${ms[-1]}" "${#ms[@]}"
}
# compare A B LABEL: the ratio of the medians of stats files A and B
compare() { printf '  ratio %s: %sx\n' "$3" "$(ratio "$(cat "$1.median")" "$(cat "$2.median")")"; }

# 1. boot patch of a fresh copy (decompress 27+ MB kernel, edit config.txt, stamp).
: > "$work/patch.ns"; : > "$work/peer_patch.ns"
for _ in $(seq "$runs"); do
  rm -rf "$work/b"; cp -r "$work/pristine" "$work/b"; sync
  t0=$(now_ns); "$piprov" boot patch "$work/b" >/dev/null; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/patch.ns"
  rm -rf "$work/p"; cp -r "$work/pristine" "$work/p"; sync
  t0=$(now_ns)
  ( cd "$work/p" && zcat vmlinuz > vmlinux && sync vmlinux \
    && sed -i 's/^kernel=uboot_rpi_4.bin$/kernel=vmlinux\ninitramfs initrd.img followkernel/' config.txt )
  t1=$(now_ns); echo $((t1 - t0)) >> "$work/peer_patch.ns"
done
echo "boot partition of make-test-image.sh's image: vmlinux ${kernel_mb} MB"
stats "piprov boot patch (fresh copy)" "$work/patch.ns"
stats "peer: zcat vmlinuz > vmlinux; sync; sed config.txt" "$work/peer_patch.ns"
compare "$work/patch.ns" "$work/peer_patch.ns" "piprov/peer (piprov also verifies, hashes, fsyncs, renames)"

# 2. nothing to do: what the apt hook costs after every dpkg run.
( cd "$work/b" && md5sum vmlinuz vmlinux > check.md5 )
: > "$work/sync.ns"; : > "$work/hook.ns"; : > "$work/peer_sync.ns"
for _ in $(seq "$runs"); do
  t0=$(now_ns); "$piprov" boot sync-kernel "$work/b" >/dev/null; t1=$(now_ns); echo $((t1 - t0)) >> "$work/sync.ns"
  t0=$(now_ns); PIPROV_FORCE_SH=1 PIPROV_BOOT_DIR="$work/b" sh apt-hooks/piprov-kernel-sync; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/hook.ns"
  t0=$(now_ns); ( cd "$work/b" && md5sum --status --ignore-missing -c check.md5 ); t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/peer_sync.ns"
done
stats "piprov boot sync-kernel, nothing to do" "$work/sync.ns"
stats "apt-hooks/piprov-kernel-sync (sh), nothing to do" "$work/hook.ns"
stats "peer: md5sum --ignore-missing -c check.md5" "$work/peer_sync.ns"
compare "$work/sync.ns" "$work/peer_sync.ns" "sync-kernel/peer"
compare "$work/hook.ns" "$work/peer_sync.ns" "sh hook/peer"
