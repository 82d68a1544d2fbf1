//===- Compiler.h - The FlyDSL compiler as a library ------------*- C++ -*-===//
//
// The facade the Python extension (and other C++ programs) compile through:
// one long-lived MLIR context with every dialect, pass and target interface
// FlyDSL needs, the type inference of the Fly ops on types alone (what a
// tracer asks while it builds a module), and `compile`, which takes a whole
// module as MLIR text through stages A, B and C and returns the code objects
// with what a launcher needs of each kernel.
//
// Errors are llvm::Errors whose message lists every diagnostic as
// `file:line:col: error: message` (notes likewise), so the caller can map
// them back to its source; nothing aborts on bad input.
//
// As an installed library (SPEC §10): `cmake --install build --prefix P`
// puts libFlyCompiler.so, these headers and a CMake package under P;
// `find_package(FlyCompiler)` then gives the target Fly::Compiler (the
// headers, MLIR's and LLVM's, and the shared libMLIR/libLLVM it was built
// against). examples/cpp is a consumer. What a caller finds there:
//   - this header: compile a module (text, or a ModuleOp the caller built
//     or parsed in its own context) to code objects, kernel resources and,
//     on request, each code object's ISA and device LLVM IR; register the
//     Fly dialects and passes into the caller's registry;
//   - fly/Pipeline/Pipeline.h: the pipeline's stages, to run them on the
//     caller's own PassManager (buildStage, buildStages);
//   - fly/Cache/DiskCache.h, fly/Cache/CacheKey.h: the content-addressed
//     disk cache the Python package uses, for the caller's own entries;
//   - fly/Target/CodeObject.h: the resources and ISA of a code object
//     alone (e.g. one read back from the cache), without compiling;
//   - fly/HostEntry.h and fly/runtime/Launch.h: a compiled host module run
//     natively, launching through a runtime's table the caller installs;
//   - the Fly dialect and its passes (fly/Dialect/..., fly/Conversion/...);
//   - MLIR text services (verify one operation or a module, print, run a
//     textual pass pipeline): what flydsl._mlir, the Python builders that
//     write MLIR text, asks of the compiler's context.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_COMPILER_H
#define FLY_COMPILER_H

