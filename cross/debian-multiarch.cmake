# Shared part of the Debian cross toolchain files (cross/<triplet>.cmake).
# Expects PIPROV_CROSS_TRIPLET (e.g. aarch64-linux-gnu), PIPROV_CROSS_PROCESSOR
# (CMAKE_SYSTEM_PROCESSOR, e.g. aarch64), PIPROV_CROSS_DEB_ARCH (dpkg arch,
# e.g. arm64) and PIPROV_CROSS_QEMU (qemu-user binary, e.g. qemu-aarch64).
#
# Uses Debian's cross compilers (g++-<triplet>) and the multiarch -dev packages
# of the target architecture (dpkg --add-architecture <arch>; installed by
# scripts/install-deps.sh --cross <arch>): headers in /usr/include (arch
# independent) and /usr/include/<triplet>, libraries, pkg-config files and
# CMake package configs in /usr/lib/<triplet>. Nothing of the build machine's
# own architecture is found: CMake's multiarch search uses
# CMAKE_LIBRARY_ARCHITECTURE (<triplet>), pkg-config is pointed at the target's
# .pc files only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${PIPROV_CROSS_PROCESSOR})
set(CMAKE_LIBRARY_ARCHITECTURE ${PIPROV_CROSS_TRIPLET})

set(CMAKE_C_COMPILER ${PIPROV_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${PIPROV_CROSS_TRIPLET}-g++)

# Programs (cmake, help2man, ...) come from the build machine; libraries,
# headers and package configs from the target's multiarch directories.
# libc6-<arch>-cross lives in /usr/<triplet>; everything else in /usr.
set(CMAKE_FIND_ROOT_PATH /usr/${PIPROV_CROSS_TRIPLET} /usr /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config: only the target's .pc files (plus arch-independent ones).
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${PIPROV_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# Target binaries (gtest_discover_tests at build time, ctest, help2man for the
# man page) run through qemu-user; cross/qemu-run picks the library prefix.
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/qemu-run;${PIPROV_CROSS_QEMU})

# The .deb's Architecture: field (CPack would otherwise ask the build machine's dpkg).
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${PIPROV_CROSS_DEB_ARCH} CACHE STRING "dpkg architecture of the .deb")
