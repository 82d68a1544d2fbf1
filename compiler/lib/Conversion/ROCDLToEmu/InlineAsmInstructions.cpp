//===- InlineAsmInstructions.cpp - AMDGPU instructions, emulated ----------===//
//
// What each instruction of an inline asm is on the emulator (AsmLowering's
// instruction half): the ROCDL op the emulator already runs where it has
// the instruction (s_barrier, MFMA, LDS DMA, transposing LDS reads, wave
// exchanges, buffer accesses), an LLVM load or store for a memory access
// (so that the alignment and FLYDSL_EMU_CHECK checks instrument it as any
// other), one LLVM op for scalar and vector arithmetic, and branches
// between the blocks of the asm's labels. The MCInst operand orders are
// those of LLVM's AMDGPU instruction definitions.
//
//===----------------------------------------------------------------------===//

#include "InlineAsmLowering.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCSymbol.h"

#include <cstring>

using namespace mlir;

namespace mlir::fly::inline_asm {

//===----------------------------------------------------------------------===//
// Instruction forms
//===----------------------------------------------------------------------===//

/// A load or store of LDS (DS), global or flat memory, or a buffer.
struct MemoryForm {
  StringLiteral name; // without its ds_ / global_ / flat_ / buffer_ prefix
  unsigned bytes;
  bool store = false;
  bool signExtend = false; // a narrow load that sign-extends
};

// The gfx9 names and the gfx11+ ones (ds_load_b32, ...).
constexpr MemoryForm kDsForms[] = {
    {"read_b32", 4},          {"read_b64", 8},
    {"read_b96", 12},         {"read_b128", 16},
    {"read_u8", 1},           {"read_i8", 1, false, true},
    {"read_u16", 2},          {"read_i16", 2, false, true},
    {"write_b8", 1, true},    {"write_b16", 2, true},
    {"write_b32", 4, true},   {"write_b64", 8, true},
    {"write_b96", 12, true},  {"write_b128", 16, true},
    {"load_b32", 4},          {"load_b64", 8},
    {"load_b96", 12},         {"load_b128", 16},
    {"load_u8", 1},           {"load_i8", 1, false, true},
    {"load_u16", 2},          {"load_i16", 2, false, true},
    {"store_b8", 1, true},    {"store_b16", 2, true},
    {"store_b32", 4, true},   {"store_b64", 8, true},
    {"store_b96", 12, true},  {"store_b128", 16, true},
};

constexpr MemoryForm kFlatForms[] = {
    {"load_dword", 4},         {"load_dwordx2", 8},
    {"load_dwordx3", 12},      {"load_dwordx4", 16},
    {"load_ubyte", 1},         {"load_sbyte", 1, false, true},
    {"load_ushort", 2},        {"load_sshort", 2, false, true},
    {"store_byte", 1, true},   {"store_short", 2, true},
    {"store_dword", 4, true},  {"store_dwordx2", 8, true},
    {"store_dwordx3", 12, true}, {"store_dwordx4", 16, true},
    {"load_b32", 4},           {"load_b64", 8},
    {"load_b96", 12},          {"load_b128", 16},
    {"load_u8", 1},            {"load_i8", 1, false, true},
    {"load_u16", 2},           {"load_i16", 2, false, true},
    {"store_b8", 1, true},     {"store_b16", 2, true},
    {"store_b32", 4, true},    {"store_b64", 8, true},
    {"store_b96", 12, true},   {"store_b128", 16, true},
};

constexpr MemoryForm kBufferForms[] = {
    {"load_dword", 4},         {"load_dwordx2", 8},
    {"load_dwordx3", 12},      {"load_dwordx4", 16},
    {"store_dword", 4, true},  {"store_dwordx2", 8, true},
    {"store_dwordx3", 12, true}, {"store_dwordx4", 16, true},
    {"load_b32", 4},           {"load_b64", 8},
    {"load_b96", 12},          {"load_b128", 16},
    {"store_b32", 4, true},    {"store_b64", 8, true},
    {"store_b96", 12, true},   {"store_b128", 16, true},
};

template <size_t N>
static const MemoryForm *findForm(const MemoryForm (&forms)[N], StringRef name) {
  for (const MemoryForm &form : forms)
    if (form.name == name)
      return &form;
  return nullptr;
}

/// gfx950's transposing LDS reads: the ROCDL op the emulator runs them as.
struct TransposeForm {
  StringLiteral mnemonic, op;
  unsigned dwords;
};
constexpr TransposeForm kTransposeForms[] = {
    {"ds_read_b64_tr_b4", "rocdl.ds.read.tr4.b64", 2},
    {"ds_read_b64_tr_b8", "rocdl.ds.read.tr8.b64", 2},
    {"ds_read_b64_tr_b16", "rocdl.ds.read.tr16.b64", 2},
    {"ds_read_b96_tr_b6", "rocdl.ds.read.tr6.b96", 3},
};

/// An MFMA: the ROCDL op the emulator runs it as and its accumulator's
/// element type.
struct MfmaForm {
  StringLiteral mnemonic, op;
  enum Accumulator : uint8_t { F32, I32, F64 } accumulator = F32;
  enum Kind : uint8_t { Plain, F8F6F4, Scaled } kind = Plain;
};
constexpr MfmaForm kMfmaForms[] = {
    // CDNA3 (gfx940 names), gfx942 and gfx950.
    {"v_mfma_f32_32x32x1_2b_f32", "rocdl.mfma.f32.32x32x1f32"},
    {"v_mfma_f32_16x16x1_4b_f32", "rocdl.mfma.f32.16x16x1f32"},
    {"v_mfma_f32_4x4x1_16b_f32", "rocdl.mfma.f32.4x4x1f32"},
    {"v_mfma_f32_32x32x2_f32", "rocdl.mfma.f32.32x32x2f32"},
    {"v_mfma_f32_16x16x4_f32", "rocdl.mfma.f32.16x16x4f32"},
    {"v_mfma_f32_32x32x4_2b_f16", "rocdl.mfma.f32.32x32x4f16"},
    {"v_mfma_f32_16x16x4_4b_f16", "rocdl.mfma.f32.16x16x4f16"},
    {"v_mfma_f32_4x4x4_16b_f16", "rocdl.mfma.f32.4x4x4f16"},
    {"v_mfma_f32_32x32x8_f16", "rocdl.mfma.f32.32x32x8f16"},
    {"v_mfma_f32_16x16x16_f16", "rocdl.mfma.f32.16x16x16f16"},
    {"v_mfma_f32_32x32x4_2b_bf16", "rocdl.mfma.f32.32x32x4bf16.1k"},
    {"v_mfma_f32_16x16x4_4b_bf16", "rocdl.mfma.f32.16x16x4bf16.1k"},
    {"v_mfma_f32_4x4x4_16b_bf16", "rocdl.mfma.f32.4x4x4bf16.1k"},
    {"v_mfma_f32_32x32x8_bf16", "rocdl.mfma.f32.32x32x8bf16.1k"},
    {"v_mfma_f32_16x16x16_bf16", "rocdl.mfma.f32.16x16x16bf16.1k"},
    {"v_mfma_i32_32x32x4_2b_i8", "rocdl.mfma.i32.32x32x4i8", MfmaForm::I32},
    {"v_mfma_i32_16x16x4_4b_i8", "rocdl.mfma.i32.16x16x4i8", MfmaForm::I32},
    {"v_mfma_i32_4x4x4_16b_i8", "rocdl.mfma.i32.4x4x4i8", MfmaForm::I32},
    {"v_mfma_i32_32x32x16_i8", "rocdl.mfma.i32.32x32x16.i8", MfmaForm::I32},
    {"v_mfma_i32_16x16x32_i8", "rocdl.mfma.i32.16x16x32.i8", MfmaForm::I32},
    {"v_mfma_f64_16x16x4_f64", "rocdl.mfma.f64.16x16x4f64", MfmaForm::F64},
    {"v_mfma_f64_4x4x4_4b_f64", "rocdl.mfma.f64.4x4x4f64", MfmaForm::F64},
    {"v_mfma_f32_16x16x8_xf32", "rocdl.mfma.f32.16x16x8.xf32"},
    {"v_mfma_f32_32x32x4_xf32", "rocdl.mfma.f32.32x32x4.xf32"},
    {"v_mfma_f32_16x16x32_fp8_fp8", "rocdl.mfma.f32.16x16x32.fp8.fp8"},
    {"v_mfma_f32_16x16x32_fp8_bf8", "rocdl.mfma.f32.16x16x32.fp8.bf8"},
    {"v_mfma_f32_16x16x32_bf8_fp8", "rocdl.mfma.f32.16x16x32.bf8.fp8"},
    {"v_mfma_f32_16x16x32_bf8_bf8", "rocdl.mfma.f32.16x16x32.bf8.bf8"},
    {"v_mfma_f32_32x32x16_fp8_fp8", "rocdl.mfma.f32.32x32x16.fp8.fp8"},
    {"v_mfma_f32_32x32x16_fp8_bf8", "rocdl.mfma.f32.32x32x16.fp8.bf8"},
    {"v_mfma_f32_32x32x16_bf8_fp8", "rocdl.mfma.f32.32x32x16.bf8.fp8"},
    {"v_mfma_f32_32x32x16_bf8_bf8", "rocdl.mfma.f32.32x32x16.bf8.bf8"},
    // CDNA4 (gfx950).
    {"v_mfma_f32_16x16x32_f16", "rocdl.mfma.f32.16x16x32.f16"},
    {"v_mfma_f32_32x32x16_f16", "rocdl.mfma.f32.32x32x16.f16"},
    {"v_mfma_f32_16x16x32_bf16", "rocdl.mfma.f32.16x16x32.bf16"},
    {"v_mfma_f32_32x32x16_bf16", "rocdl.mfma.f32.32x32x16.bf16"},
    {"v_mfma_i32_16x16x64_i8", "rocdl.mfma.i32.16x16x64.i8", MfmaForm::I32},
    {"v_mfma_i32_32x32x32_i8", "rocdl.mfma.i32.32x32x32.i8", MfmaForm::I32},
    // The f8f6f4 MFMAs: the scaled ROCDL op with scales of 1 (constant 0
    // operands, which the scaled op's lowering reads as unscaled).
    {"v_mfma_f32_16x16x128_f8f6f4", "rocdl.mfma.scale.f32.16x16x128.f8f6f4",
     MfmaForm::F32, MfmaForm::F8F6F4},
    {"v_mfma_f32_32x32x64_f8f6f4", "rocdl.mfma.scale.f32.32x32x64.f8f6f4",
     MfmaForm::F32, MfmaForm::F8F6F4},
    {"v_mfma_scale_f32_16x16x128_f8f6f4",
     "rocdl.mfma.scale.f32.16x16x128.f8f6f4", MfmaForm::F32, MfmaForm::Scaled},
    {"v_mfma_scale_f32_32x32x64_f8f6f4", "rocdl.mfma.scale.f32.32x32x64.f8f6f4",
     MfmaForm::F32, MfmaForm::Scaled},
};

/// Instructions with nothing to do on the emulator: waits on memory
/// counters (its memory operations complete in program order), scheduling
/// hints, and cache maintenance (the host's memory is coherent).
static bool isNoOp(StringRef mnemonic) {
  return mnemonic == "s_nop" || mnemonic.starts_with("s_waitcnt") ||
         mnemonic.starts_with("s_wait_") ||
         llvm::is_contained({"s_sleep", "s_setprio", "buffer_inv",
                             "buffer_wbl2", "buffer_wbinvl1",
                             "buffer_wbinvl1_vol", "buffer_gl0_inv",
                             "buffer_gl1_inv", "s_dcache_inv", "s_dcache_wb",
                             "s_icache_inv"},
                            mnemonic);
}

/// The two-source VALU operations the emulator runs as one LLVM op.
enum class Alu {
  None, Add, Sub, SubRev, MulLo, And, Or, Xor, ShlRev, LShrRev, AShrRev,
  FAdd, FSub, FMul
};
static Alu aluOf(StringRef mnemonic) {
  return llvm::StringSwitch<Alu>(mnemonic)
      .Case("v_add_u32", Alu::Add)
      .Case("v_sub_u32", Alu::Sub)
      .Case("v_subrev_u32", Alu::SubRev)
      .Case("v_mul_lo_u32", Alu::MulLo)
      .Case("v_and_b32", Alu::And)
      .Case("v_or_b32", Alu::Or)
      .Case("v_xor_b32", Alu::Xor)
      .Case("v_lshlrev_b32", Alu::ShlRev)
      .Case("v_lshrrev_b32", Alu::LShrRev)
      .Case("v_ashrrev_i32", Alu::AShrRev)
      .Case("v_add_f32", Alu::FAdd)
      .Case("v_sub_f32", Alu::FSub)
      .Case("v_mul_f32", Alu::FMul)
      .Default(Alu::None);
}

/// The SCC-setting comparison of s_cmp_<pred>_<type> / v_cmp_<pred>_<type>.
static std::optional<LLVM::ICmpPredicate> comparison(StringRef pred,
                                                      StringRef type) {
  bool isSigned = type == "i32";
  if (!isSigned && type != "u32")
    return std::nullopt;
  using P = LLVM::ICmpPredicate;
  if (pred == "eq")
    return P::eq;
  if (pred == "lg" || pred == "ne")
    return P::ne;
  if (pred == "lt")
    return isSigned ? P::slt : P::ult;
  if (pred == "le")
    return isSigned ? P::sle : P::ule;
  if (pred == "gt")
    return isSigned ? P::sgt : P::ugt;
  if (pred == "ge")
    return isSigned ? P::sge : P::uge;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The LDS address of a DS instruction: its address register plus the
/// instruction's offset; a pointer input (an LDS pointer) stays one.
Value AsmLowering::ldsAddress(const llvm::MCOperand &address, int64_t offset) {
  std::optional<AsmRegister> r = reg(address);
  if (!r)
    return Value();
  auto ldsPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  if (Value pointer = knownPointer(*r))
    return offset == 0 ? pointer
                       : LLVM::GEPOp::create(b, loc, ldsPtr, b.getI8Type(),
                                             pointer,
                                             ArrayRef<LLVM::GEPArg>{
                                                 int32_t(offset)})
                             .getResult();
  Value at = read(*r);
  if (offset != 0)
    at = LLVM::AddOp::create(b, loc, at, constI32(offset));
  return LLVM::IntToPtrOp::create(b, loc, ldsPtr, at);
}

/// The address of a global or flat access: the 64-bit vaddr, or the
/// 64-bit saddr plus the 32-bit vaddr offset, plus the instruction's
/// offset; a pointer input stays one.
Value AsmLowering::flatAddress(const AsmRegister &vaddr,
                               std::optional<AsmRegister> saddr,
                               int64_t offset, unsigned space) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), space);
  const AsmRegister &base = saddr ? *saddr : vaddr;
  Value add = offset != 0 ? constI64(offset) : Value();
  if (saddr) {
    Value index = LLVM::ZExtOp::create(b, loc, i64, read(vaddr));
    add = add ? LLVM::AddOp::create(b, loc, add, index).getResult() : index;
  }
  if (Value pointer = knownPointer(base)) {
    if (cast<LLVM::LLVMPointerType>(pointer.getType()).getAddressSpace() !=
        space)
      pointer = LLVM::AddrSpaceCastOp::create(b, loc, ptrType, pointer);
    return add ? LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), pointer,
                                     ArrayRef<LLVM::GEPArg>{add})
                     .getResult()
               : pointer;
  }
  Value bits = LLVM::BitcastOp::create(b, loc, i64, read(base));
  if (add)
    bits = LLVM::AddOp::create(b, loc, bits, add);
  return LLVM::IntToPtrOp::create(b, loc, ptrType, bits);
}

