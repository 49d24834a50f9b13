#!/usr/bin/env bash
# bench-vs-fio.sh: piprov bench vs fio on the same devices in the same run.
#  1. Two emulated devices (../shared/tools/emulate-device: microsd, usb-ssd),
#     profile "pi" (seeds/004's four tests) at RUNTIME s per test: fio and
#     `piprov bench --profile pi --only TEST` alternate test by test (fio,
#     piprov, piprov, fio; means of two runs each); prints IOPS and MiB/s side
#     by side + ratios (piprov / fio).
#  2. Engine overhead: 4k QD1 random reads on a file in the page cache (no
#     O_DIRECT), psync engine, fio vs piprov; prints the IOPS ratio.
# Usage: scripts/bench-vs-fio.sh [RUNTIME_SECONDS=10] (about 6 min at 10) (root; needs fio, jq).
# Env: PIPROV (binary, default build/src/cli/piprov), SIZE (device size, 2G), RAMP (s, 0),
#      EMULATE_DIR (default /var/tmp/bench-vs-fio).
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=${1:-10}
# fio's "iops" with ramp_time > 0 misses the I/Os in flight at the end of the
# ramp (fio 3.33: total_ios 379 vs io_bytes/bs 410 at 4M QD32), so both tools
# run without a ramp by default for an even comparison.
ramp=${RAMP:-0}
piprov=${PIPROV:-build/src/cli/piprov}
emu=../shared/tools/emulate-device
size=${SIZE:-2G}
export EMULATE_DIR=${EMULATE_DIR:-/var/tmp/bench-vs-fio}
[ -x "$piprov" ] || { echo "build piprov first ($piprov missing)" >&2; exit 2; }
if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then echo "needs fio and jq" >&2; exit 2; fi
work=$(mktemp -d)
cleanup() { "$emu" destroy bench-vs-sd >/dev/null 2>&1 || true; "$emu" destroy bench-vs-ssd >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

# name rw bs iodepth sync (seeds/004)
tests=("seq-read read 4M 32 0" "rand-read randread 4k 1 1" "seq-write write 4M 32 0" "rand-write randwrite 4k 1 1")

run_fio() { # dev name rw bs qd sync -> json file
  local dev=$1 name=$2 rw=$3 bs=$4 qd=$5 sync=$6
  "$emu" run -- fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 --sync="$sync" --bs="$bs" \
    --iodepth="$qd" --rw="$rw" --time_based --runtime="$runtime" --ramp_time="$ramp" --randrepeat=0 \
    --norandommap --refill_buffers --output-format=json > "$work/fio-$(basename "$dev")-$name.json"
}

printf '%-12s %-10s %10s %10s %7s   %10s %10s %7s\n' device test "fio IOPS" "piprov" ratio "fio MiB/s" "piprov" ratio
for spec in "bench-vs-sd microsd" "bench-vs-ssd usb-ssd"; do
  read -r emu_name emu_profile <<< "$spec"
  dev=$("$emu" create "$emu_name" "$emu_profile" "$size")
  # fio and piprov alternate test by test in the order fio, piprov, piprov,
  # fio (ABBA), and each side is the mean of its two runs: drift in the shared
  # machine's load (QD1 4k is CPU-sensitive; sync writes end in flushes of the
  # host disk) then hits both alike.
  for t in "${tests[@]}"; do
    read -r -a args <<< "$t"
    name=${args[0]}
    case ${args[1]} in *read) dir="read" ;; *) dir="write" ;; esac
    for round in 1 2; do
      if [ "$round" = 1 ]; then run_fio "$dev" "${args[@]}"; mv "$work/fio-$(basename "$dev")-$name.json" "$work/fio1.json"; fi
      "$emu" run -- "$piprov" bench --profile pi --only "$name" --runtime "$runtime" --ramp "$ramp" --destructive \
        --no-progress --format json "$dev" > "$work/piprov$round.json"
      if [ "$round" = 2 ]; then run_fio "$dev" "${args[@]}"; mv "$work/fio-$(basename "$dev")-$name.json" "$work/fio2.json"; fi
    done
    fio_iops=$(jq -s "map(.jobs[0].$dir.iops) | add / 2" "$work/fio1.json" "$work/fio2.json")
    fio_mib=$(jq -s "map(.jobs[0].$dir.bw_bytes / 1048576) | add / 2" "$work/fio1.json" "$work/fio2.json")
    pp_iops=$(jq -s "map(.targets[0].jobs[0].$dir.iops) | add / 2" "$work/piprov1.json" "$work/piprov2.json")
    pp_mib=$(jq -s "map(.targets[0].jobs[0].$dir.bw_mib_s) | add / 2" "$work/piprov1.json" "$work/piprov2.json")
    awk -v d="$emu_profile" -v t="$name" -v fi="$fio_iops" -v pi="$pp_iops" -v fm="$fio_mib" -v pm="$pp_mib" \
      'BEGIN{printf "%-12s %-10s %10.0f %10.0f %7.3f   %10.1f %10.1f %7.3f\n", d, t, fi, pi, pi/fi, fm, pm, pm/fm}'
  done
  "$emu" destroy "$emu_name" >/dev/null
done

# Engine overhead: page-cache 4k QD1 random reads, psync, buffered.
f="$work/pagecache.dat"
head -c 256M /dev/urandom > "$f"
cat "$f" > /dev/null
fio --name=pc --filename="$f" --ioengine=psync --direct=0 --invalidate=0 --rw=randread --bs=4k --size=256M --time_based \
  --runtime="$runtime" --ramp_time=1 --randrepeat=0 --norandommap --output-format=json > "$work/fio-pc.json"
"$piprov" bench --rw randread --bs 4k --engine psync --buffered --iodepth 1 --runtime "$runtime" --ramp 1 \
  --no-progress --format json "$f" > "$work/piprov-pc.json"
fi=$(jq '.jobs[0].read.iops' "$work/fio-pc.json")
pi=$(jq '.targets[0].jobs[0].read.iops' "$work/piprov-pc.json")
echo
awk -v fi="$fi" -v pi="$pi" 'BEGIN{printf "page cache 4k QD1 randread psync: fio %.0f IOPS, piprov %.0f IOPS, piprov/fio %.3f\n", fi, pi, pi/fi}'
