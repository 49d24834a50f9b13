#!/usr/bin/env bash
# The piprov.pi.install role on this machine (ansible_connection=local), in
# check mode so nothing is installed: a .deb of another architecture than the
# node's (an arm64 package on this amd64 machine, built with dpkg-deb) is
# refused naming both; one of the node's own architecture gets as far as apt,
# which reports it would install it; a missing piprov_install_deb is refused;
# a variable of the wrong type is refused by the role's argument spec.
# Usage: role_install.sh SOURCE_DIR
export PIPROV_SOURCE_DIR=$1 PIPROV_BIN=- PIPROV_SHARED_DIR=-
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools ansible-playbook dpkg-deb dpkg

t=$(mktemp -d /var/tmp/piprov-fleet-role.XXXXXX)
trap 'rm -rf "$t"' EXIT
with_collection "$t"
export ANSIBLE_GATHER_SUBSET=min  # os_family and distribution are all the role reads
node_arch=$(dpkg --print-architecture)
other_arch=arm64
[ "$node_arch" = arm64 ] && other_arch=amd64

# deb ARCH: a minimal package "piprov" of ARCH (Architecture in its control file), path on stdout.
deb() {
  local d=$t/pkg-$1
  mkdir -p "$d/DEBIAN" "$d/usr/share/doc/piprov"
  printf 'Package: piprov\nVersion: 0.0.0~rolltest\nArchitecture: %s\nMaintainer: piprov tests <tests@invalid>\nDescription: role test package\n' "$1" >"$d/DEBIAN/control"
  echo test >"$d/usr/share/doc/piprov/README"
  dpkg-deb --build --root-owner-group "$d" "$t/piprov_0.0.0_$1.deb" >/dev/null
  echo "$t/piprov_0.0.0_$1.deb"
}

cat >"$t/play.yml" <<'YAML'
- name: Install piprov
  hosts: localhost
  connection: local
  gather_facts: true
  roles:
    - role: piprov.pi.install
YAML

# play EXTRA_VARS_JSON: runs the role in check mode; sets $out, $rc.
play() {
  rc=0
  out=$(ansible-playbook --check -i localhost, "$t/play.yml" -e "$1" -e piprov_install_tmp="$t" 2>&1) || rc=$?
}

play "{\"piprov_install_deb\": \"$(deb "$other_arch")\"}"
[ "$rc" != 0 ] || { printf '%s\n' "$out"; fail "an $other_arch .deb on an $node_arch node was not refused"; }
expect_in "$out" "the refusal names both architectures" "piprov_0.0.0_$other_arch.deb is for $other_arch; this node is"
expect_not_in "$out" "apt never ran" 'TASK \[piprov.pi.install : Install piprov with apt'

play "{\"piprov_install_deb\": \"$(deb "$node_arch")\", \"piprov_install_architectures\": [\"$node_arch\"]}"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; fail "the role in check mode with an $node_arch .deb exited $rc"; }
expect_in "$(grep -A2 'TASK \[piprov.pi.install : Install piprov with apt' <<<"$out")" "apt would install it" \
  '^changed: \[localhost\]'
dpkg -s piprov 2>/dev/null | grep -q '0.0.0~rolltest' && fail "check mode installed the test package"

play '{}'
[ "$rc" != 0 ] || fail "no piprov_install_deb: not refused"
expect_in "$out" "names the variable" 'set piprov_install_deb'

# meta/argument_specs.yml: a variable of the wrong type is refused before the first task.
play "{\"piprov_install_deb\": \"$(deb "$node_arch")\", \"piprov_install_architectures\": {\"a\": 1}}"
[ "$rc" != 0 ] || fail "a dict as piprov_install_architectures was not refused"
expect_in "$out" "the role's argument spec refuses it" "argument 'piprov_install_architectures' is of type .*dict"
expect_not_in "$out" "before any task of the role" 'TASK \[piprov.pi.install : Check that a .deb is given'
echo "$fleet_test: OK"
