//===- InlineAsmToEmu.cpp - AMDGPU inline asm for the emulator ------------===//
//
// An `llvm.inline_asm` of a kernel runs on the emulator as the operations
// its instructions are. Its constraint string binds each `$N` to concrete
// registers of the right file and width (v[8:9] for a 64-bit `v` operand),
// chosen from the top of each file so that they stay clear of registers the
// text names itself; the substituted text goes through LLVM's AMDGPU
// assembler (AmdgpuAssembler.h); each MCInst it gives is then emitted as
// the ROCDL or LLVM operations with its semantics (InlineAsmInstructions.cpp),
// reading and writing a model of the registers (here):
//   - in an asm without labels and branches, the registers are SSA values
//     (a register written with a whole vector and read back whole is that
//     vector: the "=v,0" optimisation barrier costs nothing);
//   - an asm with labels and branches becomes blocks of its function, its
//     registers i32 allocas of the function;
//   - registers the text names itself (M0, VCC, s0, ...) live in those
//     allocas across the asm statements of the function, as on the GPU
//     where nothing else claims them (FlyDSL's LDS DMA sets M0 in one
//     statement and advances it in the next).
// A memory operand that is a pointer input of the asm is used as that
// pointer (so the checks trace it to its kernel argument or LDS global)
// until the asm overwrites its registers.
//
//===----------------------------------------------------------------------===//

#include "InlineAsmToEmu.h"

#include "InlineAsmLowering.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fly::inline_asm;

namespace {

//===----------------------------------------------------------------------===//
// Constraints and operands
//===----------------------------------------------------------------------===//

/// One numbered operand's constraint: registers of a file, an immediate
/// (`i`, `n`: the constant is written into the text) or an input tied to an
/// output (`0`: the output's registers).
struct OperandConstraint {
  enum Kind { Registers, Immediate, Tied } kind = Registers;
  AsmRegister::File file = AsmRegister::Vgpr;
  unsigned tiedTo = 0;
};

struct Constraints {
  SmallVector<OperandConstraint> outputs, inputs;
};

/// Parses LLVM's constraint string: outputs (`=v`, `=&s`, `=a`), then
/// inputs (`v`, `s`, `a`, `i`, `n`, a tied output's number), then clobbers
/// (`~{memory}`, `~{vcc}`, `~{v0}`: the model needs nothing of them).
FailureOr<Constraints> parseConstraints(StringRef text, std::string &why) {
  Constraints result;
  if (text.trim().empty())
    return result;
  SmallVector<StringRef> entries;
  text.split(entries, ',');
  auto fileOf = [](StringRef code) -> std::optional<AsmRegister::File> {
    if (code == "v")
      return AsmRegister::Vgpr;
    if (code == "s")
      return AsmRegister::Sgpr;
    if (code == "a")
      return AsmRegister::Agpr;
    return std::nullopt;
  };
  bool clobbers = false;
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.starts_with("~{") && entry.ends_with("}")) {
      clobbers = true;
      continue;
    }
    const StringRef written = entry;
    auto unsupported = [&](StringRef what) {
      why = ("the constraint '" + written + "' " + what).str();
      return failure();
    };
    if (clobbers)
      return unsupported("follows a clobber (operands come first)");
    if (entry.consume_front("=")) {
      entry.consume_front("&"); // early clobber: no meaning for the model
      std::optional<AsmRegister::File> file = fileOf(entry);
      if (!file)
        return unsupported("is not an output the emulator binds (=v, =s, "
                           "=a)");
      if (!result.inputs.empty())
        return unsupported("is an output after an input");
      result.outputs.push_back({OperandConstraint::Registers, *file});
      continue;
    }
    unsigned tied;
    if (!entry.getAsInteger(10, tied)) {
      if (tied >= result.outputs.size())
        return unsupported("ties an input to an output that does not exist");
      result.inputs.push_back(
          {OperandConstraint::Tied, result.outputs[tied].file, tied});
      continue;
    }
    if (entry == "i" || entry == "n") {
      result.inputs.push_back({OperandConstraint::Immediate});
      continue;
    }
    std::optional<AsmRegister::File> file = fileOf(entry);
    if (!file)
      return unsupported("is not one the emulator binds (v, s, a, i, n, a "
                         "tied output's number, ~{clobber})");
    result.inputs.push_back({OperandConstraint::Registers, *file});
  }
  return result;
}

