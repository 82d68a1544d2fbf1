//===- FlyTypes.cpp - Types of the fly dialect ----------------------------===//
//
// The texts of SPEC §2.1-2.2, parsed with MLIR's AsmParser primitives and
// printed with the algebra's `toString`. Every malformed text is a located
// parse error.
//
//===----------------------------------------------------------------------===//

#include "FlyTypeParsing.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fly;
namespace algebra = ::fly::algebra;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;

//===----------------------------------------------------------------------===//
// Conversions between types and algebra objects
//===----------------------------------------------------------------------===//

IntTuple mlir::fly::withoutHandles(const IntTuple &t) {
  return algebra::transformLeaves(
      t, [](const Int &leaf) { return leaf.withoutHandle(); });
}

Layout mlir::fly::withoutHandles(const Layout &l) {
  return {withoutHandles(l.shape), withoutHandles(l.stride)};
}

algebra::Swizzle mlir::fly::withoutHandles(const algebra::Swizzle &s) {
  return s;
}

algebra::CoordSwizzle
mlir::fly::withoutHandles(const algebra::CoordSwizzle &s) {
  return s;
}

algebra::ComposedLayout
mlir::fly::withoutHandles(const algebra::ComposedLayout &l) {
  algebra::ComposedLayout out = l;
  auto strip = [](algebra::ComposedFunction &f) {
    if (auto *layout = std::get_if<Layout>(&f))
      *layout = withoutHandles(*layout);
  };
  strip(out.inner);
  out.offset = withoutHandles(l.offset);
  for (algebra::ComposedLayout::Stage &stage : out.chain) {
    strip(stage.function);
    stage.offset = withoutHandles(stage.offset);
  }
  out.outer = withoutHandles(l.outer);
  return out;
}

static void stripModeHandles(std::vector<algebra::Tile::Mode> &modes) {
  for (algebra::Tile::Mode &mode : modes) {
    mode.layout = withoutHandles(mode.layout);
    stripModeHandles(mode.nested);
  }
}

algebra::Tile mlir::fly::withoutHandles(const algebra::Tile &t) {
  algebra::Tile out = t;
  stripModeHandles(out.modes);
  return out;
}

/// The pointer part of a pointer or memref type.
static PointerValue getPointerValue(PointerType type) {
  return PointerValue{type.getElementType(), type.getAddressSpace(),
                      type.getAlignment()};
}

/// A layout or composed layout type's object.
static std::variant<Layout, algebra::ComposedLayout>
getAnyLayoutValue(Type type) {
  if (auto composed = dyn_cast<ComposedLayoutType>(type))
    return composed.getValue();
  return cast<LayoutType>(type).getValue();
}

std::optional<AlgebraValue> mlir::fly::getAlgebraValue(Type type) {
  return llvm::TypeSwitch<Type, std::optional<AlgebraValue>>(type)
      .Case<IntTupleType, LayoutType, SwizzleType, CoordSwizzleType,
            ComposedLayoutType, TileType>(
          [](auto t) { return AlgebraValue(t.getValue()); })
      .Case([](PointerType t) { return AlgebraValue(getPointerValue(t)); })
      .Case([](MemTensorType t) {
        return AlgebraValue(TensorValue{getPointerValue(t.getPointer()),
                                        getAnyLayoutValue(t.getLayout())});
      })
      .Case([](CoordTensorType t) {
        return AlgebraValue(
            TensorValue{t.getBase().getValue(), t.getLayout().getValue()});
      })
      .Case<CopyOpTypeInterface, MmaOpTypeInterface, CopyAtomType,
            MmaAtomType, TiledCopyType, TiledMmaType>(
          [](auto t) { return AlgebraValue(AtomValue{t}); })
      .Default([](Type) { return std::nullopt; });
}

