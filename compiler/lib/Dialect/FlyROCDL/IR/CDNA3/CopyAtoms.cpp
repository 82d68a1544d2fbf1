//===- CDNA3/CopyAtoms.cpp - Buffer memory and buffer copies --------------===//
//
// Buffer memory (#fly_rocdl.buffer_desc, make_buffer_ptr, get_buffer_rsrc)
// and the copy operations on it: raw buffer loads and stores
// (rocdl.raw.ptr.buffer.load/store) and buffer atomics. A buffer pointer
// is, at the LLVM level, its resource and an i32 offset in elements
// (BufferPointer.h); an access gives the instruction the offset in bytes
// as its vector offset (plus the atom's imm_offset), the atom's soffset
// (in elements, scaled to bytes) as its scalar offset -- without one, the
// wave-uniform terms of the offset where range checks allow
// (BufferOffsets.h) -- and the atom's cache bits as its aux operand. The
// hardware checks every access against the resource's num_records: that
// is what the range checks of the emulator model (runtime/emu/Buffer.cpp).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/BufferPointer.h"

#include "BufferOffsets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
namespace flyd = ::mlir::fly;

#define GET_ATTRDEF_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLOps.cpp.inc"

void FlyROCDLDialect::registerBufferMemory() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLOps.cpp.inc"
      >();
}

bool mlir::fly_rocdl::isBufferPointer(Type type) {
  auto pointer = dyn_cast<flyd::PointerType>(type);
  return pointer && isa<BufferDescAttr>(pointer.getAddressSpace());
}

/// Whether a memref type is in buffer memory.
static bool inBufferMemory(Type memref) {
  auto type = dyn_cast<flyd::MemTensorType>(memref);
  return type && isBufferPointer(type.getPointer());
}

//===----------------------------------------------------------------------===//
// Buffer pointers at the LLVM level (BufferPointer.h)
//===----------------------------------------------------------------------===//

LLVM::LLVMStructType mlir::fly_rocdl::getBufferPointerLLVMType(MLIRContext *ctx) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, {LLVM::LLVMPointerType::get(ctx, 8), IntegerType::get(ctx, 32)});
}

Value mlir::fly_rocdl::packBufferPointer(OpBuilder &b, Location loc, Value rsrc,
                                         Value offset) {
  Value pointer = LLVM::UndefOp::create(
      b, loc, getBufferPointerLLVMType(b.getContext()));
  pointer = LLVM::InsertValueOp::create(b, loc, pointer, rsrc,
                                        ArrayRef<int64_t>{0});
  return LLVM::InsertValueOp::create(b, loc, pointer, offset,
                                     ArrayRef<int64_t>{1});
}

Value mlir::fly_rocdl::getBufferRsrc(OpBuilder &b, Location loc,
                                     Value pointer) {
  return LLVM::ExtractValueOp::create(b, loc, pointer, ArrayRef<int64_t>{0});
}

Value mlir::fly_rocdl::getBufferElementOffset(OpBuilder &b, Location loc,
                                              Value pointer) {
  return LLVM::ExtractValueOp::create(b, loc, pointer, ArrayRef<int64_t>{1});
}

static Value constantI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

/// `value` times `factor` (i32), folded for a factor of 1.
static Value scaled(OpBuilder &b, Location loc, Value value, int64_t factor) {
  if (factor == 1)
    return value;
  return arith::MulIOp::create(b, loc, value, constantI32(b, loc, factor));
}

Value mlir::fly_rocdl::getBufferByteOffset(OpBuilder &b, Location loc,
                                           Value pointer,
                                           int64_t elementBytes) {
  return scaled(b, loc, getBufferElementOffset(b, loc, pointer), elementBytes);
}

/// An integer or index value as i32 (buffer offsets are 32 bits).
static Value asI32(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  if (value.getType() == i32)
    return value;
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i32, value);
  if (value.getType().getIntOrFloatBitWidth() < 32)
    return arith::ExtSIOp::create(b, loc, i32, value);
  return arith::TruncIOp::create(b, loc, i32, value);
}

Value mlir::fly_rocdl::addBufferOffset(OpBuilder &b, Location loc,
                                       Value pointer, Value delta) {
  Value offset = arith::AddIOp::create(
      b, loc, getBufferElementOffset(b, loc, pointer), asI32(b, loc, delta));
  return packBufferPointer(b, loc, getBufferRsrc(b, loc, pointer), offset);
}

//===----------------------------------------------------------------------===//
// make_buffer_ptr, get_buffer_rsrc
//===----------------------------------------------------------------------===//

