//===- FlyAtomOps.cpp - Atom and tiled-atom ops ---------------------------===//
//
// SPEC §2.3, "atoms": each op's evaluation builds the algebra records of its
// atom operands (FlyAtoms.h) and calls the algebra's make_tiled_copy,
// make_tiled_mma, partition, retile and make_fragment; nothing of the
// partitioning is derived here.
//
//===----------------------------------------------------------------------===//

#include "FlyEvaluation.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"

#include "mlir/IR/PatternMatch.h"

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
  return e([op = *op](Arith &ar, const AtomValue &atom,
                      const TensorValue &tensor) {
    algebra::TiledMma mma = mlir::fly::getTiledMma(ar, atom.type);
    if (ar.failed())
      return tensor;
    Layout fragment =
        algebra::makeFragment(ar, mma, op, partitionedLayout(tensor));
    if (ar.failed())
      return tensor;
    if (!algebra::isStatic(fragment.shape) ||
        !algebra::isStatic(fragment.stride)) {
      ar.fail("a register fragment needs a static layout, got " +
              toString(fragment));
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