/// The access's value type: i8 / i16 for narrow ones, else dwords.
static Type accessType(OpBuilder &b, unsigned bytes) {
  if (bytes < 4)
    return b.getIntegerType(8 * bytes);
  return bytes == 4 ? Type(b.getI32Type())
                    : Type(VectorType::get({int64_t(bytes / 4)},
                                           b.getI32Type()));
}

/// Loads or stores `form` at `address`, from or into the registers `data`.
LogicalResult AsmLowering::accessMemory(const MemoryForm &form, Value address,
                                        const AsmRegister &data) {
  Type type = accessType(b, form.bytes);
  unsigned align = std::min(form.bytes, 4u);
  if (form.store) {
    Value value = read(data);
    if (form.bytes < 4)
      value = LLVM::TruncOp::create(b, loc, type, value);
    LLVM::StoreOp::create(b, loc, value, address, align);
    return success();
  }
  Value loaded = LLVM::LoadOp::create(b, loc, type, address, align);
  if (form.bytes < 4)
    loaded = form.signExtend
                 ? LLVM::SExtOp::create(b, loc, i32, loaded).getResult()
                 : LLVM::ZExtOp::create(b, loc, i32, loaded).getResult();
  return write(data, loaded);
}

/// ds_read_* / ds_write_* (vdst|addr, addr|data, offset, gds).
LogicalResult AsmLowering::lowerDs(const AsmStatement &s,
                                   const MemoryForm &form) {
  const llvm::MCInst &inst = s.inst;
  if (inst.getNumOperands() < 3 || !inst.getOperand(2).isImm())
    return unsupported(s, "its operands are not those of a DS access");
  if (inst.getNumOperands() > 3 && inst.getOperand(3).isImm() &&
      inst.getOperand(3).getImm() != 0)
    return unsupported(s, "it addresses GDS, which the emulator does not "
                          "have");
  std::optional<AsmRegister> data = reg(inst.getOperand(form.store ? 1 : 0));
  Value address = ldsAddress(inst.getOperand(form.store ? 0 : 1),
                             inst.getOperand(2).getImm());
  if (!address || !data)
    return unsupported(s, "its registers are not ones the emulator models");
  return accessMemory(form, address, *data);
}

