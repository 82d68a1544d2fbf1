//===- FlyMemoryOps.cpp - Pointer, memory and tensor ops ------------------===//
//
// The ops of FlyMemoryOps.td. The pure ones (add_offset, apply_swizzle, the
// tensor views) are evaluated like the algebra ops; memory accesses and
// allocations are verified here and infer what their operands determine.
// Also the tensor side of `fly.slice`: how an iterator moves.
//
//===----------------------------------------------------------------------===//

#include "FlyEvaluation.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Arith;
using algebra::ComposedLayout;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;

//===----------------------------------------------------------------------===//
// Alignment
//===----------------------------------------------------------------------===//

/// gcd(alignment, divisibility(offset) * bytes), for a power-of-two
/// alignment: the lowest set bit of the product, at most the alignment. A
/// static 0 offset (divisibility 0) keeps the alignment.
static int64_t alignmentAfterOffset(int64_t alignment, int64_t bytes,
                                    const Int &offset) {
  int64_t div = offset.divisibility();
  if (div == 0)
    return alignment;
  unsigned shift = llvm::countr_zero(uint64_t(div)) +
                   llvm::countr_zero(uint64_t(bytes));
  if (shift >= 62)
    return alignment;
  return std::min(alignment, int64_t(1) << shift);
}

/// The alignment of a swizzled address. CuTe's `Swizzle<B,M,S>` reads the
/// bits [M + max(0,S), +B) and xors them into [M - min(0,S), +B). If the
/// alignment clears every bit it reads, the address is unchanged; otherwise
/// the bits below the lowest written one are all that is known.
static int64_t alignmentAfterSwizzle(int64_t alignment,
                                     const algebra::Swizzle &s) {
  if (s.bits == 0)
    return alignment;
  int readTop = s.base + std::max(0, s.shift) + s.bits;
  if (readTop < 63 && alignment >= (int64_t(1) << readTop))
    return alignment;
  int writeLow = s.base - std::min(0, s.shift);
  return std::min(alignment, int64_t(1) << writeLow);
}

/// Advance a pointer by `offset` elements.
static void advancePointer(Arith &ar, PointerValue &p, const Int &offset) {
  int64_t bytes = getElementByteSize(p.elementType).value_or(1);
  p.alignment = alignmentAfterOffset(p.alignment, bytes, offset);
  p.offset = ar.add(p.offset.leaf(), offset);
}

/// An int_tuple operand that must be one integer.
static bool isIntegerLeaf(const IntTuple &t) {
  return t.isLeaf() && !t.leaf().isNone() && !t.leaf().isBasis();
}

//===----------------------------------------------------------------------===//
// Tensors: iterators
//===----------------------------------------------------------------------===//

/// a + b for coordinates: leaves add; tuples add by mode, the shorter one
/// taken as zeros beyond its end (slicing an identity layout names only the
/// modes up to the last one it fixes).
static IntTuple addCoordinates(Arith &ar, const IntTuple &a,
                               const IntTuple &b) {
  if (a.isLeaf() && b.isLeaf())
    return ar.add(a.leaf(), b.leaf());
  if (b.isLeaf() && b.leaf().isStaticValue(0))
    return a;
  if (a.isLeaf() && a.leaf().isStaticValue(0))
    return b;
  if (a.isLeaf() || b.isLeaf()) {
    ar.fail("cannot add " + toString(b) + " to the coordinate " +
            toString(a));
    return a;
  }
  std::vector<IntTuple> sum;
  for (unsigned i = 0, e = std::max(a.rank(), b.rank()); i < e; ++i) {
    if (i >= a.rank())
      sum.push_back(b[i]);
    else if (i >= b.rank())
      sum.push_back(a[i]);
    else
      sum.push_back(addCoordinates(ar, a[i], b[i]));
  }
  return IntTuple::tuple(std::move(sum));
}

