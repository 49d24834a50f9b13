#!/usr/bin/env bash
# The piprov.pi collection passes ansible-test sanity, offline: every test
# that needs no packages, and validate-modules, ansible-doc, runtime-metadata
# and yamllint on Debian's packages (python3-voluptuous, yamllint, jinja2,
# PyYAML, packaging) instead of the pinned PyPI ones ansible-test would pip
# install into its venvs (no network here: import, pep8 and pylint, which need
# packages this machine does not have, are skipped). Then: ansible-doc of every
# module (the shared options come from the doc fragment, once), yamllint and
# ansible-lint (production profile) on the collection (its playbook
# included), and Python's compile of every plugin.
# Usage: collection_sanity.sh SOURCE_DIR
export PIPROV_SOURCE_DIR=$1 PIPROV_BIN=- PIPROV_SHARED_DIR=-
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools ansible-test ansible-doc ansible-lint yamllint
/usr/bin/python3 -c 'import voluptuous' 2>/dev/null || skip "python3-voluptuous is not installed (scripts/install-deps.sh)"

t=$(mktemp -d /var/tmp/piprov-fleet-sanity.XXXXXX)
trap 'rm -rf "$t"' EXIT
with_collection "$t"
collection=$PIPROV_SOURCE_DIR/ansible/ansible_collections/piprov/pi

# A copy outside git: ansible-test then tests every file, and writes its output there.
mkdir -p "$t/ansible_collections/piprov"
cp -r "$collection" "$t/ansible_collections/piprov/pi"
rm -rf "$t/ansible_collections/piprov/pi/tests/output"
sanity=(ansible-test sanity --python 3.11 --python-interpreter /usr/bin/python3)
# ansible-test keeps its venvs in ~/.ansible/test/venv: a HOME of our own.
export HOME=$t/home

# system_venv TEST: ansible-test runs TEST in the venv ~/.ansible/test/venv/sanity.TEST/3.11/HASH
# (HASH: of the pip commands it would run), made once and reused when it holds
# marker.txt. Made here, with Debian's packages (--system-site-packages), it is
# used as it is and nothing is downloaded. --explain prints the path first (and
# then fails on the venv it did not make).
system_venv() {
  local venv
  venv=$(cd "$t/ansible_collections/piprov/pi" && { "${sanity[@]}" --test "$1" --explain -v 2>&1 || true; } |
    sed -n 's/^Run command: .* -m venv --without-pip \(.*\)$/\1/p' | sed -n 1p)
  [ -n "$venv" ] || fail "ansible-test did not name the venv for sanity test $1"
  rm -rf "$venv"
  /usr/bin/python3 -m venv --without-pip --system-site-packages "$venv"
  echo true >"$venv/meta.yaml.json"  # PyYAML with libyaml (Debian's has it)
  touch "$venv/marker.txt"
}
for s in validate-modules ansible-doc runtime-metadata yamllint; do system_venv "$s"; done
offline_skips=()
for s in import pep8 pylint; do offline_skips+=(--skip-test "$s"); done
(cd "$t/ansible_collections/piprov/pi" && "${sanity[@]}" "${offline_skips[@]}") || fail "ansible-test sanity failed (output above)"

# ansible-doc shows every module's options, examples and return values; the
# piprov option (and board, where a module has it) once, as the doc fragment
# says it, and no module documents them itself.
fragment_of() {
  /usr/bin/python3 - "$collection/plugins/doc_fragments/piprov.py" "$1" "$2" <<'PY'
import json, sys, yaml
ns = {}
exec(open(sys.argv[1]).read(), ns)
print(json.dumps(yaml.safe_load(getattr(ns['ModuleDocFragment'], sys.argv[2]))['options'][sys.argv[3]], sort_keys=True))
PY
}
own_options() {
  /usr/bin/python3 - "$collection/plugins/modules/$1.py" <<'PY'
import ast, sys, yaml
tree = ast.parse(open(sys.argv[1]).read())
doc = next(n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == 'DOCUMENTATION')
print(' '.join(sorted(yaml.safe_load(doc)['options'])))
PY
}
for m in piprov_boot_check piprov_boot_patch piprov_eeprom_check piprov_bench; do
  doc=$(ansible-doc -t module "piprov.pi.$m" 2>&1) || { printf '%s\n' "$doc"; fail "ansible-doc piprov.pi.$m failed"; }
  expect_in "$doc" "$m: options documented" '^OPTIONS'
  expect_in "$doc" "$m: examples" '^EXAMPLES'
  expect_in "$doc" "$m: return values" '^RETURN VALUES'
  json=$(ansible-doc --json -t module "piprov.pi.$m")
  shared=(piprov)
  [ "$m" = piprov_bench ] || shared+=(board)
  for o in "${shared[@]}"; do
    [ "$(grep -c "^- $o\$" <<<"$doc")" = 1 ] || { printf '%s\n' "$doc"; fail "$m: ansible-doc does not list option $o exactly once"; }
    var=DOCUMENTATION
    [ "$o" = piprov ] || var=BOARD
    got=$(jq -cS --arg m "piprov.pi.$m" --arg o "$o" '.[$m].doc.options[$o]' <<<"$json")
    [ "$got" = "$(fragment_of "$var" "$o" | jq -cS .)" ] || fail "$m: option $o is not the doc fragment's: $got"
    [[ " $(own_options "$m") " != *" $o "* ]] || fail "$m: documents option $o itself (the doc fragment has it)"
  done
  expect_in "$doc" "$m: the exit-code note of the fragment" '5 some targets failed and the'
done

yamllint -d '{extends: default, rules: {line-length: {max: 160}}}' "$collection" || fail "yamllint failed (output above)"
(cd "$PIPROV_SOURCE_DIR/ansible" && ansible-lint --offline -p --profile production \
  ansible_collections/piprov/pi) || fail "ansible-lint failed (output above)"
echo "$fleet_test: OK"
