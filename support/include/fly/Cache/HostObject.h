//===- HostObject.h - Host code compiled once, across processes -*- C++ -*-===//
//
// The host entry of a compiled function and the emulator's kernels are LLVM
// modules that ORC runs in process. Compiling them is most of a call whose
// artifact comes from the disk cache (SPEC §12: <= 3 ms), so their native
// objects are kept in the disk cache too, beside the artifacts: a later
// process links the object instead of compiling the module again.
//
// An object is compiled for this host (the detected CPU and its features)
// and found again by the module's bitcode, what the caller makes of it, the
// optimization level and that host target -- never for another CPU. The
// cache is the environment's (FLYDSL_RUNTIME_CACHE_DIR,
// FLYDSL_RUNTIME_ENABLE_CACHE); when it is off or cannot be opened the
// object is compiled every time, and a failing store costs nothing but the
// next process's compile.
//
// Its callers are the compiler's host entry (fly/HostEntry.h) and the
// emulator's launch table (runtime/emu): this library is below both, and
// the runtime links it, not the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CACHE_HOSTOBJECT_H
#define FLY_CACHE_HOSTOBJECT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace llvm {
class Module;
} // namespace llvm

namespace fly::cache {

/// The relocatable object of `module` for this host. `module` was parsed
/// from `bitcode` and then changed only as `kind` says (the caller's
/// rewrites must be a function of the bitcode alone): the cached object is
/// found by (`kind`, `bitcode`, `optLevel`, the host target), and `module`
/// is compiled (code generation at `optLevel`, no IR pipeline) only on a
/// miss.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
hostObject(llvm::Module &module, llvm::StringRef bitcode, llvm::StringRef kind,
           llvm::CodeGenOptLevel optLevel);

} // namespace fly::cache

#endif // FLY_CACHE_HOSTOBJECT_H
