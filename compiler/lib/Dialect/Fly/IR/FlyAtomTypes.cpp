//===- FlyAtomTypes.cpp - Copy/MMA operations, atoms, tiled atoms ---------===//
//
// The texts of the atom types (FlyAtomTypes.td), their verification, and
// the mapping from the types to the algebra's records (FlyAtoms.h). Every
// check of an atom's well-formedness is the algebra's: a verifier builds the
// record and reports the algebra's error.
//
//===----------------------------------------------------------------------===//

#include "FlyTypeParsing.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::fly;
namespace algebra = ::fly::algebra;
using algebra::Arith;
using algebra::Layout;
using algebra::Tile;

//===----------------------------------------------------------------------===//
// Types to records
//===----------------------------------------------------------------------===//

/// Integer or float scalar types of a whole number of bytes, up to 128 bits.
static bool isElementScalar(Type type) {
  if (!type || !isa<IntegerType, FloatType>(type))
    return false;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits >= 8 && bits <= 128 && bits % 8 == 0;
}

#include "fly/Dialect/Fly/IR/FlyAtomInterfaces.cpp.inc"

algebra::CopyTraits mlir::fly::getCopyTraits(Arith &ar, Type op) {
  if (auto copy = dyn_cast_or_null<CopyOpTypeInterface>(op))
    return copy.getCopyTraits(ar);
  ar.fail("expected a copy operation type");
  return {};
}

/// The record of `type` in `map` (FlyDialect::AtomRecords), built by
/// `build` on first use; a record whose building failed is not kept. The
/// records are static (atom types have no run-time parameters), so the
/// caller's emitter is never asked for anything.
template <typename Record, typename Build>
static Record recorded(Arith &ar, Type type,
                       llvm::DenseMap<Type, Record> FlyDialect::AtomRecords::*map,
                       Build &&build) {
  if (ar.failed())
    return {};
  auto *dialect = type.getContext()->getLoadedDialect<FlyDialect>();
  FlyDialect::AtomRecords &records = dialect->getAtomRecords();
  {
    std::lock_guard<std::mutex> lock(records.mutex);
    auto it = (records.*map).find(type);
    if (it != (records.*map).end())
      return it->second;
  }
  Record record = build();
  if (ar.failed())
    return {};
  std::lock_guard<std::mutex> lock(records.mutex);
  (records.*map).try_emplace(type, record);
  return record;
}

algebra::CopyAtom mlir::fly::getCopyAtom(Arith &ar, Type atom) {
  auto type = dyn_cast_or_null<CopyAtomType>(atom);
  if (!type) {
    ar.fail("expected a copy_atom type");
    return {};
  }
  return recorded(ar, type, &FlyDialect::AtomRecords::copyAtoms, [&] {
    algebra::CopyTraits traits = getCopyTraits(ar, type.getOp());
    if (ar.failed())
      return algebra::CopyAtom{};
    return algebra::makeCopyAtom(ar, traits, type.getValueBits());
  });
}

algebra::MmaAtom mlir::fly::getMmaAtom(Arith &ar, Type atom) {
  auto type = dyn_cast_or_null<MmaAtomType>(atom);
  if (!type) {
    ar.fail("expected an mma_atom type");
    return {};
  }
  auto mma = dyn_cast<MmaOpTypeInterface>(type.getOp());
  if (!mma) {
    ar.fail("expected an mma operation type");
    return {};
  }
  return recorded(ar, type, &FlyDialect::AtomRecords::mmaAtoms,
                  [&] { return mma.getMmaTraits(ar); });
}

algebra::TiledCopy mlir::fly::getTiledCopy(Arith &ar, Type atom,
                                           const Layout &layoutTV,
                                           const Tile &tile) {
  algebra::CopyAtom copyAtom = getCopyAtom(ar, atom);
  if (ar.failed())
    return {};
  return algebra::makeTiledCopy(ar, copyAtom, layoutTV, tile);
}

algebra::TiledMma mlir::fly::getTiledMma(Arith &ar, Type atom,
                                         const Layout &atomLayout,
                                         const Tile *permutation) {
  algebra::MmaAtom mmaAtom = getMmaAtom(ar, atom);
  if (ar.failed())
    return {};
  return algebra::makeTiledMma(ar, mmaAtom, atomLayout, permutation);
}

algebra::TiledCopy mlir::fly::getTiledCopy(Arith &ar, Type type) {
  auto tiled = dyn_cast_or_null<TiledCopyType>(type);
  if (!tiled) {
    ar.fail("expected a tiled_copy type");
    return {};
  }
  return recorded(ar, tiled, &FlyDialect::AtomRecords::tiledCopies, [&] {
    return getTiledCopy(ar, tiled.getAtom(), tiled.getLayoutTV().getValue(),
                        tiled.getTile().getValue());
  });
}