/// Move an iterator by what a layout gave for a coordinate: a pointer by an
/// element offset, a base coordinate by a coordinate.
static void advance(Arith &ar, std::variant<PointerValue, IntTuple> &iterator,
                    const IntTuple &offset) {
  if (auto *base = std::get_if<IntTuple>(&iterator)) {
    *base = addCoordinates(ar, *base, offset);
    return;
  }
  if (!isIntegerLeaf(offset)) {
    ar.fail("a memref's layout must give an integer offset, got " +
            toString(offset));
    return;
  }
  advancePointer(ar, std::get<PointerValue>(iterator), offset.leaf());
}

TensorValue mlir::fly::detail::sliceTensor(Arith &ar, const TensorValue &tensor,
                                           const IntTuple &coord) {
  TensorValue out = tensor;
  IntTuple offset;
  if (const auto *layout = std::get_if<Layout>(&tensor.layout)) {
    out.layout = algebra::unwrap(algebra::slice(ar, coord, *layout, &offset));
    if (!ar.failed())
      advance(ar, out.iterator, offset);
    return out;
  }
  // A swizzle does not commute with the pointer: the offset stays inside
  // the composed layout, in front of its inner function.
  ComposedLayout composed = std::get<ComposedLayout>(tensor.layout);
  composed.outer =
      algebra::unwrap(algebra::slice(ar, coord, composed.outer, &offset));
  if (!ar.failed())
    composed.domainOffset() =
        addCoordinates(ar, composed.domainOffset(), offset);
  out.layout = composed;
  return out;
}

TensorValue mlir::fly::detail::placeTensor(Arith &ar, const TensorValue &tensor,
                                          const Layout &layout,
                                          const IntTuple &offset) {
  TensorValue out = tensor;
  if (std::holds_alternative<Layout>(tensor.layout)) {
    out.layout = layout;
    advance(ar, out.iterator, offset);
    return out;
  }
  ComposedLayout composed = std::get<ComposedLayout>(tensor.layout);
  composed.outer = layout;
  composed.domainOffset() = addCoordinates(ar, composed.domainOffset(), offset);
  out.layout = composed;
  return out;
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

/// The LLVM address space of a fly pointer (the enum's values are those).
static std::optional<unsigned> getLLVMAddressSpace(PointerType type) {
  if (std::optional<AddressSpace> space = type.getKnownAddressSpace())
    return unsigned(*space);
  return std::nullopt;
}

LogicalResult MakePtrOp::verify() {
  PointerType type = getType();
  std::optional<unsigned> expected = getLLVMAddressSpace(type);
  if (!expected)
    return emitOpError("cannot make a pointer in the address space ")
           << type.getAddressSpace()
           << " from an LLVM pointer; only generic, global, shared and "
              "register pointers come from !llvm.ptr";
  unsigned actual = getPointer().getType().getAddressSpace();
  if (actual != *expected)
    return emitOpError("makes a ")
           << stringifyAddressSpace(*type.getKnownAddressSpace())
           << " pointer, which is LLVM address space " << *expected
           << ", from an LLVM pointer in address space " << actual;
  return success();
}

LogicalResult PtrToLLVMOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = operands.size() == 1
                  ? dyn_cast<PointerType>(operands[0].getType())
                  : PointerType();
  if (!type)
    return emitOptionalError(location, "'", getOperationName(),
                             "' op expects one !fly.ptr operand");
  std::optional<unsigned> space = getLLVMAddressSpace(type);
  if (!space)
    return emitOptionalError(location, "'", getOperationName(),
                             "' op has no LLVM address space for ",
                             type.getAddressSpace());
  inferredReturnTypes.push_back(LLVM::LLVMPointerType::get(context, *space));
  return success();
}

