//===- CDNA4/CopyAtoms.cpp - gfx950 LDS loads and transpose reads ---------===//
//
// The asynchronous loads to LDS (lowered by CDNA3/LdsDma.h, in the widths
// gfx950's table has) and the transposing LDS reads. A read-transpose is a
// 16-lane instruction: the atom's threads are the 16 lanes of a row; lane t
// reads `bits` contiguous bits and holds, after the exchange, element
// t + 16 j of the row's elements (its lanes' reads one after the other).
//
//===----------------------------------------------------------------------===//

#include "../CDNA3/LdsDma.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
namespace flyd = ::mlir::fly;

namespace {

bool isCDNA4(const ::fly::arch::ChipInfo &chip) {
  return chip.family == ::fly::arch::ChipFamily::CDNA4;
}

constexpr int32_t kAsyncWidths[] = {32, 96, 128};

} // namespace

//===----------------------------------------------------------------------===//
// cdna4.buffer_load_async_lds
//===----------------------------------------------------------------------===//

LogicalResult BufferLoadAsyncLDSCDNA4Type::verify(
    function_ref<InFlightDiagnostic()> emitError, int32_t bits) {
  return ldsdma::verifyWidth(emitError, "cdna4.buffer_load_async_lds", bits,
                             kAsyncWidths);
}

algebra::CopyTraits
BufferLoadAsyncLDSCDNA4Type::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar, getBits());
}

std::string BufferLoadAsyncLDSCDNA4Type::getApiName() const {
  return "BufferLoadAsyncLDS" + std::to_string(getBits()) + "b";
}

bool BufferLoadAsyncLDSCDNA4Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return isCDNA4(chip) && ldsdma::chipHas(chip, getBits());
}

SmallVector<std::pair<StringRef, Type>>
BufferLoadAsyncLDSCDNA4Type::getFields() const {
  Type i32 = IntegerType::get(getContext(), 32);
  return {{"soffset", i32}, {"imm_offset", i32}};
}

bool BufferLoadAsyncLDSCDNA4Type::isUntyped() const { return true; }

std::string BufferLoadAsyncLDSCDNA4Type::checkSource(Type src) const {
  return ldsdma::checkSource(src, ldsdma::Source::Buffer);
}

std::string BufferLoadAsyncLDSCDNA4Type::checkDestination(Type dst) const {
  return ldsdma::checkDestination(dst);
}

Value BufferLoadAsyncLDSCDNA4Type::emitRead(OpBuilder &, Location, Value,
                                            Value, Type, int64_t) const {
  return Value();
}

LogicalResult BufferLoadAsyncLDSCDNA4Type::emitWrite(OpBuilder &, Location,
                                                     Value, Value, Value,
                                                     Type) const {
  return failure();
}

LogicalResult BufferLoadAsyncLDSCDNA4Type::emitCopy(OpBuilder &b, Location loc,
                                                    Value atom, Value src,
                                                    Type srcType, Value dst,
                                                    Type, int64_t) const {
  return ldsdma::emit(b, loc, getApiName(), ldsdma::Source::Buffer, getBits(),
                      atom, src, srcType, dst);
}

//===----------------------------------------------------------------------===//
// cdna4.global_load_async_lds
//===----------------------------------------------------------------------===//

LogicalResult GlobalLoadAsyncLDSCDNA4Type::verify(
    function_ref<InFlightDiagnostic()> emitError, int32_t bits) {
  return ldsdma::verifyWidth(emitError, "cdna4.global_load_async_lds", bits,
                             kAsyncWidths);
}

algebra::CopyTraits
GlobalLoadAsyncLDSCDNA4Type::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar, getBits());
}

std::string GlobalLoadAsyncLDSCDNA4Type::getApiName() const {
  return "GlobalLoadAsyncLDS" + std::to_string(getBits()) + "b";
}

bool GlobalLoadAsyncLDSCDNA4Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return isCDNA4(chip) && ldsdma::chipHas(chip, getBits());
}

bool GlobalLoadAsyncLDSCDNA4Type::isUntyped() const { return true; }

std::string GlobalLoadAsyncLDSCDNA4Type::checkSource(Type src) const {
  return ldsdma::checkSource(src, ldsdma::Source::Global);
}

std::string GlobalLoadAsyncLDSCDNA4Type::checkDestination(Type dst) const {
  return ldsdma::checkDestination(dst);
}

Value GlobalLoadAsyncLDSCDNA4Type::emitRead(OpBuilder &, Location, Value,
                                            Value, Type, int64_t) const {
  return Value();
}

LogicalResult GlobalLoadAsyncLDSCDNA4Type::emitWrite(OpBuilder &, Location,
                                                     Value, Value, Value,
                                                     Type) const {
  return failure();
}

