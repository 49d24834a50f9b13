# Install rules and the Debian package (CPack DEB) for piprov.
#   cmake --build build && (cd build && cpack -G DEB)   -> build/piprov_<version>_<arch>.deb
# scripts/package.sh does that and checks the result (lintian, contents).
#
# Package contents (docs/packaging.md):
#   /usr/bin/piprov
#   /usr/share/man/man1/piprov.1.gz                 help2man from `piprov --help` + each command's --help
#   /usr/share/bash-completion/completions/piprov  completes commands/options from `piprov ... --help`
#   /usr/share/doc/piprov/{copyright,changelog.gz}
#   /etc/apt/apt.conf.d/99-piprov-kernel            apt hook (a conffile), when apt-hooks/ exists
#   /usr/lib/piprov/piprov-kernel-sync              the hook's script (0755), when apt-hooks/ exists
#   /lib/systemd/system/piprov-kernel-sync.{path,service}  runs that script when vmlinuz changes
#     without apt; postinst enables the .path unit, prerm stops it, postrm masks
#     (remove) or forgets (purge) it (packaging/postinst, prerm, postrm)
# The apt hook paths are absolute: apt only reads /etc/apt/apt.conf.d and the
# snippet names /usr/lib/piprov/piprov-kernel-sync, whatever the install prefix.
include(GNUInstallDirs)

set(PIPROV_PKG_DIR ${CMAKE_CURRENT_LIST_DIR})
set(PIPROV_GEN_DIR ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${PIPROV_GEN_DIR})

install(TARGETS piprov RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# --- apt hook (apt-hooks/ comes with the boot module) -----------------------
set(PIPROV_APT_SNIPPET ${PROJECT_SOURCE_DIR}/apt-hooks/99-piprov-kernel)
set(PIPROV_APT_SCRIPT ${PROJECT_SOURCE_DIR}/apt-hooks/piprov-kernel-sync)
set(PIPROV_CONFFILES "")
if(EXISTS ${PIPROV_APT_SNIPPET})
  install(FILES ${PIPROV_APT_SNIPPET} DESTINATION /etc/apt/apt.conf.d
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  string(APPEND PIPROV_CONFFILES "/etc/apt/apt.conf.d/99-piprov-kernel\n")
endif()
if(EXISTS ${PIPROV_APT_SCRIPT})
  install(PROGRAMS ${PIPROV_APT_SCRIPT} DESTINATION /usr/lib/piprov)
endif()
set(PIPROV_SYSTEMD_UNITS ${PROJECT_SOURCE_DIR}/apt-hooks/piprov-kernel-sync.path
                         ${PROJECT_SOURCE_DIR}/apt-hooks/piprov-kernel-sync.service)
set(PIPROV_MAINT_SCRIPTS "")
if(EXISTS ${PROJECT_SOURCE_DIR}/apt-hooks/piprov-kernel-sync.path)
  # Debian 12 (bookworm) packages install units into /lib/systemd/system.
  install(FILES ${PIPROV_SYSTEMD_UNITS} DESTINATION /lib/systemd/system
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  set(PIPROV_MAINT_SCRIPTS ${PIPROV_PKG_DIR}/postinst ${PIPROV_PKG_DIR}/prerm ${PIPROV_PKG_DIR}/postrm)
endif()

# --- man page: help2man from --help (cross builds run piprov under qemu) ----
find_program(HELP2MAN help2man)
find_program(GZIP_EXE gzip)
if(HELP2MAN AND GZIP_EXE)
  add_custom_command(
    OUTPUT ${PIPROV_GEN_DIR}/piprov.1.gz
    COMMAND ${PIPROV_PKG_DIR}/make-man.sh ${HELP2MAN} ${PIPROV_RUN_BIN} ${PIPROV_GEN_DIR}/piprov.1
    COMMAND ${GZIP_EXE} -9nf ${PIPROV_GEN_DIR}/piprov.1
    DEPENDS piprov ${PIPROV_PKG_DIR}/make-man.sh
    COMMENT "Generating the piprov(1) man page with help2man"
    VERBATIM)
  # Not by default in the instrumented fuzz/sanitizer build, which is never
  # packaged (help2man runs the ASan piprov once per command).
  if(PIPROV_FUZZ)
    set(_man_all "")
  else()
    set(_man_all ALL)
  endif()
  add_custom_target(piprov_man ${_man_all} DEPENDS ${PIPROV_GEN_DIR}/piprov.1.gz)
  install(FILES ${PIPROV_GEN_DIR}/piprov.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man or gzip not found: no man page (scripts/install-deps.sh installs help2man)")
endif()

# --- bash completion, docs ---------------------------------------------------
install(FILES ${PIPROV_PKG_DIR}/piprov.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME piprov)
# Debian policy 12.7: a native package's changelog is /usr/share/doc/<pkg>/changelog.gz.
configure_file(${PIPROV_PKG_DIR}/changelog.in ${PIPROV_GEN_DIR}/changelog @ONLY)
add_custom_command(
  OUTPUT ${PIPROV_GEN_DIR}/changelog.gz
  COMMAND gzip -9nc ${PIPROV_GEN_DIR}/changelog > ${PIPROV_GEN_DIR}/changelog.gz
  DEPENDS ${PIPROV_GEN_DIR}/changelog
  VERBATIM)
add_custom_target(piprov_changelog ALL DEPENDS ${PIPROV_GEN_DIR}/changelog.gz)
install(FILES ${PIPROV_PKG_DIR}/copyright ${PIPROV_GEN_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/piprov)

# --- CPack: Debian package ---------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME piprov)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "piprov maintainers <piprov@users.noreply.github.com>" CACHE STRING "Maintainer: of the .deb")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "provision Raspberry Pi 4/5 boards onto USB SSDs")
# Extended description: CPack puts the summary first and indents these lines.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "piprov writes OS images (.img/.xz/.gz/.zst/.bz2/.zip) to disks with verify,
patches an Ubuntu boot partition so a Pi 4 boots it from USB, keeps the
uncompressed kernel in step after kernel updates (apt hook), checks
bootloader EEPROM configs (BOOT_ORDER) and benchmarks SSD vs microSD.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)           # piprov_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)            # Depends: from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "rpi-eeprom, rsync")  # eeprom check --live reads the running config; clone of a live disk copies with rsync
# Cross builds set CPACK_DEBIAN_PACKAGE_ARCHITECTURE in the toolchain file
# (cross/debian-multiarch.cmake); natively CPack asks dpkg --print-architecture.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PIPROV_MAINT_SCRIPTS})
if(PIPROV_CONFFILES)
  file(WRITE ${PIPROV_GEN_DIR}/conffiles "${PIPROV_CONFFILES}")
  list(APPEND CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PIPROV_GEN_DIR}/conffiles)
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
