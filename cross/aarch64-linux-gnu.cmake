# CMake toolchain file: cross-build piprov for 64-bit Arm (Pi 4/5 with arm64
# Ubuntu or 64-bit Raspberry Pi OS) on a Debian/Ubuntu x86-64 machine.
#   scripts/install-deps.sh --cross arm64
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cross/aarch64-linux-gnu.cmake
# Or simply: scripts/cross-test.sh arm64 (build, unit tests under qemu, .deb).
set(PIPROV_CROSS_TRIPLET aarch64-linux-gnu)
set(PIPROV_CROSS_PROCESSOR aarch64)
set(PIPROV_CROSS_DEB_ARCH arm64)
set(PIPROV_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