/// gfx950's ds_read_b64_tr_b* / ds_read_b96_tr_b6 (vdst, addr, offset,
/// gds): the emulator's transposing read (rocdl.ds.read.tr*).
LogicalResult AsmLowering::lowerTranspose(const AsmStatement &s,
                                          const TransposeForm &form) {
  const llvm::MCInst &inst = s.inst;
  if (inst.getNumOperands() < 3 || !inst.getOperand(2).isImm())
    return unsupported(s, "its operands are not those of a DS access");
  Value address = ldsAddress(inst.getOperand(1), inst.getOperand(2).getImm());
  if (!address)
    return unsupported(s, "its registers are not ones the emulator models");
  OperationState state(loc, form.op);
  state.addOperands(address);
  state.addTypes(dwordsType(form.dwords));
  Operation *read = b.create(state);
  return setDestination(inst.getOperand(0), read->getResult(0));
}

/// global_* / flat_* loads and stores. Operands: (vdst, vaddr[, saddr],
/// offset, cpol) for a load, (vaddr, vdata[, saddr], offset, cpol) for a
/// store; the cache policy (sc0, sc1, nt, glc, slc) means nothing to the
/// emulator's coherent memory.
LogicalResult AsmLowering::lowerFlat(const AsmStatement &s,
                                     const MemoryForm &form, unsigned space) {
  const llvm::MCInst &inst = s.inst;
  unsigned n = inst.getNumOperands();
  if (n < 4)
    return unsupported(s, "its operands are not those of a memory access");
  std::optional<AsmRegister> first = reg(inst.getOperand(0)),
                             second = reg(inst.getOperand(1));
  // The saddr form: an SGPR pair after the load's vdst, after the store's
  // vdata.
  std::optional<AsmRegister> saddr;
  unsigned offsetIndex = 2;
  if (form.store && inst.getOperand(2).isReg()) {
    saddr = reg(inst.getOperand(2));
    offsetIndex = 3;
  } else if (!form.store && second && second->file == AsmRegister::Sgpr) {
    saddr = second;
    second = reg(inst.getOperand(2));
    offsetIndex = 3;
  }
  if (!first || !second || (saddr && saddr->count != 2) ||
      offsetIndex >= n || !inst.getOperand(offsetIndex).isImm())
    return unsupported(s, "its operands are not those of a memory access "
                          "the emulator models");
  const AsmRegister &vaddr = form.store ? *first : *second;
  const AsmRegister &data = form.store ? *second : *first;
  if (!saddr && vaddr.count != 2)
    return unsupported(s, "its address is not a 64-bit register pair");
  Value address = flatAddress(vaddr, saddr,
                              inst.getOperand(offsetIndex).getImm(), space);
  return accessMemory(form, address, data);
}