#include "fly/HostAbi.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/CodeObject.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
class Attribute;
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace fly {

/// Options of one compile.
struct CompileOptions {
  mlir::fly::PipelineOptions pipeline;
  /// Non-empty: the module after every pass of every stage is written there,
  /// numbered (`00-input.mlir`, `01-fly-rewrite-func-signature.mlir`, ...),
  /// then each gpu.module's device LLVM IR before code generation
  /// (`<module>.ll`), each code object's ISA (`<module>.<chip>.s`) and the
  /// host module (`host.ll`).
  std::string dumpDir;
  /// Verify the module after each pass (slower; for debugging passes).
  bool verifyEachPass = false;
  /// Print the module to stderr after every pass.
  bool printAfterAll = false;
  /// Compile the kernels for the CPU emulator instead of the chip: stage A
  /// for the chip, then the pipeline's emulator stage (convert-rocdl-to-emu
  /// and the vector and arith conversions), and each gpu.module becomes
  /// a gpu.binary holding its host LLVM bitcode (the emulator's "code
  /// object", with the launch facts as the globals Emu.h names,
  /// FLY_EMU_*_GLOBAL); stage C is not run, and the kernels have no
  /// resources.
  bool emulator = false;
  /// Fill CodeObjectBlob::isa: each code object's machine code as text
  /// (fly::target::disassembleCodeObject). Not for the emulator.
  bool emitISA = false;
  /// Fill CodeObjectBlob::llvmIR: each gpu.module's device LLVM IR as MLIR
  /// hands it to code generation (after stage B, before the ROCm device
  /// libraries are linked and LLVM optimizes it; what `<module>.ll` of
  /// dumpDir holds). For the emulator: the host LLVM IR the kernels were
  /// converted to, which is the emulator's code object.
  bool emitLLVMIR = false;
};

/// What a launcher needs of one kernel.
struct KernelInfo {
  std::string module; // the gpu.module (and code object) holding it
  std::string name;
  /// The argument block as fly-rewrite-func-signature left it (`fly.abi`):
  /// "value:I", "ptr:I" or "leaves:I" per argument.
  std::vector<std::string> abi;
  /// The kernel's signature before the rewrite (`fly.original_type`).
  std::string originalType;
  ::fly::target::KernelResources resources;
};

/// One gpu.module, compiled.
struct CodeObjectBlob {
  std::string module;
  std::string chip;
  std::string elf;
  /// With CompileOptions::emitISA: for every function of the code object a
  /// `name:` line, then one instruction per line.
  std::string isa;
  /// With CompileOptions::emitLLVMIR: the module's LLVM IR, as text.
  std::string llvmIR;
};

/// The result of compiling a module.
struct Artifact {
  std::vector<CodeObjectBlob> codeObjects;
  std::vector<KernelInfo> kernels;
  /// The host part as LLVM bitcode for this host (its target triple and
  /// data layout): the host functions, the code objects embedded, the
  /// launches as calls of MLIR's GPU runtime-wrapper ABI, and per host
  /// function F the entry `void __fly_entry_F(const void *block)`.
  /// fly::HostEntry compiles it with LLVM alone. Empty when the module has
  /// no host function.
  std::string hostModule;
  std::vector<HostFunctionInfo> hostFunctions;
};

class Compiler {
public:
  Compiler();
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  mlir::MLIRContext &getContext();

  /// The type written `text` (any registered dialect's), or an error with
  /// the parser's message.
  llvm::Expected<mlir::Type> parseType(llvm::StringRef text);
  /// The attribute written `text` (a dictionary `{...}` for op attributes).
  llvm::Expected<mlir::Attribute> parseAttribute(llvm::StringRef text);

  /// The result types op `opName` infers for operands of `operandTypes` and
  /// the attributes `attrs` (a DictionaryAttr or null), as its verifier
  /// would: the op's InferTypeOpInterface on placeholder operands.
  /// Memoised on (op, operand types, attributes). An op without inference,
  /// or operands it rejects, is an error with the op's message.
  llvm::Expected<std::vector<mlir::Type>>
  inferResultTypes(llvm::StringRef opName, llvm::ArrayRef<mlir::Type> operandTypes,
                   mlir::Attribute attrs);

  // -- MLIR text services of the Python builders (flydsl._mlir) ------------
  // They take and give MLIR text: the Python side builds text, this context
  // parses, verifies, prints and transforms it. Errors list the diagnostics
  // as the class comment above says.

  /// What the builders need to know of an operation name.
  struct OperationInfo {
    bool registered = false;
    bool isTerminator = false;
    /// It implements InferTypeOpInterface (inferResultTypes answers).
    bool infersResultTypes = false;
  };
  OperationInfo getOperationInfo(llvm::StringRef opName);

  /// Verifies one operation written in generic form (`opText`, one line, its
  /// location the user's) whose operands are the values named in `operands`
  /// with their types. Operations with regions or successors and
  /// terminators are not verified here (their verifiers need their bodies
  /// and parents): the verifier of the module they end up in checks them.
  llvm::Error
  verifyOperation(llvm::StringRef opText,
                  llvm::ArrayRef<std::pair<std::string, mlir::Type>> operands);

  /// How printOperations prints.
  struct PrintOptions {
    bool verify = false;    ///< verify after parsing (errors if invalid)
    bool generic = false;   ///< the generic op form
    bool debugInfo = false; ///< with locations
  };
  /// Parses `text` (top-level operations, typically one builtin.module)
  /// and prints each top-level operation again, one after the other.
  llvm::Expected<std::string> printOperations(llvm::StringRef text,
                                              const PrintOptions &options);

  /// Parses (and, with `verify`, verifies) the module written `text` and
  /// calls `read` with it, the context held meanwhile: for callers that
  /// take a module's ops apart (the Python builders' Module.parse).
  llvm::Error readModule(llvm::StringRef text, bool verify,
                         llvm::function_ref<void(mlir::ModuleOp)> read);

  /// Runs the textual pass pipeline `pipeline` (`builtin.module(...)`, any
  /// pass fly-opt knows) on the module written `moduleText`, verified
  /// first; the result in generic form with locations.
  llvm::Expected<std::string> runPassPipeline(llvm::StringRef moduleText,
                                              llvm::StringRef pipeline);

  /// Parses `moduleText` (its locations are the tracer's), verifies it and
  /// runs stages A, B and C for `options.pipeline.chip`.
  llvm::Expected<Artifact> compile(llvm::StringRef moduleText,
                                   const CompileOptions &options);

  /// Verifies `module` and runs stages A, B and C on a copy of it, as
  /// compile(text) does; `module` is left as it was, so it can be compiled
  /// again (for another chip). It may live in getContext() or in a context
  /// of the caller's whose registry registerDialects filled (the
  /// diagnostics of the compile are taken from that context while it runs
  /// and come back in the error). mlir::ModuleOp is only declared here:
  /// callers include mlir/IR/BuiltinOps.h.
  llvm::Expected<Artifact> compile(mlir::ModuleOp module,
                                   const CompileOptions &options);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Registers into `registry` everything a module compiled by FlyDSL may use
/// and what compiling it needs: every upstream dialect and extension, the
/// fly dialect, FlyDSL's serializer for `#rocdl.target` (code objects
/// linked with lld in process: no ROCm needed), the LLVM IR translations
/// and gpu.binary's offloading translation. getContext() is made from this
/// registry. Call it before registering other extensions: of two
/// serializers for `#rocdl.target`, the first registered wins.
void registerDialects(mlir::DialectRegistry &registry);

/// Registers, once per process, every pass and pass pipeline fly-opt knows:
/// the upstream passes, the Fly, FlyROCDL and conversion passes and
/// `fly-pipeline` (mlir::fly::registerFlyPipelines), so that textual pass
/// pipelines naming them parse. Compiling needs none of it: a Compiler
/// registers what its stages use.
void registerPasses();

} // namespace fly

#endif // FLY_COMPILER_H
