//===- AmdgpuAssembler.cpp - LLVM's AMDGPU assembler, for inline asm ------===//
//
// A streamer that keeps what the assembler emits (instructions and labels)
// instead of encoding it, behind the parser LLVM itself uses for inline
// assembly (the AsmPrinter's path): the same lexer (`;` starts a comment
// in AMDGPU assembly, as on the GPU), the same operand syntax and checks.
//
//===----------------------------------------------------------------------===//

#include "AmdgpuAssembler.h"

#include "llvm-c/Target.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCSymbol.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using llvm::StringRef;

namespace mlir::fly::inline_asm {

namespace {

constexpr StringRef kTriple = "amdgcn-amd-amdhsa";

void initAMDGPUAssembler() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
  });
}

/// Keeps the instructions and labels the parser emits, in order.
class CollectingStreamer : public llvm::MCStreamer {
public:
  CollectingStreamer(llvm::MCContext &context, const llvm::SourceMgr &sources,
                     llvm::SmallVectorImpl<AsmStatement> &out)
      : MCStreamer(context), sources(sources), out(out) {}

  void emitInstruction(const llvm::MCInst &inst,
                       const llvm::MCSubtargetInfo &) override {
    AsmStatement statement;
    statement.inst = inst;
    if (inst.getLoc().isValid())
      statement.line = sources.getLineAndColumn(inst.getLoc()).first;
    out.push_back(statement);
  }
  void emitLabel(llvm::MCSymbol *symbol, llvm::SMLoc loc) override {
    MCStreamer::emitLabel(symbol, loc); // defines it for the parser
    AsmStatement statement;
    statement.label = symbol;
    if (loc.isValid())
      statement.line = sources.getLineAndColumn(loc).first;
    out.push_back(statement);
  }
  bool emitSymbolAttribute(llvm::MCSymbol *, llvm::MCSymbolAttr) override {
    return true;
  }
  void emitCommonSymbol(llvm::MCSymbol *, uint64_t, llvm::Align) override {}

private:
  const llvm::SourceMgr &sources;
  llvm::SmallVectorImpl<AsmStatement> &out;
};

/// The major version of a chip name (gfx942: 9, gfx90a: 9, gfx1100: 11).
unsigned majorVersion(StringRef chip) {
  StringRef digits = chip.drop_front(3);
  unsigned major = 0;
  if (digits.size() > 2)
    digits.drop_back(2).getAsInteger(10, major);
  return major;
}

/// The first error the parser or the MC context reports (later ones follow
/// from it); warnings are not errors.
struct FirstError {
  std::string message;
  unsigned line = 0;
};
void keepFirstError(const llvm::SMDiagnostic &diagnostic, void *context) {
  auto *first = static_cast<FirstError *>(context);
  if (diagnostic.getKind() != llvm::SourceMgr::DK_Error ||
      !first->message.empty())
    return;
  first->message = diagnostic.getMessage().str();
  first->line = diagnostic.getLineNo();
}

} // namespace

AssembledText::AssembledText() = default;
AssembledText::~AssembledText() = default;
AmdgpuAssembler::~AmdgpuAssembler() = default;

std::unique_ptr<AmdgpuAssembler>
AmdgpuAssembler::create(StringRef chip, std::string &error) {
  initAMDGPUAssembler();
  llvm::Triple triple(kTriple);
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "LLVM's AMDGPU target is missing: " + lookupError;
    return nullptr;
  }
  std::unique_ptr<AmdgpuAssembler> assembler(new AmdgpuAssembler);
  assembler->chipName = chip.str();
  assembler->isWave32 = majorVersion(chip) >= 10;
  assembler->target = target;
  assembler->registers.reset(target->createMCRegInfo(triple));
  llvm::MCTargetOptions options;
  assembler->asmInfo.reset(
      target->createMCAsmInfo(*assembler->registers, triple, options));
  // Ask a generic subtarget first: an unknown processor name would make
  // LLVM print a warning and fall back to a default one.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!chip.starts_with("gfx") || !generic ||
      !generic->isCPUStringValid(chip)) {
    error = ("LLVM's AMDGPU assembler does not know the chip '" + chip + "'")
                .str();
    return nullptr;
  }
  assembler->subtarget.reset(target->createMCSubtargetInfo(triple, chip, ""));
  assembler->instructions.reset(target->createMCInstrInfo());
  assembler->printer.reset(target->createMCInstPrinter(
      triple, /*SyntaxVariant=*/0, *assembler->asmInfo,
      *assembler->instructions, *assembler->registers));
  if (!assembler->asmInfo || !assembler->subtarget || !assembler->printer) {
    error = "LLVM's AMDGPU target has no assembler";
    return nullptr;
  }
  return assembler;
}

