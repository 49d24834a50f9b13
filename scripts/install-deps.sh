#!/usr/bin/env bash
# Installs every Debian package piprov's build, tests, demo and benchmarks need.
# Idempotent and non-interactive. Usage: scripts/install-deps.sh [--cross arm64|armhf]...
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive

cross=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cross) cross+=("${2:?--cross needs arm64 or armhf}"); shift 2 ;;
    *) echo "install-deps.sh: unknown option '$1' (use --cross arm64|armhf)" >&2; exit 2 ;;
  esac
done

# Build toolchain and libraries.
pkgs=(
  build-essential cmake pkg-config ninja-build
  liblzma-dev libarchive-dev libblkid-dev libmount-dev
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libxxhash-dev libssl-dev liburing-dev libaio-dev
  libgtest-dev libgmock-dev
  zlib1g-dev  # boot: crc32() for the gzip trailer check of vmlinuz
  libyaml-cpp-dev  # provision: cloud-init user-data / network-config (produced and validated as YAML)
  libfdisk-dev     # provision: a new MBR disk id / GPT GUIDs per written disk
  libext2fs-dev    # write: the block bitmaps of the image's ext2/3/4 file systems (skip their free space)
  libzstd-dev      # image reader: a multi-frame .zst decoded frame by frame (random access)
  # fixtures, peers and checks used by tests, demo and bench scripts
  xz-utils gzip bzip2 zstd lz4 zip unzip xxhash
  dosfstools mtools e2fsprogs fdisk util-linux
  u-boot-tools   # tests: mkimage makes real boot.scr fixtures (legacy header, length table, script)
  rsync          # clone: a live SOURCE's mounted file systems copied file by file
  fio bmap-tools time file cpio dpkg-dev jq
  device-tree-compiler  # make-test-image.sh: the Pi 5 device-tree stand-in of the Raspberry Pi OS image
  dash bsdutils  # tests: the apt hook under dash; script(1) gives the bench Ctrl-C test a tty
  strace         # tests: how often a write opens IMAGE
  systemd        # tests: systemd-analyze verify of the kernel-sync path unit
  cloud-init     # tests: cloud-init schema --config-file of the seeds provision writes
  ansible-core ansible-lint python3-pytest  # ansible/: the piprov.pi collection, its sanity and unit tests
  # scripts/boot-test.sh: boots provisioned disks (an arm64 Debian userland
  # built with mmdebstrap, its package scripts run by qemu-user-static)
  qemu-system-arm qemu-user-static mmdebstrap arch-test openssh-client
  python3-voluptuous  # ansible-test's validate-modules and runtime-metadata, run offline on Debian's packages (fleet.collection_sanity)
  ccache         # faster rebuilds (used when present)
  lld            # the linker CMakeLists.txt picks when the compiler takes it (PIPROV_LINKER)
  clang libclang-rt-14-dev llvm shellcheck
  # quality gates and packaging (scripts/lint.sh, scripts/package.sh)
  clang-tidy clang-format help2man lintian fakeroot bash-completion
)

# apt-get update, tolerant of a mirror mid-sync (one list failing to fetch must
# not stop CI when the packages needed are already known): retry once, then
# go on with the lists apt has; a package that is really missing fails below.
apt_update() {
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || { sleep 10; $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq; } ||
    echo "install-deps.sh: warning: apt-get update failed; using the package lists apt has" >&2
}

# make-test-image.sh downloads Debian's arm64 kernel and u-boot-rpi packages
# (apt-get download), which needs the arm64 package lists.
if ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
  $SUDO dpkg --add-architecture arm64
  apt_update
fi

# make-test-image.sh takes real start4.elf/fixup4.dat from Debian's
# raspi-firmware package, which is in the non-free-firmware component.
nff=/etc/apt/sources.list.d/piprov-non-free-firmware.sources
if ! grep -rqs 'non-free-firmware' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  # The same mirror as the machine's own Debian sources.
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '$1=="deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$uri" ] || { echo "install-deps.sh: no Debian mirror found in /etc/apt/sources.list*" >&2; exit 3; }
  . /etc/os-release
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: non-free-firmware\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" "$VERSION_CODENAME" "$VERSION_CODENAME" | $SUDO tee "$nff" >/dev/null
  apt_update
fi

