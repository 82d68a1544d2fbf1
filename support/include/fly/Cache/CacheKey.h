//===- CacheKey.h - Key material of the disk cache -------------*- C++ -*-===//
//
// A cache key is the BLAKE3 hash (256 bits) of a sequence of named fields
// (BLAKE3: a tenth of SHA-256's time on the large fields, the host
// modules' bitcode). What a compile
// depends on must be in it, or a stale entry is reused; SPEC §6 lists it:
//
//   - the kernel source and everything it captures: the source of every
//     called kernel and helper, closure values, globals read;
//   - the argument type signature: per argument the dtype, rank, static and
//     dynamic leaves, divisibility, alignment, and the Constexpr values;
//   - the target arch (e.g. "gfx942");
//   - the compile options and hints (opt level, debug info, ...).
//
// Callers (the Python front end, through the bindings) add those fields;
// the toolchain part (toolchainIdentity() below) is added by DiskCache
// itself, so no caller can forget it.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CACHE_CACHEKEY_H
#define FLY_CACHE_CACHEKEY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"

#include <string>

namespace fly::cache {

/// A builder of key material. Every field is hashed as its name and its
/// value, each preceded by its length, so ("ab", "c") and ("a", "bc") are
/// different keys and so are ("f", "x") and ("g", "x"). The order of the
/// fields is part of the key: add them in a fixed order.
class CacheKey {
public:
  CacheKey &add(llvm::StringRef field, llvm::StringRef value);

  /// The BLAKE3 hash (256 bits) of the fields added so far, as 64
  /// lowercase hex digits.
  /// The key stays usable: more fields may be added afterwards.
  std::string digest() const;

private:
  void addSized(llvm::StringRef bytes);

  llvm::BLAKE3 hasher;
};

/// The cache's hash (BLAKE3, 256 bits) of `bytes`, as 64 lowercase hex
/// digits: for key material that is itself a digest of something large.
std::string digestOf(llvm::StringRef bytes);

/// What identifies the compiler that produced an entry: the LLVM version
/// (LLVM_VERSION_STRING) and a build identity of the Fly compiler, e.g.
/// "llvm 22.1.8; fly 3fa1...". Entries of another toolchain are never used.
///
/// The build identity is a SHA-256 computed at build time over the contents
/// of every file under compiler/include, compiler/lib and support/ (the
/// sources of libFlyCompiler and of this library, ODS files and CMake files
/// included), the cmake/ helpers, the top-level CMakeLists.txt, the C++
/// compiler's id and version, the build type and the C++ flags
/// (support/lib/Cache/CMakeLists.txt, cmake/FlyBuildIdentity.cmake). It
/// is a constant of this library, so the runtime, which writes host objects
/// into the cache, has it without linking the compiler. It changes
/// whenever the compiler is rebuilt from different sources or flags, even
/// uncommitted ones (a git commit would miss those), and it does not change
/// when the same sources are merely rebuilt (a timestamp would, for nothing).
///
/// Limits: it does not cover the LLVM/MLIR libraries beyond their version
/// string (a distribution rebuild of the same LLVM version with a codegen
/// fix is not noticed), system headers, or the Python front end: a change to
/// the tracer that emits different IR for the same kernel source must reach
/// the key as a field of its own (e.g. the flydsl package's version).
llvm::StringRef toolchainIdentity();

} // namespace fly::cache

#endif // FLY_CACHE_CACHEKEY_H