std::unique_ptr<AssembledText>
AmdgpuAssembler::assemble(StringRef text, std::string &error,
                          unsigned &errorLine) const {
  std::unique_ptr<AssembledText> result(new AssembledText);
  result->sources = std::make_unique<llvm::SourceMgr>();
  llvm::SourceMgr &sources = *result->sources;
  // A final newline ends the last statement the way the others end.
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy((text + "\n").str(), "<inline asm>"),
      llvm::SMLoc());
  FirstError first;
  sources.setDiagHandler(keepFirstError, &first);

  llvm::Triple triple(kTriple);
  result->options = std::make_unique<llvm::MCTargetOptions>();
  result->context = std::make_unique<llvm::MCContext>(
      triple, asmInfo.get(), registers.get(), subtarget.get(), &sources,
      result->options.get());
  llvm::MCContext &context = *result->context;
  context.setDiagnosticHandler(
      [&first](const llvm::SMDiagnostic &diagnostic, bool,
               const llvm::SourceMgr &, std::vector<const llvm::MDNode *> &) {
        keepFirstError(diagnostic, &first);
      });
  result->objectFileInfo.reset(
      target->createMCObjectFileInfo(context, /*PIC=*/false));
  context.setObjectFileInfo(result->objectFileInfo.get());

  CollectingStreamer streamer(context, sources, result->statements);
  std::unique_ptr<llvm::MCAsmParser> parser(
      llvm::createMCAsmParser(sources, context, streamer, *asmInfo));
  std::unique_ptr<llvm::MCTargetAsmParser> targetParser(
      target->createMCAsmParser(*subtarget, *parser, *instructions,
                                *result->options));
  if (!targetParser) {
    error = "LLVM's AMDGPU target has no assembly parser";
    errorLine = 0;
    return nullptr;
  }
  parser->setTargetParser(*targetParser);
  bool failed = parser->Run(/*NoInitialTextSection=*/false);
  // The text's symbols and expressions outlive this call, `first` not.
  sources.setDiagHandler(nullptr, nullptr);
  context.setDiagnosticHandler([](const llvm::SMDiagnostic &, bool,
                                  const llvm::SourceMgr &,
                                  std::vector<const llvm::MDNode *> &) {});
  if (failed || context.hadError() || !first.message.empty()) {
    error = first.message.empty() ? "the assembler rejects it" : first.message;
    errorLine = first.line;
    return nullptr;
  }
  return result;
}

std::string AmdgpuAssembler::mnemonic(const llvm::MCInst &inst) const {
  const char *text = printer->getMnemonic(inst).first;
  StringRef name = StringRef(text ? text : "").trim();
  if (name.ends_with("_e32") || name.ends_with("_e64"))
    name = name.drop_back(4);
  return name.str();
}

StringRef AmdgpuAssembler::opcodeName(const llvm::MCInst &inst) const {
  return instructions->getName(inst.getOpcode());
}

StringRef AmdgpuAssembler::registerName(unsigned reg) const {
  return registers->getName(reg);
}

std::optional<AsmRegister> AmdgpuAssembler::decode(unsigned reg) const {
  // LLVM's register info names a register by its TableGen definition:
  // VGPR7, SGPR4_SGPR5_SGPR6_SGPR7 (a tuple), M0_gfxpre11, EXEC_LO, ...
  StringRef name = registers->getName(reg);
  name.consume_back("_gfxpre11");
  name.consume_back("_gfx11plus");
  using F = AsmRegister;
  if (name == "VCC")
    return F{F::Sgpr, kVcc, 2};
  if (name == "VCC_LO" || name == "VCC_HI")
    return F{F::Sgpr, kVcc + (name == "VCC_HI"), 1};
  if (name == "EXEC")
    return F{F::Sgpr, kExec, 2};
  if (name == "EXEC_LO" || name == "EXEC_HI")
    return F{F::Sgpr, kExec + (name == "EXEC_HI"), 1};
  if (name == "M0")
    return F{F::Sgpr, kM0, 1};
  if (name == "SCC")
    return F{F::Scc, 0, 1};
  if (name == "SGPR_NULL" || name == "SGPR_NULL64")
    return F{F::Null, 0, name == "SGPR_NULL64" ? 2u : 1u};
  llvm::SmallVector<StringRef> parts;
  name.split(parts, '_');
  std::optional<AsmRegister> tuple;
  for (StringRef part : parts) {
    F::File file;
    if (part.consume_front("VGPR"))
      file = F::Vgpr;
    else if (part.consume_front("AGPR"))
      file = F::Agpr;
    else if (part.consume_front("SGPR"))
      file = F::Sgpr;
    else
      return std::nullopt;
    unsigned index;
    if (part.getAsInteger(10, index))
      return std::nullopt; // e.g. VGPR1_HI16: a 16-bit half
    if (!tuple)
      tuple = F{file, index, 1};
    else if (tuple->file == file && index == tuple->first + tuple->count)
      ++tuple->count;
    else
      return std::nullopt;
  }
  return tuple;
}

} // namespace mlir::fly::inline_asm