/// The 32-bit registers a value of `type` occupies (a 16-bit value takes
/// the low half of one), or 0 when an operand cannot have the type.
unsigned dwordsOf(Type type) {
  if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type)) {
    switch (ptr.getAddressSpace()) {
    case 3: // LDS and private addresses are 32 bits
    case 5:
      return 1;
    case 0:
    case 1:
    case 4:
      return 2;
    case 8: // a buffer resource (V#)
      return 4;
    default:
      return 0;
    }
  }
  unsigned bits = 0;
  if (type.isIntOrFloat())
    bits = type.getIntOrFloatBitWidth();
  else if (auto vector = dyn_cast<VectorType>(type);
           vector && vector.getRank() == 1 && !vector.isScalable() &&
           vector.getElementType().isIntOrFloat())
    bits = vector.getNumElements() *
           vector.getElementType().getIntOrFloatBitWidth();
  if (bits <= 1)
    return 0;
  if (bits <= 32)
    return 1;
  return bits % 32 == 0 ? bits / 32 : 0;
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// Bits of an integer or float type or a vector of them.
unsigned valueBits(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() *
           vector.getElementType().getIntOrFloatBitWidth();
  return type.getIntOrFloatBitWidth();
}

/// The assembler's spelling of `reg` (v7, s[4:7], a[0:3]).
std::string registerText(const AsmRegister &reg) {
  char letter = reg.file == AsmRegister::Vgpr   ? 'v'
                : reg.file == AsmRegister::Agpr ? 'a'
                                                : 's';
  if (reg.count == 1)
    return (Twine(letter) + Twine(reg.first)).str();
  return (Twine(letter) + "[" + Twine(reg.first) + ":" +
          Twine(reg.first + reg.count - 1) + "]")
      .str();
}

/// Gives operands registers from the top of each file down (the text's
/// own registers are usually low ones), aligned as tuples must be (pairs
/// even; SGPR quads and wider at multiples of 4).
class RegisterAllocator {
public:
  std::optional<AsmRegister> take(AsmRegister::File file, unsigned count) {
    unsigned &top = file == AsmRegister::Vgpr   ? vgprTop
                    : file == AsmRegister::Agpr ? agprTop
                                                : sgprTop;
    unsigned align = count == 1                                   ? 1
                     : file == AsmRegister::Sgpr && count >= 4 ? 4
                                                                  : 2;
    if (count > top)
      return std::nullopt;
    unsigned first = (top - count) / align * align;
    top = first;
    return AsmRegister{file, first, count};
  }

private:
  // v0-v255, a0-a255, s0-s101 (the SGPRs every chip has).
  unsigned vgprTop = 256, agprTop = 256, sgprTop = 102;
};

/// The text with each `$N` (or `${N}`) replaced by its operand's text and
/// `$$` by `$`.
FailureOr<std::string> substitute(StringRef text,
                                  ArrayRef<BoundOperand> operands,
                                  std::string &why) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      out += text[i];
      continue;
    }
    StringRef rest = text.drop_front(i + 1);
    if (rest.starts_with("$")) {
      out += '$';
      ++i;
      continue;
    }
    bool braced = rest.consume_front("{");
    size_t digits = 0;
    while (digits < rest.size() && llvm::isDigit(rest[digits]))
      ++digits;
    unsigned number;
    if (digits == 0 || rest.take_front(digits).getAsInteger(10, number) ||
        (braced && !rest.drop_front(digits).starts_with("}"))) {
      why = "the asm has a '$' that is not an operand reference ($N, ${N} "
            "or $$; operand modifiers are not supported)";
      return failure();
    }
    if (number >= operands.size()) {
      why = ("the asm names $" + Twine(number) + ", but has " +
             Twine(operands.size()) + " operands")
                .str();
      return failure();
    }
    out += operands[number].text;
    i += digits + (braced ? 2 : 0);
  }
  return out;
}

} // namespace

