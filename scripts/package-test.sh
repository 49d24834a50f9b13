#!/usr/bin/env bash
# Installs a piprov .deb on THIS machine and checks the package's life cycle:
#   apt-get install ./piprov_*.deb   -> piprov --help, man page, bash completion,
#                                       apt hook files (conffile, 0755 script), the
#                                       systemd path unit installed and enabled
#   user edits the apt hook conffile, upgrade to a newer version (the same
#   package re-versioned with dpkg-deb) -> no prompt, the edit is kept
#   dpkg -r piprov  -> every file gone except the conffile (Debian policy)
#   dpkg -P piprov  -> the conffile gone too, nothing of piprov left
# Needs root (dpkg). Removes the package again on any exit.
# Usage: scripts/package-test.sh DEB     (from scripts/package.sh)
set -euo pipefail
deb=$(realpath "${1:?usage: package-test.sh piprov_VERSION_ARCH.deb}")
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
  # scripts/test.sh runs as root: there a skip would hide a broken package.
  [ "${PIPROV_TESTS_REQUIRE_ALL:-0}" = 1 ] && need_root "dpkg; PIPROV_TESTS_REQUIRE_ALL=1"
  echo "package-test.sh: needs root (dpkg); skipped"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o DPkg::Lock::Timeout=600 -y -qq "$@" </dev/null; }
