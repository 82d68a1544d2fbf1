//===- FlyMemoryTypes.cpp - Pointers, memrefs, coordinate tensors ---------===//
//
// The texts of SPEC §2.2 for `!fly.ptr`, `!fly.memref` and
// `!fly.coord_tensor`, the address space attribute, and what the types
// require of their parts. The layouts inside are read by the algebra parser
// of FlyTypes.cpp.
//
//===----------------------------------------------------------------------===//

#include "FlyTypeParsing.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fly;
namespace algebra = ::fly::algebra;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;

#include "fly/Dialect/Fly/IR/FlyEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "fly/Dialect/Fly/IR/FlyAttrs.cpp.inc"

void FlyDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fly/Dialect/Fly/IR/FlyAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::fly::getElementByteSize(Type type) {
  if (type.isInteger(1))
    return 1;
  int64_t count = 1;
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.getRank() != 1 || vector.isScalable())
      return std::nullopt;
    count = vector.getNumElements();
    type = vector.getElementType();
  }
  if (!isa<IntegerType, FloatType>(type))
    return std::nullopt;
  int64_t bits = int64_t(type.getIntOrFloatBitWidth()) * count;
  if (bits == 0 || bits % 8 != 0)
    return std::nullopt;
  return bits / 8;
}

int64_t mlir::fly::getNaturalAlignment(int64_t bytes) {
  return bytes & -bytes;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

std::optional<AddressSpace> PointerType::getKnownAddressSpace() const {
  if (auto space = dyn_cast<AddressSpaceAttr>(getAddressSpace()))
    return space.getValue();
  return std::nullopt;
}

int64_t PointerType::getElementByteSize() const {
  return fly::getElementByteSize(getElementType()).value_or(1);
}

// The checks of the pointer's parts, also run by the parser where each part
// is written.
static LogicalResult
verifyElementType(function_ref<InFlightDiagnostic()> emitError,
                  Type elementType) {
  if (!elementType || !getElementByteSize(elementType))
    return emitError() << "element type " << elementType
                       << " is not an integer or float type, or a 1-D vector "
                          "of them, of a whole number of bytes";
  return success();
}

static LogicalResult
verifyAddressSpace(function_ref<InFlightDiagnostic()> emitError,
                   Attribute addressSpace) {
  if (!addressSpace || (!isa<AddressSpaceAttr>(addressSpace) &&
                        isa<BuiltinDialect>(addressSpace.getDialect())))
    return emitError() << "address space must be generic, global, shared, "
                          "register or a dialect attribute, got "
                       << addressSpace;
  return success();
}

static LogicalResult
verifyAlignment(function_ref<InFlightDiagnostic()> emitError,
                int64_t alignment) {
  if (alignment < 1 || !llvm::isPowerOf2_64(uint64_t(alignment)))
    return emitError() << "alignment " << alignment
                       << " is not a positive power of two";
  return success();
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type elementType, Attribute addressSpace,
                                  int64_t alignment) {
  return failure(failed(verifyElementType(emitError, elementType)) ||
                 failed(verifyAddressSpace(emitError, addressSpace)) ||
                 failed(verifyAlignment(emitError, alignment)));
}

/// A memref's layout gives element offsets: integers, not scaled basis
/// elements.
static LogicalResult
verifyIntegerStrides(function_ref<InFlightDiagnostic()> emitError,
                     const IntTuple &t, StringRef what) {
  for (const Int &leaf : algebra::leaves(t))
    if (leaf.isBasis())
      return emitError() << "a memref's layout maps to element offsets, but "
                         << what << " " << toString(t)
                         << " has a scaled basis element";
  return success();
}

LogicalResult
MemTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                      PointerType pointer, Type layout) {
  if (!pointer)
    return emitError() << "a memref needs a pointer type";
  if (auto plain = dyn_cast_or_null<LayoutType>(layout))
    return verifyIntegerStrides(emitError, plain.getValue().stride, "stride");
  auto composed = dyn_cast_or_null<ComposedLayoutType>(layout);
  if (!composed)
    return emitError() << "a memref's layout must be a layout or a composed "
                          "layout, got "
                       << layout;
  const algebra::ComposedLayout &c = composed.getValue();
  if (std::holds_alternative<algebra::CoordSwizzle>(c.inner))
    return emitError() << "a memref's layout must map to element indices; "
                       << layout << " maps to coordinates";
  auto verifyStage = [&](const algebra::ComposedFunction &f,
                         const algebra::IntTuple &offset) {
    if (const auto *l = std::get_if<Layout>(&f))
      if (failed(verifyIntegerStrides(emitError, l->stride, "stride")))
        return failure();
    return verifyIntegerStrides(emitError, offset, "offset");
  };
  if (failed(verifyStage(c.inner, c.offset)))
    return failure();
  for (const algebra::ComposedLayout::Stage &stage : c.chain)
    if (failed(verifyStage(stage.function, stage.offset)))
      return failure();
  return verifyIntegerStrides(emitError, c.outer.stride, "stride");
}