namespace mlir::fly::inline_asm {

//===----------------------------------------------------------------------===//
// Registers
//===----------------------------------------------------------------------===//

Value FunctionRegisters::slot(AsmRegister::File regFile, unsigned index) {
  Value &slot = slots[unitKey(regFile, index)];
  if (!slot) {
    OpBuilder top = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    Value one = LLVM::ConstantOp::create(top, loc, top.getI32Type(),
                                         top.getI32IntegerAttr(1));
    slot = LLVM::AllocaOp::create(
        top, loc, LLVM::LLVMPointerType::get(func.getContext(), 5),
        top.getI32Type(), one, 4);
  }
  return slot;
}

//===----------------------------------------------------------------------===//
// One asm statement
//===----------------------------------------------------------------------===//

LogicalResult AsmLowering::fail(const Twine &why) {
  op.emitError() << "inline asm for " << assembler.chip() << ": " << why;
  return failure();
}

LogicalResult AsmLowering::failAt(unsigned line, const Twine &why) {
  std::string text =
      line >= 1 && line <= lines.size() ? StringRef(lines[line - 1]).trim().str()
                                        : std::string();
  op.emitError() << "inline asm for " << assembler.chip()
                 << ": the emulator cannot run '" << text << "' (line "
                 << line << " of the asm): " << why;
  return failure();
}

LogicalResult AsmLowering::unsupported(const AsmStatement &statement,
                                       const Twine &why) {
  return failAt(statement.line, why);
}

LogicalResult AsmLowering::bindOperands() {
  if (op.getAsmDialect() &&
      *op.getAsmDialect() != LLVM::AsmDialect::AD_ATT)
    return fail("the asm dialect is not AMDGPU assembly (it is Intel's)");
  if (op.getOperandAttrs())
    return fail("indirect (memory) operands are not supported by the "
                "emulator");
  std::string why;
  FailureOr<Constraints> constraints =
      parseConstraints(op.getConstraints(), why);
  if (failed(constraints))
    return fail(why);
  numOutputs = constraints->outputs.size();
  // An asm without outputs may have one result of type !llvm.void (FlyDSL's
  // kernels build their `s_nop` / barrier asm so); it is no value.
  unsigned numResults = op.getNumResults();
  if (numResults == 1 && isa<LLVM::LLVMVoidType>(op.getResult(0).getType())) {
    if (!op.getResult(0).use_empty())
      return fail("its !llvm.void result is used");
    numResults = 0;
  }
  SmallVector<Type> outputTypes;
  if (numOutputs == 1 && numResults == 1) {
    outputTypes.push_back(op.getResult(0).getType());
  } else if (numOutputs > 1 && numResults == 1) {
    auto structType =
        dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType());
    if (!structType || structType.getBody().size() != numOutputs)
      return fail(Twine("the result is not a struct of its ") +
                  Twine(numOutputs) + " outputs");
    llvm::append_range(outputTypes, structType.getBody());
  } else if (numOutputs != numResults) {
    return fail(Twine("the constraints have ") + Twine(numOutputs) +
                " outputs, the op " + Twine(numResults) + " results");
  }
  if (constraints->inputs.size() != op.getOperands().size())
    return fail(Twine("the constraints have ") +
                Twine(constraints->inputs.size()) + " inputs, the op " +
                Twine(op.getOperands().size()) + " operands");

