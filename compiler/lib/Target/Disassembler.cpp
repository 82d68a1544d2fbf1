//===- Disassembler.cpp - ISA text of a code object through LLVM's MC ----===//
//
// The ISA of a compiled kernel is read back from its code object rather
// than printed during code generation: compiling never pays for it, and a
// cached code object shows the same text as a fresh one.
//
//===----------------------------------------------------------------------===//

#include "fly/Target/CodeObject.h"

#include "llvm-c/Target.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error disassemblyError(const llvm::Twine &message) {
  return llvm::createStringError("disassembly: " + message);
}

void initAMDGPUDisassembler() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

/// A function symbol of `.text`: where its code starts and ends.
struct FunctionRange {
  std::string name;
  uint64_t begin;
  uint64_t end;
};

/// The MC objects that decode and print instructions of one processor.
struct MCDisassemblerSet {
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
};

Expected<MCDisassemblerSet> createDisassembler(const llvm::Triple &triple,
                                               StringRef cpu) {
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return disassemblyError(lookupError);
  MCDisassemblerSet set;
  set.registers.reset(target->createMCRegInfo(triple));
  llvm::MCTargetOptions options;
  if (set.registers)
    set.asmInfo.reset(target->createMCAsmInfo(*set.registers, triple, options));
  set.subtarget.reset(target->createMCSubtargetInfo(triple, cpu, ""));
  set.instructions.reset(target->createMCInstrInfo());
  if (!set.registers || !set.asmInfo || !set.subtarget || !set.instructions)
    return disassemblyError("no MC support for " + triple.str() + " " + cpu);
  set.context = std::make_unique<llvm::MCContext>(
      triple, set.asmInfo.get(), set.registers.get(), set.subtarget.get());
  set.disassembler.reset(
      target->createMCDisassembler(*set.subtarget, *set.context));
  set.printer.reset(target->createMCInstPrinter(
      triple, set.asmInfo->getAssemblerDialect(), *set.asmInfo,
      *set.instructions, *set.registers));
  if (!set.disassembler || !set.printer)
    return disassemblyError("no disassembler for " + cpu);
  return std::move(set);
}

/// The function symbols inside `text`, by address; a symbol without a size
/// extends to the next one (or the end of the section).
Expected<std::vector<FunctionRange>>
functionRanges(const llvm::object::ObjectFile &file,
               const llvm::object::SectionRef &text) {
  std::vector<FunctionRange> ranges;
  uint64_t textEnd = text.getAddress() + text.getSize();
  for (const llvm::object::SymbolRef &symbol : file.symbols()) {
    auto type = symbol.getType();
    auto name = symbol.getName();
    auto address = symbol.getAddress();
    auto section = symbol.getSection();
    if (!type || !name || !address || !section) {
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      llvm::consumeError(address.takeError());
      llvm::consumeError(section.takeError());
      return disassemblyError("unreadable symbol table");
    }
    if (*type != llvm::object::SymbolRef::ST_Function || *section != text)
      continue;
    uint64_t size = llvm::object::ELFSymbolRef(symbol).getSize();
    ranges.push_back({name->str(), *address, size ? *address + size : 0});
  }
  llvm::sort(ranges, [](const FunctionRange &a, const FunctionRange &b) {
    return a.begin < b.begin;
  });
  for (size_t i = 0; i < ranges.size(); ++i)
    if (!ranges[i].end)
      ranges[i].end = i + 1 < ranges.size() ? ranges[i + 1].begin : textEnd;
  return ranges;
}

} // namespace

Expected<std::string> fly::target::disassembleCodeObject(StringRef elf) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(elf, "code object"));
  if (!file)
    return disassemblyError(llvm::toString(file.takeError()));
  auto chip = readCodeObjectChip(elf);
  if (!chip)
    return chip.takeError();

  initAMDGPUDisassembler();
  auto mc = createDisassembler((*file)->makeTriple(), *chip);
  if (!mc)
    return mc.takeError();

  std::optional<llvm::object::SectionRef> text;
  for (const llvm::object::SectionRef &section : (*file)->sections())
    if (auto name = section.getName(); name && *name == ".text")
      text = section;
  if (!text)
    return disassemblyError("the code object has no .text section");
  auto contents = text->getContents();
  if (!contents)
    return disassemblyError(llvm::toString(contents.takeError()));
  auto ranges = functionRanges(**file, *text);
  if (!ranges)
    return ranges.takeError();

  std::string out;
  llvm::raw_string_ostream os(out);
  uint64_t base = text->getAddress();
  auto bytes = llvm::arrayRefFromStringRef(*contents);
  for (const FunctionRange &fn : *ranges) {
    if (fn.begin < base || fn.end > base + bytes.size() || fn.end < fn.begin)
      return disassemblyError("symbol " + fn.name + " lies outside .text");
    os << fn.name << ":\n";
    for (uint64_t address = fn.begin; address < fn.end;) {
      llvm::MCInst inst;
      uint64_t size = 0;
      auto window = bytes.slice(address - base, fn.end - address);
      std::string text;
      llvm::raw_string_ostream textOs(text);
      if (mc->disassembler->getInstruction(inst, size, window, address,
                                           llvm::nulls()) ==
              llvm::MCDisassembler::Success &&
          size) {
        mc->printer->printInst(&inst, address, "", *mc->subtarget, textOs);
      } else {
        // Not an instruction (padding or data): show the word and move on.
        size = std::min<uint64_t>(4, fn.end - address);
        textOs << "\t.byte";
        for (uint64_t i = 0; i < size; ++i)
          textOs << (i ? ", " : " ") << llvm::format_hex(window[i], 4);
      }
      os << llvm::left_justify(StringRef(text).rtrim(), 56)
         << llvm::format(" // %06llx\n", (unsigned long long)address);
      address += size;
    }
    os << "\n";
  }
  return out;
}