LogicalResult
CoordTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                        IntTupleType base, LayoutType layout) {
  if (!base || !layout)
    return emitError() << "a coord_tensor needs a base int_tuple and a layout";
  for (const Int &leaf : algebra::leaves(base.getValue()))
    if (leaf.isNone() || leaf.isBasis())
      return emitError() << "the base " << toString(base.getValue())
                         << " of a coord_tensor must have integer leaves";
  return success();
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

/// AS ::= `generic` | `global` | `shared` | `register` | attribute
static FailureOr<Attribute> parseAddressSpace(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  StringRef keyword;
  if (succeeded(p.parseOptionalKeyword(&keyword))) {
    std::optional<AddressSpace> space = symbolizeAddressSpace(keyword);
    if (!space)
      return p.emitError(loc)
             << "expected an address space (generic, global, shared, "
                "register) or a dialect attribute, got '"
             << keyword << "'";
    return Attribute(AddressSpaceAttr::get(p.getContext(), *space));
  }
  Attribute attr;
  if (p.parseAttribute(attr) ||
      failed(verifyAddressSpace([&] { return p.emitError(loc); }, attr)))
    return failure();
  return attr;
}

static void printAddressSpace(AsmPrinter &p, Attribute space) {
  if (auto known = dyn_cast<AddressSpaceAttr>(space))
    p << stringifyAddressSpace(known.getValue());
  else
    p.printAttribute(space);
}

/// [`,` `align` `<` integer `>`]; nullopt when absent.
static FailureOr<std::optional<int64_t>> parseOptionalAlignment(AsmParser &p) {
  if (failed(p.parseOptionalComma()))
    return std::optional<int64_t>();
  int64_t alignment = 0;
  if (p.parseKeyword("align") || p.parseLess())
    return failure();
  SMLoc loc = p.getCurrentLocation();
  if (p.parseInteger(alignment) ||
      failed(verifyAlignment([&] { return p.emitError(loc); }, alignment)) ||
      p.parseGreater())
    return failure();
  return std::optional<int64_t>(alignment);
}

/// The alignment to store: the written one, else the element's natural one
/// (a bad element type is reported by the verifier).
static int64_t alignmentOrNatural(std::optional<int64_t> written,
                                  Type elementType) {
  if (written)
    return *written;
  return getNaturalAlignment(getElementByteSize(elementType).value_or(1));
}

static void printOptionalAlignment(AsmPrinter &p, PointerType pointer) {
  int64_t natural = getNaturalAlignment(pointer.getElementByteSize());
  if (pointer.getAlignment() != natural)
    p << ", align<" << pointer.getAlignment() << '>';
}

/// `<` T `,` AS
static ParseResult parseElementAndSpace(AsmParser &p, Type &elementType,
                                        Attribute &space) {
  if (p.parseLess())
    return failure();
  SMLoc loc = p.getCurrentLocation();
  if (p.parseType(elementType) ||
      failed(verifyElementType([&] { return p.emitError(loc); },
                               elementType)) ||
      p.parseComma())
    return failure();
  FailureOr<Attribute> parsed = parseAddressSpace(p);
  if (failed(parsed))
    return failure();
  space = *parsed;
  return success();
}

/// ptr ::= `<` T `,` AS [`,` `align` `<` N `>`] `>`
Type PointerType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  Type elementType;
  Attribute space;
  if (parseElementAndSpace(p, elementType, space))
    return {};
  FailureOr<std::optional<int64_t>> alignment = parseOptionalAlignment(p);
  if (failed(alignment) || p.parseGreater())
    return {};
  return PointerType::getChecked([&] { return p.emitError(loc); },
                                 p.getContext(), elementType, space,
                                 alignmentOrNatural(*alignment, elementType));
}