/// buffer_load_* / buffer_store_*, and the LDS DMA (buffer_load_* ... lds),
/// on a buffer resource the asm gets as an operand: the emulator's buffer
/// accesses (rocdl.raw.ptr.buffer.load / .store / .load.lds), with the
/// instruction's offset added to voffset (the LDS DMA takes it as its own
/// offset: it moves the LDS address too). Operands: (vdata, [vaddr,] srsrc,
/// soffset, offset, cpol, swz), the LDS DMA without vdata.
LogicalResult AsmLowering::lowerBuffer(const AsmStatement &s,
                                       const MemoryForm &form) {
  const llvm::MCInst &inst = s.inst;
  StringRef opcode = assembler.opcodeName(inst);
  bool lds = opcode.contains("_LDS_");
  bool offen = opcode.contains("_OFFEN");
  if (!offen && !opcode.contains("_OFFSET"))
    return unsupported(s, "its addressing mode (idxen, addr64) is not one "
                          "the emulator runs (offen, or an offset alone)");
  if (opcode.contains("_TFE"))
    return unsupported(s, "tfe is not supported by the emulator");
  unsigned at = lds ? 0 : 1;
  std::optional<AsmRegister> vaddr;
  if (offen)
    vaddr = reg(inst.getOperand(at++));
  if (inst.getNumOperands() < at + 3 || (offen && !vaddr))
    return unsupported(s, "its operands are not those of a buffer access");
  std::optional<AsmRegister> srsrc = reg(inst.getOperand(at));
  Value rsrc = srsrc ? knownPointer(*srsrc) : Value();
  if (!rsrc)
    return unsupported(s, "its buffer resource is not an operand of the asm "
                          "(the emulator runs buffer accesses on a resource "
                          "made outside it)");
  Value soffset = source(inst.getOperand(at + 1));
  const llvm::MCOperand &offsetOperand = inst.getOperand(at + 2);
  if (!soffset || !offsetOperand.isImm())
    return unsupported(s, "its operands are not those of a buffer access");
  int64_t offset = offsetOperand.getImm();
  Value voffset = vaddr ? read(*vaddr) : constI32(0);
  Value aux = constI32(0);
  if (lds) {
    // The LDS address is M0's (an integer LDS address).
    Value m0 = readUnit(AsmRegister::Sgpr, kM0);
    Value ldsPtr = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), m0);
    ROCDL::RawPtrBufferLoadLdsOp::create(b, loc, rsrc, ldsPtr,
                                         constI32(form.bytes), voffset,
                                         soffset, constI32(offset), aux,
                                         nullptr, nullptr, nullptr);
    return success();
  }
  if (offset != 0)
    voffset = LLVM::AddOp::create(b, loc, voffset, constI32(offset));
  std::optional<AsmRegister> vdata = reg(inst.getOperand(0));
  if (!vdata)
    return unsupported(s, "its registers are not ones the emulator models");
  Type type = dwordsType(form.bytes / 4);
  if (form.store) {
    ROCDL::RawPtrBufferStoreOp::create(b, loc, read(*vdata), rsrc, voffset,
                                       soffset, aux, nullptr, nullptr,
                                       nullptr);
    return success();
  }
  Value loaded = ROCDL::RawPtrBufferLoadOp::create(
      b, loc, type, rsrc, voffset, soffset, aux, nullptr, nullptr, nullptr);
  return write(*vdata, loaded);
}

