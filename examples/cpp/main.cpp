//===- main.cpp - A C++ program that compiles through libFlyCompiler ------===//
//
// The out-of-tree consumer of SPEC §10, built against the installed package
// only (CMakeLists.txt) and run by test/python/test_cpp_consumer.py:
//
//   fly-cpp-consumer <module.mlir> [chip]     (chip: gfx942 by default)
//
// It uses each part of the library once:
//   1. fly::Compiler compiles the module's text for the chip, with the ISA
//      and the device LLVM IR; it prints each kernel's resources, checks
//      that each code object is an ELF and prints its first 128-bit global
//      load and the kernel's definition in the LLVM IR;
//   2. its own MLIRContext, made from a registry fly::registerDialects
//      filled, parses the module; fly::Compiler compiles that ModuleOp;
//   3. fly/Pipeline/Pipeline.h: stage A alone on its own PassManager;
//   4. fly/Cache/DiskCache.h: the code object stored and read back;
//   5. the module compiled for the CPU emulator, whose code object is host
//      LLVM bitcode: its LLVM IR.
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/DiskCache.h"
#include "fly/Compiler.h"
#include "fly/Pipeline/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace {

/// The first line of `text` that contains `needle`, trimmed; empty if none.
llvm::StringRef findLine(llvm::StringRef text, llvm::StringRef needle) {
  size_t at = text.find(needle);
  if (at == llvm::StringRef::npos)
    return {};
  size_t begin = text.rfind('\n', at);
  begin = begin == llvm::StringRef::npos ? 0 : begin + 1;
  return text.slice(begin, text.find('\n', at)).trim();
}

/// Prints what `artifact` holds; false if a code object is not an ELF.
bool printArtifact(llvm::StringRef label, const fly::Artifact &artifact) {
  for (const fly::KernelInfo &kernel : artifact.kernels) {
    const auto &r = kernel.resources;
    llvm::outs() << label << ": kernel " << kernel.name << " in @"
                 << kernel.module << ": vgprs=" << r.vgprs
                 << " sgprs=" << r.sgprs << " agprs=" << r.agprs
                 << " lds=" << r.ldsBytes << " scratch=" << r.scratchBytes
                 << " wave=" << r.waveSize << "\n";
  }
  bool ok = true;
  for (const fly::CodeObjectBlob &object : artifact.codeObjects) {
    llvm::StringRef elf(object.elf);
    bool isELF = elf.starts_with("\x7f"
                                 "ELF");
    ok &= isELF;
    llvm::outs() << label << ": code object @" << object.module << " for "
                 << object.chip << ": " << elf.size() << " bytes, "
                 << (isELF ? "ELF" : "not an ELF") << "\n";
    if (!object.isa.empty())
      llvm::outs() << label << ": isa: "
                   << findLine(object.isa, "global_load_dwordx4") << "\n";
    if (!object.llvmIR.empty())
      llvm::outs() << label << ": llvm ir: "
                   << findLine(object.llvmIR, "define amdgpu_kernel") << "\n";
  }
  return ok;
}

int fail(llvm::Error error) {
  llvm::errs() << "fly-cpp-consumer: " << llvm::toString(std::move(error))
               << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: fly-cpp-consumer <module.mlir> [chip]\n";
    return 2;
  }
  auto file = llvm::MemoryBuffer::getFile(argv[1]);
  if (!file) {
    llvm::errs() << "fly-cpp-consumer: cannot read " << argv[1] << ": "
                 << file.getError().message() << "\n";
    return 1;
  }
  fly::CompileOptions options;
  options.pipeline.chip = argc == 3 ? argv[2] : "gfx942";
  options.emitISA = true;
  options.emitLLVMIR = true;

  // 1. The module's text, in the compiler's own context.
  fly::Compiler compiler;
  llvm::Expected<fly::Artifact> fromText =
      compiler.compile((*file)->getBuffer(), options);
  if (!fromText)
    return fail(fromText.takeError());
  if (!printArtifact("text", *fromText))
    return 1;

  // 2. A context of our own with the Fly dialects registered; the module
  // parsed (or built) there, then compiled as an op.
  fly::registerPasses();
  mlir::DialectRegistry registry;
  fly::registerDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy((*file)->getBuffer(), argv[1]),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module) {
    llvm::errs() << "fly-cpp-consumer: " << argv[1] << " does not parse\n";
    return 1;
  }
  llvm::Expected<fly::Artifact> fromModule = compiler.compile(*module, options);
  if (!fromModule)
    return fail(fromModule.takeError());
  if (!printArtifact("module", *fromModule))
    return 1;
  llvm::outs() << "module: same code object as from text: "
               << (fromModule->codeObjects.front().elf ==
                           fromText->codeObjects.front().elf
                       ? "yes"
                       : "no")
               << "\n";

  // 3. Stage A of the pipeline on our own pass manager: the kernels are
  // ROCDL functions afterwards. `module` is still Fly IR: compile copied it.
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (llvm::Error err = mlir::fly::buildStage(pm, mlir::fly::Stage::PreBinary,
                                              options.pipeline))
    return fail(std::move(err));
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->walk([](mlir::gpu::GPUModuleOp gpuModule) {
    for (auto func : gpuModule.getOps<mlir::LLVM::LLVMFuncOp>())
      if (func->hasAttr("rocdl.kernel"))
        llvm::outs() << "stage " << mlir::fly::stageName(mlir::fly::Stage::PreBinary)
                     << ": @" << gpuModule.getSymName() << " holds rocdl kernel @"
                     << func.getSymName() << "\n";
  });

  // 4. The code object in a disk cache of our own, and back.
  llvm::SmallString<128> cacheDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("fly-cpp-consumer", cacheDir)) {
    llvm::errs() << "fly-cpp-consumer: no temporary directory: "
                 << ec.message() << "\n";
    return 1;
  }
  {
    llvm::Expected<fly::cache::DiskCache> cache =
        fly::cache::DiskCache::open(cacheDir);
    if (!cache)
      return fail(cache.takeError());
    fly::cache::CacheKey key;
    key.add("module", (*file)->getBuffer()).add("chip", options.pipeline.chip);
    const std::string &elf = fromText->codeObjects.front().elf;
    if (llvm::Error err = cache->store(key, elf))
      return fail(std::move(err));
    llvm::Expected<std::optional<std::string>> hit = cache->lookup(key);
    if (!hit)
      return fail(hit.takeError());
    llvm::outs() << "cache: " << (*hit && **hit == elf ? "hit" : "miss")
                 << ", key " << key.digest().substr(0, 16) << "...\n";
  }
  llvm::sys::fs::remove_directories(cacheDir);

  // 5. For the CPU emulator: stage A for the chip, then the kernels as host
  // code.
  fly::CompileOptions emulated = options;
  emulated.emulator = true;
  emulated.emitISA = false;
  llvm::Expected<fly::Artifact> forEmulator =
      compiler.compile((*file)->getBuffer(), emulated);
  if (!forEmulator)
    return fail(forEmulator.takeError());
  for (const fly::CodeObjectBlob &object : forEmulator->codeObjects)
    llvm::outs() << "emulator: code object @" << object.module << " for "
                 << object.chip << ": llvm ir: "
                 << findLine(object.llvmIR, "define") << "\n";
  return 0;
}
