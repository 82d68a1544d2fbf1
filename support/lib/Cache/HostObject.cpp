//===- HostObject.cpp - Host code compiled once, across processes ---------===//

#include "fly/Cache/HostObject.h"
#include "fly/Cache/CacheKey.h"
#include "fly/Cache/DiskCache.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>
#include <optional>

using namespace llvm;

namespace fly::cache {
namespace {

/// The environment's disk cache, or nothing (off, or it does not open).
std::optional<DiskCache> environmentCache() {
  Expected<CacheOptions> options = CacheOptions::fromEnvironment();
  if (!options) {
    consumeError(options.takeError());
    return std::nullopt;
  }
  if (!options->enabled)
    return std::nullopt;
  Expected<DiskCache> cache = DiskCache::open(options->directory);
  if (!cache) {
    consumeError(cache.takeError());
    return std::nullopt;
  }
  return std::move(*cache);
}

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
hostObject(Module &module, StringRef bitcode, StringRef kind,
           CodeGenOptLevel optLevel) {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  Expected<orc::JITTargetMachineBuilder> host =
      orc::JITTargetMachineBuilder::detectHost();
  if (!host)
    return host.takeError();
  host->setCodeGenOptLevel(optLevel);
  // The x86 bf16 conversions (AVX512-BF16's and AVX-NE-CONVERT's
  // vcvtneps2bf16) flush denormal inputs to zero, where the GPU's rounding
  // keeps them: an emulated kernel's bf16 results must not depend on the
  // host CPU, so fptrunc to bf16 stays the integer rounding sequence.
  for (const char *feature : {"avx512bf16", "avxneconvert", "amx-bf16"})
    host->getFeatures().AddFeature(feature, /*Enable=*/false);
  std::string target = host->getTargetTriple().str() + " " + host->getCPU() +
                       " " + host->getFeatures().getString();

  CacheKey key;
  key.add("kind", "host-object:" + kind.str())
      .add("bitcode", bitcode)
      .add("target", target)
      .add("codegen", std::to_string(int(optLevel)));
  std::optional<DiskCache> cache = environmentCache();
  if (cache) {
    Expected<std::optional<std::string>> hit = cache->lookup(key);
    if (!hit)
      consumeError(hit.takeError());
    else if (*hit)
      return MemoryBuffer::getMemBufferCopy(**hit, "cached host object");
  }

  Expected<std::unique_ptr<TargetMachine>> machine =
      host->createTargetMachine();
  if (!machine)
    return machine.takeError();
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  SmallVector<char, 0> object;
  raw_svector_ostream os(object);
  legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      CodeGenFileType::ObjectFile))
    return createStringError("the host target cannot emit object files");
  codegen.run(module);
  StringRef bytes(object.data(), object.size());
  if (cache)
    consumeError(cache->store(key, bytes));
  return MemoryBuffer::getMemBufferCopy(bytes, "host object");
}

} // namespace fly::cache