Type mlir::fly::getCheckedType(function_ref<InFlightDiagnostic()> emitError,
                               MLIRContext *ctx, const AlgebraValue &value) {
  auto pointerType = [&](const PointerValue &p) {
    return PointerType::getChecked(emitError, ctx, p.elementType,
                                   p.addressSpace, p.alignment);
  };
  auto layoutType = [&](const auto &l) -> Type {
    return getCheckedType(emitError, ctx, l);
  };
  return std::visit(
      [&](const auto &v) -> Type {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, PointerValue>) {
          return pointerType(v);
        } else if constexpr (std::is_same_v<T, AtomValue>) {
          // Atom types are verified where they are built.
          return v.type;
        } else if constexpr (std::is_same_v<T, TensorValue>) {
          Type layout = std::visit(layoutType, v.layout);
          if (!layout)
            return {};
          if (const auto *p = std::get_if<PointerValue>(&v.iterator)) {
            PointerType pointer = pointerType(*p);
            return pointer ? MemTensorType::getChecked(emitError, ctx, pointer,
                                                       layout)
                           : Type();
          }
          auto base = IntTupleType::getChecked(
              emitError, ctx, std::get<IntTuple>(v.iterator));
          auto plain = dyn_cast<LayoutType>(layout);
          if (!plain) {
            emitError() << "a coord_tensor needs a layout, not the composed "
                        << "layout " << layout;
            return {};
          }
          return base ? CoordTensorType::getChecked(emitError, ctx, base, plain)
                      : Type();
        } else {
          return TypeFor<T>::type::getChecked(emitError, ctx, v);
        }
      },
      value);
}

bool mlir::fly::isAlgebraType(Type type) {
  return isa<IntTupleType, LayoutType, SwizzleType, CoordSwizzleType,
             ComposedLayoutType, TileType, CoordTensorType, CopyOpTypeInterface,
             MmaOpTypeInterface, CopyAtomType, MmaAtomType, TiledCopyType,
             TiledMmaType>(type);
}

namespace {
/// Replaces each leaf of a value by `f(leaf)`, visiting the leaves in the
/// order documented at getDynamicLeafTypes.
template <typename F> struct LeafMap {
  F &f;

  IntTuple operator()(const IntTuple &t) {
    return algebra::transformLeaves(t, f);
  }
  Layout operator()(const Layout &l) {
    IntTuple shape = (*this)(l.shape);
    return Layout(std::move(shape), (*this)(l.stride));
  }
  algebra::Swizzle operator()(const algebra::Swizzle &s) { return s; }
  algebra::CoordSwizzle operator()(const algebra::CoordSwizzle &s) {
    return s;
  }
  algebra::ComposedLayout operator()(const algebra::ComposedLayout &l) {
    // In the printed order: inner, offset, each stage of the chain, outer.
    algebra::ComposedLayout out = l;
    auto map = [&](algebra::ComposedFunction &f) {
      if (auto *layout = std::get_if<Layout>(&f))
        *layout = (*this)(*layout);
    };
    map(out.inner);
    out.offset = (*this)(l.offset);
    for (algebra::ComposedLayout::Stage &stage : out.chain) {
      map(stage.function);
      stage.offset = (*this)(stage.offset);
    }
    out.outer = (*this)(l.outer);
    return out;
  }
  void mapModes(std::vector<algebra::Tile::Mode> &modes) {
    for (algebra::Tile::Mode &mode : modes) {
      if (mode.kind == algebra::Tile::Mode::Kind::Layout)
        mode.layout = (*this)(mode.layout);
      mapModes(mode.nested);
    }
  }
  algebra::Tile operator()(const algebra::Tile &t) {
    algebra::Tile out = t;
    mapModes(out.modes);
    return out;
  }
  // A pointer is no leaf, nor is an atom.
  PointerValue operator()(const PointerValue &p) { return p; }
  AtomValue operator()(const AtomValue &a) { return a; }
  TensorValue operator()(const TensorValue &t) {
    TensorValue out = t;
    if (const auto *base = std::get_if<IntTuple>(&t.iterator))
      out.iterator = (*this)(*base);
    out.layout = std::visit(
        [&](const auto &l) -> decltype(out.layout) { return (*this)(l); },
        t.layout);
    return out;
  }
};
} // namespace

template <typename F>
static AlgebraValue mapLeaves(const AlgebraValue &value, F f) {
  LeafMap<F> map{f};
  return std::visit([&](const auto &v) -> AlgebraValue { return map(v); },
                    value);
}

std::vector<Int> mlir::fly::getLeaves(const AlgebraValue &value) {
  std::vector<Int> out;
  mapLeaves(value, [&](const Int &leaf) {
    out.push_back(leaf);
    return leaf;
  });
  return out;
}