void PointerType::print(AsmPrinter &p) const {
  p << '<' << getElementType() << ", ";
  printAddressSpace(p, getAddressSpace());
  printOptionalAlignment(p, *this);
  p << '>';
}

/// memref ::= `<` T `,` AS `,` LAYOUT [`,` `align` `<` N `>`] `>`
Type MemTensorType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  auto emitError = [&] { return p.emitError(loc); };
  Type elementType;
  Attribute space;
  if (parseElementAndSpace(p, elementType, space) || p.parseComma())
    return {};
  auto layout = detail::parseAnyLayoutText(p);
  if (failed(layout))
    return {};
  FailureOr<std::optional<int64_t>> alignment = parseOptionalAlignment(p);
  if (failed(alignment) || p.parseGreater())
    return {};
  MLIRContext *ctx = p.getContext();
  auto pointer =
      PointerType::getChecked(emitError, ctx, elementType, space,
                              alignmentOrNatural(*alignment, elementType));
  Type layoutType = getCheckedType(emitError, ctx,
                                   std::visit(
                                       [](const auto &l) -> AlgebraValue {
                                         return l;
                                       },
                                       *layout));
  if (!pointer || !layoutType)
    return {};
  return MemTensorType::getChecked(emitError, ctx, pointer, layoutType);
}

/// The text inside a layout or composed layout type's `<...>`.
static void printLayoutText(AsmPrinter &p, Type layout) {
  if (auto plain = dyn_cast<LayoutType>(layout))
    p << toString(plain.getValue());
  else
    p << toString(cast<ComposedLayoutType>(layout).getValue());
}

void MemTensorType::print(AsmPrinter &p) const {
  p << '<' << getElementType() << ", ";
  printAddressSpace(p, getAddressSpace());
  p << ", ";
  printLayoutText(p, getLayout());
  printOptionalAlignment(p, getPointer());
  p << '>';
}

/// coord_tensor ::= `<` BASE `,` LAYOUT `>`
Type CoordTensorType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  auto emitError = [&] { return p.emitError(loc); };
  if (p.parseLess())
    return {};
  FailureOr<IntTuple> base = detail::parseIntTupleText(p);
  if (failed(base) || p.parseComma())
    return {};
  SMLoc layoutLoc = p.getCurrentLocation();
  auto layout = detail::parseAnyLayoutText(p);
  if (failed(layout) || p.parseGreater())
    return {};
  const auto *plain = std::get_if<Layout>(&*layout);
  if (!plain) {
    p.emitError(layoutLoc) << "a coord_tensor's layout must be a layout "
                              "'shape:stride', not a composed layout";
    return {};
  }
  MLIRContext *ctx = p.getContext();
  auto baseType = IntTupleType::getChecked(emitError, ctx, *base);
  auto layoutType = LayoutType::getChecked(emitError, ctx, *plain);
  if (!baseType || !layoutType)
    return {};
  return CoordTensorType::getChecked(emitError, ctx, baseType, layoutType);
}

void CoordTensorType::print(AsmPrinter &p) const {
  p << '<' << toString(getBase().getValue()) << ", "
    << toString(getLayout().getValue()) << '>';
}
