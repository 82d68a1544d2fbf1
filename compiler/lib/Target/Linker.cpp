//===- Linker.cpp - Link AMDGPU code objects with the lld library --------===//
//
// A code object is the relocatable object linked as a shared ELF. lld's ELF
// driver does that in this process; its inputs and output are files, so the
// object goes through two temporary files, which is far cheaper than the
// child ld.lld process (tens of milliseconds to load libLLVM) it replaces.
//
// lld's driver starts by resetting every registered LLVM command-line option
// to its default (cl::ResetAllOptionOccurrences) and parsing its -mllvm
// flags. In a tool that reads its options after compiling (fly-opt reads
// its pass pipeline again for each -split-input-file chunk) that would
// silently drop them, so the named options that were given on a command
// line are unregistered while lld runs and registered again afterwards.
// (Options never given are at their defaults, which the reset keeps; a
// host that sets an option's value from code rather than from a command
// line must set it again after compiling.)
//
//===----------------------------------------------------------------------===//

#include "fly/Target/ROCDLTarget.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using llvm::Expected;

namespace {

llvm::Error linkError(const llvm::Twine &message) {
  return llvm::createStringError("linking the code object: " + message);
}

/// While alive, the host's named command-line options that occurred on its
/// command line are not registered, so lld's reset does not reach them.
class HideOptionsFromLLD {
public:
  HideOptionsFromLLD() {
    llvm::SmallPtrSet<llvm::cl::Option *, 0> seen;
    for (auto &entry : llvm::cl::getRegisteredOptions()) {
      llvm::cl::Option *option = entry.second;
      // --help and friends are LLVM's own "default options": every parse
      // registers them again, so they are left alone.
      if (option->getNumOccurrences() && !option->isDefaultOption() &&
          seen.insert(option).second)
        hidden.push_back(option);
    }
    for (llvm::cl::Option *option : hidden)
      option->removeArgument();
  }
  ~HideOptionsFromLLD() {
    for (llvm::cl::Option *option : hidden)
      option->addArgument();
  }

private:
  std::vector<llvm::cl::Option *> hidden;
};

std::mutex lldMutex;
/// False once lld crashed: its state may be corrupt, do not run it again.
bool lldUsable = true;

} // namespace

Expected<llvm::SmallVector<char, 0>>
mlir::fly::linkCodeObject(llvm::ArrayRef<char> relocatableObject) {
  int inputFd = -1;
  llvm::SmallString<128> inputPath, outputPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "fly-kernel", "o", inputFd, inputPath))
    return linkError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeInput(inputPath);
  {
    llvm::raw_fd_ostream input(inputFd, /*shouldClose=*/true);
    input.write(relocatableObject.data(), relocatableObject.size());
    input.close();
    if (input.has_error())
      return linkError("cannot write " + inputPath + ": " +
                       input.error().message());
  }
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "fly-kernel", "hsaco", outputPath))
    return linkError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeOutput(outputPath);

  std::string messages;
  llvm::raw_string_ostream messageStream(messages);
  {
    std::lock_guard<std::mutex> lock(lldMutex);
    if (!lldUsable)
      return linkError("lld crashed earlier in this process");
    const char *args[] = {"ld.lld",          "-shared",
                          "--no-undefined",  inputPath.c_str(),
                          "-o",              outputPath.c_str()};
    lld::Result result = [&] {
      HideOptionsFromLLD hideOptions;
      return lld::lldMain(args, messageStream, messageStream,
                          {{lld::Gnu, &lld::elf::link}});
    }();
    lldUsable = result.canRunAgain;
    if (result.retCode != 0)
      return linkError(llvm::StringRef(messages).trim());
  }

  auto output = llvm::MemoryBuffer::getFile(outputPath, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!output)
    return linkError("cannot read " + outputPath + ": " +
                     output.getError().message());
  llvm::StringRef bytes = (*output)->getBuffer();
  return llvm::SmallVector<char, 0>(bytes.begin(), bytes.end());
}
