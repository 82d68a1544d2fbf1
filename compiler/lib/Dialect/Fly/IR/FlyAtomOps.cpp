//===- FlyAtomOps.cpp - Atom and tiled-atom ops ---------------------------===//
//
// SPEC §2.3, "atoms": each op's evaluation builds the algebra records of its
// atom operands (FlyAtoms.h) and calls the algebra's make_tiled_copy,
// make_tiled_mma, partition, retile and make_fragment; nothing of the
// partitioning is derived here.
//
//===----------------------------------------------------------------------===//

#include "FlyEvaluation.h"
#include "fly/Algebra/AtomPlan.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Arith;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;
using algebra::Tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The layout a partition works on: a tensor's layout, the outer one behind
/// a swizzle.
static const Layout &partitionedLayout(const TensorValue &t) {
  if (const auto *plain = std::get_if<Layout>(&t.layout))
    return *plain;
  return std::get<algebra::ComposedLayout>(t.layout).outer;
}

/// A thread index: one integer leaf, static or dynamic.
static bool checkThreadIndex(Arith &ar, const IntTuple &idx) {
  if (idx.isLeaf() && !idx.leaf().isNone() && !idx.leaf().isBasis())
    return true;
  return ar.fail("the thread index must be one integer, got " +
                 toString(idx));
}

/// The `operand` attribute: "A", "B" or "C".
static FailureOr<algebra::MmaOperand> getMmaOperandAttr(Evaluation &e) {
  auto attr = e.getAttrs() ? dyn_cast_or_null<StringAttr>(
                                 e.getAttrs().get("operand"))
                           : StringAttr();
  if (!attr)
    return e.fail("requires a string attribute 'operand' (\"A\", \"B\" or "
                  "\"C\")");
  if (attr.getValue() == "A")
    return algebra::MmaOperand::A;
  if (attr.getValue() == "B")
    return algebra::MmaOperand::B;
  if (attr.getValue() == "C")
    return algebra::MmaOperand::C;
  return e.fail("attribute 'operand' must be \"A\", \"B\" or \"C\", got \"" +
                attr.getValue() + "\"");
}

/// The result type of a type-only op as its value.
static LogicalResult evaluateTypeOnly(Evaluation &e) {
  if (e.getResultTypes().size() != 1 || !e.getOperands().empty())
    return e.fail("needs its result type and no operands");
  std::optional<AlgebraValue> value = getAlgebraValue(e.getResultTypes()[0]);
  if (!value || !std::holds_alternative<AtomValue>(*value))
    return e.fail("needs an atom result type");
  return e.addResult(*value);
}

//===----------------------------------------------------------------------===//
// Atoms
//===----------------------------------------------------------------------===//

LogicalResult MakeCopyAtomOp::evaluate(Evaluation &e) {
  return evaluateTypeOnly(e);
}

LogicalResult MakeMmaAtomOp::evaluate(Evaluation &e) {
  return evaluateTypeOnly(e);
}

SmallVector<std::pair<StringRef, Type>>
mlir::fly::getAtomFields(Type atomLike) {
  if (Type mma = getMmaAtomType(atomLike))
    return cast<MmaOpTypeInterface>(cast<MmaAtomType>(mma).getOp())
        .getFields();
  if (Type copy = getCopyAtomType(atomLike))
    return cast<CopyOpTypeInterface>(cast<CopyAtomType>(copy).getOp())
        .getFields();
  return {};
}

Value mlir::fly::getAtomFieldValue(Value atom, StringRef field) {
  while (auto set = atom.getDefiningOp<AtomSetValueOp>()) {
    if (set.getField() == field)
      return set.getValue();
    atom = set.getAtom();
  }
  return Value();
}

LogicalResult AtomSetValueOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  if (operands.empty())
    return failure();
  inferred.push_back(operands[0].getType());
  return success();
}

LogicalResult AtomSetValueOp::verify() {
  SmallVector<std::pair<StringRef, Type>> fields =
      getAtomFields(getAtom().getType());
  for (auto [name, type] : fields) {
    if (name != getField())
      continue;
    if (getValue().getType() != type)
      return emitOpError("field '")
             << name << "' takes a value of type " << type << ", not "
             << getValue().getType();
    return success();
  }
  if (fields.empty())
    return emitOpError("the atom ")
           << getAtom().getType() << " has no run-time fields";
  std::string names;
  for (auto [name, type] : fields)
    names += (names.empty() ? "" : ", ") + name.str();
  return emitOpError("the atom has no field '")
         << getField() << "' (its fields: " << names << ")";
}

LogicalResult MakeLayoutTVOp::evaluate(Evaluation &e) {
  ArrayRef<AlgebraValue> operands = e.getOperands();
  const Layout *thr =
      operands.size() == 2 ? std::get_if<Layout>(&operands[0]) : nullptr;
  const Layout *val =
      operands.size() == 2 ? std::get_if<Layout>(&operands[1]) : nullptr;
  if (!thr || !val)
    return e.fail("expects a thread layout and a value layout");
  Arith &ar = e.getArith();
  algebra::LayoutTV tv = algebra::makeLayoutTV(ar, *thr, *val);
  if (ar.failed())
    return failure();
  (void)e.addResult(algebra::tileOfShape(tv.tiler));
  return e.addResult(tv.layoutTV);
}