algebra::TiledMma mlir::fly::getTiledMma(Arith &ar, Type type) {
  auto tiled = dyn_cast_or_null<TiledMmaType>(type);
  if (!tiled) {
    ar.fail("expected a tiled_mma type");
    return {};
  }
  return recorded(ar, tiled, &FlyDialect::AtomRecords::tiledMmas, [&] {
    std::optional<Tile> permutation;
    if (tiled.getPermutation())
      permutation = tiled.getPermutation().getValue();
    return getTiledMma(ar, tiled.getAtom(), tiled.getAtomLayout().getValue(),
                       permutation ? &*permutation : nullptr);
  });
}

std::array<Type, 4> mlir::fly::getMmaElementTypes(Type type) {
  if (auto tiled = dyn_cast_or_null<TiledMmaType>(type))
    type = tiled.getAtom();
  if (auto atom = dyn_cast_or_null<MmaAtomType>(type))
    if (auto mma = dyn_cast<MmaOpTypeInterface>(atom.getOp()))
      return mma.getElementTypes();
  return {};
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// Reports the algebra's error, if any.
static LogicalResult
reportArith(function_ref<InFlightDiagnostic()> emitError, const Arith &ar,
            StringRef prefix = "") {
  if (ar.failed())
    return emitError() << prefix << ar.error();
  return success();
}

LogicalResult
UniversalCopyType::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t bits) {
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128)
    return emitError() << "universal_copy moves 8, 16, 32, 64 or 128 bits, "
                       << "got " << bits;
  return success();
}

LogicalResult
UniversalFmaType::verify(function_ref<InFlightDiagnostic()> emitError, Type d,
                         Type a, Type b, Type c) {
  for (auto [name, type] :
       {std::pair<const char *, Type>{"d", d}, {"a", a}, {"b", b}, {"c", c}})
    if (!isElementScalar(type))
      return emitError() << "universal_fma: the element type of " << name
                         << " must be an integer or float type of 8 to 128 "
                         << "bits, got " << type;
  return success();
}

LogicalResult
UniversalAtomicType::verify(function_ref<InFlightDiagnostic()> emitError,
                            StringRef op, Type valueType, StringRef syncscope) {
  // The scopes LLVM's AMDGPU backend knows (the empty one is the system).
  static constexpr StringRef kScopes[] = {
      "", "singlethread", "agent", "workgroup", "wavefront",
      "singlethread-one-as", "agent-one-as", "workgroup-one-as",
      "wavefront-one-as", "one-as"};
  if (!llvm::is_contained(kScopes, syncscope))
    return emitError() << "universal_atomic: unknown sync scope \""
                       << syncscope << "\" (expected \"\" (system), "
                       << "\"singlethread\", \"agent\", \"workgroup\", "
                       << "\"wavefront\" or one of their \"-one-as\" forms)";
  if (op != "add" && op != "max" && op != "min")
    return emitError() << "universal_atomic: the operation must be add, max "
                       << "or min, got '" << op << "'";
  if (!isElementScalar(valueType))
    return emitError() << "universal_atomic: the element type must be an "
                       << "integer or float type of 8 to 128 bits, got "
                       << valueType;
  return success();
}

LogicalResult CopyAtomType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Type op, int64_t valueBits) {
  if (!isa_and_nonnull<CopyOpTypeInterface>(op))
    return emitError() << "copy_atom: expected a copy operation type, got "
                       << op;
  if (valueBits < 1)
    return emitError() << "copy_atom: the value width must be positive, got "
                       << valueBits;
  Arith ar;
  algebra::CopyTraits traits = getCopyTraits(ar, op);
  if (!ar.failed())
    algebra::makeCopyAtom(ar, traits, valueBits);
  return reportArith(emitError, ar, "copy_atom: ");
}

LogicalResult MmaAtomType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type op) {
  if (!isa_and_nonnull<MmaOpTypeInterface>(op))
    return emitError() << "mma_atom: expected an mma operation type, got "
                       << op;
  Arith ar;
  cast<MmaOpTypeInterface>(op).getMmaTraits(ar);
  return reportArith(emitError, ar, "mma_atom: ");
}

LogicalResult
TiledCopyType::verify(function_ref<InFlightDiagnostic()> emitError, Type atom,
                      LayoutType layoutTV, TileType tile) {
  if (!isa_and_nonnull<CopyAtomType>(atom))
    return emitError() << "tiled_copy: expected a copy_atom type, got "
                       << atom;
  if (!layoutTV || !tile)
    return emitError() << "tiled_copy needs a thread-value layout and a tile";
  Arith ar;
  getTiledCopy(ar, atom, layoutTV.getValue(), tile.getValue());
  return reportArith(emitError, ar);
}

LogicalResult TiledMmaType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Type atom, LayoutType atomLayout,
                                   TileType permutation) {
  if (!isa_and_nonnull<MmaAtomType>(atom))
    return emitError() << "tiled_mma: expected an mma_atom type, got " << atom;
  if (!atomLayout)
    return emitError() << "tiled_mma needs an atom layout";
  Arith ar;
  std::optional<Tile> perm;
  if (permutation)
    perm = permutation.getValue();
  getTiledMma(ar, atom, atomLayout.getValue(), perm ? &*perm : nullptr);
  return reportArith(emitError, ar);
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

/// universal_copy ::= `<` integer `>`
Type UniversalCopyType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  int64_t bits = 0;
  if (p.parseLess() || p.parseInteger(bits) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), bits);
}

