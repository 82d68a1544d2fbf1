//===- Toolchain.cpp - The identity of the compiler that wrote an entry ---===//
//
// FLY_BUILD_IDENTITY comes from FlyBuildIdentity.inc, which the build
// regenerates whenever a source of the compiler or of this library changes
// (support/lib/Cache/CMakeLists.txt, cmake/FlyBuildIdentity.cmake); only
// this file includes it, so a new identity recompiles this file alone.
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/CacheKey.h"

#include "FlyBuildIdentity.inc"

#include "llvm/Config/llvm-config.h"

llvm::StringRef fly::cache::toolchainIdentity() {
  return "llvm " LLVM_VERSION_STRING "; fly " FLY_BUILD_IDENTITY;
}