LogicalResult MakeTiledCopyOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const AtomValue &atom, const Layout &layoutTV,
              const Tile &tile) -> AlgebraValue {
    getTiledCopy(ar, atom.type, layoutTV, tile);
    if (ar.failed())
      return atom;
    MLIRContext *ctx = atom.type.getContext();
    return AtomValue{TiledCopyType::get(ctx, atom.type,
                                        LayoutType::get(ctx, layoutTV),
                                        TileType::get(ctx, tile))};
  });
}

LogicalResult MakeTiledCopyForOp::evaluate(Evaluation &e) {
  FailureOr<algebra::MmaOperand> op = getMmaOperandAttr(e);
  if (failed(op))
    return failure();
  return e([op = *op](Arith &ar, const AtomValue &atom,
                      const AtomValue &mmaType) -> AlgebraValue {
    algebra::CopyAtom copyAtom = getCopyAtom(ar, atom.type);
    algebra::TiledMma mma = mlir::fly::getTiledMma(ar, mmaType.type);
    if (ar.failed())
      return atom;
    algebra::TiledCopy copy =
        algebra::makeTiledCopyFor(ar, copyAtom, mma, op);
    if (ar.failed())
      return atom;
    MLIRContext *ctx = atom.type.getContext();
    return AtomValue{TiledCopyType::get(
        ctx, atom.type, LayoutType::get(ctx, copy.layoutTV),
        TileType::get(ctx, copy.tiler))};
  });
}

LogicalResult MakeTiledMmaOp::evaluate(Evaluation &e) {
  auto make = [](Arith &ar, const AtomValue &atom, const Layout &layout,
                 const Tile *perm) -> AlgebraValue {
    getTiledMma(ar, atom.type, layout, perm);
    if (ar.failed())
      return atom;
    MLIRContext *ctx = atom.type.getContext();
    return AtomValue{TiledMmaType::get(ctx, atom.type,
                                       LayoutType::get(ctx, layout),
                                       perm ? TileType::get(ctx, *perm)
                                            : TileType())};
  };
  return e(
      [&](Arith &ar, const AtomValue &atom, const Layout &layout) {
        return make(ar, atom, layout, nullptr);
      },
      [&](Arith &ar, const AtomValue &atom, const Layout &layout,
          const Tile &perm) { return make(ar, atom, layout, &perm); });
}

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

/// partition_src / partition_dst.
static LogicalResult evaluateCopyPartition(Evaluation &e,
                                           algebra::CopySide side) {
  return e([side](Arith &ar, const AtomValue &atom, const TensorValue &tensor,
                  const IntTuple &thrIdx) {
    algebra::TiledCopy copy = mlir::fly::getTiledCopy(ar, atom.type);
    if (ar.failed() || !checkThreadIndex(ar, thrIdx))
      return tensor;
    algebra::OffsetLayout part = algebra::partition(
        ar, copy, side, partitionedLayout(tensor), thrIdx.leaf());
    if (ar.failed())
      return tensor;
    return placeTensor(ar, tensor, part.layout, part.offset);
  });
}

LogicalResult TiledCopyPartitionSrcOp::evaluate(Evaluation &e) {
  return evaluateCopyPartition(e, algebra::CopySide::Src);
}

LogicalResult TiledCopyPartitionDstOp::evaluate(Evaluation &e) {
  return evaluateCopyPartition(e, algebra::CopySide::Dst);
}

LogicalResult TiledCopyRetileOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const AtomValue &atom, const TensorValue &tensor) {
    algebra::TiledCopy copy = mlir::fly::getTiledCopy(ar, atom.type);
    if (ar.failed())
      return tensor;
    Layout retiled = algebra::retile(ar, copy, partitionedLayout(tensor));
    if (ar.failed())
      return tensor;
    return placeTensor(ar, tensor, retiled, IntTuple(0));
  });
}

LogicalResult TiledMmaPartitionOp::evaluate(Evaluation &e) {
  FailureOr<algebra::MmaOperand> op = getMmaOperandAttr(e);
  if (failed(op))
    return failure();
  return e([op = *op](Arith &ar, const AtomValue &atom,
                      const TensorValue &tensor, const IntTuple &thrIdx) {
    algebra::TiledMma mma = mlir::fly::getTiledMma(ar, atom.type);
    if (ar.failed() || !checkThreadIndex(ar, thrIdx))
      return tensor;
    algebra::OffsetLayout part = algebra::partition(
        ar, mma, op, partitionedLayout(tensor), thrIdx.leaf());
    if (ar.failed())
      return tensor;
    return placeTensor(ar, tensor, part.layout, part.offset);
  });
}