//===----------------------------------------------------------------------===//
// Matrix instructions
//===----------------------------------------------------------------------===//

/// An MFMA as the ROCDL op of the emulator's matrix lowering. Operands:
/// (vdst, src0, src1, src2, cbsz, abid, blgp); the f8f6f4 forms (vdst,
/// src0, src1, src2, cbsz, blgp) and, scaled, then (scale_src0,
/// scale_src1, and their modifiers: op_sel in bit 2, op_sel_hi in bit 3,
/// which select the scale byte as the intrinsic's opsel 0-3). src2 may be
/// an inline constant (every element).
LogicalResult AsmLowering::lowerMfma(const AsmStatement &s,
                                     const MfmaForm &form) {
  const llvm::MCInst &inst = s.inst;
  unsigned want = form.kind == MfmaForm::Plain    ? 7
                  : form.kind == MfmaForm::F8F6F4 ? 6
                                                  : 10;
  if (inst.getNumOperands() != want)
    return unsupported(s, "its operands are not those of the MFMA the "
                          "emulator runs");
  std::optional<AsmRegister> d = reg(inst.getOperand(0)),
                             a = reg(inst.getOperand(1)),
                             bReg = reg(inst.getOperand(2));
  if (!d || !a || !bReg)
    return unsupported(s, "its registers are not ones the emulator models");
  for (unsigned i = 4; i < want; ++i)
    if (i < 6 || form.kind != MfmaForm::Scaled || i >= 8)
      if (!inst.getOperand(i).isImm())
        return unsupported(s, "its modifiers are not constants");
  Type element = form.accumulator == MfmaForm::F32   ? Type(b.getF32Type())
                 : form.accumulator == MfmaForm::I32 ? Type(i32)
                                                     : Type(b.getF64Type());
  int64_t elements =
      form.accumulator == MfmaForm::F64 ? d->count / 2 : d->count;
  Type accumulator = elements == 1 ? element
                                   : Type(VectorType::get({elements}, element));
  if (form.accumulator == MfmaForm::F64 && inst.getOperand(3).isImm() &&
      inst.getOperand(3).getImm() != 0)
    return unsupported(s, "the emulator takes no inline constant but 0 for "
                          "an f64 accumulator");
  Value c = source(inst.getOperand(3), d->count);
  if (!c)
    return unsupported(s, "its registers are not ones the emulator models");
  SmallVector<Value> args = {read(*a), read(*bReg),
                             fromDwords(c, accumulator)};
  auto imm = [&](unsigned i) { return inst.getOperand(i).getImm(); };
  if (form.kind == MfmaForm::Plain) {
    for (unsigned i : {4u, 5u, 6u})
      args.push_back(constI32(imm(i)));
  } else {
    args.push_back(constI32(imm(4))); // cbsz: A's format
    args.push_back(constI32(imm(5))); // blgp: B's format
    if (form.kind == MfmaForm::F8F6F4) {
      for (int i = 0; i < 4; ++i) // opsel and scale of A, then of B: none
        args.push_back(constI32(0));
    } else {
      auto opsel = [&](int64_t modifiers) {
        return int64_t((modifiers >> 2) & 1) | ((modifiers >> 3) & 1) << 1;
      };
      for (unsigned i : {6u, 7u}) {
        Value scale = source(inst.getOperand(i));
        if (!scale)
          return unsupported(s, "its scale operands are not registers the "
                                "emulator models");
        // A constant scale stays a value: the scaled lowering reads two
        // constant 0 scales as the unscaled instruction, and an E8M0 0 is
        // 2^-127.
        if (inst.getOperand(i).isImm())
          scale = LLVM::FreezeOp::create(b, loc, scale);
        args.push_back(constI32(opsel(imm(i + 2))));
        args.push_back(scale);
      }
    }
  }
  OperationState state(loc, form.op);
  state.addOperands(args);
  state.addTypes(accumulator);
  Operation *mfma = b.create(state);
  return write(*d, toDwords(mfma->getResult(0), d->count));
}

//===----------------------------------------------------------------------===//
// Scalar and vector ALU
//===----------------------------------------------------------------------===//