void UniversalCopyType::print(AsmPrinter &p) const {
  p << '<' << getBits() << '>';
}

/// universal_fma ::= `<` T `>` | `<` D `,` A `,` B `,` C `>`
Type UniversalFmaType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  SmallVector<Type, 4> types;
  if (p.parseLess() || p.parseType(types.emplace_back()))
    return {};
  if (succeeded(p.parseOptionalComma())) {
    for (int i = 0; i < 3; ++i)
      if ((i > 0 && p.parseComma()) || p.parseType(types.emplace_back()))
        return {};
  }
  if (p.parseGreater())
    return {};
  if (types.size() == 1)
    types.assign(4, types.front());
  return getChecked([&] { return p.emitError(loc); }, p.getContext(),
                    types[0], types[1], types[2], types[3]);
}

void UniversalFmaType::print(AsmPrinter &p) const {
  p << '<' << getD();
  if (getA() != getD() || getB() != getD() || getC() != getD())
    p << ", " << getA() << ", " << getB() << ", " << getC();
  p << '>';
}

/// universal_atomic ::= `<` (`add` | `max` | `min`) `,` T (`,` string)? `>`
Type UniversalAtomicType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  StringRef op;
  Type valueType;
  std::string syncscope;
  if (p.parseLess() || p.parseKeyword(&op) || p.parseComma() ||
      p.parseType(valueType))
    return {};
  if (succeeded(p.parseOptionalComma()) && p.parseString(&syncscope))
    return {};
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), op,
                    valueType, StringRef(syncscope));
}

void UniversalAtomicType::print(AsmPrinter &p) const {
  p << '<' << getOp() << ", " << getValueType();
  if (!getSyncscope().empty())
    p << ", \"" << getSyncscope() << '"';
  p << '>';
}

/// copy_atom ::= `<` OP `,` integer `>`
Type CopyAtomType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  Type op;
  int64_t bits = 0;
  if (p.parseLess() || p.parseType(op) || p.parseComma() ||
      p.parseInteger(bits) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), op,
                    bits);
}

void CopyAtomType::print(AsmPrinter &p) const {
  p << '<' << getOp() << ", " << getValueBits() << '>';
}

/// mma_atom ::= `<` OP `>`
Type MmaAtomType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  Type op;
  if (p.parseLess() || p.parseType(op) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), op);
}

void MmaAtomType::print(AsmPrinter &p) const { p << '<' << getOp() << '>'; }

/// A plain layout `S:D` (not a composed one) inside an atom type.
static FailureOr<LayoutType> parsePlainLayout(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  auto layout = mlir::fly::detail::parseAnyLayoutText(p);
  if (failed(layout))
    return failure();
  const auto *plain = std::get_if<Layout>(&*layout);
  if (!plain)
    return p.emitError(loc) << "expected a layout 'shape:stride', not a "
                               "composed layout";
  auto type = LayoutType::getChecked([&] { return p.emitError(loc); },
                                     p.getContext(), *plain);
  if (!type)
    return failure();
  return type;
}

static FailureOr<TileType> parseTile(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  FailureOr<Tile> tile = mlir::fly::detail::parseTileText(p);
  if (failed(tile))
    return failure();
  auto type = TileType::getChecked([&] { return p.emitError(loc); },
                                   p.getContext(), *tile);
  if (!type)
    return failure();
  return type;
}

/// tiled_copy ::= `<` ATOM `,` LAYOUT_TV `,` TILE `>`
Type TiledCopyType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  Type atom;
  if (p.parseLess() || p.parseType(atom) || p.parseComma())
    return {};
  FailureOr<LayoutType> layoutTV = parsePlainLayout(p);
  if (failed(layoutTV) || p.parseComma())
    return {};
  FailureOr<TileType> tile = parseTile(p);
  if (failed(tile) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), atom,
                    *layoutTV, *tile);
}

void TiledCopyType::print(AsmPrinter &p) const {
  p << '<' << getAtom() << ", " << toString(getLayoutTV().getValue()) << ", "
    << toString(getTile().getValue()) << '>';
}

/// tiled_mma ::= `<` ATOM `,` LAYOUT [`,` TILE] `>`
Type TiledMmaType::parse(AsmParser &p) {
  SMLoc loc = p.getCurrentLocation();
  Type atom;
  if (p.parseLess() || p.parseType(atom) || p.parseComma())
    return {};
  FailureOr<LayoutType> layout = parsePlainLayout(p);
  if (failed(layout))
    return {};
  TileType permutation;
  if (succeeded(p.parseOptionalComma())) {
    FailureOr<TileType> tile = parseTile(p);
    if (failed(tile))
      return {};
    permutation = *tile;
  }
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(loc); }, p.getContext(), atom,
                    *layout, permutation);
}

void TiledMmaType::print(AsmPrinter &p) const {
  p << '<' << getAtom() << ", " << toString(getAtomLayout().getValue());
  if (getPermutation())
    p << ", " << toString(getPermutation().getValue());
  p << '>';
}
