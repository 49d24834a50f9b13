#!/usr/bin/env bash
# Builds the Debian package piprov_<version>_<arch>.deb with CPack from a
# configured build dir and checks it: lintian has no errors, the control file
# has Package/Version/Architecture/Depends, the contents are where Debian
# wants them, the binary is an ELF of the package's architecture.
# Usage: scripts/package.sh [BUILD_DIR]   (default build/; a cross build dir
#        from scripts/cross-test.sh gives the arm64/armhf package)
# Prints the path of the .deb as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/CPackConfig.cmake" ] || { echo "package.sh: $build is not a configured build dir (run cmake first)" >&2; exit 2; }

cmake --build "$build" -j "$(nproc)" >/dev/null
if ! (cd "$build" && cpack -G DEB) > "$build/cpack.log" 2>&1; then
  cat "$build/cpack.log"; echo "package.sh: cpack failed (log above)" >&2; exit 1
fi
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
deb=$(ls -t "$build"/piprov_"$version"_*.deb | sed -n 1p)
[ -f "$deb" ] || { echo "package.sh: cpack produced no piprov_${version}_*.deb in $build" >&2; exit 1; }
arch=$(dpkg-deb -f "$deb" Architecture)
echo "== package: $deb"
dpkg-deb -f "$deb" Package Version Architecture Depends Suggests
fail() { echo "package.sh: $*" >&2; exit 1; }

[ "$(basename "$deb")" = "piprov_${version}_${arch}.deb" ] || fail "file name $(basename "$deb") is not piprov_${version}_${arch}.deb"
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libblkid1 libmount1; do
  grep -q "\b$lib\b" <<<"$deps" || fail "Depends: lacks $lib ($deps)"
done

contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/piprov ./usr/share/man/man1/piprov.1.gz ./usr/share/bash-completion/completions/piprov \
         ./usr/share/doc/piprov/copyright ./usr/share/doc/piprov/changelog.gz; do
  grep -qxF "$f" <<<"$contents" || fail "$f is missing from the package"
done
if [ -f apt-hooks/99-piprov-kernel ]; then
  grep -qxF ./etc/apt/apt.conf.d/99-piprov-kernel <<<"$contents" || fail "the apt hook snippet is missing"
  grep -qxF ./usr/lib/piprov/piprov-kernel-sync <<<"$contents" || fail "the apt hook script is missing"
  grep -qxF /etc/apt/apt.conf.d/99-piprov-kernel <<<"$(dpkg-deb --info "$deb" conffiles)" \
    || fail "/etc/apt/apt.conf.d/99-piprov-kernel is not a conffile"
  grep -q '^-rwxr-xr-x root/root .* ./usr/lib/piprov/piprov-kernel-sync$' <<<"$(dpkg-deb -c "$deb")" \
    || fail "/usr/lib/piprov/piprov-kernel-sync is not root-owned 0755"
fi
if [ -f apt-hooks/piprov-kernel-sync.path ]; then
  for u in piprov-kernel-sync.path piprov-kernel-sync.service; do
    grep -qxF "./lib/systemd/system/$u" <<<"$contents" || fail "the systemd unit $u is missing"
  done
  for m in postinst prerm postrm; do
    dpkg-deb --info "$deb" "$m" >/dev/null 2>&1 || fail "the $m maintainer script is missing"
  done
fi

# The binary's ELF machine matches the package's Architecture.
x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
desc=$(file -b "$x/usr/bin/piprov")
case "$arch" in
  amd64) want="x86-64" ;; arm64) want="ARM aarch64" ;; armhf) want="ARM, EABI5" ;; *) want="" ;;
esac
grep -q "ELF .*${want}" <<<"$desc" || fail "usr/bin/piprov is '$desc', not a $arch ELF"
grep -q "stripped" <<<"$desc" && ! grep -q "not stripped" <<<"$desc" || fail "usr/bin/piprov is not stripped"
echo "usr/bin/piprov: $desc"

if command -v lintian >/dev/null; then
  out=$(lintian --fail-on error --suppress-tags binary-has-unneeded-section "$deb" 2>&1 | grep -v 'running with root privileges' || true)
  [ -n "$out" ] && echo "$out"
  grep -q '^E:' <<<"$out" && fail "lintian reports errors (above)"
  echo "lintian: no errors"
else
  fail "lintian is not installed (scripts/install-deps.sh)"
fi
echo "$deb"