std::vector<Int> mlir::fly::getDynamicLeaves(const AlgebraValue &value) {
  std::vector<Int> out;
  for (const Int &leaf : getLeaves(value))
    if (leaf.isDynamic())
      out.push_back(leaf);
  return out;
}

AlgebraValue mlir::fly::bindDynamicLeaves(const AlgebraValue &value,
                                          ArrayRef<uint32_t> handles) {
  size_t next = 0;
  return mapLeaves(value, [&](const Int &leaf) {
    if (!leaf.isDynamic() || next >= handles.size())
      return leaf;
    return leaf.withHandle(handles[next++]);
  });
}

bool mlir::fly::isStatic(Type type) {
  // Pointers and memrefs carry a runtime pointer.
  if (isa<PointerType, MemTensorType>(type))
    return false;
  std::optional<AlgebraValue> value = getAlgebraValue(type);
  return value && llvm::none_of(getLeaves(*value), [](const Int &leaf) {
           return leaf.isDynamic();
         });
}

SmallVector<Type> mlir::fly::getDynamicLeafTypes(Type type) {
  SmallVector<Type> types;
  std::optional<AlgebraValue> value = getAlgebraValue(type);
  if (!value)
    return types;
  Builder b(type.getContext());
  for (const Int &leaf : getDynamicLeaves(*value))
    types.push_back(leaf.isWide() ? b.getI64Type() : b.getI32Type());
  return types;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

LogicalResult IntTupleType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   IntTuple value) {
  for (const Int &leaf : algebra::leaves(value))
    if (leaf.isDynamic() && leaf.divisibility() < 1)
      return emitError() << "dynamic leaf with divisor " << leaf.divisibility()
                         << " in " << toString(value);
  return success();
}

/// Layouts map coordinates of a shape of positive extents, without `*` and
/// scaled basis elements, through a congruent stride without `*`.
LogicalResult LayoutType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Layout value) {
  if (!algebra::congruent(value.shape, value.stride))
    return emitError() << "layout shape " << toString(value.shape)
                       << " and stride " << toString(value.stride)
                       << " are not congruent";
  for (const Int &leaf : algebra::leaves(value.shape)) {
    if (leaf.isNone() || leaf.isBasis() ||
        (leaf.isStatic() && leaf.value() < 1))
      return emitError() << "layout shape " << toString(value.shape)
                         << " has a leaf that is not a positive integer";
  }
  for (const Int &leaf : algebra::leaves(value.stride))
    if (leaf.isNone())
      return emitError() << "layout stride " << toString(value.stride)
                         << " has a '*' leaf";
  if (failed(IntTupleType::verify(emitError, value.shape)) ||
      failed(IntTupleType::verify(emitError, value.stride)))
    return failure();
  return success();
}

LogicalResult SwizzleType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  algebra::Swizzle value) {
  if (!value.isValid())
    return emitError() << "invalid swizzle " << toString(value);
  return success();
}

LogicalResult
CoordSwizzleType::verify(function_ref<InFlightDiagnostic()> emitError,
                         algebra::CoordSwizzle value) {
  if (!value.isValid())
    return emitError() << "invalid coordinate swizzle " << toString(value)
                       << " (bits in [0, 32), bases >= 0, distinct non-empty "
                          "row and column mode paths)";
  return success();
}

LogicalResult
ComposedLayoutType::verify(function_ref<InFlightDiagnostic()> emitError,
                           algebra::ComposedLayout value) {
  auto verifyStage = [&](const algebra::ComposedFunction &f,
                         const IntTuple &offset) {
    LogicalResult ok = std::visit(
        [&](const auto &g) {
          return TypeFor<std::decay_t<decltype(g)>>::type::verify(emitError, g);
        },
        f);
    return success(succeeded(ok) &&
                   succeeded(IntTupleType::verify(emitError, offset)));
  };
  if (failed(verifyStage(value.inner, value.offset)))
    return failure();
  for (const algebra::ComposedLayout::Stage &stage : value.chain)
    if (failed(verifyStage(stage.function, stage.offset)))
      return failure();
  return LayoutType::verify(emitError, value.outer);
}