LogicalResult MakeBufferPtrOp::verify() {
  auto from = cast<flyd::PointerType>(getPtr().getType());
  auto to = cast<flyd::PointerType>(getResult().getType());
  std::optional<flyd::AddressSpace> space = from.getKnownAddressSpace();
  if (!space || *space != flyd::AddressSpace::Global)
    return emitOpError("makes a buffer resource over global memory, not ")
           << from.getAddressSpace();
  if (from.getElementType() != to.getElementType() ||
      from.getAlignment() != to.getAlignment())
    return emitOpError("result must keep the element type and alignment of ")
           << from;
  return success();
}

LogicalResult GetBufferRsrcOp::verify() {
  if (cast<LLVM::LLVMPointerType>(getResult().getType()).getAddressSpace() != 8)
    return emitOpError("result is the resource, an !llvm.ptr<8>");
  return success();
}

//===----------------------------------------------------------------------===//
// Shared by the operations
//===----------------------------------------------------------------------===//

namespace {

/// The vector and scalar byte offsets of an access. The scalar one is the
/// atom's `soffset` field (elements) when it has one; else the
/// wave-uniform part of the pointer's offset where the resource's range
/// checks allow it (BufferOffsets.h), else 0. The vector one is the rest of
/// the pointer's offset, plus the atom's `imm_offset` field (bytes) when
/// the operation has one.
struct AccessOffsets {
  Value voffset, soffset;
};
AccessOffsets accessOffsets(OpBuilder &b, Location loc, Value atom,
                            Value pointer, flyd::MemTensorType buffer,
                            bool hasImmOffset) {
  int64_t bytes = buffer.getPointer().getElementByteSize();
  Value field = flyd::getAtomFieldValue(atom, "soffset");
  BufferOffsetSplit split =
      field ? BufferOffsetSplit{getBufferElementOffset(b, loc, pointer), {}}
            : splitBufferElementOffset(b, loc, pointer);
  Value voffset = scaled(b, loc, split.varying, bytes);
  if (hasImmOffset)
    if (Value imm = flyd::getAtomFieldValue(atom, "imm_offset"))
      voffset = arith::AddIOp::create(b, loc, voffset, asI32(b, loc, imm));
  Value soffset = field          ? scaled(b, loc, asI32(b, loc, field), bytes)
                  : split.uniform ? scaled(b, loc, split.uniform, bytes)
                                  : constantI32(b, loc, 0);
  return {voffset, soffset};
}

/// The register form of `bits` bits the buffer instructions take: i8,
/// i16, i32, or vectors of i32 (buffer_load_dword, _dwordx2, _dwordx4).
Type accessType(MLIRContext *ctx, int64_t bits) {
  if (bits <= 32)
    return IntegerType::get(ctx, bits);
  return VectorType::get({bits / 32}, IntegerType::get(ctx, 32));
}

/// A side of a buffer copy: buffer memory, or the registers a buffer load
/// writes and a buffer store reads.
std::string checkBufferCopySide(Type memref) {
  auto type = cast<flyd::MemTensorType>(memref);
  std::optional<flyd::AddressSpace> space =
      type.getPointer().getKnownAddressSpace();
  if (inBufferMemory(type) || (space && *space == flyd::AddressSpace::Register))
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "a buffer copy moves data between buffer memory (a tensor of "
        "fx.rocdl.make_buffer_tensor) and registers, not "
     << type.getAddressSpace() << " memory";
  return text;
}

Operation *createOp(OpBuilder &b, Location loc, StringRef name,
                    ValueRange operands, TypeRange results = {}) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(results);
  return b.create(state);
}

} // namespace

//===----------------------------------------------------------------------===//
// cdna3.buffer_copy
//===----------------------------------------------------------------------===//

LogicalResult
BufferCopyCDNA3Type::verify(function_ref<InFlightDiagnostic()> emitError,
                            int32_t bits, int32_t cacheModifier) {
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128)
    return emitError() << "cdna3.buffer_copy: a buffer access moves 8, 16, "
                          "32, 64 or 128 bits, not "
                       << bits;
  if (cacheModifier < 0 || cacheModifier > 7)
    return emitError() << "cdna3.buffer_copy: the cache modifier is the "
                          "instruction's 3 cache-policy bits (0..7), not "
                       << cacheModifier;
  return success();
}

algebra::CopyTraits
BufferCopyCDNA3Type::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar, getBits());
}