  RegisterAllocator allocator;
  auto allocate = [&](AsmRegister::File regFile, Type type,
                      unsigned number) -> FailureOr<AsmRegister> {
    unsigned dwords = dwordsOf(type);
    if (dwords == 0)
      return fail(Twine("operand $") + Twine(number) + " has the type " +
                  typeText(type) +
                  ", which is not a whole number of 32-bit registers (or "
                  "16 bits or less)");
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type);
        ptr && ptr.getAddressSpace() == 8 && regFile != AsmRegister::Sgpr)
      return fail(Twine("operand $") + Twine(number) +
                  " is a buffer resource in vector registers (the "
                  "hardware reads one from SGPRs: constraint 's')");
    std::optional<AsmRegister> reg = allocator.take(regFile, dwords);
    if (!reg)
      return fail("the operands need more registers than the chip has");
    return *reg;
  };
  for (auto [i, constraint] : llvm::enumerate(constraints->outputs)) {
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(outputTypes[i]);
        ptr && ptr.getAddressSpace() == 8)
      return fail(Twine("output $") + Twine(i) +
                  " is a buffer resource, which the emulator cannot make "
                  "from registers");
    FailureOr<AsmRegister> reg = allocate(constraint.file, outputTypes[i], i);
    if (failed(reg))
      return failure();
    operands.push_back({*reg, registerText(*reg), outputTypes[i], Value()});
  }
  for (auto [i, constraint] : llvm::enumerate(constraints->inputs)) {
    Value value = op.getOperands()[i];
    unsigned number = numOutputs + i;
    if (constraint.kind == OperandConstraint::Immediate) {
      APInt constant;
      if (!matchPattern(value, m_ConstantInt(&constant)))
        return fail(Twine("operand $") + Twine(number) +
                    " has an immediate constraint but is not a constant");
      operands.push_back({AsmRegister{AsmRegister::Null, 0, 0},
                          llvm::itostr(constant.getSExtValue()),
                          value.getType(), value});
      continue;
    }
    if (constraint.kind == OperandConstraint::Tied) {
      const BoundOperand &output = operands[constraint.tiedTo];
      if (dwordsOf(value.getType()) != output.reg.count)
        return fail(Twine("operand $") + Twine(number) + " is tied to $" +
                    Twine(constraint.tiedTo) + " but has another size");
      operands.push_back({output.reg, output.text, value.getType(), value});
      continue;
    }
    FailureOr<AsmRegister> reg = allocate(constraint.file, value.getType(),
                                          number);
    if (failed(reg))
      return failure();
    operands.push_back({*reg, registerText(*reg), value.getType(), value});
  }
  for (const BoundOperand &operand : operands)
    for (unsigned k = 0; k < operand.reg.count; ++k)
      operandUnits.insert(unitKey(operand.reg.file, operand.reg.first + k));
  return success();
}

