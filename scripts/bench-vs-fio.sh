#!/usr/bin/env bash
# bench-vs-fio.sh: piprov bench vs fio on the same devices in the same run.
#  1. Two emulated devices (scripts/emulate-device.sh: microsd, usb-ssd),
#     profile "pi" (its four fio tests) at RUNTIME s per test: fio and
#     `piprov bench --profile pi --only TEST` alternate test by test, ROUNDS
#     times (medians); prints IOPS and MiB/s side by side + ratios (piprov/fio).
#  2. Engine overhead: 4k QD1 random reads on a file in the page cache (no
#     O_DIRECT), psync engine, fio vs piprov; prints the IOPS ratio.
#  3. Raspberry Pi's SD card test on an emulated microsd: fio running
#     agnostics' own job file (raspberrypi-ui/agnostics data/sd_bench.fio, its
#     options written below with filename= the device) vs `piprov bench
#     --profile agnostics`, full size (64 MiB) and runtime (10 s), ROUNDS
#     interleaved runs; medians of each job's figure (seq KiB/s, random IOPS),
#     ratios and both PASS/FAIL verdicts (sdtest.sh's thresholds).
# Usage: scripts/bench-vs-fio.sh [RUNTIME_SECONDS=8] (root; needs fio, jq; ~10 min at 8 s x 3 rounds).
# Env: PIPROV (binary, default build/src/cli/piprov), SIZE (device size, 2G), RAMP (s, 0), ROUNDS (3),
#      PARTS (which parts: "pi pagecache agnostics", the default, or any of them),
#      EMULATE_DIR (default /var/tmp/bench-vs-fio).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
runtime=${1:-8}
# fio's "iops" with ramp_time > 0 misses the I/Os in flight at the end of the
# ramp (fio 3.33: total_ios 379 vs io_bytes/bs 410 at 4M QD32), so both tools
# run without a ramp by default for an even comparison.
ramp=${RAMP:-0}
rounds=${ROUNDS:-3}
piprov=${PIPROV:-build/src/cli/piprov}
size=${SIZE:-2G}
parts=${PARTS:-pi pagecache agnostics}
export EMULATE_DIR=${EMULATE_DIR:-/var/tmp/bench-vs-fio}
need_root "emulated devices"
need_tools fio jq
have_emulator || die 2 "no emulated devices here: $("$emulator" available 2>&1)"
[ -x "$piprov" ] || build_piprov build
work=$(mktemp -d)
cleanup() { destroy_emulated bench-vs-sd bench-vs-ssd bench-vs-agn; rm -rf "$work"; }
trap cleanup EXIT

# name rw bs iodepth sync (profile pi, src/bench/profiles.cpp)
tests=("seq-read read 4M 32 0" "rand-read randread 4k 1 1" "seq-write write 4M 32 0" "rand-write randwrite 4k 1 1")

run_fio() { # dev name rw bs qd sync -> json file
  local dev=$1 name=$2 rw=$3 bs=$4 qd=$5 sync=$6
  "$emulator" run -- fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 --sync="$sync" --bs="$bs" \
    --iodepth="$qd" --rw="$rw" --time_based --runtime="$runtime" --ramp_time="$ramp" --randrepeat=0 \
    --norandommap --refill_buffers --output-format=json > "$work/fio-$(basename "$dev")-$name.json"
}

want_part() { [[ " $parts " == *" $1 "* ]]; }

part_pi() {
runs=()
echo "median of $rounds interleaved runs each, ${runtime}s per run"
printf '%-12s %-10s %10s %10s %7s   %10s %10s %7s\n' device test "fio IOPS" "piprov" ratio "fio MiB/s" "piprov" ratio
for spec in "bench-vs-sd microsd" "bench-vs-ssd usb-ssd"; do
  read -r emu_name emu_profile <<< "$spec"
  dev=$(emulated_device "$emu_name" "$emu_profile" "$size")
  # fio and piprov alternate test by test, ROUNDS times (fio first in odd
  # rounds, piprov first in even ones), and each side is the median of its
  # runs: on a shared machine single runs of the QD1 tests vary a lot (sync
  # writes end in flushes of the host disk), and the median of interleaved
  # runs lets that noise hit both tools alike.
  for t in "${tests[@]}"; do
    read -r -a args <<< "$t"
    name=${args[0]}
    case ${args[1]} in *read) dir="read" ;; *) dir="write" ;; esac
    fi_all=() fm_all=() pi_all=() pm_all=()
    for ((round = 1; round <= rounds; round++)); do
      for who in $([ $((round % 2)) = 1 ] && echo "fio piprov" || echo "piprov fio"); do
        if [ "$who" = fio ]; then
          run_fio "$dev" "${args[@]}"
          f="$work/fio-$(basename "$dev")-$name.json"
          fi_all+=("$(jq ".jobs[0].$dir.iops" "$f")") fm_all+=("$(jq ".jobs[0].$dir.bw_bytes / 1048576" "$f")")
        else
          "$emulator" run -- "$piprov" bench --profile pi --only "$name" --runtime "$runtime" --ramp "$ramp" \
            --destructive --progress none --format json "$dev" > "$work/piprov.json"
          pi_all+=("$(jq ".targets[0].jobs[0].$dir.iops" "$work/piprov.json")")
          pm_all+=("$(jq ".targets[0].jobs[0].$dir.bw_mib_s" "$work/piprov.json")")
        fi
      done
    done
    awk -v d="$emu_profile" -v t="$name" -v fi="$(median "${fi_all[@]}")" -v pi="$(median "${pi_all[@]}")" \
      -v fm="$(median "${fm_all[@]}")" -v pm="$(median "${pm_all[@]}")" \
      'BEGIN{printf "%-12s %-10s %10.0f %10.0f %7.3f   %10.1f %10.1f %7.3f\n", d, t, fi, pi, pi/fi, fm, pm, pm/fm}'
    runs+=("$emu_profile $name IOPS: fio $(printf '%.0f ' "${fi_all[@]}")| piprov $(printf '%.0f ' "${pi_all[@]}")")
  done
  destroy_emulated "$emu_name"
