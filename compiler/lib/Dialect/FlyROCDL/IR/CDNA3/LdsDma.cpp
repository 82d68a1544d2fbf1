//===- CDNA3/LdsDma.cpp - Buffer loads straight into LDS ------------------===//
//
// cdna3.buffer_copy_lds and the DMA lowering CDNA4's asynchronous loads
// share (LdsDma.h). A call is one lane's part of a wave-wide instruction:
// `buffer_load_dword v, s[rsrc], soffset offen offset:imm lds` reads the
// lane's dword(s) at voffset + soffset + imm (range-checked like any raw
// buffer load) and writes them to LDS at M0 + imm + lane * width, M0 being
// the LDS pointer LLVM reads from the first active lane. The instruction's
// offset field is an immediate, so imm_offset must be a constant.
//
//===----------------------------------------------------------------------===//

#include "LdsDma.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/BufferPointer.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
namespace flyd = ::mlir::fly;

namespace {

std::optional<flyd::AddressSpace> spaceOf(Type memref) {
  return cast<flyd::MemTensorType>(memref).getPointer().getKnownAddressSpace();
}

std::string describeSpace(Type memref) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << cast<flyd::MemTensorType>(memref).getAddressSpace();
  return text;
}

Value constantI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

} // namespace

LogicalResult
ldsdma::verifyWidth(function_ref<InFlightDiagnostic()> emitError,
                    StringRef api, int32_t bits, ArrayRef<int32_t> allowed) {
  if (llvm::is_contained(allowed, bits))
    return success();
  InFlightDiagnostic diag = emitError();
  diag << api << ": an LDS DMA moves ";
  for (size_t i = 0; i < allowed.size(); ++i)
    diag << (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ")
         << allowed[i];
  diag << " bits per lane, not " << bits
       << " (there is no 64-bit LDS DMA instruction)";
  return diag;
}

std::string ldsdma::checkSource(Type src, Source from) {
  if (from == Source::Buffer) {
    if (isBufferPointer(cast<flyd::MemTensorType>(src).getPointer()))
      return {};
    return "an LDS DMA from a buffer reads buffer memory (a tensor of "
           "fx.rocdl.make_buffer_tensor), not " +
           describeSpace(src) + " memory";
  }
  if (spaceOf(src) == flyd::AddressSpace::Global)
    return {};
  return "an LDS DMA from global memory reads a global tensor, not " +
         describeSpace(src) + " memory";
}

std::string ldsdma::checkDestination(Type dst) {
  if (spaceOf(dst) == flyd::AddressSpace::Shared)
    return {};
  return "an LDS DMA writes LDS (shared memory), not " + describeSpace(dst) +
         " memory";
}

LogicalResult ldsdma::emit(OpBuilder &b, Location loc, StringRef api,
                           Source from, int32_t bits, Value atom, Value src,
                           Type srcType, Value dst) {
  if (from == Source::Global) {
    OperationState state(loc, "rocdl.global.load.lds");
    state.addOperands({src, dst});
    state.addAttribute("size", b.getI32IntegerAttr(bits / 8));
    state.addAttribute("offset", b.getI32IntegerAttr(0));
    state.addAttribute("aux", b.getI32IntegerAttr(0));
    b.create(state);
    return success();
  }
  auto memref = cast<flyd::MemTensorType>(srcType);
  int64_t elementBytes = memref.getPointer().getElementByteSize();
  int64_t imm = 0;
  if (Value field = flyd::getAtomFieldValue(atom, "imm_offset")) {
    APInt value;
    if (!matchPattern(field, m_ConstantInt(&value)))
      return emitError(loc)
             << api
             << ": imm_offset must be a compile-time constant (it is the "
                "instruction's offset field, applied to both addresses)";
    imm = value.getSExtValue();
  }
  if (imm < 0 || imm > 4095)
    return emitError(loc) << api << ": imm_offset is the instruction's 12-bit "
                                    "unsigned offset field (0..4095 bytes), not "
                          << imm;
  // The fields are i32 (atom.set_value checks it).
  Value soffset = constantI32(b, loc, 0);
  if (Value field = flyd::getAtomFieldValue(atom, "soffset")) {
    soffset = field;
    if (elementBytes != 1)
      soffset = arith::MulIOp::create(b, loc, soffset,
                                      constantI32(b, loc, elementBytes));
  }
  OperationState state(loc, "rocdl.raw.ptr.buffer.load.lds");
  state.addOperands({getBufferRsrc(b, loc, src), dst,
                     constantI32(b, loc, bits / 8),
                     getBufferByteOffset(b, loc, src, elementBytes), soffset,
                     constantI32(b, loc, imm), constantI32(b, loc, 0)});
  b.create(state);
  return success();
}

//===----------------------------------------------------------------------===//
// cdna3.buffer_copy_lds
//===----------------------------------------------------------------------===//

LogicalResult
BufferCopyLDSCDNA3Type::verify(function_ref<InFlightDiagnostic()> emitError,
                               int32_t bits) {
  return ldsdma::verifyWidth(emitError, "cdna3.buffer_copy_lds", bits,
                             {32, 128});
}

algebra::CopyTraits
BufferCopyLDSCDNA3Type::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar, getBits());
}

std::string BufferCopyLDSCDNA3Type::getApiName() const {
  return "BufferCopyLDS" + std::to_string(getBits()) + "b";
}

bool BufferCopyLDSCDNA3Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return ldsdma::chipHas(chip, getBits());
}

SmallVector<std::pair<StringRef, Type>>
BufferCopyLDSCDNA3Type::getFields() const {
  Type i32 = IntegerType::get(getContext(), 32);
  return {{"soffset", i32}, {"imm_offset", i32}};
}

bool BufferCopyLDSCDNA3Type::isUntyped() const { return true; }

std::string BufferCopyLDSCDNA3Type::checkSource(Type src) const {
  return ldsdma::checkSource(src, ldsdma::Source::Buffer);
}

std::string BufferCopyLDSCDNA3Type::checkDestination(Type dst) const {
  return ldsdma::checkDestination(dst);
}

/// No register side: a call lowers whole (emitCopy).
Value BufferCopyLDSCDNA3Type::emitRead(OpBuilder &, Location, Value, Value,
                                       Type, int64_t) const {
  return Value();
}

LogicalResult BufferCopyLDSCDNA3Type::emitWrite(OpBuilder &, Location, Value,
                                                Value, Value, Type) const {
  return failure();
}

LogicalResult BufferCopyLDSCDNA3Type::emitCopy(OpBuilder &b, Location loc,
                                               Value atom, Value src,
                                               Type srcType, Value dst, Type,
                                               int64_t) const {
  return ldsdma::emit(b, loc, getApiName(), ldsdma::Source::Buffer, getBits(),
                      atom, src, srcType, dst);
}