std::string BufferCopyCDNA3Type::getApiName() const {
  return "BufferCopy" + std::to_string(getBits()) + "b";
}

bool BufferCopyCDNA3Type::isAvailableOn(const ::fly::arch::ChipInfo &) const {
  return true; // every supported chip has raw buffer instructions
}

SmallVector<std::pair<StringRef, Type>> BufferCopyCDNA3Type::getFields() const {
  Type i32 = IntegerType::get(getContext(), 32);
  return {{"soffset", i32}, {"imm_offset", i32}};
}

std::string BufferCopyCDNA3Type::checkSource(Type src) const {
  return checkBufferCopySide(src);
}

std::string BufferCopyCDNA3Type::checkDestination(Type dst) const {
  return checkBufferCopySide(dst);
}

/// A buffer load from buffer memory, else (registers) a vector load.
Value BufferCopyCDNA3Type::emitRead(OpBuilder &b, Location loc, Value atom,
                                    Value src, Type srcType,
                                    int64_t count) const {
  auto memref = cast<flyd::MemTensorType>(srcType);
  if (!inBufferMemory(memref))
    return flyd::emitVectorLoad(b, loc, src, memref, count);
  Value rsrc = getBufferRsrc(b, loc, src);
  AccessOffsets offsets = accessOffsets(b, loc, atom, src, memref, true);
  Type raw = accessType(b.getContext(), getBits());
  Value loaded =
      createOp(b, loc, "rocdl.raw.ptr.buffer.load",
               {rsrc, offsets.voffset, offsets.soffset,
                constantI32(b, loc, getCacheModifier())},
               raw)
          ->getResult(0);
  auto vector = VectorType::get({count}, memref.getElementType());
  return LLVM::BitcastOp::create(b, loc, vector, loaded);
}

/// A buffer store to buffer memory, else (registers) a vector store.
LogicalResult BufferCopyCDNA3Type::emitWrite(OpBuilder &b, Location loc,
                                             Value atom, Value values,
                                             Value dst, Type dstType) const {
  auto memref = cast<flyd::MemTensorType>(dstType);
  if (!inBufferMemory(memref)) {
    flyd::emitVectorStore(b, loc, values, dst, memref);
    return success();
  }
  Value data = LLVM::BitcastOp::create(
      b, loc, accessType(b.getContext(), getBits()), values);
  AccessOffsets offsets = accessOffsets(b, loc, atom, dst, memref, true);
  createOp(b, loc, "rocdl.raw.ptr.buffer.store",
           {data, getBufferRsrc(b, loc, dst), offsets.voffset, offsets.soffset,
            constantI32(b, loc, getCacheModifier())});
  return success();
}

/// A whole call moves data between buffer memory and registers: exactly
/// one side is in buffer memory.
LogicalResult BufferCopyCDNA3Type::emitCopy(OpBuilder &b, Location loc,
                                            Value atom, Value src, Type srcType,
                                            Value dst, Type dstType,
                                            int64_t count) const {
  if (inBufferMemory(srcType) == inBufferMemory(dstType))
    return emitError(loc) << getApiName()
                          << ": exactly one of the source and the "
                             "destination must be in buffer memory (a "
                             "tensor of fx.rocdl.make_buffer_tensor); got "
                          << srcType << " and " << dstType;
  Value values = emitRead(b, loc, atom, src, srcType, count);
  return emitWrite(b, loc, atom, values, dst, dstType);
}

//===----------------------------------------------------------------------===//
// cdna3.buffer_atomic
//===----------------------------------------------------------------------===//

namespace {

/// The ROCDL buffer atomic of an operation on a value type; empty when
/// there is none.
StringRef atomicOpName(StringRef op, Type valueType) {
  Type element = getElementTypeOrSelf(valueType);
  bool isFloat = isa<FloatType>(element);
  auto vector = dyn_cast<VectorType>(valueType);
  if (op == "add") {
    if (!vector && (element.isF32() || element.isF64()))
      return "rocdl.raw.ptr.buffer.atomic.fadd";
    if (vector && vector.getNumElements() == 2 &&
        (element.isF16() || element.isBF16()))
      return "rocdl.raw.ptr.buffer.atomic.fadd";
    return {};
  }
  if (vector)
    return {};
  if (op == "max") {
    if (isFloat)
      return element.isF32() || element.isF64()
                 ? "rocdl.raw.ptr.buffer.atomic.fmax"
                 : StringRef();
    return element.isInteger(32) || element.isInteger(64)
               ? "rocdl.raw.ptr.buffer.atomic.smax"
               : StringRef();
  }
  if (op == "min" && !isFloat &&
      (element.isInteger(32) || element.isInteger(64)))
    return "rocdl.raw.ptr.buffer.atomic.umin";
  return {};
}

} // namespace

