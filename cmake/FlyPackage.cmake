# The installed package of libFlyCompiler (SPEC §10):
#
#   <prefix>/include/fly/...                  the compiler's public headers,
#                                             their ODS (.td) and the headers
#                                             tablegen generated (.h.inc)
#   <prefix>/include/fly/Cache/...            the disk cache (support/, whose
#                                             FlyCache is in libFlyCompiler)
#   <prefix>/include/fly/runtime/Launch.h     the launch table HostEntry uses
#   <prefix>/lib/libFlyCompiler.so            (compiler/lib/Compiler)
#   <prefix>/lib/cmake/FlyCompiler/           FlyCompilerConfig.cmake, its
#                                             version file and the exported
#                                             target, Fly::Compiler
#
# `cmake --install build --prefix <prefix>` writes it; a consumer then says
# find_package(FlyCompiler REQUIRED) with <prefix> on CMAKE_PREFIX_PATH and
# links Fly::Compiler (examples/cpp). The in-tree tools and the Python
# extension do not use any of this: they link the static libraries.
include(CMakePackageConfigHelpers)

set(FLY_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/FlyCompiler)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/compiler/include/fly
                  ${PROJECT_SOURCE_DIR}/support/include/fly
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
# Only the declarations (.h.inc) are included by public headers; the
# definitions (.cpp.inc) are compiled into the library.
install(DIRECTORY ${PROJECT_BINARY_DIR}/compiler/include/fly
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h.inc"
        PATTERN "CMakeFiles" EXCLUDE)
# Of the runtime, only the launch table is in libFlyCompiler (a caller
# installs its table there before calling a fly::HostEntry); the HIP loader
# and the emulator are separate libraries, not installed.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/fly/runtime/Launch.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fly/runtime)

install(EXPORT FlyCompilerTargets NAMESPACE Fly::
        DESTINATION ${FLY_PACKAGE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FlyCompilerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/FlyCompilerConfig.cmake
  INSTALL_DESTINATION ${FLY_PACKAGE_DIR})
# The library is built against one LLVM and has no stable ABI yet: a
# consumer must ask for the same major.minor.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/FlyCompilerConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/FlyCompilerConfig.cmake
              ${PROJECT_BINARY_DIR}/FlyCompilerConfigVersion.cmake
        DESTINATION ${FLY_PACKAGE_DIR})
