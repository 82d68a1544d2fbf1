//===- AmdgpuAssembler.h - LLVM's AMDGPU assembler, for inline asm -*- C++ -*-===//
//
// The emulator runs `llvm.inline_asm` by assembling its text with LLVM's own
// AMDGPU assembler (the MC layer: MCContext, MCAsmParser and the AMDGPU
// target parser, for the kernel's chip) and executing the MCInsts it
// produces; so the emulator accepts exactly the text the GPU compile
// accepts, with the same operands, modifiers and defaults.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_AMDGPUASSEMBLER_H
#define FLY_CONVERSION_ROCDLTOEMU_AMDGPUASSEMBLER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInst.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class MCAsmInfo;
class MCContext;
class MCInstPrinter;
class MCInstrInfo;
class MCObjectFileInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
class MCSymbol;
class MCTargetOptions;
class SourceMgr;
class Target;
} // namespace llvm

namespace mlir::fly::inline_asm {

/// A register (or a tuple of consecutive ones) an instruction names, in the
/// emulator's terms: 32-bit units of one file. M0, VCC and EXEC are SGPR
/// units past the numbered ones (kM0, kVcc, kExec); SCC is a file of its
/// own; `null` (gfx10+) reads 0 and drops writes.
struct AsmRegister {
  enum File : uint8_t { Vgpr, Agpr, Sgpr, Scc, Null };
  File file = Vgpr;
  unsigned first = 0, count = 1;
  bool operator==(const AsmRegister &o) const {
    return file == o.file && first == o.first && count == o.count;
  }
};
/// The SGPR units that stand for the named scalar registers (beyond s105,
/// the last numbered SGPR of any chip).
constexpr unsigned kVcc = 106, kM0 = 124, kExec = 126;

/// One statement of assembled text: an instruction or a label.
struct AsmStatement {
  llvm::MCInst inst;
  llvm::MCSymbol *label = nullptr; // set for a label
  unsigned line = 0;               // 1-based, in the assembled text
};

/// The statements of one text, with the MC context that owns their symbols
/// and expressions (branch targets).
class AssembledText {
public:
  ~AssembledText();
  llvm::SmallVector<AsmStatement> statements;

private:
  friend class AmdgpuAssembler;
  AssembledText();
  // What the MC context refers to, for as long as it lives.
  std::unique_ptr<llvm::SourceMgr> sources;
  std::unique_ptr<llvm::MCTargetOptions> options;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCObjectFileInfo> objectFileInfo;
};

/// LLVM's AMDGPU assembler for one chip.
class AmdgpuAssembler {
public:
  ~AmdgpuAssembler();
  /// The assembler of `chip`, or null with `error` saying why (a chip
  /// LLVM's AMDGPU target does not know).
  static std::unique_ptr<AmdgpuAssembler> create(llvm::StringRef chip,
                                                 std::string &error);

  /// Assembles `text` into statements; on an error, null with `error` the
  /// assembler's first message and `errorLine` its line (1-based).
  std::unique_ptr<AssembledText> assemble(llvm::StringRef text,
                                          std::string &error,
                                          unsigned &errorLine) const;

  /// The instruction's mnemonic as the assembler writes it, without the
  /// encoding suffix _e32 / _e64 (the operands tell the forms apart).
  std::string mnemonic(const llvm::MCInst &inst) const;
  /// The name of the instruction's opcode (BUFFER_LOAD_DWORD_LDS_OFFEN_...):
  /// what the mnemonic leaves out (a buffer access's addressing mode).
  llvm::StringRef opcodeName(const llvm::MCInst &inst) const;
  /// A register operand in the emulator's terms; nullopt for one it does
  /// not model (TTMP, flat_scratch, 16-bit halves, ...).
  std::optional<AsmRegister> decode(unsigned reg) const;
  /// The register's name as LLVM's register info spells it (for messages).
  llvm::StringRef registerName(unsigned reg) const;
  /// Whether the chip runs wave32 by default (gfx10+): a lane mask is one
  /// SGPR, not a pair.
  bool wave32() const { return isWave32; }
  llvm::StringRef chip() const { return chipName; }

private:
  AmdgpuAssembler() = default;
  std::string chipName;
  bool isWave32 = false;
  const llvm::Target *target = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCInstPrinter> printer;
};

} // namespace mlir::fly::inline_asm

#endif // FLY_CONVERSION_ROCDLTOEMU_AMDGPUASSEMBLER_H