/// A register the text names itself must not overlap an operand's
/// registers (it would alias the operand in the model).
LogicalResult AsmLowering::checkRegisterUse(const AssembledText &text) {
  for (const AsmStatement &statement : text.statements) {
    if (statement.label)
      continue;
    for (const llvm::MCOperand &operand : statement.inst) {
      if (!operand.isReg() || !operand.getReg())
        continue;
      std::optional<AsmRegister> named = assembler.decode(operand.getReg());
      if (!named)
        continue; // reported when the instruction runs
      for (auto [number, bound] : llvm::enumerate(operands)) {
        const AsmRegister &r = bound.reg;
        bool overlaps = r.file == named->file && r.count != 0 &&
                        named->first < r.first + r.count &&
                        r.first < named->first + named->count;
        if (overlaps && !(r == *named))
          return unsupported(
              statement,
              Twine("it names ") + assembler.registerName(operand.getReg()) +
                  ", which overlaps " + bound.text +
                  ", the emulator's registers of $" + Twine(number));
      }
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Registers
//===----------------------------------------------------------------------===//

Value AsmLowering::readUnit(AsmRegister::File regFile, unsigned index) {
  unsigned key = unitKey(regFile, index);
  if (inMemory)
    return LLVM::LoadOp::create(b, loc, i32, file.slot(regFile, index), 4);
  auto it = units.find(key);
  if (it == units.end()) {
    // Not written by this statement: a named register holds what an
    // earlier statement left; an operand's register nothing yet.
    Value value = operandUnits.contains(key)
                      ? Value(LLVM::PoisonOp::create(b, loc, i32))
                      : Value(LLVM::LoadOp::create(
                            b, loc, i32, file.slot(regFile, index), 4));
    it = units.insert({key, {value, 0}}).first;
  }
  const UnitValue &unit = it->second;
  if (unit.whole.getType() == i32)
    return unit.whole;
  return LLVM::ExtractElementOp::create(b, loc, unit.whole,
                                        constI32(unit.lane));
}

void AsmLowering::writeUnit(AsmRegister::File regFile, unsigned index,
                            Value whole, unsigned lane) {
  unsigned key = unitKey(regFile, index);
  if (inMemory) {
    Value word = whole.getType() == i32
                     ? whole
                     : Value(LLVM::ExtractElementOp::create(b, loc, whole,
                                                            constI32(lane)));
    LLVM::StoreOp::create(b, loc, word, file.slot(regFile, index), 4);
    return;
  }
  units[key] = {whole, lane};
  if (!operandUnits.contains(key))
    writtenNamed.insert(key);
}

/// The lanes of the wave this statement runs for (reading exec): a
/// ballot of true, as a wave64 pair or a wave32 word.
Value AsmLowering::wholeMask(const AsmRegister &reg) {
  Value trueValue = LLVM::ConstantOp::create(b, loc, b.getI1Type(),
                                             b.getBoolAttr(true));
  Value mask = ROCDL::BallotOp::create(b, loc, i64, trueValue);
  if (reg.count == 2)
    return LLVM::BitcastOp::create(b, loc, dwordsType(2), mask);
  if (reg.first == kExec + 1) // exec_hi
    mask = LLVM::LShrOp::create(b, loc, mask, constI64(32));
  return LLVM::TruncOp::create(b, loc, i32, mask);
}

Value AsmLowering::read(const AsmRegister &reg) {
  if (reg.file == AsmRegister::Null)
    return LLVM::ZeroOp::create(b, loc, dwordsType(reg.count));
  if (reg.file == AsmRegister::Sgpr && reg.first >= kExec &&
      reg.first < kExec + 2)
    return wholeMask(reg);
  if (reg.count == 1)
    return readUnit(reg.file, reg.first);
  if (!inMemory) {
    // A vector written whole and read back whole is that vector.
    auto first = units.find(unitKey(reg.file, reg.first));
    if (first != units.end()) {
      Value whole = first->second.whole;
      auto vector = dyn_cast<VectorType>(whole.getType());
      bool same = vector && vector.getNumElements() == int64_t(reg.count);
      for (unsigned k = 0; same && k < reg.count; ++k) {
        auto it = units.find(unitKey(reg.file, reg.first + k));
        same = it != units.end() && it->second.whole == whole &&
               it->second.lane == k;
      }
      if (same)
        return whole;
    }
  }
  Value out = LLVM::PoisonOp::create(b, loc, dwordsType(reg.count));
  for (unsigned k = 0; k < reg.count; ++k)
    out = LLVM::InsertElementOp::create(b, loc, out,
                                        readUnit(reg.file, reg.first + k),
                                        constI32(k));
  return out;
}

LogicalResult AsmLowering::write(const AsmRegister &reg, Value value) {
  if (reg.file == AsmRegister::Null)
    return success();
  if (reg.file == AsmRegister::Sgpr && reg.first < kExec + 2 &&
      reg.first + reg.count > kExec)
    return fail("an instruction writes exec, whose lanes the emulator does "
                "not switch");
  for (unsigned k = 0; k < reg.count; ++k)
    writeUnit(reg.file, reg.first + k, value, k);
  // A pointer input's registers no longer hold it.
  llvm::erase_if(pointers, [&](const auto &entry) {
    const AsmRegister &r = entry.first;
    return r.file == reg.file && reg.first < r.first + r.count &&
           r.first < reg.first + reg.count;
  });
  return success();
}

void AsmLowering::persistNamedRegisters() {
  for (unsigned key : writtenNamed) {
    auto regFile = AsmRegister::File(key >> 16);
    unsigned index = key & 0xffff;
    const UnitValue &unit = units[key];
    Value word = unit.whole.getType() == i32
                     ? unit.whole
                     : Value(LLVM::ExtractElementOp::create(
                           b, loc, unit.whole, constI32(unit.lane)));
    LLVM::StoreOp::create(b, loc, word, file.slot(regFile, index), 4);
  }
}

std::optional<AsmRegister> AsmLowering::reg(const llvm::MCOperand &operand) {
  if (!operand.isReg())
    return std::nullopt;
  return assembler.decode(operand.getReg());
}

/// A source operand: its registers, or an immediate in each of `dwords`
/// registers (a 64-bit scalar immediate is the sign-extended value).
Value AsmLowering::source(const llvm::MCOperand &operand, unsigned dwords) {
  if (operand.isImm()) {
    int64_t value = operand.getImm();
    if (dwords == 2)
      return LLVM::BitcastOp::create(b, loc, dwordsType(2), constI64(value));
    Value word = constI32(int32_t(value));
    if (dwords == 1)
      return word;
    Value out = LLVM::PoisonOp::create(b, loc, dwordsType(dwords));
    for (unsigned k = 0; k < dwords; ++k)
      out = LLVM::InsertElementOp::create(b, loc, out, word, constI32(k));
    return out;
  }
  std::optional<AsmRegister> r = reg(operand);
  if (!r)
    return Value();
  return read(*r);
}

/// A 32-bit float source with its VOP3 modifiers (neg, abs) applied.
Value AsmLowering::floatSource(const llvm::MCOperand &modifiers,
                               const llvm::MCOperand &operand) {
  Value bits = source(operand);
  if (!bits || !modifiers.isImm())
    return Value();
  Value value = LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
  constexpr int64_t kNeg = 1, kAbs = 2; // SISrcMods
  if (modifiers.getImm() & kAbs)
    value = LLVM::FAbsOp::create(b, loc, value);
  if (modifiers.getImm() & kNeg)
    value = LLVM::FNegOp::create(b, loc, value);
  return value;
}

LogicalResult AsmLowering::setDestination(const llvm::MCOperand &operand,
                                          Value value) {
  std::optional<AsmRegister> r = reg(operand);
  if (!r)
    return failure();
  return write(*r, value);
}

Value AsmLowering::knownPointer(const AsmRegister &reg) {
  for (const auto &[r, pointer] : pointers)
    if (r == reg)
      return pointer;
  return Value();
}

//===----------------------------------------------------------------------===//
// Values and registers
//===----------------------------------------------------------------------===//

/// `value` as the contents of its registers: i32 or vector<N x i32>.
Value AsmLowering::toDwords(Value value, unsigned dwords) {
  Type type = value.getType();
  Type target = dwordsType(dwords);
  if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type)) {
    if (ptr.getAddressSpace() == 8) // only used as a known pointer
      return LLVM::PoisonOp::create(b, loc, target);
    Value bits = LLVM::PtrToIntOp::create(b, loc, dwords == 1 ? i32 : i64,
                                          value);
    return dwords == 1 ? bits : LLVM::BitcastOp::create(b, loc, target, bits);
  }
  unsigned bits = valueBits(type);
  if (bits < 32) {
    Type narrow = b.getIntegerType(bits);
    Value raw = type == narrow ? value
                               : LLVM::BitcastOp::create(b, loc, narrow, value);
    return LLVM::ZExtOp::create(b, loc, i32, raw);
  }
  return type == target ? value : LLVM::BitcastOp::create(b, loc, target, value);
}

/// The value of `type` its registers hold.
Value AsmLowering::fromDwords(Value dwords, Type type) {
  if (auto cast = dwords.getDefiningOp<LLVM::BitcastOp>();
      cast && cast.getArg().getType() == type)
    return cast.getArg(); // what toDwords made of it
  if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type)) {
    Value bits = dwords.getType() == i32
                     ? dwords
                     : Value(LLVM::BitcastOp::create(b, loc, i64, dwords));
    return LLVM::IntToPtrOp::create(b, loc, type, bits);
  }
  unsigned bits = valueBits(type);
  if (bits < 32) {
    Type narrow = b.getIntegerType(bits);
    Value raw = LLVM::TruncOp::create(b, loc, narrow, dwords);
    return type == narrow ? raw : LLVM::BitcastOp::create(b, loc, type, raw);
  }
  return dwords.getType() == type
             ? dwords
             : LLVM::BitcastOp::create(b, loc, type, dwords);
}

