//===- Compile.h - From a module to code objects ----------------*- C++ -*-===//
//
// Runs the pipeline's stages on a module up to `binary` and returns, per
// gpu.module, its code object and the resources of its kernels. Errors are
// MLIR diagnostics on the module's context (with the op's location) plus a
// failure result; nothing aborts on bad input.
//
// The context needs the dialects of the input, the LLVM IR translations of
// builtin/llvm/rocdl/gpu and FlyDSL's ROCDL serializer: see
// registerFlyTargetInterfaces.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_TARGET_COMPILE_H
#define FLY_TARGET_COMPILE_H

#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/CodeObject.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::fly {

/// The code object of one gpu.module.
struct CodeObject {
  std::string moduleName; // the gpu.module's (now gpu.binary's) symbol
  std::string chip;       // the processor of the ELF header
  std::string elf;        // the HSACO bytes
  std::vector<::fly::target::KernelResources> kernels;
};

/// Registers what compiling needs beyond the input's own dialects: FlyDSL's
/// serializer for `#rocdl.target` (registerFlyROCDLTarget, so call this
/// before registerAllExtensions) and the LLVM IR translations of the
/// builtin, llvm, rocdl and gpu dialects.
void registerFlyTargetInterfaces(DialectRegistry &registry);

/// Runs stages `first` through `binary` of the pipeline on `module` and
/// returns its code objects (see collectCodeObjects).
FailureOr<SmallVector<CodeObject>>
compileToCodeObjects(ModuleOp module, const PipelineOptions &options,
                     Stage first = Stage::PreBinary);

/// The code objects in the `gpu.binary` ops of a module that went through
/// stage `binary`, with the resources read from each one's metadata.
FailureOr<SmallVector<CodeObject>> collectCodeObjects(ModuleOp module);

} // namespace mlir::fly

#endif // FLY_TARGET_COMPILE_H