/// SOP1 / SOP2 / SOPC: s_mov, 32-bit integer arithmetic and logic (with
/// SCC as the hardware sets it) and s_cmp (SCC).
LogicalResult AsmLowering::lowerScalar(const AsmStatement &s,
                                       StringRef mnemonic) {
  const llvm::MCInst &inst = s.inst;
  auto setScc = [&](Value bit) {
    return write(AsmRegister{AsmRegister::Scc, 0, 1},
                 LLVM::ZExtOp::create(b, loc, i32, bit));
  };
  auto operandsFit = [&](unsigned n) {
    if (inst.getNumOperands() != n)
      return false;
    for (unsigned i = 0; i < n; ++i)
      if (!inst.getOperand(i).isImm() && !reg(inst.getOperand(i)))
        return false;
    return true;
  };
  SmallVector<StringRef> parts;
  mnemonic.split(parts, '_');
  if (parts.size() == 4 && parts[1] == "cmp") {
    std::optional<LLVM::ICmpPredicate> predicate =
        comparison(parts[2], parts[3]);
    if (!predicate || !operandsFit(2))
      return unsupported(s, "the emulator has no semantics for this "
                            "comparison");
    return setScc(LLVM::ICmpOp::create(b, loc, *predicate,
                                       source(inst.getOperand(0)),
                                       source(inst.getOperand(1))));
  }
  if (mnemonic == "s_mov_b32" || mnemonic == "s_mov_b64") {
    unsigned dwords = mnemonic == "s_mov_b64" ? 2 : 1;
    if (!operandsFit(2))
      return unsupported(s, "its operands are not those of s_mov");
    return setDestination(inst.getOperand(0),
                          source(inst.getOperand(1), dwords));
  }
  if (!operandsFit(3))
    return unsupported(s, "the emulator has no semantics for it");
  Value x = source(inst.getOperand(1)), y = source(inst.getOperand(2));
  Value result, scc;
  auto nonZero = [&](Value v) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v,
                                constI32(0));
  };
  auto shift = [&](Value amount) {
    return LLVM::AndOp::create(b, loc, amount, constI32(31));
  };
  if (mnemonic == "s_add_u32" || mnemonic == "s_sub_u32") {
    bool add = mnemonic == "s_add_u32";
    result = add ? LLVM::AddOp::create(b, loc, x, y).getResult()
                 : LLVM::SubOp::create(b, loc, x, y).getResult();
    // The carry out (add) or the borrow (sub).
    scc = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                               add ? result : x, add ? x : y);
  } else if (mnemonic == "s_add_i32" || mnemonic == "s_sub_i32") {
    bool add = mnemonic == "s_add_i32";
    result = add ? LLVM::AddOp::create(b, loc, x, y).getResult()
                 : LLVM::SubOp::create(b, loc, x, y).getResult();
    // Signed overflow: the result's sign differs from x's where y's sign
    // is x's (add) or is not (sub).
    Value zero = constI32(0);
    auto negative = [&](Value v) {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, v, zero);
    };
    Value sameInputs = LLVM::ICmpOp::create(
        b, loc, add ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::ne,
        negative(x), negative(y));
    Value flipped = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                                         negative(x), negative(result));
    scc = LLVM::AndOp::create(b, loc, sameInputs, flipped);
  } else if (mnemonic == "s_mul_i32") {
    result = LLVM::MulOp::create(b, loc, x, y);
  } else if (mnemonic == "s_and_b32") {
    result = LLVM::AndOp::create(b, loc, x, y);
  } else if (mnemonic == "s_or_b32") {
    result = LLVM::OrOp::create(b, loc, x, y);
  } else if (mnemonic == "s_xor_b32") {
    result = LLVM::XOrOp::create(b, loc, x, y);
  } else if (mnemonic == "s_lshl_b32") {
    result = LLVM::ShlOp::create(b, loc, x, shift(y));
  } else if (mnemonic == "s_lshr_b32") {
    result = LLVM::LShrOp::create(b, loc, x, shift(y));
  } else if (mnemonic == "s_ashr_i32") {
    result = LLVM::AShrOp::create(b, loc, x, shift(y));
  } else {
    return unsupported(s, "the emulator has no semantics for it");
  }
  if (!scc && mnemonic != "s_mul_i32")
    scc = nonZero(result); // the logic ops and shifts set SCC = result != 0
  if (failed(setDestination(inst.getOperand(0), result)))
    return failure();
  return scc ? setScc(scc) : success();
}