LogicalResult AsmLowering::run() {
  StringRef asmText = op.getAsmString();
  for (StringRef line : llvm::split(asmText, '\n'))
    lines.push_back(line.str());
  if (failed(bindOperands()))
    return failure();
  std::string why;
  FailureOr<std::string> text = substitute(asmText, operands, why);
  if (failed(text))
    return fail(why);
  unsigned errorLine = 0;
  std::unique_ptr<AssembledText> assembled =
      assembler.assemble(*text, why, errorLine);
  if (!assembled)
    return failAt(errorLine, "LLVM's AMDGPU assembler rejects it: " + why);
  if (failed(checkRegisterUse(*assembled)))
    return failure();

  // Labels and branches: blocks of the function, registers in memory.
  for (const AsmStatement &statement : assembled->statements) {
    if (statement.label) {
      inMemory = true;
    } else {
      std::string name = assembler.mnemonic(statement.inst);
      if (StringRef(name) == "s_branch" ||
          StringRef(name).starts_with("s_cbranch_"))
        inMemory = true;
    }
  }
  if (inMemory) {
    if (!isa<LLVM::LLVMFuncOp>(op->getParentOp()))
      return fail("an asm with labels or branches must be in the body of a "
                  "function (its blocks become the function's)");
    after = op->getBlock()->splitBlock(op->getNextNode());
    for (const AsmStatement &statement : assembled->statements)
      if (statement.label) {
        auto *block = new Block();
        block->insertBefore(after);
        labelBlocks[statement.label] = block;
      }
  }

  // The inputs into their registers.
  for (const BoundOperand &operand : llvm::drop_begin(operands, numOutputs)) {
    if (operand.reg.count == 0)
      continue; // an immediate, in the text
    if (failed(write(operand.reg, toDwords(operand.input, operand.reg.count))))
      return failure();
  }
  for (const BoundOperand &operand : llvm::drop_begin(operands, numOutputs))
    if (isa<LLVM::LLVMPointerType>(operand.type) && operand.reg.count != 0)
      pointers.push_back({operand.reg, operand.input});

  for (const AsmStatement &statement : assembled->statements) {
    if (statement.label) {
      // Falling through into the label (after a branch, from the block
      // that follows it, which nothing reaches).
      Block *block = labelBlocks[statement.label];
      LLVM::BrOp::create(b, loc, ValueRange{}, block);
      b.setInsertionPointToStart(block);
      continue;
    }
    if (failed(execute(statement)))
      return failure();
  }

  // The outputs from their registers.
  SmallVector<Value> results;
  for (const BoundOperand &operand : ArrayRef(operands).take_front(numOutputs))
    results.push_back(fromDwords(read(operand.reg), operand.type));
  if (!inMemory)
    persistNamedRegisters();
  if (numOutputs > 1) {
    Value all = LLVM::UndefOp::create(b, loc, op.getResult(0).getType());
    for (auto [i, value] : llvm::enumerate(results))
      all = LLVM::InsertValueOp::create(b, loc, all, value,
                                        ArrayRef<int64_t>{int64_t(i)});
    results = {all};
  }
  if (inMemory)
    LLVM::BrOp::create(b, loc, ValueRange{}, after);
  if (numOutputs > 0)  // else no result, or an unused !llvm.void one
    op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

} // namespace mlir::fly::inline_asm