LogicalResult ExtractAlignedPointerAsIndexOp::verify() {
  PointerType pointer = getSource().getType().getPointer();
  std::optional<unsigned> space = getLLVMAddressSpace(pointer);
  if (!space)
    return emitOpError("takes a generic, global or shared memref, not one in ")
           << pointer.getAddressSpace();
  if (*space == unsigned(AddressSpace::Register))
    return emitOpError("takes a generic, global or shared memref, not a "
                       "register one");
  // Only casts through the generic space are meaningful addrspacecasts:
  // a global address is no shared one.
  unsigned result = getType().getAddressSpace();
  unsigned generic = unsigned(AddressSpace::Generic);
  if (result != *space && result != generic && *space != generic)
    return emitOpError("cannot cast a memref in address space ")
           << *space << " to a pointer in address space " << result
           << "; only to its own space or through the generic one (0)";
  return success();
}

LogicalResult AddOffsetOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const PointerValue &p, const IntTuple &offset) {
    PointerValue out = p;
    if (!isIntegerLeaf(offset)) {
      ar.fail("the offset must be an integer leaf, got " + toString(offset));
      return out;
    }
    advancePointer(ar, out, offset.leaf());
    return out;
  });
}

/// A new pointer, not an offset from the old one (the lowering keeps the
/// op).
LogicalResult ApplySwizzleOp::evaluate(Evaluation &e) {
  return e([](Arith &, const PointerValue &p, const algebra::Swizzle &s) {
    return PointerValue{p.elementType, p.addressSpace,
                        alignmentAfterSwizzle(p.alignment, s)};
  });
}

/// The element type, or a 1-D vector of a scalar element type.
static bool isElementOrVectorOf(Type value, Type element) {
  if (value == element)
    return true;
  auto vector = dyn_cast<VectorType>(value);
  return vector && vector.getRank() == 1 && !vector.isScalable() &&
         vector.getElementType() == element && !isa<VectorType>(element);
}

LogicalResult PtrLoadOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = operands.size() == 1
                  ? dyn_cast<PointerType>(operands[0].getType())
                  : PointerType();
  if (!type)
    return emitOptionalError(location, "'", getOperationName(),
                             "' op expects one !fly.ptr operand");
  inferredReturnTypes.push_back(type.getElementType());
  return success();
}

/// A vector of the element type is a vectorised load.
bool PtrLoadOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  return inferred.size() == 1 && actual.size() == 1 &&
         isElementOrVectorOf(actual[0], inferred[0]);
}

LogicalResult PtrStoreOp::verify() {
  Type element = getPtr().getType().getElementType();
  if (!isElementOrVectorOf(getValue().getType(), element))
    return emitOpError("stores ")
           << getValue().getType() << " through a pointer to " << element
           << "; expected the element type or a 1-D vector of it";
  return success();
}

LogicalResult GetDynSharedOp::verify() {
  if (getType().getKnownAddressSpace() != AddressSpace::Shared)
    return emitOpError("gives a shared pointer, not ") << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Memrefs
//===----------------------------------------------------------------------===//

LogicalResult MemRefAllocaOp::verify() {
  MemTensorType type = getType();
  if (type.getPointer().getKnownAddressSpace() != AddressSpace::Register)
    return emitOpError("allocates register fragments only, not ") << type;
  if (!isStatic(type.getLayout()))
    return emitOpError("needs a static layout, got ") << type.getLayout();
  return success();
}

/// The memref of an access, or a located error.
static FailureOr<MemTensorType> getAccessedMemRef(std::optional<Location> loc,
                                                  StringRef opName,
                                                  Value memref) {
  auto type = dyn_cast<MemTensorType>(memref.getType());
  if (!type)
    return emitOptionalError(loc, "'", opName, "' op expects a !fly.memref, ",
                             "got ", memref.getType());
  return type;
}

/// The coordinate of an access must give an integer offset through the
/// memref's layout.
static LogicalResult checkCoordinate(std::optional<Location> loc,
                                     StringRef opName, MemTensorType memref,
                                     Type coordType) {
  AlgebraValue coord = toAlgebraValue(coordType);
  const auto *tuple = std::get_if<IntTuple>(&coord);
  if (!tuple)
    return emitOptionalError(loc, "'", opName, "' op expects an int_tuple "
                             "or i32/i64 coordinate, got ", coordType);
  Arith ar;
  AlgebraValue layout = *getAlgebraValue(memref.getLayout());
  IntTuple index = std::holds_alternative<Layout>(layout)
                       ? algebra::crd2idx(ar, *tuple, std::get<Layout>(layout))
                       : algebra::crd2idx(ar, *tuple,
                                          std::get<ComposedLayout>(layout));
  if (ar.failed())
    return emitOptionalError(loc, "'", opName, "' op ", ar.error());
  if (!isIntegerLeaf(index))
    return emitOptionalError(loc, "'", opName, "' op the coordinate ",
                             toString(*tuple), " gives ", toString(index),
                             ", not an element offset");
  return success();
}

LogicalResult MemRefLoadOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.size() != 2)
    return emitOptionalError(location, "'", getOperationName(),
                             "' op expects a memref and a coordinate");
  FailureOr<MemTensorType> memref =
      getAccessedMemRef(location, getOperationName(), operands[0]);
  if (failed(memref) || failed(checkCoordinate(location, getOperationName(),
                                               *memref,
                                               operands[1].getType())))
    return failure();
  inferredReturnTypes.push_back(memref->getElementType());
  return success();
}

