#!/usr/bin/env bash
# piprov report on results the real piprov makes here: boot check of an
# unpatched and a patched Ubuntu 20.04 boot partition, eeprom check of a good
# and a stale bootloader config (../shared/data), bench quick of a file
# target; text, markdown and json; the exit code; the refusals (unknown
# schema, not JSON, --name count) with exit 2.
# Usage: report_cli.sh PIPROV_BIN SOURCE_DIR SHARED_DIR
export PIPROV_BIN=$1 PIPROV_SOURCE_DIR=$2 PIPROV_SHARED_DIR=$3
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools gzip
require_shared config-txt
require_shared bootloader-configs

t=$(mktemp -d /var/tmp/piprov-fleet-report.XXXXXX)
trap 'rm -rf "$t"' EXIT
configs=$PIPROV_SHARED_DIR/data/bootloader-configs
p() { "$PIPROV_BIN" "$@"; }

# run OUT CMD...: runs CMD with stdout to OUT; sets $rc.
run() {
  local out=$1
  shift
  rc=0
  "$@" >"$out" 2>"$out.err" || rc=$?
}

boot_2004 "$t/good/boot"
root_dir "$t/good/root"
p boot patch "$t/good/boot" --root "$t/good/root" >/dev/null
boot_2004 "$t/bad/boot"
run "$t/good.boot.json" p boot check "$t/good/boot" --root "$t/good/root" --json
[ "$rc" = 0 ] || fail "boot check of the patched partition exited $rc: $(cat "$t/good.boot.json.err")"
run "$t/bad.boot.json" p boot check "$t/bad/boot" --json
[ "$rc" = 1 ] || fail "boot check of the U-Boot partition exited $rc, not 1"
run "$t/good.eeprom.json" p eeprom check "$configs/10-issue423-usb-first.txt" --json
[ "$rc" = 0 ] || fail "eeprom check of config 10 exited $rc"
run "$t/bad.eeprom.json" p eeprom check "$configs/09-issue272-stale-sd-only.txt" --json
[ "$rc" = 1 ] || fail "eeprom check of config 09 exited $rc, not 1"
mkdir "$t/target"
run "$t/good.bench.json" p bench --profile quick --runtime 0.1 --ramp 0 --size 8M --engine psync --buffered \
  --no-progress --json "$t/target"
[ "$rc" = 0 ] || fail "bench exited $rc: $(cat "$t/good.bench.json.err")"

files=("$t/good.boot.json" "$t/good.eeprom.json" "$t/good.bench.json" "$t/bad.boot.json" "$t/bad.eeprom.json")
run "$t/report.txt" p report "${files[@]}"
[ "$rc" = 1 ] || fail "report with a failed host exited $rc, not 1"
text=$(cat "$t/report.txt")
printf '%s\n' "$text"
expect_in "$text" "header" '^host +status +layout +USB boot +boot E/W/I +BOOT_ORDER +eeprom E/W/I +first error$'
expect_in "$text" "the patched node" '^good +ok +.* +0/0/[0-9]+ +0xf14 +0/0/[0-9]+ +-$'
expect_in "$text" "the U-Boot node: boot errors, BOOT_ORDER 0x1, the first boot error" \
  '^bad +FAILED +.* +[1-9][0-9]*/[0-9]+/[0-9]+ +0x1 +[1-9][0-9]*/[0-9]+/[0-9]+ +boot check: kernel-uboot: '
expect_in "$text" "the bench row of the good node" "^good +$t/target( +[0-9]+(\.[0-9]+)?){4}$"
expect_in "$text" "summary" '^report: 2 host\(s\), 1 failed: bad$'
expect_not_in "$text" "no bench row for a node without bench" '^bad +/'

run "$t/report.md" p report --format markdown "${files[@]}"
expect_in "$(cat "$t/report.md")" "markdown" '^\| bad \| FAILED \| .* \| 0x1 \| '
run "$t/report.json" p report --json "${files[@]}"
/usr/bin/python3 - "$t/report.json" <<'PY' || fail "report --json (checks above)"
import json, sys
j = json.load(open(sys.argv[1]))
assert j['schema'] == 'piprov.report/1', j['schema']
hosts = {h['host']: h for h in j['hosts']}
assert hosts['good']['status'] == 'ok' and hosts['bad']['status'] == 'failed', hosts
assert hosts['bad']['checks'][0]['first_problem']['rule'] == 'kernel-uboot', hosts['bad']['checks'][0]
assert hosts['bad']['checks'][1]['boot_order']['value'] == '0x1'
figs = hosts['good']['bench'][0]['figures']
assert len(figs) == 4 and all(f['value'] > 0 for f in figs), figs
assert j['summary'] == {'hosts': 2, 'failed': 1, 'exit_code': 1}, j['summary']
PY

run "$t/named.txt" p report --name n1 --name n2 "$t/good.boot.json" "$t/good.eeprom.json"
[ "$rc" = 0 ] || fail "report of healthy hosts exited $rc, not 0"
expect_in "$(cat "$t/named.txt")" "--name" '^report: 2 host\(s\), all ok$'
run "$t/eq.txt" p report "x1=$t/good.boot.json"
expect_in "$(cat "$t/eq.txt")" "HOST=FILE" '^x1 +ok '

p boot patch "$t/bad/boot" --dry-run --json >"$t/patch.json"
run "$t/e1" p report "$t/patch.json"
[ "$rc" = 2 ] || fail "a boot patch result: exit $rc, not 2"
expect_in "$(cat "$t/e1.err")" "unknown schema" "^piprov: error: $t/patch.json: unknown schema 'piprov.boot.patch/[0-9]+' \(piprov report reads"
run "$t/e2" p report "$t/bad/boot/config.txt"
[ "$rc" = 2 ] || fail "a config.txt: exit $rc, not 2"
expect_in "$(cat "$t/e2.err")" "not JSON" "not a JSON object"
run "$t/e3" p report --name a "$t/good.boot.json" "$t/bad.boot.json"
[ "$rc" = 2 ] || fail "one --name for two files: exit $rc, not 2"
run "$t/e4" p report "$t/missing.json"
[ "$rc" != 0 ] || fail "a missing file: exit 0"
echo "$fleet_test: OK"