fail() { echo "package-test.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

conf=/etc/apt/apt.conf.d/99-piprov-kernel
hook=/usr/lib/piprov/piprov-kernel-sync
unit=/lib/systemd/system/piprov-kernel-sync.path
wants=/etc/systemd/system/multi-user.target.wants/piprov-kernel-sync.path
has_hook=0
grep -qxF ".$conf" <<<"$(dpkg-deb -c "$deb" | awk '{print $NF}')" && has_hook=1

if dpkg-query -W -f='${Status}' piprov 2>/dev/null | grep installed >/dev/null; then
  echo "package-test.sh: piprov $(dpkg-query -W -f='${Version}' piprov) is installed; purging it first"
  apt_get purge piprov >/dev/null
fi
work=$(mktemp -d)
cleanup() {
  dpkg-query -W piprov >/dev/null 2>&1 && apt_get purge piprov >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

echo "== install $(basename "$deb")"
apt_get install "$deb" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt-get install $deb"; }
[ "$(dpkg-query -W -f='${Status}' piprov)" = "install ok installed" ] || fail "piprov is not installed"
ok "apt-get install ./$(basename "$deb")"

out=$(piprov --help) || fail "piprov --help exits $?"
grep -q '^Usage: piprov' <<<"$out" || fail "piprov --help: no 'Usage: piprov' line: $out"
[ "$(command -v piprov)" = /usr/bin/piprov ] || fail "piprov on PATH is $(command -v piprov), not /usr/bin/piprov"
ver=$(piprov --version)
[ "$ver" = "piprov $(dpkg-deb -f "$deb" Version)" ] || fail "piprov --version says '$ver'"
ok "/usr/bin/piprov --help, --version ($ver)"

man -w piprov | grep -x /usr/share/man/man1/piprov.1.gz >/dev/null || fail "man -w piprov: $(man -w piprov 2>&1)"
man_txt=$(MANWIDTH=100 man -P cat piprov 2>/dev/null)
grep -q 'piprov - provision Raspberry Pi' <<<"$man_txt" || fail "man piprov has no NAME line"
for c in $(piprov --help | awk '/^Subcommands:/{s=1;next} /^$/{s=0} s&&/^  /{print $1}'); do
  grep -q "piprov $c" <<<"$man_txt" || fail "man piprov has no section for '$c'"
done
ok "man piprov (every command has a section)"

# bash completion as bash-completion loads it: commands, then a command's options.
comp() {  # comp WORD... : completions for the last word
  bash -c 'source /usr/share/bash-completion/completions/piprov
           COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _piprov; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
[ "$(comp piprov dev)" = devices ] || fail "completion of 'piprov dev' is '$(comp piprov dev)'"
comp piprov devices --j | grep -x -- --json >/dev/null || fail "completion of 'piprov devices --j' is '$(comp piprov devices --j)'"
ok "bash completion (piprov dev -> devices, piprov devices --j -> --json)"

if [ $has_hook = 1 ]; then
  [ -f "$conf" ] || fail "$conf not installed"
  [ "$(stat -c '%a %U' "$hook")" = "755 root" ] || fail "$hook is $(stat -c '%a %U' "$hook")"
  dpkg-query --showformat='${Conffiles}\n' --show piprov | grep " $conf " >/dev/null || fail "$conf is not a conffile"
  # apt runs the hook after each dpkg call: on a machine that is not a Pi it
  # must only warn and exit 0 (the install above went through apt-get).
  sh "$hook" > "$work/hook.log" 2>&1 || fail "$hook exits non-zero on this machine: $(cat "$work/hook.log")"
  ok "apt hook installed ($conf conffile, $hook 0755) and harmless here"
  [ -f "$unit" ] && [ -f "${unit%.path}.service" ] || fail "the systemd units are not in /lib/systemd/system"
  [ "$(readlink "$wants")" = "$unit" ] || fail "postinst did not enable piprov-kernel-sync.path ($wants)"
  ok "piprov-kernel-sync.path installed and enabled ($wants)"

  echo "== upgrade keeps a user's edit of $conf"
  echo '// edited by the package test' >> "$conf"
  v2=$(dpkg-deb -f "$deb" Version)+pkgtest1
  dpkg-deb -R "$deb" "$work/pkg"
  sed -i "s/^Version: .*/Version: $v2/" "$work/pkg/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$work/pkg" "$work/piprov_v2.deb" >/dev/null
  apt_get install "$work/piprov_v2.deb" > "$work/upgrade.log" 2>&1 || { cat "$work/upgrade.log"; fail "upgrade to $v2"; }
  [ "$(dpkg-query -W -f='${Version}' piprov)" = "$v2" ] || fail "not upgraded to $v2"
  tail -n 1 "$conf" | grep -x '// edited by the package test' >/dev/null || fail "the upgrade lost the user's edit of $conf"
  ok "upgrade to $v2 kept the edited conffile without a prompt"

  # Disabling the hook = deleting the conffile; an upgrade must not bring it back.
  rm "$conf"
  v3=$(dpkg-deb -f "$deb" Version)+pkgtest2
  sed -i "s/^Version: .*/Version: $v3/" "$work/pkg/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$work/pkg" "$work/piprov_v3.deb" >/dev/null
  apt_get install "$work/piprov_v3.deb" > "$work/upgrade3.log" 2>&1 || { cat "$work/upgrade3.log"; fail "upgrade to $v3"; }
  [ "$(dpkg-query -W -f='${Version}' piprov)" = "$v3" ] || fail "not upgraded to $v3"
  [ ! -e "$conf" ] || fail "the upgrade to $v3 re-created the deleted $conf"
  ok "upgrade to $v3 left the deleted conffile deleted (the hook stays disabled)"
  # ... and the documented way to get it back (docs/packaging.md).
  apt_get install --reinstall -o Dpkg::Options::=--force-confmiss "$work/piprov_v3.deb" > "$work/reinstall.log" 2>&1 \
    || { cat "$work/reinstall.log"; fail "reinstall with --force-confmiss"; }
  cmp -s "$conf" "$work/pkg$conf" || fail "--force-confmiss did not restore $conf"
  ok "apt-get install --reinstall -o Dpkg::Options::=--force-confmiss restored it"
fi

echo "== dpkg -r piprov"
dpkg -r piprov > "$work/remove.log" 2>&1 || { cat "$work/remove.log"; fail "dpkg -r piprov"; }
for f in /usr/bin/piprov /usr/share/man/man1/piprov.1.gz /usr/share/bash-completion/completions/piprov \
         /usr/share/doc/piprov "$hook" /usr/lib/piprov; do
  [ ! -e "$f" ] || fail "$f is still there after dpkg -r"
done
if [ $has_hook = 1 ]; then
  [ -f "$conf" ] || fail "dpkg -r removed the conffile $conf (it must stay until purge)"
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' piprov)" = "rc " ] || fail "state after dpkg -r is not rc"
  # apt keeps working with the snippet left behind: its command (run by apt
  # after every dpkg call) exits 0 without the script.
  cmd=$(sed -n 's/^ *DPkg::Post-Invoke *{ *"\(.*\)"; *};.*$/\1/p' "$conf")
  [ -n "$cmd" ] || fail "no DPkg::Post-Invoke command in $conf"
  sh -c "$cmd" > "$work/left.log" 2>&1 || fail "the left-behind hook command '$cmd' fails: $(cat "$work/left.log")"
fi
if [ $has_hook = 1 ]; then
  [ ! -e "$unit" ] && [ ! -e "${unit%.path}.service" ] || fail "dpkg -r left the systemd units behind"
fi
ok "dpkg -r removed every file (the conffile stays until purge)"

dpkg -P piprov > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "dpkg -P piprov"; }
[ ! -e "$conf" ] || fail "$conf is still there after dpkg -P"
left=$(find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
         -name 'piprov-kernel-sync*' 2>/dev/null || true)
[ -z "$left" ] || fail "dpkg -P left traces of the path unit: $left"
dpkg-query -W piprov >/dev/null 2>&1 && fail "dpkg still knows piprov after purge"
ok "dpkg -P removed the conffile; nothing of piprov is left"
echo "package-test.sh: all checks passed"