static LogicalResult
verifyTileModes(function_ref<InFlightDiagnostic()> emitError,
                const std::vector<algebra::Tile::Mode> &modes) {
  for (const algebra::Tile::Mode &mode : modes) {
    if (mode.kind == algebra::Tile::Mode::Kind::Layout &&
        failed(LayoutType::verify(emitError, mode.layout)))
      return failure();
    if (failed(verifyTileModes(emitError, mode.nested)))
      return failure();
  }
  return success();
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               algebra::Tile value) {
  return verifyTileModes(emitError, value.modes);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

/// Recursive descent over the algebra texts. MLIR's lexer has no look-ahead
/// through AsmParser, and the only place that needs it is a leaf: `1E0`
/// lexes as the integer `1` and the identifier `E0`, so after a leaf we read
/// an identifier if there is one. When that identifier is not a basis suffix
/// (the `o` of `8:1 o 0 o ...`) it is kept as `pending` for the next rule.
class AlgebraParser {
public:
  explicit AlgebraParser(AsmParser &p) : p(p) {}

  FailureOr<IntTuple> parseIntTuple(unsigned depth = 0);
  FailureOr<Layout> parseLayout();
  FailureOr<algebra::Swizzle> parseSwizzle();
  FailureOr<algebra::CoordSwizzle> parseCoordSwizzle();
  FailureOr<algebra::ComposedLayout> parseComposedLayout();
  /// A layout, or a composed layout (only that if `composedOnly`).
  FailureOr<std::variant<Layout, algebra::ComposedLayout>>
  parseAnyLayout(bool composedOnly = false);
  FailureOr<algebra::Tile> parseTile(unsigned depth = 0);

  /// Fails on a pending identifier where `expected` must come.
  ParseResult rejectPending(StringRef expected);

private:
  static constexpr unsigned kMaxNesting = 32;

  /// Integers as AsmParser reads them, except hexadecimal ones.
  template <typename T> OptionalParseResult parseOptionalDecimal(T &value);
  template <typename T> ParseResult parseDecimal(T &value);

  FailureOr<Int> parseLeaf();
  FailureOr<algebra::BasisPath> parseBasisSuffix(StringRef text, SMLoc loc);
  FailureOr<Layout> parseLayoutStride(IntTuple shape, SMLoc loc);
  FailureOr<algebra::Swizzle> parseSwizzleBody(SMLoc loc);
  FailureOr<algebra::CoordSwizzle> parseCoordSwizzleBody(SMLoc loc);
  ParseResult parseModePath(std::vector<int64_t> &path);
  ParseResult parseCompose();
  bool parseOptionalCompose();
  FailureOr<algebra::Tile::Mode> parseTileMode(unsigned depth);
  ParseResult checkNesting(unsigned depth);

  template <typename TypeT, typename ValueT>
  FailureOr<ValueT> checked(SMLoc loc, ValueT value) {
    if (failed(TypeT::verify([&] { return p.emitError(loc); }, value)))
      return failure();
    return value;
  }

  AsmParser &p;
  std::optional<std::pair<StringRef, SMLoc>> pending;
};

} // namespace

ParseResult AlgebraParser::rejectPending(StringRef expected) {
  if (!pending)
    return success();
  return p.emitError(pending->second)
         << "expected " << expected << ", got '" << pending->first << "'";
}

ParseResult AlgebraParser::checkNesting(unsigned depth) {
  if (depth < kMaxNesting)
    return success();
  return p.emitError(p.getCurrentLocation())
         << "nesting deeper than " << kMaxNesting;
}

template <typename T>
OptionalParseResult AlgebraParser::parseOptionalDecimal(T &value) {
  // MLIR's lexer also reads `0x10`; the algebra's texts are decimal. The
  // location points into the null-terminated source buffer.
  SMLoc loc = p.getCurrentLocation();
  const char *c = loc.getPointer();
  while (*c == '-' || *c == ' ' || *c == '\t')
    ++c;
  if (c[0] == '0' && c[1] == 'x')
    return ParseResult(p.emitError(loc) << "expected a decimal integer");
  return p.parseOptionalInteger(value);
}

