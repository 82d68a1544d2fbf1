//===- HostEntry.h - A @flyc.jit body as native host code -------*- C++ -*-===//
//
// The host part of a compiled module (fly::Artifact::hostModule: LLVM
// bitcode with the code objects embedded) compiled for this host -- once:
// the native object is kept in the disk cache (fly/Cache/HostObject.h) --
// and linked in process with LLVM ORC, so that one native call runs the
// traced body: it computes the launch parameters from the arguments and
// launches through the runtime's table (fly/runtime/Launch.h). Needs LLVM
// only, no MLIR: a disk-cache hit builds it from the cached bitcode, or
// links the object a process compiled from that bitcode before.
//
// The ABI of a call. For every host function `F` with `fly.abi`, the
// compiler emits `void __fly_entry_F(const void *block)` (hostEntrySymbol)
// which loads F's arguments from one packed argument block and calls F. The
// block is laid out as an LLVM struct of F's argument types under the host's
// data layout (the C struct of them on x86-64 and AArch64) -- the offsets
// and sizes are in fly::HostFunctionInfo:
//   ptr:I     the data pointer of argument I: 8 bytes, aligned to 8;
//   leaves:I  the dynamic leaves of argument I, depth-first, as a struct of
//             i32/i64 in natural layout (i32: 4 bytes aligned to 4, i64: 8
//             aligned to 8), the struct aligned to its widest leaf;
//   value:I   a scalar: i1 (one byte 0/1), i8, i16, i32, i64 (also `index`),
//             f16/bf16 (the 16 bits), f32, f64 in its natural size and
//             alignment.
// The block is read with unaligned loads: any buffer of `blockSize` bytes
// will do.
//
// Launch errors (no runtime installed, a failing runtime entry) are
// recorded per thread by the mgpu* shims and returned by `call`; after the
// first error of a call, the shims do nothing else for that call.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_HOSTENTRY_H
#define FLY_HOSTENTRY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace fly {

/// The C-callable entry the compiler emits for host function `function`.
std::string hostEntrySymbol(llvm::StringRef function);

/// The i64 constant the compiler emits next to the entry of `function`:
/// the size of its argument block.
std::string hostBlockSizeSymbol(llvm::StringRef function);

/// Gives `module` this process's target triple and data layout: those
/// HostEntry's JIT compiles for (a module of another layout is refused
/// there), so argument-block offsets computed on `module` hold.
llvm::Error setHostTarget(llvm::Module &module);

class HostEntry {
public:
  /// Compiles `bitcode` for this host (or finds its object in the disk
  /// cache), links it and resolves the entry of host function `function`
  /// (not the entry symbol: its name as traced). Runs the module's
  /// constructors (which register the embedded code objects; nothing is
  /// loaded into a runtime before the first launch); the destructor runs
  /// its destructors.
  static llvm::Expected<std::unique_ptr<HostEntry>>
  create(llvm::StringRef bitcode, llvm::StringRef function);

  /// Runs the module's destructors (unloading its code objects from the
  /// runtime that loaded them, if it is still installed).
  ~HostEntry();

  /// Calls the host function on the packed argument block. Thread-safe.
  llvm::Error call(const void *argumentBlock);

  /// The size of the argument block `call` reads.
  uint64_t blockSize() const;

  struct Impl;

private:
  explicit HostEntry(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace fly

#endif // FLY_HOSTENTRY_H