namespace mlir::fly {

LogicalResult lowerInlineAsmForEmulator(gpu::GPUModuleOp module,
                                        StringRef chip) {
  SmallVector<LLVM::InlineAsmOp> asms;
  module.walk([&](LLVM::InlineAsmOp op) { asms.push_back(op); });
  if (asms.empty())
    return success();
  std::string error;
  std::unique_ptr<AmdgpuAssembler> assembler;
  if (chip.empty())
    error = "the emulator assembles it for the kernel's chip; give the pass "
            "chip=... or the gpu.module a #rocdl.target";
  else
    assembler = AmdgpuAssembler::create(chip, error);
  if (!assembler) {
    for (LLVM::InlineAsmOp op : asms)
      op.emitError() << "inline asm: " << error;
    return failure();
  }
  llvm::DenseMap<Operation *, std::unique_ptr<FunctionRegisters>> files;
  bool ok = true;
  for (LLVM::InlineAsmOp op : asms) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!func) {
      op.emitError() << "inline asm outside a function, which the emulator "
                        "does not run";
      ok = false;
      continue;
    }
    std::unique_ptr<FunctionRegisters> &file = files[func];
    if (!file)
      file = std::make_unique<FunctionRegisters>(func);
    ok &= succeeded(AsmLowering(op, *assembler, *file).run());
  }
  return success(ok);
}

Value ldsAddressFromInteger(OpBuilder &b, Location loc, Value address,
                            Value ldsBase) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto width = cast<IntegerType>(address.getType()).getWidth();
  Value low = width == 32   ? address
              : width > 32 ? LLVM::TruncOp::create(b, loc, i32, address)
                                  .getResult()
                            : LLVM::ZExtOp::create(b, loc, i32, address)
                                  .getResult();
  Value base = LLVM::TruncOp::create(
      b, loc, i32, LLVM::PtrToIntOp::create(b, loc, i64, ldsBase));
  Value offset = LLVM::ZExtOp::create(
      b, loc, i64, LLVM::SubOp::create(b, loc, low, base));
  return LLVM::GEPOp::create(b, loc, ldsBase.getType(), b.getI8Type(),
                             ldsBase, ArrayRef<LLVM::GEPArg>{offset});
}

} // namespace mlir::fly