/// VALU: v_mov_b32, 32-bit integer and float arithmetic, v_cvt_pk_bf16_f32,
/// v_cmp_* on integers (a lane mask, as the wave's ballot of the lanes'
/// results), v_cndmask_b32 (this lane's bit of a mask), v_readfirstlane /
/// v_readlane and ds_bpermute (the emulator's wave exchanges).
LogicalResult AsmLowering::lowerVector(const AsmStatement &s,
                                       StringRef mnemonic) {
  const llvm::MCInst &inst = s.inst;
  unsigned n = inst.getNumOperands();
  auto isSource = [&](unsigned i) {
    return i < n && (inst.getOperand(i).isImm() || reg(inst.getOperand(i)));
  };
  AsmRegister vcc{AsmRegister::Sgpr, kVcc, assembler.wave32() ? 1u : 2u};

  if (mnemonic == "v_cvt_pk_bf16_f32") {
    // (vdst, mods0, src0, mods1, src1, clamp, omod): bf16(src0) in the low
    // half, bf16(src1) in the high one, rounded to nearest even (LLVM's
    // fptrunc, which the backend selects this instruction for).
    if (n != 7 || !inst.getOperand(5).isImm() || !inst.getOperand(6).isImm())
      return unsupported(s, "its operands are not those of v_cvt_pk_bf16_f32");
    if (inst.getOperand(5).getImm() != 0 || inst.getOperand(6).getImm() != 0)
      return unsupported(s, "clamp and omod are not supported by the "
                            "emulator");
    Value lo = floatSource(inst.getOperand(1), inst.getOperand(2));
    Value hi = floatSource(inst.getOperand(3), inst.getOperand(4));
    if (!lo || !hi)
      return unsupported(s, "its registers are not ones the emulator models");
    auto pair = VectorType::get({2}, b.getF32Type());
    Value both = LLVM::PoisonOp::create(b, loc, pair);
    both = LLVM::InsertElementOp::create(b, loc, both, lo, constI32(0));
    both = LLVM::InsertElementOp::create(b, loc, both, hi, constI32(1));
    Value packed = LLVM::FPTruncOp::create(
        b, loc, VectorType::get({2}, b.getBF16Type()), both);
    return setDestination(inst.getOperand(0),
                          LLVM::BitcastOp::create(b, loc, i32, packed));
  }

  if (mnemonic == "v_readfirstlane_b32" || mnemonic == "v_readlane_b32") {
    bool first = mnemonic == "v_readfirstlane_b32";
    if (n != (first ? 2u : 3u) || !isSource(1) || (!first && !isSource(2)))
      return unsupported(s, "its operands are not those of a lane read");
    Value value = source(inst.getOperand(1));
    Value result =
        first ? ROCDL::ReadfirstlaneOp::create(b, loc, i32, value).getResult()
              : ROCDL::ReadlaneOp::create(b, loc, i32, value,
                                          source(inst.getOperand(2)))
                    .getResult();
    return setDestination(inst.getOperand(0), result);
  }

  if (mnemonic == "ds_bpermute_b32") {
    // (vdst, addr, data, offset): the lane's byte address plus the offset.
    if (n != 4 || !isSource(1) || !isSource(2) || !inst.getOperand(3).isImm())
      return unsupported(s, "its operands are not those of ds_bpermute_b32");
    Value index = LLVM::AddOp::create(b, loc, source(inst.getOperand(1)),
                                      constI32(inst.getOperand(3).getImm()));
    Value result = ROCDL::DsBpermuteOp::create(b, loc, i32, index,
                                               source(inst.getOperand(2)));
    return setDestination(inst.getOperand(0), result);
  }

  SmallVector<StringRef> parts;
  mnemonic.split(parts, '_');
  if (parts.size() == 4 && parts[1] == "cmp") {
    // e64: (sdst, src0, src1); e32: (src0, src1), the mask in VCC.
    std::optional<LLVM::ICmpPredicate> predicate =
        comparison(parts[2], parts[3]);
    bool e64 = n == 3;
    if (!predicate || !(n == 2 || e64) || !isSource(n - 2) || !isSource(n - 1))
      return unsupported(s, "the emulator runs v_cmp only on 32-bit integers");
    Value bit = LLVM::ICmpOp::create(b, loc, *predicate,
                                     source(inst.getOperand(n - 2)),
                                     source(inst.getOperand(n - 1)));
    std::optional<AsmRegister> dst = e64 ? reg(inst.getOperand(0)) : vcc;
    if (!dst || dst->count > 2)
      return unsupported(s, "its destination is not a lane mask register");
    Value mask = ROCDL::BallotOp::create(b, loc, dst->count == 2 ? i64 : i32,
                                         bit);
    if (dst->count == 2)
      mask = LLVM::BitcastOp::create(b, loc, dwordsType(2), mask);
    return write(*dst, mask);
  }

  if (mnemonic == "v_cndmask_b32") {
    // e32: (vdst, src0, vsrc1), the mask in VCC; e64: (vdst, mods0, src0,
    // mods1, src1, mask). The result is src1 where the lane's bit is set.
    bool e64 = n == 6;
    if (!(n == 3 || e64))
      return unsupported(s, "its operands are not those of v_cndmask_b32");
    unsigned src0 = e64 ? 2 : 1, src1 = e64 ? 4 : 2;
    Value x = e64 ? floatSource(inst.getOperand(1), inst.getOperand(2))
                  : source(inst.getOperand(src0));
    Value y = e64 ? floatSource(inst.getOperand(3), inst.getOperand(4))
                  : source(inst.getOperand(src1));
    std::optional<AsmRegister> maskReg = e64 ? reg(inst.getOperand(5)) : vcc;
    if (!x || !y || !maskReg)
      return unsupported(s, "its registers are not ones the emulator models");
    if (e64) {
      // Modifiers apply to the 32 bits as a float; without them the bits
      // pass unchanged.
      x = LLVM::BitcastOp::create(b, loc, i32, x);
      y = LLVM::BitcastOp::create(b, loc, i32, y);
    }
    Value bit = laneMaskBit(read(*maskReg));
    return setDestination(inst.getOperand(0),
                          LLVM::SelectOp::create(b, loc, bit, y, x));
  }

  if (mnemonic == "v_mov_b32") {
    if (n != 2 || !isSource(1))
      return unsupported(s, "its operands are not those of v_mov_b32");
    return setDestination(inst.getOperand(0), source(inst.getOperand(1)));
  }

  // Two-source ALU ops: e32 (vdst, src0, src1); VOP3-only integer ops and
  // e64 forms without modifiers (vdst, src0, src1[, clamp 0]).
  Alu alu = aluOf(mnemonic);
  if (alu == Alu::None)
    return unsupported(s, "the emulator has no semantics for it");
  bool plain = (n == 3 || (n == 4 && inst.getOperand(3).isImm() &&
                           inst.getOperand(3).getImm() == 0)) &&
               isSource(1) && isSource(2);
  if (!plain)
    return unsupported(s, "the emulator runs it without modifiers or clamp "
                          "only");
  Value x = source(inst.getOperand(1)), y = source(inst.getOperand(2));
  auto asFloat = [&](Value v) {
    return LLVM::BitcastOp::create(b, loc, b.getF32Type(), v).getResult();
  };
  auto shift = [&](Value amount) { // the shift amount comes first
    return LLVM::AndOp::create(b, loc, amount, constI32(31)).getResult();
  };
  Value result;
  switch (alu) {
  case Alu::Add: result = LLVM::AddOp::create(b, loc, x, y); break;
  case Alu::Sub: result = LLVM::SubOp::create(b, loc, x, y); break;
  case Alu::SubRev: result = LLVM::SubOp::create(b, loc, y, x); break;
  case Alu::MulLo: result = LLVM::MulOp::create(b, loc, x, y); break;
  case Alu::And: result = LLVM::AndOp::create(b, loc, x, y); break;
  case Alu::Or: result = LLVM::OrOp::create(b, loc, x, y); break;
  case Alu::Xor: result = LLVM::XOrOp::create(b, loc, x, y); break;
  case Alu::ShlRev: result = LLVM::ShlOp::create(b, loc, y, shift(x)); break;
  case Alu::LShrRev: result = LLVM::LShrOp::create(b, loc, y, shift(x)); break;
  case Alu::AShrRev: result = LLVM::AShrOp::create(b, loc, y, shift(x)); break;
  case Alu::FAdd:
    result = LLVM::FAddOp::create(b, loc, asFloat(x), asFloat(y));
    break;
  case Alu::FSub:
    result = LLVM::FSubOp::create(b, loc, asFloat(x), asFloat(y));
    break;
  case Alu::FMul:
    result = LLVM::FMulOp::create(b, loc, asFloat(x), asFloat(y));
    break;
  case Alu::None:
    llvm_unreachable("rejected above");
  }
  if (isa<FloatType>(result.getType()))
    result = LLVM::BitcastOp::create(b, loc, i32, result);
  return setDestination(inst.getOperand(0), result);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// s_branch / s_cbranch_{scc0,scc1,vccz,vccnz,execz,execnz} to a label of
/// the asm: a branch between the blocks the labels start.
LogicalResult AsmLowering::lowerBranch(const AsmStatement &s,
                                       StringRef mnemonic) {
  const llvm::MCInst &inst = s.inst;
  const auto *target =
      inst.getNumOperands() == 1 && inst.getOperand(0).isExpr()
          ? dyn_cast<llvm::MCSymbolRefExpr>(inst.getOperand(0).getExpr())
          : nullptr;
  auto found = target ? labelBlocks.find(&target->getSymbol())
                      : labelBlocks.end();
  if (found == labelBlocks.end())
    return unsupported(s, "it branches to no label of the asm");
  Block *dest = found->second;
  auto *next = new Block();
  next->insertBefore(after);
  if (mnemonic == "s_branch") {
    LLVM::BrOp::create(b, loc, ValueRange{}, dest);
  } else {
    StringRef condition = mnemonic.drop_front(strlen("s_cbranch_"));
    Value bit;
    if (condition == "scc0" || condition == "scc1") {
      Value scc = readUnit(AsmRegister::Scc, 0);
      bit = LLVM::ICmpOp::create(
          b, loc,
          condition == "scc1" ? LLVM::ICmpPredicate::ne
                              : LLVM::ICmpPredicate::eq,
          scc, constI32(0));
    } else if (condition == "vccz" || condition == "vccnz" ||
               condition == "execz" || condition == "execnz") {
      bool exec = condition.starts_with("exec");
      AsmRegister mask{AsmRegister::Sgpr, exec ? kExec : kVcc,
                       assembler.wave32() ? 1u : 2u};
      Value value = read(mask);
      if (value.getType() != i32)
        value = LLVM::BitcastOp::create(b, loc, i64, value);
      Value zero = LLVM::ConstantOp::create(
          b, loc, value.getType(), b.getIntegerAttr(value.getType(), 0));
      bit = LLVM::ICmpOp::create(
          b, loc,
          condition.ends_with("nz") ? LLVM::ICmpPredicate::ne
                                    : LLVM::ICmpPredicate::eq,
          value, zero);
    } else {
      return unsupported(s, "the emulator has no semantics for this branch");
    }
    LLVM::CondBrOp::create(b, loc, bit, dest, ValueRange{}, next,
                           ValueRange{});
  }
  b.setInsertionPointToStart(next);
  return success();
}

LogicalResult AsmLowering::execute(const AsmStatement &s) {
  std::string name = assembler.mnemonic(s.inst);
  StringRef mnemonic = name;
  if (isNoOp(mnemonic))
    return success();
  if (mnemonic == "s_barrier") {
    ROCDL::SBarrierOp::create(b, loc);
    return success();
  }
  if (mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch_"))
    return lowerBranch(s, mnemonic);
  for (const TransposeForm &form : kTransposeForms)
    if (form.mnemonic == mnemonic)
      return lowerTranspose(s, form);
  for (const MfmaForm &form : kMfmaForms)
    if (form.mnemonic == mnemonic)
      return lowerMfma(s, form);
  if (StringRef rest = mnemonic; rest.consume_front("ds_"))
    if (const MemoryForm *form = findForm(kDsForms, rest))
      return lowerDs(s, *form);
  for (auto [prefix, space] : {std::pair<StringRef, unsigned>{"global_", 1},
                               {"flat_", 0}})
    if (StringRef rest = mnemonic; rest.consume_front(prefix))
      if (const MemoryForm *form = findForm(kFlatForms, rest))
        return lowerFlat(s, *form, space);
  if (StringRef rest = mnemonic; rest.consume_front("buffer_"))
    if (const MemoryForm *form = findForm(kBufferForms, rest))
      return lowerBuffer(s, *form);
  if (mnemonic.starts_with("s_"))
    return lowerScalar(s, mnemonic);
  if (mnemonic.starts_with("v_") || mnemonic == "ds_bpermute_b32")
    return lowerVector(s, mnemonic);
  return unsupported(s, "the emulator has no semantics for it");
}


/// This lane's bit of a lane mask (i32 for wave32, vector<2xi32> for
/// wave64), as an i1. The lane id is mbcnt's, as the GPU computes it.
Value AsmLowering::laneMaskBit(Value mask) {
  Value all = constI32(-1);
  Value lane = ROCDL::MbcntLoOp::create(b, loc, i32, all, constI32(0),
                                        nullptr, nullptr);
  Value wide = mask;
  if (mask.getType() != i32) {
    lane = ROCDL::MbcntHiOp::create(b, loc, i32, all, lane, nullptr, nullptr);
    wide = LLVM::BitcastOp::create(b, loc, i64, mask);
  } else {
    wide = LLVM::ZExtOp::create(b, loc, i64, mask);
  }
  Value shifted = LLVM::LShrOp::create(
      b, loc, wide, LLVM::ZExtOp::create(b, loc, i64, lane));
  return LLVM::TruncOp::create(b, loc, b.getI1Type(), shifted);
}

} // namespace mlir::fly::inline_asm