template <typename T> ParseResult AlgebraParser::parseDecimal(T &value) {
  SMLoc loc = p.getCurrentLocation();
  OptionalParseResult result = parseOptionalDecimal(value);
  if (!result.has_value())
    return p.emitError(loc) << "expected an integer";
  return *result;
}

/// `E1E0` -> the mode path (1, 0).
FailureOr<algebra::BasisPath> AlgebraParser::parseBasisSuffix(StringRef text,
                                                              SMLoc loc) {
  SmallVector<int> modes;
  StringRef rest = text;
  while (!rest.empty()) {
    unsigned mode;
    StringRef digits = rest.drop_front().take_while(llvm::isDigit);
    if (rest.front() != 'E' || digits.empty() ||
        digits.getAsInteger(10, mode) || mode > INT8_MAX)
      return p.emitError(loc) << "invalid scaled basis suffix '" << text
                              << "' (expected E<mode>, e.g. E1 or E1E0)";
    modes.push_back(int(mode));
    rest = rest.drop_front(1 + digits.size());
  }
  if (modes.size() > algebra::BasisPath::kMaxDepth)
    return p.emitError(loc) << "scaled basis '" << text << "' deeper than "
                            << algebra::BasisPath::kMaxDepth;
  return algebra::BasisPath(modes);
}

/// leaf ::= `*` | (integer | `?` | `?{` [`i64`] [`div=` integer] `}`) [basis]
FailureOr<Int> AlgebraParser::parseLeaf() {
  SMLoc loc = p.getCurrentLocation();
  if (succeeded(p.parseOptionalStar()))
    return Int::none();

  Int leaf;
  if (succeeded(p.parseOptionalQuestion())) {
    bool wide = false;
    int64_t div = 1;
    if (succeeded(p.parseOptionalLBrace())) {
      SMLoc typeLoc = p.getCurrentLocation();
      Type type;
      OptionalParseResult typeResult = p.parseOptionalType(type);
      if (typeResult.has_value()) {
        if (failed(*typeResult))
          return failure();
        if (!type.isInteger(64))
          return p.emitError(typeLoc)
                 << "expected 'i64' as the width of a dynamic leaf";
        wide = true;
      }
      SMLoc divLoc = p.getCurrentLocation();
      if (succeeded(p.parseOptionalKeyword("div"))) {
        if (p.parseEqual() || parseDecimal(div))
          return failure();
        if (div < 1)
          return p.emitError(divLoc) << "divisor must be positive";
      } else if (!wide) {
        return p.emitError(divLoc) << "expected 'i64' or 'div'";
      }
      if (p.parseRBrace())
        return failure();
    }
    leaf = Int::dynamic(div, wide);
  } else {
    int64_t value;
    OptionalParseResult intResult = parseOptionalDecimal(value);
    if (!intResult.has_value())
      return p.emitError(loc) << "expected an integer, '?', '*' or '('";
    if (failed(*intResult))
      return failure();
    leaf = Int(value);
  }

  SMLoc suffixLoc = p.getCurrentLocation();
  StringRef suffix;
  if (failed(p.parseOptionalKeyword(&suffix)))
    return leaf;
  if (!suffix.starts_with("E")) {
    pending = {suffix, suffixLoc};
    return leaf;
  }
  FailureOr<algebra::BasisPath> path = parseBasisSuffix(suffix, suffixLoc);
  if (failed(path))
    return failure();
  return leaf.withBasis(*path);
}

/// tuple ::= leaf | `(` [tuple (`,` tuple)*] `)`
FailureOr<IntTuple> AlgebraParser::parseIntTuple(unsigned depth) {
  if (failed(checkNesting(depth)))
    return failure();
  if (failed(p.parseOptionalLParen())) {
    FailureOr<Int> leaf = parseLeaf();
    if (failed(leaf))
      return failure();
    return IntTuple(*leaf);
  }
  std::vector<IntTuple> elems;
  if (succeeded(p.parseOptionalRParen()))
    return IntTuple::tuple(std::move(elems));
  do {
    FailureOr<IntTuple> elem = parseIntTuple(depth + 1);
    if (failed(elem) || failed(rejectPending("',' or ')'")))
      return failure();
    elems.push_back(std::move(*elem));
  } while (succeeded(p.parseOptionalComma()));
  if (p.parseRParen())
    return failure();
  return IntTuple::tuple(std::move(elems));
}