# install_missing [--arch ARCH] PKG...: installs the PKGs dpkg does not have
# yet (with ARCH added as a foreign architecture first); nothing when all are there.
install_missing() {
  local arch=""
  if [ "$1" = --arch ]; then arch=$2; shift 2; fi
  local p missing=()
  for p; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ -n "$arch" ]; then
    dpkg --print-foreign-architectures | grep -x "$arch" >/dev/null || $SUDO dpkg --add-architecture "$arch"
  fi
  apt_update
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing "${pkgs[@]}"

# valijson (provision: user-data against cloud-init's JSON schema) is header
# only, but Debian's libvalijson-dev depends on every JSON library it has an
# adapter for (Qt5, POCO, ...: 92 packages). Take its headers from the .deb
# instead (Architecture: all, so native and cross builds share them).
if [ ! -f /usr/local/include/valijson/validator.hpp ]; then
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt's _apt user downloads into it
  (cd "$tmp" && apt-get download -q libvalijson-dev >/dev/null) ||
    { echo "install-deps.sh: apt-get download libvalijson-dev failed" >&2; exit 3; }
  dpkg-deb -x "$tmp"/libvalijson-dev_*.deb "$tmp/x"
  $SUDO mkdir -p /usr/local/include
  $SUDO cp -a "$tmp/x/usr/include/valijson" /usr/local/include/
  rm -rf "$tmp"
fi

for arch in "${cross[@]}"; do
  case "$arch" in
    arm64) triplet=aarch64-linux-gnu ;;
    armhf) triplet=arm-linux-gnueabihf ;;
    *) echo "install-deps.sh: unknown cross arch '$arch' (arm64|armhf)" >&2; exit 2 ;;
  esac
  xpkgs=(g++-"$triplet" qemu-user)
  # The target's copy of every -dev package above that is
  # Multi-Arch: same (arch-independent ones such as CLI11 and nlohmann-json
  # serve both), so a library added to pkgs is cross-installed too.
  for l in "${pkgs[@]}"; do
    case "$l" in *-dev) ;; *) continue ;; esac
    case "$l" in libclang-rt-*) continue ;; esac   # fuzz/sanitizer runtime of the native clang
    case "$l" in libext2fs-dev) continue ;; esac   # needs comerr-dev, not Multi-Arch: same (below)
    [ "$(dpkg-query -W -f='${Multi-Arch}' "$l:$(dpkg --print-architecture)" 2>/dev/null)" = same ] || continue
    xpkgs+=("$l:$arch")
  done
  install_missing --arch "$arch" "${xpkgs[@]}"
  # libyaml-cpp-dev is not Multi-Arch: same, so its target copy cannot be
  # installed beside the native one: install the target's runtime library and
  # take the target's .so link, pkg-config and CMake files from its .deb (the
  # headers in /usr/include are the native package's, the same for every arch).
  install_missing --arch "$arch" "libyaml-cpp0.7:$arch"
  if [ ! -f "/usr/lib/$triplet/pkgconfig/yaml-cpp.pc" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download -q "libyaml-cpp-dev:$arch" >/dev/null) ||
      { echo "install-deps.sh: apt-get download libyaml-cpp-dev:$arch failed" >&2; exit 3; }
    dpkg-deb -x "$tmp"/libyaml-cpp-dev_*.deb "$tmp/x"
    $SUDO cp -a "$tmp/x/usr/lib/$triplet/." "/usr/lib/$triplet/"
    rm -rf "$tmp"
  fi
  # libext2fs-dev depends on comerr-dev, which is not Multi-Arch: same: as
  # for yaml-cpp, the target's runtime libraries, and the .so links and
  # pkg-config files of both -dev packages from their .debs (the headers are
  # the native packages', the same for every arch).
  install_missing --arch "$arch" "libext2fs2:$arch" "libcom-err2:$arch"
  if [ ! -f "/usr/lib/$triplet/pkgconfig/ext2fs.pc" ] || [ ! -f "/usr/lib/$triplet/pkgconfig/com_err.pc" ]; then
    tmp=$(mktemp -d)
    chmod 755 "$tmp"
    (cd "$tmp" && apt-get download -q "libext2fs-dev:$arch" "comerr-dev:$arch" >/dev/null) ||
      { echo "install-deps.sh: apt-get download libext2fs-dev:$arch comerr-dev:$arch failed" >&2; exit 3; }
    for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/x"; done
    $SUDO cp -a "$tmp/x/usr/lib/$triplet/." "/usr/lib/$triplet/"
    rm -rf "$tmp"
  fi
done
