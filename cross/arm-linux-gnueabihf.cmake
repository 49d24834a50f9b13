# CMake toolchain file: cross-build piprov for 32-bit Raspberry Pi OS (armhf,
# ARMv7 hard-float as Debian defines it) on a Debian/Ubuntu x86-64 machine.
#   scripts/install-deps.sh --cross armhf
#   cmake -S . -B build-armhf -G Ninja -DCMAKE_TOOLCHAIN_FILE=cross/arm-linux-gnueabihf.cmake
# Or simply: scripts/cross-test.sh armhf.
# Note: Raspberry Pi OS's own armhf is ARMv6 (Pi 1/Zero) compatible; Debian's
# armhf binaries need ARMv7, which every Pi 2 and later (all Pi 4/5) has.
set(PIPROV_CROSS_TRIPLET arm-linux-gnueabihf)
set(PIPROV_CROSS_PROCESSOR armv7l)
set(PIPROV_CROSS_DEB_ARCH armhf)
set(PIPROV_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