/// The stride of a layout whose shape and `:` have been read.
FailureOr<Layout> AlgebraParser::parseLayoutStride(IntTuple shape, SMLoc loc) {
  FailureOr<IntTuple> stride = parseIntTuple();
  if (failed(stride))
    return failure();
  return checked<LayoutType>(loc, Layout(std::move(shape), *stride));
}

/// layout ::= tuple `:` tuple
FailureOr<Layout> AlgebraParser::parseLayout() {
  SMLoc loc = p.getCurrentLocation();
  FailureOr<IntTuple> shape = parseIntTuple();
  if (failed(shape) || failed(rejectPending("':'")) || p.parseColon())
    return failure();
  return parseLayoutStride(*shape, loc);
}

/// The `<B,M,S>` of a swizzle whose `S` has been read.
FailureOr<algebra::Swizzle> AlgebraParser::parseSwizzleBody(SMLoc loc) {
  algebra::Swizzle s;
  if (p.parseLess() || parseDecimal(s.bits) || p.parseComma() ||
      parseDecimal(s.base) || p.parseComma() || parseDecimal(s.shift) ||
      p.parseGreater())
    return failure();
  return checked<SwizzleType>(loc, s);
}

/// swizzle ::= `S` `<` integer `,` integer `,` integer `>`
FailureOr<algebra::Swizzle> AlgebraParser::parseSwizzle() {
  SMLoc loc = p.getCurrentLocation();
  if (p.parseKeyword("S"))
    return failure();
  return parseSwizzleBody(loc);
}

/// `[` integer (`,` integer)* `]` or `[]`: a mode path.
ParseResult AlgebraParser::parseModePath(std::vector<int64_t> &path) {
  if (p.parseLSquare())
    return failure();
  if (succeeded(p.parseOptionalRSquare()))
    return success();
  do {
    int64_t mode;
    if (parseDecimal(mode))
      return failure();
    path.push_back(mode);
  } while (succeeded(p.parseOptionalComma()));
  return p.parseRSquare();
}

/// The `<B,R,[row],C,[col]>` of a coordinate swizzle whose `CS` has been
/// read.
FailureOr<algebra::CoordSwizzle>
AlgebraParser::parseCoordSwizzleBody(SMLoc loc) {
  algebra::CoordSwizzle s;
  if (p.parseLess() || parseDecimal(s.bits) || p.parseComma() ||
      parseDecimal(s.baseRow) || p.parseComma() || parseModePath(s.rowMode) ||
      p.parseComma() || parseDecimal(s.baseCol) || p.parseComma() ||
      parseModePath(s.colMode) || p.parseGreater())
    return failure();
  return checked<CoordSwizzleType>(loc, s);
}

/// coord_swizzle ::= `CS` `<` integer `,` integer `,` path `,` integer `,`
///                   path `>`
FailureOr<algebra::CoordSwizzle> AlgebraParser::parseCoordSwizzle() {
  SMLoc loc = p.getCurrentLocation();
  if (p.parseKeyword("CS"))
    return failure();
  return parseCoordSwizzleBody(loc);
}

/// The `o` of a composed layout, possibly read already after a leaf.
ParseResult AlgebraParser::parseCompose() {
  if (pending && pending->first == "o") {
    pending.reset();
    return success();
  }
  if (failed(rejectPending("'o'")))
    return failure();
  return p.parseKeyword("o");
}

/// An `o` if one comes (read already after a leaf, or next).
bool AlgebraParser::parseOptionalCompose() {
  if (pending) {
    if (pending->first != "o")
      return false;
    pending.reset();
    return true;
  }
  return succeeded(p.parseOptionalKeyword("o"));
}

/// function ::= swizzle | coord_swizzle | layout
/// composed ::= function `o` tuple `o` (function `o` tuple `o`)*
///              (layout | `[` composed `]`)
FailureOr<algebra::ComposedLayout> AlgebraParser::parseComposedLayout() {
  FailureOr<std::variant<Layout, algebra::ComposedLayout>> any =
      parseAnyLayout(/*composedOnly=*/true);
  if (failed(any))
    return failure();
  return std::get<algebra::ComposedLayout>(*any);
}

