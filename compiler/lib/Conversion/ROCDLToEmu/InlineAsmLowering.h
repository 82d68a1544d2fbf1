//===- InlineAsmLowering.h - One inline asm statement, emulated -*- C++ -*-===//
//
// AsmLowering turns one `llvm.inline_asm` into the operations its
// instructions are. Its operands, registers and control flow are in
// InlineAsmToEmu.cpp; the semantics of the instructions it runs in
// InlineAsmInstructions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_INLINEASMLOWERING_H
#define FLY_CONVERSION_ROCDLTOEMU_INLINEASMLOWERING_H

#include "AmdgpuAssembler.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <vector>

namespace mlir::fly::inline_asm {

/// A 32-bit register of a file, as one key.
inline unsigned unitKey(AsmRegister::File file, unsigned index) {
  return unsigned(file) << 16 | index;
}

/// The i32 allocas of a function that hold the registers its asm keeps in
/// memory, at the top of its entry block (private memory, which no check
/// instruments at a constant offset).
class FunctionRegisters {
public:
  explicit FunctionRegisters(LLVM::LLVMFuncOp func) : func(func) {}
  Value slot(AsmRegister::File file, unsigned index);

private:
  LLVM::LLVMFuncOp func;
  llvm::DenseMap<unsigned, Value> slots;
};

/// A numbered operand ($N) bound to registers.
struct BoundOperand {
  AsmRegister reg;  // count 0: an immediate, written into the text
  std::string text; // what $N becomes in the text
  Type type;
  Value input; // an input's value; null for an output
};

// The instruction forms (InlineAsmInstructions.cpp).
struct MemoryForm;
struct TransposeForm;
struct MfmaForm;

class AsmLowering {
public:
  AsmLowering(LLVM::InlineAsmOp op, const AmdgpuAssembler &assembler,
              FunctionRegisters &file)
      : op(op), assembler(assembler), file(file), b(op), loc(op.getLoc()),
        i32(b.getI32Type()), i64(b.getI64Type()) {}

  /// Replaces the op by its instructions' operations, or emits an error at
  /// it and fails.
  LogicalResult run();

private:
  // Errors, at the op: the instruction's line of the asm, and why.
  LogicalResult fail(const Twine &why);
  LogicalResult failAt(unsigned line, const Twine &why);
  LogicalResult unsupported(const AsmStatement &statement, const Twine &why);

  LogicalResult bindOperands();
  LogicalResult checkRegisterUse(const AssembledText &text);

  // Registers. A value of `reg` is i32 (one register) or vector<N x i32>.
  Value read(const AsmRegister &reg);
  LogicalResult write(const AsmRegister &reg, Value value);
  Value readUnit(AsmRegister::File file, unsigned index);
  void writeUnit(AsmRegister::File file, unsigned index, Value whole,
                 unsigned lane);
  void persistNamedRegisters();
  Value wholeMask(const AsmRegister &reg);

  // Operands of an instruction.
  std::optional<AsmRegister> reg(const llvm::MCOperand &operand);
  Value source(const llvm::MCOperand &operand, unsigned dwords = 1);
  Value floatSource(const llvm::MCOperand &modifiers,
                    const llvm::MCOperand &operand);
  LogicalResult setDestination(const llvm::MCOperand &operand, Value value);
  Value knownPointer(const AsmRegister &reg);

  // Values between the asm's types and registers.
  Value toDwords(Value value, unsigned dwords);
  Value fromDwords(Value dwords, Type type);
  Value constI32(int64_t value) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(value));
  }
  Value constI64(int64_t value) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
  }
  Type dwordsType(unsigned dwords) {
    return dwords == 1 ? i32 : Type(VectorType::get({int64_t(dwords)}, i32));
  }

  // Instructions (InlineAsmInstructions.cpp).
  LogicalResult execute(const AsmStatement &statement);
  LogicalResult lowerDs(const AsmStatement &s, const MemoryForm &form);
  LogicalResult lowerTranspose(const AsmStatement &s, const TransposeForm &f);
  LogicalResult lowerFlat(const AsmStatement &s, const MemoryForm &form,
                          unsigned space);
  LogicalResult lowerBuffer(const AsmStatement &s, const MemoryForm &form);
  LogicalResult lowerMfma(const AsmStatement &s, const MfmaForm &form);
  LogicalResult lowerScalar(const AsmStatement &s, StringRef mnemonic);
  LogicalResult lowerVector(const AsmStatement &s, StringRef mnemonic);
  LogicalResult lowerBranch(const AsmStatement &s, StringRef mnemonic);
  LogicalResult accessMemory(const MemoryForm &form, Value address,
                             const AsmRegister &data);
  Value ldsAddress(const llvm::MCOperand &address, int64_t offset);
  Value flatAddress(const AsmRegister &vaddr, std::optional<AsmRegister> saddr,
                    int64_t offset, unsigned space);
  Value laneMaskBit(Value mask);

  LLVM::InlineAsmOp op;
  const AmdgpuAssembler &assembler;
  FunctionRegisters &file;
  OpBuilder b;
  Location loc;
  Type i32, i64;

  std::vector<std::string> lines; // the asm text's lines, for messages
  SmallVector<BoundOperand> operands;
  unsigned numOutputs = 0;
  // The registers of the operands, not kept past the statement.
  llvm::DenseSet<unsigned> operandUnits;
  // In memory (allocas of the function) rather than SSA values: an asm
  // with labels or branches.
  bool inMemory = false;
  struct UnitValue {
    Value whole; // i32, or vector<N x i32> of which this is lane `lane`
    unsigned lane = 0;
  };
  llvm::DenseMap<unsigned, UnitValue> units;
  // Named registers written (SSA), in order.
  llvm::SetVector<unsigned> writtenNamed;
  // Pointer inputs, as long as their registers hold them.
  SmallVector<std::pair<AsmRegister, Value>> pointers;
  // Labels and the blocks they start; the block after the statement.
  llvm::DenseMap<const llvm::MCSymbol *, Block *> labelBlocks;
  Block *after = nullptr;
};

} // namespace mlir::fly::inline_asm

#endif // FLY_CONVERSION_ROCDLTOEMU_INLINEASMLOWERING_H
