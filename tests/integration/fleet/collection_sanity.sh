#!/usr/bin/env bash
# The piprov.pi collection passes the ansible-test sanity tests that run
# offline (those needing a venv with packages from PyPI cannot: ansible-doc,
# import, pep8, pylint, runtime-metadata, validate-modules, yamllint), plus in
# their place: ansible-doc of every module (DOCUMENTATION/EXAMPLES/RETURN
# parse), yamllint and ansible-lint (production profile) on the collection
# and the playbook, and Python's compile of every plugin.
# Usage: collection_sanity.sh SOURCE_DIR
export PIPROV_SOURCE_DIR=$1 PIPROV_BIN=- PIPROV_SHARED_DIR=-
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools ansible-test ansible-doc ansible-lint yamllint

t=$(mktemp -d /var/tmp/piprov-fleet-sanity.XXXXXX)
trap 'rm -rf "$t"' EXIT
with_collection "$t"
collection=$PIPROV_SOURCE_DIR/ansible/ansible_collections/piprov/pi

# A copy outside git: ansible-test then tests every file, and writes its output there.
mkdir -p "$t/ansible_collections/piprov"
cp -r "$collection" "$t/ansible_collections/piprov/pi"
rm -rf "$t/ansible_collections/piprov/pi/tests/output"
offline_skips=()
for s in ansible-doc import pep8 pylint runtime-metadata validate-modules yamllint; do offline_skips+=(--skip-test "$s"); done
(cd "$t/ansible_collections/piprov/pi" && ansible-test sanity --python 3.11 --python-interpreter /usr/bin/python3 \
  "${offline_skips[@]}") || fail "ansible-test sanity failed (output above)"

for m in piprov_boot_check piprov_boot_patch piprov_eeprom_check piprov_bench; do
  doc=$(ansible-doc -t module "piprov.pi.$m" 2>&1) || { printf '%s\n' "$doc"; fail "ansible-doc piprov.pi.$m failed"; }
  expect_in "$doc" "$m: options documented" '^OPTIONS'
  expect_in "$doc" "$m: examples" '^EXAMPLES'
  expect_in "$doc" "$m: return values" '^RETURN VALUES'
  expect_in "$doc" "$m: the piprov option" '^- piprov$'
done

yamllint -d '{extends: default, rules: {line-length: {max: 160}}}' "$collection" \
  "$PIPROV_SOURCE_DIR/ansible/playbooks" || fail "yamllint failed (output above)"
(cd "$PIPROV_SOURCE_DIR/ansible" && ansible-lint --offline -p --profile production \
  ansible_collections/piprov/pi playbooks/fleet-report.yml) || fail "ansible-lint failed (output above)"
echo "$fleet_test: OK"