/// any_layout ::= layout | composed
FailureOr<std::variant<Layout, algebra::ComposedLayout>>
AlgebraParser::parseAnyLayout(bool composedOnly) {
  SMLoc loc = p.getCurrentLocation();
  algebra::ComposedLayout composed;
  if (succeeded(p.parseOptionalKeyword("S"))) {
    FailureOr<algebra::Swizzle> s = parseSwizzleBody(loc);
    if (failed(s) || parseCompose())
      return failure();
    composed.inner = *s;
  } else if (succeeded(p.parseOptionalKeyword("CS"))) {
    FailureOr<algebra::CoordSwizzle> s = parseCoordSwizzleBody(loc);
    if (failed(s) || parseCompose())
      return failure();
    composed.inner = *s;
  } else {
    FailureOr<Layout> inner = parseLayout();
    if (failed(inner))
      return failure();
    if (!composedOnly && !parseOptionalCompose())
      return std::variant<Layout, algebra::ComposedLayout>(*inner);
    if (composedOnly && parseCompose())
      return failure();
    composed.inner = *inner;
  }
  FailureOr<IntTuple> offset = parseIntTuple();
  if (failed(offset) || parseCompose())
    return failure();
  composed.offset = *offset;
  // The rest of the chain: `function o offset o` stages, then the outer
  // layout, or a bracketed composed layout (FlyDSL's composed outer),
  // flattened into the chain.
  while (true) {
    SMLoc at = p.getCurrentLocation();
    if (succeeded(p.parseOptionalLSquare())) {
      FailureOr<algebra::ComposedLayout> nested = parseComposedLayout();
      if (failed(nested) || p.parseRSquare())
        return failure();
      composed.chain.push_back({nested->inner, nested->offset});
      llvm::append_range(composed.chain, nested->chain);
      composed.outer = nested->outer;
      break;
    }
    algebra::ComposedFunction function;
    if (succeeded(p.parseOptionalKeyword("S"))) {
      FailureOr<algebra::Swizzle> s = parseSwizzleBody(at);
      if (failed(s) || parseCompose())
        return failure();
      function = *s;
    } else if (succeeded(p.parseOptionalKeyword("CS"))) {
      FailureOr<algebra::CoordSwizzle> s = parseCoordSwizzleBody(at);
      if (failed(s) || parseCompose())
        return failure();
      function = *s;
    } else {
      FailureOr<Layout> layout = parseLayout();
      if (failed(layout))
        return failure();
      if (!parseOptionalCompose()) {
        composed.outer = *layout;
        break;
      }
      function = *layout;
    }
    FailureOr<IntTuple> stageOffset = parseIntTuple();
    if (failed(stageOffset) || parseCompose())
      return failure();
    composed.chain.push_back({function, *stageOffset});
  }
  if (failed(checked<ComposedLayoutType>(loc, composed)))
    return failure();
  return std::variant<Layout, algebra::ComposedLayout>(composed);
}

/// mode ::= tile | `*` | integer | layout
FailureOr<algebra::Tile::Mode> AlgebraParser::parseTileMode(unsigned depth) {
  using Kind = algebra::Tile::Mode::Kind;
  algebra::Tile::Mode mode;
  if (succeeded(p.parseOptionalLSquare())) {
    FailureOr<algebra::Tile> nested = parseTile(depth + 1);
    if (failed(nested))
      return failure();
    mode.kind = Kind::Nested;
    mode.nested = std::move(nested->modes);
    return mode;
  }
  SMLoc loc = p.getCurrentLocation();
  FailureOr<IntTuple> shape = parseIntTuple(depth + 1);
  if (failed(shape) || failed(rejectPending("':', '|' or ']'")))
    return failure();
  if (succeeded(p.parseOptionalColon())) {
    FailureOr<Layout> layout = parseLayoutStride(*shape, loc);
    if (failed(layout))
      return failure();
    mode.kind = Kind::Layout;
    mode.layout = std::move(*layout);
    return mode;
  }
  if (shape->isLeaf() && shape->leaf().isNone()) {
    mode.kind = Kind::Keep;
    return mode;
  }
  if (!shape->isLeaf() || !shape->leaf().isStatic() ||
      shape->leaf().isBasis() || shape->leaf().value() < 1)
    return p.emitError(loc) << "expected a positive integer, '*', '[' or a "
                               "layout 'shape:stride' as a tile mode";
  mode.kind = Kind::Layout;
  mode.layout = Layout(*shape, IntTuple(1));
  return mode;
}