LogicalResult MemRefStoreOp::verify() {
  MemTensorType memref = getMemref().getType();
  if (getValue().getType() != memref.getElementType())
    return emitOpError("stores ")
           << getValue().getType() << " into a memref of "
           << memref.getElementType();
  return checkCoordinate(getLoc(), getOperationName(), memref,
                         getCoord().getType());
}

/// vector<N x T> for the whole memref: N its static size, T its scalar
/// element type.
static FailureOr<VectorType> getWholeVectorType(std::optional<Location> loc,
                                                StringRef opName,
                                                MemTensorType memref) {
  Type element = memref.getElementType();
  if (!isa<IntegerType, FloatType>(element))
    return emitOptionalError(loc, "'", opName, "' op needs a scalar element "
                             "type to form a vector, got ", element);
  Arith ar;
  AlgebraValue layout = *getAlgebraValue(memref.getLayout());
  const Layout &domain = std::holds_alternative<Layout>(layout)
                             ? std::get<Layout>(layout)
                             : std::get<ComposedLayout>(layout).outer;
  Int size = algebra::size(ar, domain);
  if (!size.isStatic())
    return emitOptionalError(loc, "'", opName, "' op needs a static size, "
                             "got ", toString(size), " for ",
                             memref.getLayout());
  return VectorType::get({size.value()}, element);
}

LogicalResult MemRefLoadVecOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.size() != 1)
    return emitOptionalError(location, "'", getOperationName(),
                             "' op expects one memref");
  FailureOr<MemTensorType> memref =
      getAccessedMemRef(location, getOperationName(), operands[0]);
  if (failed(memref))
    return failure();
  FailureOr<VectorType> type =
      getWholeVectorType(location, getOperationName(), *memref);
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