LogicalResult GlobalLoadAsyncLDSCDNA4Type::emitCopy(OpBuilder &b, Location loc,
                                                    Value atom, Value src,
                                                    Type srcType, Value dst,
                                                    Type, int64_t) const {
  return ldsdma::emit(b, loc, getApiName(), ldsdma::Source::Global, getBits(),
                      atom, src, srcType, dst);
}

//===----------------------------------------------------------------------===//
// cdna4.lds_read_trans
//===----------------------------------------------------------------------===//

namespace {

/// The ROCDL op of an (element bits, bits per lane) pair, and the register
/// type it returns; empty for a pair no instruction has.
std::pair<StringRef, Type> transposeRead(MLIRContext *ctx, int32_t granularity,
                                         int32_t bits) {
  Type i32 = IntegerType::get(ctx, 32);
  if (granularity == 16 && bits == 64)
    return {"rocdl.ds.read.tr16.b64",
            VectorType::get({4}, IntegerType::get(ctx, 16))};
  if (granularity == 8 && bits == 64)
    return {"rocdl.ds.read.tr8.b64", VectorType::get({2}, i32)};
  if (granularity == 4 && bits == 64)
    return {"rocdl.ds.read.tr4.b64", VectorType::get({2}, i32)};
  if (granularity == 6 && bits == 96)
    return {"rocdl.ds.read.tr6.b96", VectorType::get({3}, i32)};
  return {};
}

} // namespace

LogicalResult
LdsReadTransCDNA4Type::verify(function_ref<InFlightDiagnostic()> emitError,
                              int32_t granularity, int32_t bits) {
  bool exists = (granularity == 16 && bits == 64) ||
                (granularity == 8 && bits == 64) ||
                (granularity == 4 && bits == 64) ||
                (granularity == 6 && bits == 96);
  if (!exists)
    return emitError() << "cdna4.lds_read_trans: no transposing LDS read has "
                       << granularity << "-bit elements and " << bits
                       << " bits per lane; the ones there are: (16, 64), "
                          "(8, 64), (4, 64) and (6, 96)";
  return success();
}

/// 16 threads; each reads `bits` contiguous bits (thread t at t * bits) and
/// holds element t + 16 j, j = 0 .. bits / g - 1 (bit t * g + 16 g j).
algebra::CopyTraits
LdsReadTransCDNA4Type::getCopyTraits(algebra::Arith &ar) const {
  using algebra::IntTuple;
  using algebra::Layout;
  int64_t g = getGranularity(), bits = getBits();
  Layout src{IntTuple::tuple({16, bits}), IntTuple::tuple({bits, 1})};
  Layout dst{IntTuple::tuple({16, IntTuple::tuple({g, bits / g})}),
             IntTuple::tuple({g, IntTuple::tuple({1, 16 * g})})};
  return {Layout(16, 1), src, dst, dst};
}

std::string LdsReadTransCDNA4Type::getApiName() const {
  return "LDSReadTrans(" + std::to_string(getGranularity()) + ", " +
         std::to_string(getBits()) + ")";
}

bool LdsReadTransCDNA4Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return isCDNA4(chip);
}

std::string LdsReadTransCDNA4Type::checkSource(Type src) const {
  if (cast<flyd::MemTensorType>(src).getPointer().getKnownAddressSpace() ==
      flyd::AddressSpace::Shared)
    return {};
  return "a transposing LDS read reads LDS (shared memory)";
}

std::string LdsReadTransCDNA4Type::checkDestination(Type dst) const {
  if (cast<flyd::MemTensorType>(dst).getPointer().getKnownAddressSpace() ==
      flyd::AddressSpace::Register)
    return {};
  return "a transposing LDS read writes registers (a fragment)";
}

/// The instruction on the lane's LDS address, as `count` source elements.
Value LdsReadTransCDNA4Type::emitRead(OpBuilder &b, Location loc, Value,
                                      Value src, Type srcType,
                                      int64_t count) const {
  auto [name, raw] =
      transposeRead(b.getContext(), getGranularity(), getBits());
  OperationState state(loc, name);
  state.addOperands(src);
  state.addTypes(raw);
  Value loaded = b.create(state)->getResult(0);
  auto values = VectorType::get(
      {count}, cast<flyd::MemTensorType>(srcType).getElementType());
  return LLVM::BitcastOp::create(b, loc, values, loaded);
}

LogicalResult LdsReadTransCDNA4Type::emitWrite(OpBuilder &b, Location loc,
                                               Value, Value values, Value dst,
                                               Type dstType) const {
  flyd::emitVectorStore(b, loc, values, dst,
                        cast<flyd::MemTensorType>(dstType));
  return success();
}