/// tile ::= `[` mode (`|` mode)* `]`; the `[` has been read unless depth is 0.
FailureOr<algebra::Tile> AlgebraParser::parseTile(unsigned depth) {
  if (failed(checkNesting(depth)))
    return failure();
  if (depth == 0 && p.parseLSquare())
    return failure();
  algebra::Tile tile;
  do {
    FailureOr<algebra::Tile::Mode> mode = parseTileMode(depth);
    if (failed(mode) || failed(rejectPending("'|' or ']'")))
      return failure();
    tile.modes.push_back(std::move(*mode));
  } while (succeeded(p.parseOptionalVerticalBar()));
  if (p.parseRSquare())
    return failure();
  return tile;
}

FailureOr<IntTuple> mlir::fly::detail::parseIntTupleText(AsmParser &p) {
  AlgebraParser parser(p);
  FailureOr<IntTuple> value = parser.parseIntTuple();
  if (failed(value) || failed(parser.rejectPending("',' or '>'")))
    return failure();
  return value;
}

FailureOr<std::variant<Layout, algebra::ComposedLayout>>
mlir::fly::detail::parseAnyLayoutText(AsmParser &p) {
  AlgebraParser parser(p);
  auto value = parser.parseAnyLayout();
  if (failed(value) || failed(parser.rejectPending("',' or '>'")))
    return failure();
  return value;
}

FailureOr<algebra::Tile> mlir::fly::detail::parseTileText(AsmParser &p) {
  AlgebraParser parser(p);
  auto value = parser.parseTile();
  if (failed(value) || failed(parser.rejectPending("',' or '>'")))
    return failure();
  return value;
}

/// `<` body `>` for every algebra type; `parseBody` reads the body.
template <typename TypeT, typename ParseBody>
static Type parseAlgebraType(AsmParser &p, ParseBody &&parseBody) {
  SMLoc loc = p.getCurrentLocation();
  AlgebraParser parser(p);
  if (p.parseLess())
    return {};
  auto value = parseBody(parser);
  if (failed(value) || failed(parser.rejectPending("'>'")) || p.parseGreater())
    return {};
  return TypeT::getChecked([&] { return p.emitError(loc); }, p.getContext(),
                           *value);
}

Type IntTupleType::parse(AsmParser &p) {
  return parseAlgebraType<IntTupleType>(
      p, [](AlgebraParser &ap) { return ap.parseIntTuple(); });
}

Type LayoutType::parse(AsmParser &p) {
  return parseAlgebraType<LayoutType>(
      p, [](AlgebraParser &ap) { return ap.parseLayout(); });
}

Type SwizzleType::parse(AsmParser &p) {
  return parseAlgebraType<SwizzleType>(
      p, [](AlgebraParser &ap) { return ap.parseSwizzle(); });
}

Type CoordSwizzleType::parse(AsmParser &p) {
  return parseAlgebraType<CoordSwizzleType>(
      p, [](AlgebraParser &ap) { return ap.parseCoordSwizzle(); });
}

Type ComposedLayoutType::parse(AsmParser &p) {
  return parseAlgebraType<ComposedLayoutType>(
      p, [](AlgebraParser &ap) { return ap.parseComposedLayout(); });
}

Type TileType::parse(AsmParser &p) {
  return parseAlgebraType<TileType>(
      p, [](AlgebraParser &ap) { return ap.parseTile(); });
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

void IntTupleType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

void LayoutType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

void SwizzleType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

void CoordSwizzleType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

void ComposedLayoutType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

void TileType::print(AsmPrinter &p) const {
  p << '<' << toString(getValue()) << '>';
}

#define GET_TYPEDEF_CLASSES
#include "fly/Dialect/Fly/IR/FlyTypes.cpp.inc"

void FlyDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fly/Dialect/Fly/IR/FlyTypes.cpp.inc"
      >();
}