LogicalResult MmaMakeFragmentOp::evaluate(Evaluation &e) {
  FailureOr<algebra::MmaOperand> op = getMmaOperandAttr(e);
  if (failed(op))
    return failure();
  std::optional<int64_t> stages;
  if (Attribute attr =
          e.getAttrs() ? e.getAttrs().get("stages") : Attribute()) {
    auto intAttr = dyn_cast<IntegerAttr>(attr);
    if (!intAttr)
      return e.fail("attribute 'stages' must be an integer");
    stages = intAttr.getInt();
  }
  return e([op = *op, stages](Arith &ar, const AtomValue &atom,
                              const TensorValue &tensor) {
    algebra::TiledMma mma = mlir::fly::getTiledMma(ar, atom.type);
    if (ar.failed())
      return tensor;
    Layout fragment = algebra::makeFragment(ar, mma, op,
                                            partitionedLayout(tensor), stages);
    if (ar.failed())
      return tensor;
    if (!algebra::isStatic(fragment.shape) ||
        !algebra::isStatic(fragment.stride)) {
      ar.fail("a register fragment needs a tile of static shape, got " +
              toString(partitionedLayout(tensor)));
      return tensor;
    }
    // The element type of the operand: a, b, or c of the MMA operation.
    std::array<Type, 4> types = getMmaElementTypes(atom.type);
    Type element = types[1 + int(op)];
    int64_t bytes = getElementByteSize(element).value_or(1);
    PointerValue pointer{
        element,
        AddressSpaceAttr::get(element.getContext(), AddressSpace::Register),
        getNaturalAlignment(bytes)};
    return TensorValue{pointer, fragment};
  });
}