done

echo
echo "single runs (in run order per round):"
printf '  %s\n' "${runs[@]}"
}

# Engine overhead: page-cache 4k QD1 random reads, psync, buffered.
part_pagecache() {
f="$work/pagecache.dat"
head -c 256M /dev/urandom > "$f"
cat "$f" > /dev/null
pc_fio=() pc_pp=()
for ((round = 1; round <= rounds; round++)); do
  fio --name=pc --filename="$f" --ioengine=psync --direct=0 --invalidate=0 --rw=randread --bs=4k --size=256M \
    --time_based --runtime="$runtime" --randrepeat=0 --norandommap --output-format=json > "$work/fio-pc.json"
  "$piprov" bench --rw randread --bs 4k --engine psync --buffered --iodepth 1 --runtime "$runtime" --ramp 0 \
    --progress none --format json "$f" > "$work/piprov-pc.json"
  pc_fio+=("$(jq '.jobs[0].read.iops' "$work/fio-pc.json")")
  pc_pp+=("$(jq '.targets[0].jobs[0].read.iops' "$work/piprov-pc.json")")
done
echo
awk -v fi="$(median "${pc_fio[@]}")" -v pi="$(median "${pc_pp[@]}")" -v n="$rounds" \
  'BEGIN{printf "page cache 4k QD1 randread psync (median of %d): fio %.0f IOPS, piprov %.0f IOPS, piprov/fio %.3f\n", n, fi, pi, pi/fi}'
echo "  single runs: fio $(printf '%.0f ' "${pc_fio[@]}")| piprov $(printf '%.0f ' "${pc_pp[@]}")"
}

# sd_bench.fio of raspberrypi-ui/agnostics (data/sd_bench.fio), with
# filename= the device instead of directory=/home/pi filename=sd.test.file.
write_sd_bench_fio() { # dev file
  cat > "$2" <<EOF
[global]
ioengine=libaio
iodepth=4
size=64m
direct=1
end_fsync=1
filename=$1

[prepare-file]
rw=write
bs=512k
stonewall

[seq-write]
rw=write
bs=512k
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=10
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=10
stonewall
EOF
}

# agnostics' figure of each job: name dir metric(bw KiB/s | iops) threshold (0: not judged)
agn_tests=("prepare-file write bw 0" "seq-write write bw 10000" "rand-4k-write write iops 500"
  "rand-4k-read read iops 1500")

part_agnostics() {
  local dev job="$work/sd_bench.fio" t name dir metric thr round who rc q
  dev=$(emulated_device bench-vs-agn microsd 256M)
  write_sd_bench_fio "$dev" "$job"
  declare -A fio_v pp_v
  for ((round = 1; round <= rounds; round++)); do
    for who in $([ $((round % 2)) = 1 ] && echo "fio piprov" || echo "piprov fio"); do
      if [ "$who" = fio ]; then
        "$emulator" run -- fio --output-format=json "$job" > "$work/agn-fio.json"
        for t in "${agn_tests[@]}"; do
          read -r name dir metric thr <<< "$t"
          fio_v[$name]+="$(jq ".jobs[] | select(.jobname == \"$name\") | .$dir.$metric" "$work/agn-fio.json") "
        done
      else
        rc=0
        "$emulator" run -- "$piprov" bench --profile agnostics --destructive --progress none --format json "$dev" \
          > "$work/agn-piprov.json" || rc=$?
        [ "$rc" -le 1 ] || die 3 "piprov bench --profile agnostics failed (exit $rc)"
        for t in "${agn_tests[@]}"; do
          read -r name dir metric thr <<< "$t"
          q=".targets[0].jobs[] | select(.name == \"$name\") | .$dir"
          if [ "$metric" = bw ]; then q="$q.bw_bytes / 1024"; else q="$q.iops"; fi
          pp_v[$name]+="$(jq "$q" "$work/agn-piprov.json") "
        done
      fi
    done
  done
  destroy_emulated bench-vs-agn
  echo
  echo "agnostics SD card test (sd_bench.fio: 64 MiB, 10 s random jobs) on emulated microsd, median of $rounds runs"
  printf '%-14s %-10s %10s %10s %7s   %-8s %-8s\n' job figure fio piprov ratio fio piprov
  for t in "${agn_tests[@]}"; do
    read -r name dir metric thr <<< "$t"
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    awk -v n="$name" -v m="$([ "$metric" = bw ] && echo "KiB/s" || echo "$dir IOPS")" -v thr="$thr" \
      -v f="$(median ${fio_v[$name]})" -v p="$(median ${pp_v[$name]})" \
      'function v(x) { return thr == 0 ? "-" : (int(x) >= thr ? "PASS" : "FAIL") }
       BEGIN { printf "%-14s %-10s %10.0f %10.0f %7.3f   %-8s %-8s\n", n, m, f, p, p / f, v(f), v(p) }'
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    echo "  single runs: fio $(printf '%.0f ' ${fio_v[$name]})| piprov $(printf '%.0f ' ${pp_v[$name]})"
  done
}

if want_part pi; then part_pi; fi
if want_part pagecache; then part_pagecache; fi
if want_part agnostics; then part_agnostics; fi