LogicalResult MemRefStoreVecOp::verify() {
  FailureOr<VectorType> expected =
      getWholeVectorType(getLoc(), getOperationName(), getMemref().getType());
  if (failed(expected))
    return failure();
  if (getValue().getType() != *expected)
    return emitOpError("stores ")
           << getValue().getType() << " as the whole of a memref, which is "
           << *expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor views
//===----------------------------------------------------------------------===//

LogicalResult MakeViewOp::evaluate(Evaluation &e) {
  auto view = [](Arith &, const auto &iterator, const auto &layout) {
    return TensorValue{iterator, layout};
  };
  return e(typed<PointerValue, Layout>(view),
           typed<PointerValue, ComposedLayout>(view),
           typed<IntTuple, Layout>(view));
}

LogicalResult GetIterOp::evaluate(Evaluation &e) {
  return e([](Arith &, const TensorValue &t) {
    return std::visit([](const auto &i) -> AlgebraValue { return i; },
                      t.iterator);
  });
}

LogicalResult GetLayoutOp::evaluate(Evaluation &e) {
  return e([](Arith &, const TensorValue &t) {
    return std::visit([](const auto &l) -> AlgebraValue { return l; },
                      t.layout);
  });
}

OpFoldResult GetIterOp::fold(FoldAdaptor) {
  if (auto view = getTensor().getDefiningOp<MakeViewOp>())
    return view.getIter();
  return {};
}

OpFoldResult GetLayoutOp::fold(FoldAdaptor) {
  if (auto view = getTensor().getDefiningOp<MakeViewOp>())
    return view.getLayout();
  return {};
}

LogicalResult MakeFragmentLikeOp::evaluate(Evaluation &e) {
  Type elementType;
  if (Attribute attr =
          e.getAttrs() ? e.getAttrs().get("element_type") : Attribute()) {
    auto typeAttr = dyn_cast<TypeAttr>(attr);
    if (!typeAttr)
      return e.fail("expects a type attribute 'element_type'");
    elementType = typeAttr.getValue();
  }
  return e([&](Arith &ar, const TensorValue &t) {
    Type element = elementType;
    if (!element) {
      if (const auto *p = std::get_if<PointerValue>(&t.iterator))
        element = p->elementType;
    }
    const Layout &layout = std::holds_alternative<Layout>(t.layout)
                               ? std::get<Layout>(t.layout)
                               : std::get<ComposedLayout>(t.layout).outer;
    // CuTe's (and FlyDSL's) make_fragment_like: mode 0 compact and
    // innermost, the other modes ordered like the tensor's strides. A
    // coordinate layout's strides have no order to keep: column-major.
    Layout fragment = t.isMemRef() ? algebra::makeFragmentLike(ar, layout)
                                   : algebra::makeLayout(ar, layout.shape);
    if (!element)
      ar.fail("a fragment like a coord_tensor needs an 'element_type'");
    else if (!ar.failed() && (!algebra::isStatic(fragment.shape) ||
                              !algebra::isStatic(fragment.stride)))
      ar.fail("a register fragment needs a static layout, got " +
              toString(fragment));
    if (ar.failed())
      return t;
    int64_t bytes = getElementByteSize(element).value_or(1);
    PointerValue pointer{
        element,
        AddressSpaceAttr::get(element.getContext(), AddressSpace::Register),
        getNaturalAlignment(bytes)};
    return TensorValue{pointer, fragment};
  });
}

SmallVector<std::pair<size_t, size_t>> PrintOp::getConversions() {
  StringRef format = getFormat();
  SmallVector<std::pair<size_t, size_t>> conversions;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%')
      continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t end = format.find_first_not_of("-+ #0123456789.hljztL", i + 1);
    if (end == StringRef::npos)
      end = format.size();
    conversions.push_back({i, end});
    i = end;
  }
  return conversions;
}

LogicalResult PrintOp::verify() {
  SmallVector<std::pair<size_t, size_t>> conversions = getConversions();
  if (conversions.size() != getValues().size())
    return emitOpError("has ")
           << conversions.size() << " conversions in its format for "
           << getValues().size() << " operands";
  StringRef format = getFormat();
  for (auto [index, value, span] : llvm::enumerate(getValues(), conversions)) {
    char conversion = span.second < format.size() ? format[span.second] : 0;
    Type type = value.getType();
    if (isAlgebraType(type)) {
      if (!isStatic(type))
        return emitOpError("operand ")
               << index << " is the dynamic " << type
               << ": only a static fly value can be printed (print its "
                  "leaves, fly.get_leaves, as scalars)";
      if (conversion != 's')
        return emitOpError("operand ")
               << index << " is a fly value: its conversion must be %s";
      continue;
    }
    if (!type.isIntOrIndexOrFloat())
      return emitOpError("operand ")
             << index << " is a " << type
             << ": it prints scalars and static fly values";
  }
  return success();
}