/// The fragment is fresh register storage of the inferred type: once the
/// type is known, the op is that allocation.
LogicalResult MmaMakeFragmentOp::canonicalize(MmaMakeFragmentOp op,
                                              PatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<MemRefAllocaOp>(op, op.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Copy and gemm: the calls on tensors
//===----------------------------------------------------------------------===//

Type mlir::fly::getCopyAtomType(Type atomLike) {
  if (auto tiled = dyn_cast_or_null<TiledCopyType>(atomLike))
    return tiled.getAtom();
  return isa_and_nonnull<CopyAtomType>(atomLike) ? atomLike : Type();
}

Type mlir::fly::getMmaAtomType(Type atomLike) {
  if (auto tiled = dyn_cast_or_null<TiledMmaType>(atomLike))
    return tiled.getAtom();
  return isa_and_nonnull<MmaAtomType>(atomLike) ? atomLike : Type();
}

CopyOpTypeInterface mlir::fly::getCopyOperation(Type atomLike) {
  if (auto atom = dyn_cast_or_null<CopyAtomType>(getCopyAtomType(atomLike)))
    atomLike = atom.getOp();
  return dyn_cast_or_null<CopyOpTypeInterface>(atomLike);
}

MmaOpTypeInterface mlir::fly::getMmaOperation(Type atomLike) {
  if (auto atom = dyn_cast_or_null<MmaAtomType>(getMmaAtomType(atomLike)))
    atomLike = atom.getOp();
  return dyn_cast_or_null<MmaOpTypeInterface>(atomLike);
}

std::string mlir::fly::checkAvailable(Type atomLike,
                                      const ::fly::arch::ChipInfo &chip) {
  auto explain = [&](const std::string &name, auto available) {
    if (available(chip))
      return std::string();
    return name + " is not available on " + chip.name.str() +
           "; the chips that have it: " + ::fly::arch::chipsWhere(available);
  };
  if (CopyOpTypeInterface copy = getCopyOperation(atomLike))
    return explain(copy.getApiName(), [&](const ::fly::arch::ChipInfo &c) {
      return copy.isAvailableOn(c);
    });
  if (MmaOpTypeInterface mma = getMmaOperation(atomLike))
    return explain(mma.getApiName(), [&](const ::fly::arch::ChipInfo &c) {
      return mma.isAvailableOn(c);
    });
  return {};
}

/// The values of one side of a copy call: `n` contiguous elements, which a
/// swizzle keeps together when the run lies inside one of its 2^base-element
/// blocks (it only rewrites the bits from `base` up).
static bool checkContiguous(Arith &ar, const TensorValue &t, int64_t n,
                            const char *side) {
  const Layout &layout = partitionedLayout(t);
  if (n == 1)
    return true;
  Layout flat = algebra::coalesce(ar, layout);
  if (ar.failed())
    return false;
  if (!flat.shape.isLeaf() || !flat.shape.leaf().isStaticValue(n) ||
      !flat.stride.leaf().isStaticValue(1))
    return ar.fail(std::string("the ") + side + " values " +
                   toString(layout) + " of an atom call are not " +
                   std::to_string(n) + " contiguous elements, as the atom "
                   "needs");
  const auto *composed = std::get_if<algebra::ComposedLayout>(&t.layout);
  if (!composed)
    return true;
  const auto *swizzle = std::get_if<algebra::Swizzle>(&composed->inner);
  if (swizzle && !composed->chain.empty())
    return ar.fail(std::string("the ") + side + " of an atom call is a "
                   "chain of composed functions; only one swizzle is "
                   "supported");
  if (!swizzle)
    return ar.fail(std::string("the ") + side + " of an atom call is a "
                   "layout composed with a layout; only swizzles are "
                   "supported");
  int64_t block = int64_t(1) << swizzle->base;
  int64_t div = composed->offset.isLeaf()
                    ? composed->offset.leaf().divisibility()
                    : 1;
  if (n > block || div % n != 0)
    return ar.fail(std::string("the ") + side + " values of an atom call "
                   "are not contiguous behind the swizzle " +
                   toString(*swizzle) + ": " + std::to_string(n) +
                   " elements at offset " + toString(composed->offset) +
                   " may cross a block of " + std::to_string(block));
  return true;
}

bool mlir::fly::checkCopyCallOperands(Arith &ar,
                                      const algebra::CopyAtom &atom,
                                      const TensorValue &src,
                                      const TensorValue &dst) {
  auto check = [&](const TensorValue &t, const Int &want, const char *side) {
    Int n = algebra::size(ar, partitionedLayout(t));
    if (ar.failed())
      return false;
    if (!n.isStatic() || n.value() != want.value())
      return ar.fail(std::string("the ") + side + " " +
                     toString(partitionedLayout(t)) + " of an atom call "
                     "has " + toString(n) + " values, the atom moves " +
                     toString(want));
    return checkContiguous(ar, t, want.value(), side);
  };
  return check(src, atom.numValSrc(), "source") &&
         check(dst, atom.numValDst(), "destination");
}

void mlir::fly::forEachTensorCopyCall(
    Arith &ar, Type atomLike, const TensorValue &src, const TensorValue &dst,
    const std::function<void(const TensorCopyCall &)> &onCall) {
  algebra::CopyAtom atom = getCopyAtom(ar, getCopyAtomType(atomLike));
  if (ar.failed())
    return;
  // A whole-tile operation copies the tensors in one call.
  if (CopyOpTypeInterface copy = getCopyOperation(atomLike);
      copy && copy.isWholeTile()) {
    onCall(TensorCopyCall{src, dst, 0});
    return;
  }
  algebra::forEachCopyCall(
      ar, atom, partitionedLayout(src), partitionedLayout(dst),
      [&](const algebra::CopyCall &call) {
        TensorCopyCall c{
            placeTensor(ar, src, call.src.layout, call.src.offset),
            placeTensor(ar, dst, call.dst.layout, call.dst.offset),
            call.index};
        if (!ar.failed() && checkCopyCallOperands(ar, atom, c.src, c.dst))
          onCall(c);
      });
}

/// The auxiliary operands of an A or B group against their operand `op`
/// of a gemm whose D has rank `rankD`: the operand's rank and tile modes.
static bool checkAuxiliaryShapes(Arith &ar, unsigned rankD,
                                 const TensorValue &op,
                                 ArrayRef<TensorValue> auxiliary,
                                 const char *name) {
  if (auxiliary.empty())
    return true;
  const Layout &operand = partitionedLayout(op);
  if (rankD == 2)
    return ar.fail(std::string("gemm: the auxiliary operands of ") + name +
                   " need fragments with a value mode ((V), (V,M) or "
                   "(V,M,K)), not " + toString(operand));
  for (const TensorValue &t : auxiliary) {
    const Layout &l = partitionedLayout(t);
    if (l.rank() != operand.rank())
      return ar.fail(std::string("gemm: the auxiliary operand ") +
                     toString(l) + " of " + name + " has rank " +
                     std::to_string(l.rank()) + ", its operand " +
                     toString(operand) + " rank " +
                     std::to_string(operand.rank()) +
                     " (it is (1, tile modes...) of the operand)");
    for (unsigned i = 1; i < l.rank(); ++i) {
      Int have = algebra::size(ar, l[i]), want = algebra::size(ar, operand[i]);
      if (ar.failed())
        return false;
      if (!have.isStatic() || !want.isStatic() || have.value() != want.value())
        return ar.fail(std::string("gemm: mode ") + std::to_string(i) +
                       " of the auxiliary operand " + toString(l) + " of " +
                       name + " has " + toString(have) + " elements, of " +
                       toString(operand) + " " + toString(want));
    }
  }
  return true;
}

/// The slices of auxiliary operands at a call's tile of their operand
/// (rank 1: the whole; rank 2: (*, mn); rank 3: (*, mn, k)).
static std::vector<TensorValue>
sliceAuxiliary(Arith &ar, ArrayRef<TensorValue> auxiliary, int64_t mn,
               int64_t k) {
  std::vector<TensorValue> slices;
  for (const TensorValue &t : auxiliary) {
    unsigned rank = partitionedLayout(t).rank();
    if (rank == 1) {
      slices.push_back(t);
      continue;
    }
    IntTuple crd = rank == 2 ? IntTuple::tuple({Int::none(), Int(mn)})
                             : IntTuple::tuple({Int::none(), Int(mn), Int(k)});
    slices.push_back(sliceTensor(ar, t, crd));
  }
  return slices;
}

void mlir::fly::forEachTensorMmaCall(
    Arith &ar, Type atomLike, const TensorValue &d, const TensorValue &a,
    const TensorValue &b, const TensorValue &c,
    ArrayRef<TensorValue> aAuxiliary, ArrayRef<TensorValue> bAuxiliary,
    const std::function<void(const TensorMmaCall &)> &onCall,
    ArrayRef<int32_t> traversal) {
  algebra::MmaAtom atom = getMmaAtom(ar, getMmaAtomType(atomLike));
  if (ar.failed())
    return;
  unsigned rankD = partitionedLayout(d).rank();
  if (!checkAuxiliaryShapes(ar, rankD, a, aAuxiliary, "A") ||
      !checkAuxiliaryShapes(ar, rankD, b, bAuxiliary, "B"))
    return;
  if (rankD == 1) {
    // One call on the whole fragments (the value counts are the call's to
    // check: A and B may hold the atom's values packed, mmaOperandCount).
    onCall(TensorMmaCall{d, a, b, c, sliceAuxiliary(ar, aAuxiliary, 0, 0),
                         sliceAuxiliary(ar, bAuxiliary, 0, 0)});
    return;
  }
  std::vector<std::array<int64_t, 3>> order;
  for (size_t i = 0; i + 2 < traversal.size(); i += 3)
    order.push_back({traversal[i], traversal[i + 1], traversal[i + 2]});
  algebra::forEachMmaCall(
      ar, atom, partitionedLayout(d), partitionedLayout(a),
      partitionedLayout(b), partitionedLayout(c),
      [&](const algebra::MmaCall &call) {
        TensorMmaCall t{placeTensor(ar, d, call.d.layout, call.d.offset),
                        placeTensor(ar, a, call.a.layout, call.a.offset),
                        placeTensor(ar, b, call.b.layout, call.b.offset),
                        placeTensor(ar, call.cFromD ? d : c, call.c.layout,
                                    call.c.offset),
                        sliceAuxiliary(ar, aAuxiliary, call.m, call.k),
                        sliceAuxiliary(ar, bAuxiliary, call.n, call.k)};
        if (!ar.failed())
          onCall(t);
      },
      order);
}

/// The type of an operation's field `name` (null for none).
static Type fieldType(ArrayRef<std::pair<StringRef, Type>> fields,
                      StringRef name) {
  for (auto [field, type] : fields)
    if (field == name)
      return type;
  return Type();
}

Value mlir::fly::withAuxiliaryValues(OpBuilder &b, Location loc, Value atom,
                                     ValueRange aValues, ValueRange bValues) {
  MmaOpTypeInterface mma = getMmaOperation(atom.getType());
  SmallVector<std::pair<StringRef, Type>> fields = mma.getFields();
  for (auto [which, values] : {std::pair{algebra::MmaOperand::A, aValues},
                               std::pair{algebra::MmaOperand::B, bValues}})
    for (auto [i, given] : llvm::enumerate(values)) {
      StringRef field = mma.getAuxiliaryField(which, i);
      Type type = fieldType(fields, field);
      Value value = given;
      if (value.getType() != type)
        value = LLVM::ZExtOp::create(b, loc, type, value);
      atom = AtomSetValueOp::create(b, loc, atom, value, b.getStringAttr(field));
    }
  return atom;
}

//===----------------------------------------------------------------------===//
// Copy and gemm: verifiers
//===----------------------------------------------------------------------===//

static TensorValue tensorOf(Value v) {
  return std::get<TensorValue>(toAlgebraValue(v.getType()));
}

/// Element types of a copy: each side's element has the atom's value width.
static LogicalResult checkCopyElements(Operation *op, Type atomLike,
                                       ArrayRef<Type> elements) {
  auto atom = cast<CopyAtomType>(getCopyAtomType(atomLike));
  // An operation that takes addresses only (an LDS DMA) reads no elements.
  if (getCopyOperation(atomLike).isUntyped())
    return success();
  for (Type element : elements) {
    std::optional<int64_t> bytes = getElementByteSize(element);
    if (!element.isIntOrFloat() || !bytes ||
        *bytes * 8 != atom.getValueBits())
      return op->emitOpError("element type ")
             << element << " does not have the atom's value width of "
             << atom.getValueBits() << " bits";
  }
  return success();
}

/// The copy operation's own conditions on the memref sides of a call (the
/// address spaces and element types its instructions take); a null side
/// is a call's values.
static LogicalResult checkCopySides(Operation *op, Type atomLike,
                                    MemTensorType src, MemTensorType dst) {
  auto copy = cast<CopyOpTypeInterface>(
      cast<CopyAtomType>(getCopyAtomType(atomLike)).getOp());
  for (auto [side, isSource] : {std::pair{src, true}, std::pair{dst, false}}) {
    if (!side)
      continue;
    std::string problem =
        isSource ? copy.checkSource(side) : copy.checkDestination(side);
    if (!problem.empty())
      return op->emitOpError(problem);
  }
  return success();
}

/// The operands of an MMA call, in the order of the element types.
static const char *const kMmaOperandNames[] = {"D", "A", "B", "C"};

/// Whether integers of `element` may hold values of `atomElement` packed:
/// an 8-, 6- or 4-bit float format in wider integers.
static bool canHoldPacked(Type element, Type atomElement) {
  return isa<IntegerType>(element) && isa<FloatType>(atomElement) &&
         atomElement.getIntOrFloatBitWidth() <= 8 &&
         element.getIntOrFloatBitWidth() > atomElement.getIntOrFloatBitWidth();
}

int64_t mlir::fly::mmaOperandCount(Type element, Type atomElement,
                                   int64_t atomCount) {
  if (element == atomElement)
    return atomCount;
  unsigned bits = element.getIntOrFloatBitWidth();
  int64_t atomBits = atomCount * atomElement.getIntOrFloatBitWidth();
  if (!canHoldPacked(element, atomElement) || atomBits % bits != 0)
    return 0;
  return atomBits / bits;
}

/// Element types of an MMA: d, a, b and c those of the MMA operation; a
/// and b may also be integers holding an 8-, 6- or 4-bit float format
/// packed (mmaOperandCount).
static LogicalResult checkMmaElements(Operation *op, Type atomLike,
                                      std::array<Type, 4> elements) {
  std::array<Type, 4> want = getMmaElementTypes(getMmaAtomType(atomLike));
  for (int i = 0; i < 4; ++i) {
    bool input = i == 1 || i == 2;
    if (elements[i] == want[i] ||
        (input && canHoldPacked(elements[i], want[i])))
      continue;
    return op->emitOpError("element type ")
           << elements[i] << " of " << kMmaOperandNames[i]
           << " differs from the atom's " << want[i]
           << (input && want[i].getIntOrFloatBitWidth() <= 8
                   ? " (or integers holding its values packed)"
                   : "");
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (failed(checkCopyElements(*this, getAtom().getType(),
                               {getSrc().getType().getElementType(),
                                getDst().getType().getElementType()})) ||
      failed(checkCopySides(*this, getAtom().getType(), getSrc().getType(),
                            getDst().getType())))
    return failure();
  CopyOpTypeInterface copy = getCopyOperation(getAtom().getType());
  if (copy.isWholeTile()) {
    std::string problem =
        copy.checkTile(getSrc().getType(), getDst().getType());
    if (!problem.empty())
      return emitOpError(problem);
  }
  Arith ar;
  TensorValue src = tensorOf(getSrc());
  int64_t calls = 0;
  forEachTensorCopyCall(ar, getAtom().getType(), src, tensorOf(getDst()),
                        [&](const TensorCopyCall &) { ++calls; });
  if (ar.failed())
    return emitOpError() << ar.error();
  if (!getPred())
    return success();
  MemTensorType pred = getPred().getType();
  if (!pred.getElementType().isInteger(1))
    return emitOpError("the predicate's elements must be i1, not ")
           << pred.getElementType();
  // One flag per atom call (CopyCall::index), as FlyDSL's copy takes them.
  Int have = algebra::size(ar, partitionedLayout(tensorOf(getPred())));
  if (ar.failed())
    return emitOpError() << ar.error();
  if (!have.isStatic() || have.value() != calls)
    return emitOpError("the predicate has ")
           << toString(have) << " flags, the copy makes " << calls
           << " atom calls (one flag each)";
  return success();
}

/// The split of an MMA call's groups: [1, 1, size(A), size(B), 1], A and
/// B each starting with its operand.
static LogicalResult checkMmaSegments(Operation *op, ArrayRef<int32_t> sizes,
                                      size_t groups) {
  if (sizes.size() != 5 || sizes[0] != 1 || sizes[1] != 1 || sizes[4] != 1 ||
      sizes[2] < 0 || sizes[3] < 0 ||
      size_t(sizes[2]) + size_t(sizes[3]) != groups)
    return op->emitOpError("operandSegmentSizes must be [1, 1, size(A), "
                           "size(B), 1] for the ")
           << groups << " operands of the A and B groups";
  if (sizes[2] == 0 || sizes[3] == 0)
    return op->emitOpError("the ")
           << (sizes[2] == 0 ? "A" : "B")
           << " group is empty; it starts with the operand";
  return success();
}

/// The A or B group of an MMA call: its operand first, then as many
/// auxiliary operands as the operation takes, each with elements of its
/// field's type (or, for an integer field, a narrower integer).
static LogicalResult checkMmaGroup(Operation *op, Type atomLike,
                                   algebra::MmaOperand which,
                                   OperandRange group) {
  const char *name = which == algebra::MmaOperand::A ? "A" : "B";
  MmaOpTypeInterface mma = getMmaOperation(atomLike);
  OperandRange auxiliary = group.drop_front();
  SmallVector<StringRef> takes;
  for (unsigned i = 0; i <= auxiliary.size(); ++i) {
    StringRef field = mma.getAuxiliaryField(which, i);
    if (field.empty())
      break;
    takes.push_back(field);
  }
  if (auxiliary.size() > takes.size()) {
    InFlightDiagnostic diag = op->emitOpError("the ")
                              << name << " group has " << auxiliary.size()
                              << " auxiliary operand(s); " << mma.getApiName()
                              << " takes ";
    if (takes.empty())
      diag << "none";
    else
      diag << "at most " << takes.size() << " ("
           << llvm::join(takes, ", ") << ")";
    return diag;
  }
  SmallVector<std::pair<StringRef, Type>> fields = mma.getFields();
  for (auto [i, value] : llvm::enumerate(auxiliary)) {
    Type want = fieldType(fields, takes[i]);
    Type have = cast<MemTensorType>(value.getType()).getElementType();
    auto wantInt = dyn_cast_or_null<IntegerType>(want);
    auto haveInt = dyn_cast<IntegerType>(have);
    bool narrower = wantInt && haveInt && haveInt.isSignless() &&
                    haveInt.getWidth() < wantInt.getWidth();
    if (have != want && !narrower)
      return op->emitOpError("auxiliary operand ")
             << i << " of " << name << " sets field '" << takes[i] << "' ("
             << want << "); its elements must be " << want
             << (wantInt ? " or a narrower integer" : "") << ", not "
             << have;
  }
  return success();
}

/// The auxiliary operands of one call: one value each.
static bool checkAuxiliaryValues(Arith &ar, ArrayRef<TensorValue> auxiliary,
                                 const char *name) {
  for (const TensorValue &t : auxiliary) {
    const Layout &l = partitionedLayout(t);
    Int n = algebra::size(ar, l);
    if (ar.failed())
      return false;
    if (!n.isStatic() || n.value() != 1)
      return ar.fail(std::string("an auxiliary operand of ") + name +
                     " has " + toString(l) + " in a call, " + toString(n) +
                     " values; a call takes one");
  }
  return true;
}

static std::vector<TensorValue> tensorsOf(OperandRange values) {
  std::vector<TensorValue> tensors;
  for (Value v : values)
    tensors.push_back(tensorOf(v));
  return tensors;
}

/// The value counts of one MMA call: size<1> of each operand's thread-value
/// layout.
static std::array<int64_t, 4> mmaValueCounts(Arith &ar,
                                             const algebra::MmaAtom &atom) {
  auto count = [&](algebra::MmaOperand op) {
    return algebra::size(ar, algebra::atomLayoutTV(atom, op)[1]).value();
  };
  int64_t c = count(algebra::MmaOperand::C);
  return {c, count(algebra::MmaOperand::A), count(algebra::MmaOperand::B), c};
}

/// The value counts of one MMA call's operands (fragments d, a, b, c):
/// the atom's, or for packed A and B operands as many integers as hold
/// them (mmaOperandCount).
static LogicalResult checkMmaCallCounts(Operation *op, Type atomLike,
                                        std::array<Value, 4> operands) {
  Arith ar;
  algebra::MmaAtom atom = getMmaAtom(ar, getMmaAtomType(atomLike));
  if (ar.failed())
    return op->emitOpError() << ar.error();
  std::array<int64_t, 4> counts = mmaValueCounts(ar, atom);
  std::array<Type, 4> atomElements =
      getMmaElementTypes(getMmaAtomType(atomLike));
  for (int i = 0; i < 4; ++i) {
    Type element = cast<MemTensorType>(operands[i].getType()).getElementType();
    TensorValue tensor = tensorOf(operands[i]);
    const Layout &l = partitionedLayout(tensor);
    Int n = algebra::size(ar, l);
    int64_t want = mmaOperandCount(element, atomElements[i], counts[i]);
    if (ar.failed() || !n.isStatic() || n.value() != want) {
      InFlightDiagnostic diag = op->emitOpError()
                                << kMmaOperandNames[i] << " " << toString(l)
                                << " has " << toString(n)
                                << " values, the atom takes " << counts[i];
      if (element != atomElements[i])
        diag << " " << atomElements[i] << " values (" << want << " "
             << element << ")";
      return diag;
    }
  }
  return success();
}

LogicalResult GemmOp::verify() {
  if (failed(checkMmaSegments(*this, getOperandSegmentSizes(),
                              getGroups().size())))
    return failure();
  auto element = [](Value v) {
    return cast<MemTensorType>(v.getType()).getElementType();
  };
  if (failed(checkMmaGroup(*this, getAtom().getType(),
                           algebra::MmaOperand::A, getA())) ||
      failed(checkMmaGroup(*this, getAtom().getType(),
                           algebra::MmaOperand::B, getB())))
    return failure();
  if (failed(checkMmaElements(*this, getAtom().getType(),
                              {element(getD()), element(getAOperand()),
                               element(getBOperand()), element(getC())})))
    return failure();
  ArrayRef<int32_t> traversal;
  if (std::optional<ArrayRef<int32_t>> given = getTraversal()) {
    traversal = *given;
    if (traversal.empty() || traversal.size() % 3 != 0 ||
        partitionedLayout(tensorOf(getD())).rank() != 3)
      return emitOpError("traversal must list (m, n, k) tiles, three values "
                         "each, of a rank-3 D; it has ")
             << traversal.size() << " values and D rank "
             << partitionedLayout(tensorOf(getD())).rank();
  }
  // Rank 1: one call on the whole fragments.
  if (partitionedLayout(tensorOf(getD())).rank() == 1 &&
      failed(checkMmaCallCounts(*this, getAtom().getType(),
                                {getD(), getAOperand(), getBOperand(),
                                 getC()})))
    return failure();
  Arith ar;
  forEachTensorMmaCall(ar, getAtom().getType(), tensorOf(getD()),
                       tensorOf(getAOperand()), tensorOf(getBOperand()),
                       tensorOf(getC()), tensorsOf(getAAuxiliary()),
                       tensorsOf(getBAuxiliary()),
                       [&](const TensorMmaCall &call) {
                         if (checkAuxiliaryValues(ar, call.aAuxiliary, "A"))
                           checkAuxiliaryValues(ar, call.bAuxiliary, "B");
                       },
                       traversal);
  if (ar.failed())
    return emitOpError() << ar.error();
  return success();
}

LogicalResult CopyAtomCallOp::verify() {
  if (failed(checkCopyElements(*this, getAtom().getType(),
                               {getSrc().getType().getElementType(),
                                getDst().getType().getElementType()})) ||
      failed(checkCopySides(*this, getAtom().getType(), getSrc().getType(),
                            getDst().getType())))
    return failure();
  CopyOpTypeInterface copy = getCopyOperation(getAtom().getType());
  if (copy.isWholeTile()) {
    std::string problem =
        copy.checkTile(getSrc().getType(), getDst().getType());
    if (!problem.empty())
      return emitOpError(problem);
    return success();
  }
  Arith ar;
  algebra::CopyAtom atom =
      getCopyAtom(ar, getCopyAtomType(getAtom().getType()));
  if (ar.failed() ||
      !checkCopyCallOperands(ar, atom, tensorOf(getSrc()), tensorOf(getDst())))
    return emitOpError() << ar.error();
  return success();
}

LogicalResult MmaAtomCallOp::verify() {
  if (failed(checkMmaSegments(*this, getOperandSegmentSizes(),
                              getGroups().size())))
    return failure();
  if (failed(checkMmaGroup(*this, getAtom().getType(),
                           algebra::MmaOperand::A, getA())) ||
      failed(checkMmaGroup(*this, getAtom().getType(),
                           algebra::MmaOperand::B, getB())))
    return failure();
  std::array<Value, 4> operands = {getD(), getAOperand(), getBOperand(),
                                   getC()};
  std::array<Type, 4> elements;
  for (int i = 0; i < 4; ++i)
    elements[i] = cast<MemTensorType>(operands[i].getType()).getElementType();
  if (failed(checkMmaElements(*this, getAtom().getType(), elements)))
    return failure();
  if (failed(checkMmaCallCounts(*this, getAtom().getType(), operands)))
    return failure();
  Arith ar;
  if (!checkAuxiliaryValues(ar, tensorsOf(getAAuxiliary()), "A") ||
      !checkAuxiliaryValues(ar, tensorsOf(getBAuxiliary()), "B"))
    return emitOpError() << ar.error();
  return success();
}

LogicalResult CopyAtomCallSSAOp::verify() {
  Type atomLike = getAtom().getType();
  Arith ar;
  algebra::CopyAtom atom = getCopyAtom(ar, getCopyAtomType(atomLike));
  if (ar.failed())
    return emitOpError() << ar.error();
  auto checkValues = [&](Type type, Type element,
                         const Int &count) -> LogicalResult {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector || vector.getRank() != 1 ||
        vector.getNumElements() != count.value() ||
        vector.getElementType() != element)
      return emitOpError("the values must be a ")
             << VectorType::get({count.value()}, element) << ", not " << type;
    return success();
  };
  if (auto src = dyn_cast<MemTensorType>(getSrc().getType())) {
    // The load form: memory -> values.
    if (getDst() || !getResult())
      return emitOpError("with a memref source, has no destination and "
                         "returns the values");
    if (failed(checkCopyElements(*this, atomLike, {src.getElementType()})) ||
        failed(checkCopySides(*this, atomLike, src, {})))
      return failure();
    if (cast<CopyOpTypeInterface>(
            cast<CopyAtomType>(getCopyAtomType(atomLike)).getOp())
            .isAtomic())
      return emitOpError("an atomic atom writes memory; its value form "
                         "takes the values and a destination");
    Int n = algebra::size(ar, partitionedLayout(tensorOf(getSrc())));
    if (!n.isStatic() || n.value() != atom.numValSrc().value() ||
        !checkContiguous(ar, tensorOf(getSrc()), n.value(), "source"))
      return emitOpError(ar.failed() ? ar.error()
                                     : "the source has " + toString(n) +
                                           " values, the atom moves " +
                                           toString(atom.numValSrc()));
    return checkValues(getResult().getType(), src.getElementType(),
                       atom.numValDst());
  }
  // The store form: values -> memory.
  if (!getDst() || getResult())
    return emitOpError("with values as its source, takes a memref "
                       "destination and returns nothing");
  MemTensorType dst = getDst().getType();
  if (failed(checkCopyElements(*this, atomLike, {dst.getElementType()})) ||
      failed(checkCopySides(*this, atomLike, {}, dst)))
    return failure();
  Int n = algebra::size(ar, partitionedLayout(tensorOf(getDst())));
  if (!n.isStatic() || n.value() != atom.numValDst().value() ||
      !checkContiguous(ar, tensorOf(getDst()), n.value(), "destination"))
    return emitOpError(ar.failed() ? ar.error()
                                   : "the destination has " + toString(n) +
                                         " values, the atom moves " +
                                         toString(atom.numValDst()));
  return checkValues(getSrc().getType(), dst.getElementType(),
                     atom.numValSrc());
}

LogicalResult MmaAtomCallSSAOp::verify() {
  Arith ar;
  algebra::MmaAtom atom = getMmaAtom(ar, getMmaAtomType(getAtom().getType()));
  if (ar.failed())
    return emitOpError() << ar.error();
  std::array<int64_t, 4> counts = mmaValueCounts(ar, atom);
  std::array<Type, 4> want = getMmaElementTypes(getMmaAtomType(getAtom().getType()));
  std::array<Type, 4> types = {getResult().getType(), getA().getType(),
                               getB().getType(), getC().getType()};
  for (int i = 0; i < 4; ++i) {
    auto v = cast<VectorType>(types[i]);
    bool input = i == 1 || i == 2;
    if (v.getRank() == 1 && input &&
        v.getNumElements() ==
            mmaOperandCount(v.getElementType(), want[i], counts[i]) &&
        v.getNumElements() != 0)
      continue;
    if (v.getRank() != 1 || v.getNumElements() != counts[i] ||
        v.getElementType() != want[i])
      return emitOpError()
             << kMmaOperandNames[i] << " must be a " << VectorType::get({counts[i]}, want[i])
             << ", not " << types[i];
  }
  return success();
}
