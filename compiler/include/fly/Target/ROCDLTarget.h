//===- ROCDLTarget.h - Code objects without ROCm ----------------*- C++ -*-===//
//
// `gpu-module-to-binary` asks the target attribute of each gpu.module
// (`#rocdl.target<...>`) to serialize it. Upstream's ROCDL serializer then
// writes the ISA as text, assembles it and runs `$ROCM_PATH/llvm/bin/ld.lld`
// as a child process. FlyDSL's serializer, attached to `#rocdl.target` by
// `registerFlyROCDLTarget`, instead emits the relocatable object straight
// from LLVM's code generator and links it into a code object with the lld
// library, in this process: no ROCm, no ROCM_PATH, no child process.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_TARGET_ROCDLTARGET_H
#define FLY_TARGET_ROCDLTARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include "mlir/Support/LLVM.h"

#include <thread>

namespace mlir {
class DialectRegistry;
class Operation;
} // namespace mlir

namespace mlir::fly {

/// Attaches FlyDSL's serializer to `#rocdl.target` as its
/// `gpu::TargetAttrInterface`. MLIR keeps the first model attached to an
/// attribute, so call this BEFORE `mlir::registerAllExtensions(registry)`
/// (which attaches upstream's); a registry with only this one is fine too.
void registerFlyROCDLTarget(DialectRegistry &registry);

/// The serializer compiles on target machines it keeps for the process, one
/// per chip and features (several when compiles run at once). The first
/// compile for a chip builds its target machine and the tables LLVM fills
/// on first use, and every compile builds LLVM's code-generation pipeline;
/// constructing a TargetMachineWarmUp starts that work for a compile at
/// `optLevel` on a thread of its own, so that it overlaps with what comes
/// before code generation (parsing, the MLIR stages) instead of following
/// it. The serializer waits for it rather than building a second one;
/// destruction joins the thread. Nothing starts when the pool already has a
/// machine with that pipeline.
class TargetMachineWarmUp {
public:
  TargetMachineWarmUp(llvm::StringRef chip, llvm::StringRef features,
                      unsigned optLevel);
  ~TargetMachineWarmUp();
  TargetMachineWarmUp(const TargetMachineWarmUp &) = delete;
  TargetMachineWarmUp &operator=(const TargetMachineWarmUp &) = delete;

private:
  std::thread thread;
};

/// Whether every type in `root` (operand, result and block argument types,
/// type attributes such as an alloca's or a GEP's element type) has an
/// LLVM IR equivalent; else an error at the first op that has one without
/// (an 8-bit float left in a load, say), instead of the crash the
/// translation to LLVM IR would be.
LogicalResult checkTranslatableTypes(Operation *root);

/// Links a relocatable AMDGPU object into a code object (an ELF shared
/// object, `ld.lld -shared --no-undefined`) with the in-process lld.
/// Serialized by a lock: lld keeps global state.
llvm::Expected<llvm::SmallVector<char, 0>>
linkCodeObject(llvm::ArrayRef<char> relocatableObject);

} // namespace mlir::fly

#endif // FLY_TARGET_ROCDLTARGET_H