LogicalResult
BufferAtomicCDNA3Type::verify(function_ref<InFlightDiagnostic()> emitError,
                              StringRef op, Type valueType) {
  if (atomicOpName(op, valueType).empty())
    return emitError()
           << "cdna3.buffer_atomic: no buffer atomic is " << op << " on "
           << valueType
           << "; the ones there are: add on f32, f64, vector<2xf16> and "
              "vector<2xbf16> (PkAdd), max on f32, f64 and signed i32/i64, "
              "min on unsigned i32/i64";
  return success();
}

/// `<` (add | max | min) `,` type `>`
Type BufferAtomicCDNA3Type::parse(AsmParser &p) {
  StringRef op;
  Type valueType;
  SMLoc loc = p.getCurrentLocation();
  if (p.parseLess() || p.parseKeyword(&op) || p.parseComma() ||
      p.parseType(valueType) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), op,
                    valueType);
}

void BufferAtomicCDNA3Type::print(AsmPrinter &p) const {
  p << '<' << getOp() << ", " << getValueType() << '>';
}

algebra::CopyTraits
BufferAtomicCDNA3Type::getCopyTraits(algebra::Arith &ar) const {
  Type v = getValueType();
  int64_t bits = getElementTypeOrSelf(v).getIntOrFloatBitWidth();
  if (auto vector = dyn_cast<VectorType>(v))
    bits *= vector.getNumElements();
  return algebra::universalCopyTraits(ar, bits);
}

std::string BufferAtomicCDNA3Type::getApiName() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "BufferAtomic(" << getOp() << ", " << getValueType() << ")";
  return text;
}

bool BufferAtomicCDNA3Type::isAvailableOn(
    const ::fly::arch::ChipInfo &) const {
  return true;
}

bool BufferAtomicCDNA3Type::isAtomic() const { return true; }

SmallVector<std::pair<StringRef, Type>>
BufferAtomicCDNA3Type::getFields() const {
  return {{"soffset", IntegerType::get(getContext(), 32)}};
}

/// The elements an atomic moves are those of its value type.
static std::string checkAtomicElements(Type memref, Type valueType) {
  Type element = cast<flyd::MemTensorType>(memref).getElementType();
  if (element == getElementTypeOrSelf(valueType))
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "element type " << element << " differs from the buffer atomic's "
     << getElementTypeOrSelf(valueType);
  return text;
}

std::string BufferAtomicCDNA3Type::checkSource(Type src) const {
  std::string problem = checkAtomicElements(src, getValueType());
  if (problem.empty() && inBufferMemory(src))
    return "a buffer atomic's source is in registers or memory with an "
           "address, not buffer memory";
  return problem;
}

std::string BufferAtomicCDNA3Type::checkDestination(Type dst) const {
  std::string problem = checkAtomicElements(dst, getValueType());
  if (problem.empty() && !inBufferMemory(dst))
    return "a buffer atomic's destination must be in buffer memory (a "
           "tensor of fx.rocdl.make_buffer_tensor)";
  return problem;
}

Value BufferAtomicCDNA3Type::emitRead(OpBuilder &b, Location loc, Value,
                                      Value src, Type srcType,
                                      int64_t count) const {
  return flyd::emitVectorLoad(b, loc, src, cast<flyd::MemTensorType>(srcType),
                             count);
}

/// The call's value (element 0, or the packed pair) combined into the
/// destination; nothing is returned.
LogicalResult BufferAtomicCDNA3Type::emitWrite(OpBuilder &b, Location loc,
                                               Value atom, Value values,
                                               Value dst, Type dstType) const {
  auto memref = cast<flyd::MemTensorType>(dstType);
  Type valueType = getValueType();
  Value data = values;
  if (!isa<VectorType>(valueType))
    data = LLVM::ExtractElementOp::create(b, loc, values,
                                          constantI32(b, loc, 0));
  else if (data.getType() != valueType)
    data = LLVM::BitcastOp::create(b, loc, valueType, data);
  AccessOffsets offsets = accessOffsets(b, loc, atom, dst, memref, false);
  createOp(b, loc, atomicOpName(getOp(), valueType),
           {data, getBufferRsrc(b, loc, dst), offsets.voffset, offsets.soffset,
            constantI32(b, loc, 0)});
  return success();
}
