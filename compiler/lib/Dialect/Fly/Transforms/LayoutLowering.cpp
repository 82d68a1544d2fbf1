//===- LayoutLowering.cpp - The algebra on dynamic leaves to arith --------===//
//
// Each Fly op is evaluated by the algebra code that infers its type
// (`evaluateAlgebraOp`), with an `arith`-emitting DynamicEmitter and the
// dynamic leaves of its operands bound to SSA values. The result is rebuilt
// in normal form from the leaves the algebra produced (Leaves.h). Memory
// accesses on memrefs become accesses through pointers: the algebra gives
// the element offset of a coordinate (with the xor chain of a swizzled
// layout), `fly.add_offset` moves the tensor's pointer by it.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYLAYOUTLOWERING
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

namespace {

struct LayoutLowering
    : public mlir::fly::impl::FlyLayoutLoweringBase<LayoutLowering> {
  void runOnOperation() override;
};

/// Rewrites one op at a time, in program order.
class Lowerer {
public:
  explicit Lowerer(Operation *op) : builder(op->getContext()) {}

  LogicalResult lower(Operation *op);

private:
  /// The algebra value of an operand with its dynamic leaves (and pointer)
  /// bound in `emitter`.
  AlgebraValue bind(Value operand, ArithEmitter &emitter);
  /// memref.load/store/load_vec/store_vec through the memref's pointer.
  LogicalResult lowerAccess(Operation *op);
  /// The pointer to the element at `coord` of a bound memref whose pointer
  /// is `base`: moved by the layout's offset (through the swizzle of a
  /// composed layout).
  FailureOr<Value> elementAddress(Operation *op, const TensorValue &tensor,
                                  Value base, const alg::IntTuple &coord,
                                  ArithEmitter &emitter);
  /// fly.copy / fly.gemm: one atom call per call of the algebra's plan.
  LogicalResult lowerCopy(CopyOp op);
  LogicalResult lowerGemm(GemmOp op);
  /// An atom call's swizzled operands become plain views at the address of
  /// their first element (the values behind it are contiguous).
  LogicalResult lowerAtomCallOperands(Operation *op);
  /// A bound tensor as an SSA memref, in normal form.
  Value tensorValue(const TensorValue &t, ArithEmitter &emitter,
                    Location loc);
  SmallVector<Value> leafValues(Value v) { return getLeafValues(builder, v); }
  Value pointerOf(Value memref) { return getPointerValue(builder, memref); }
  Value rebuild(const AlgebraValue &v, Type type, ArithEmitter &emitter,
                Location loc) {
    return rebuildValue(builder, loc, v, type, emitter);
  }

  OpBuilder builder;
};

AlgebraValue Lowerer::bind(Value operand, ArithEmitter &emitter) {
  SmallVector<uint32_t> handles;
  for (Value leaf : leafValues(operand))
    handles.push_back(emitter.bind(leaf));
  AlgebraValue av =
      bindDynamicLeaves(toAlgebraValue(operand.getType()), handles);
  // Pointers are bound like leaves, to be advanced by the algebra.
  if (auto *p = std::get_if<PointerValue>(&av))
    p->handle = emitter.bind(operand);
  if (auto *t = std::get_if<TensorValue>(&av))
    if (auto *p = std::get_if<PointerValue>(&t->iterator))
      p->handle = emitter.bind(pointerOf(operand));
  return av;
}

/// The length of the runs of consecutive elements of a memref: in 1-D
/// index order, the elements from each multiple of it on lie one after the
/// other in memory. It is the first mode of the coalesced layout when that
/// has stride 1 (the whole size for a layout coalescing to N:1), else 1 (a
/// swizzled layout too). Coalescing keeps the function, so the runs are
/// those of the memref's own layout.
static int64_t getContiguousRun(MemTensorType type) {
  auto layout = getAlgebraValueAs<alg::Layout>(type.getLayout());
  if (!layout)
    return 1;
  alg::Arith ar;
  alg::Layout flat = alg::coalesce(ar, *layout);
  if (ar.failed())
    return 1;
  std::vector<alg::Int> shape = alg::leaves(flat.shape);
  std::vector<alg::Int> stride = alg::leaves(flat.stride);
  if (shape.empty() || !shape[0].isStatic() || shape[0].value() < 1)
    return 1;
  if (shape.size() == 1 && shape[0].isStaticValue(1))
    return 1;
  return stride[0].isStaticValue(1) ? shape[0].value() : 1;
}

FailureOr<Value> Lowerer::elementAddress(Operation *op,
                                         const TensorValue &tensor, Value base,
                                         const alg::IntTuple &coord,
                                         ArithEmitter &emitter) {
  Location loc = op->getLoc();
  alg::Arith ar(&emitter);
  alg::IntTuple index = std::visit(
      [&](const auto &layout) { return alg::crd2idx(ar, coord, layout); },
      tensor.layout);
  if (ar.failed())
    return op->emitOpError() << ar.error();
  if (index.isLeaf() && index.leaf().isStaticValue(0))
    return base;
  Value offset = rebuild(
      index, IntTupleType::get(builder.getContext(), withoutHandles(index)),
      emitter, loc);
  return Value(AddOffsetOp::create(builder, loc, base, offset));
}

/// The type of a tensor value (its leaves' emitter handles dropped).
static Type tensorType(MLIRContext *ctx, TensorValue t) {
  t.layout = std::visit(
      [](const auto &l) -> std::variant<alg::Layout, alg::ComposedLayout> {
        return withoutHandles(l);
      },
      t.layout);
  if (auto *base = std::get_if<alg::IntTuple>(&t.iterator))
    *base = withoutHandles(*base);
  return getCheckedType([] { return InFlightDiagnostic(); }, ctx, t);
}

Value Lowerer::tensorValue(const TensorValue &t, ArithEmitter &emitter,
                           Location loc) {
  Type type = tensorType(builder.getContext(), t);
  return type ? rebuild(t, type, emitter, loc) : Value();
}

LogicalResult Lowerer::lowerCopy(CopyOp op) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);
  auto src = std::get<TensorValue>(bind(op.getSrc(), emitter));
  auto dst = std::get<TensorValue>(bind(op.getDst(), emitter));
  std::optional<TensorValue> predicate;
  Value predicateBase;
  if (op.getPred()) {
    predicate = std::get<TensorValue>(bind(op.getPred(), emitter));
    predicateBase =
        emitter.lookup(std::get<PointerValue>(predicate->iterator).handle);
  }
  alg::Arith ar(&emitter);
  LogicalResult result = success();
  forEachTensorCopyCall(
      ar, op.getAtom().getType(), src, dst, [&](const TensorCopyCall &call) {
        if (failed(result))
          return;
        OpBuilder::InsertionGuard guard(builder);
        if (predicate) {
          // copy_if: the call runs when its flag is set.
          FailureOr<Value> at = elementAddress(
              op, *predicate, predicateBase,
              alg::IntTuple(alg::Int(call.index)), emitter);
          if (failed(at)) {
            result = failure();
            return;
          }
          Value flagValue =
              PtrLoadOp::create(builder, loc, builder.getI1Type(), *at);
          auto ifOp = scf::IfOp::create(builder, loc, flagValue,
                                        /*withElseRegion=*/false);
          builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        }
        Value s = tensorValue(call.src, emitter, loc);
        Value d = tensorValue(call.dst, emitter, loc);
        if (!s || !d) {
          result = op->emitOpError("has an atom call whose operands cannot "
                                   "be rebuilt");
          return;
        }
        auto atomCall =
            CopyAtomCallOp::create(builder, loc, op.getAtom(), s, d);
        if (failed(lowerAtomCallOperands(atomCall)))
          result = failure();
      });
  if (ar.failed())
    return op->emitOpError() << ar.error();
  if (failed(result))
    return failure();
  op->erase();
  return success();
}

LogicalResult Lowerer::lowerGemm(GemmOp op) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);
  auto tensor = [&](Value v) {
    return std::get<TensorValue>(bind(v, emitter));
  };
  auto tensors = [&](ValueRange vs) {
    std::vector<TensorValue> ts;
    for (Value v : vs)
      ts.push_back(tensor(v));
    return ts;
  };
  TensorValue d = tensor(op.getD()), a = tensor(op.getAOperand()),
              b = tensor(op.getBOperand()), c = tensor(op.getC());
  std::vector<TensorValue> aAuxiliary = tensors(op.getAAuxiliary()),
                           bAuxiliary = tensors(op.getBAuxiliary());
  alg::Arith ar(&emitter);
  LogicalResult result = success();
  forEachTensorMmaCall(
      ar, op.getAtom().getType(), d, a, b, c, aAuxiliary, bAuxiliary,
      [&](const TensorMmaCall &call) {
        if (failed(result))
          return;
        // D, then the A group, the B group, C.
        SmallVector<const TensorValue *> parts = {&call.d, &call.a};
        for (const TensorValue &t : call.aAuxiliary)
          parts.push_back(&t);
        parts.push_back(&call.b);
        for (const TensorValue &t : call.bAuxiliary)
          parts.push_back(&t);
        parts.push_back(&call.c);
        SmallVector<Value> views;
        for (const TensorValue *t : parts)
          views.push_back(tensorValue(*t, emitter, loc));
        if (llvm::is_contained(views, Value())) {
          result = op->emitOpError("has an atom call whose operands cannot "
                                   "be rebuilt");
          return;
        }
        size_t nA = 1 + call.aAuxiliary.size(),
               nB = 1 + call.bAuxiliary.size();
        ArrayRef<Value> all = views;
        auto atomCall = MmaAtomCallOp::create(
            builder, loc, op.getAtom(), all[0], all.slice(1, nA),
            all.slice(1 + nA, nB), all.back());
        if (failed(lowerAtomCallOperands(atomCall)))
          result = failure();
      },
      op.getTraversal().value_or(ArrayRef<int32_t>()));
  if (ar.failed())
    return op->emitOpError() << ar.error();
  if (failed(result))
    return failure();
  op->erase();
  return success();
}

LogicalResult Lowerer::lowerAtomCallOperands(Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemTensorType>(operand.get().getType());
    if (!type || !isa<ComposedLayoutType>(type.getLayout()))
      continue;
    Location loc = op->getLoc();
    builder.setInsertionPoint(op);
    ArithEmitter emitter(builder, loc);
    auto tensor = std::get<TensorValue>(bind(operand.get(), emitter));
    Value base =
        emitter.lookup(std::get<PointerValue>(tensor.iterator).handle);
    FailureOr<Value> first =
        elementAddress(op, tensor, base, alg::IntTuple(0), emitter);
    if (failed(first))
      return failure();
    const alg::Layout &outer =
        std::get<alg::ComposedLayout>(tensor.layout).outer;
    Value layout = rebuild(
        outer, LayoutType::get(builder.getContext(), withoutHandles(outer)),
        emitter, loc);
    operand.set(MakeViewOp::create(builder, loc, *first, layout));
  }
  return success();
}

LogicalResult Lowerer::lowerAccess(Operation *op) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);
  bool isStore = isa<MemRefStoreOp, MemRefStoreVecOp>(op);
  Value memref = op->getOperand(isStore ? 1 : 0);
  auto type = cast<MemTensorType>(memref.getType());
  TensorValue tensor = std::get<TensorValue>(bind(memref, emitter));
  Value base = emitter.lookup(std::get<PointerValue>(tensor.iterator).handle);

  auto address = [&](const alg::IntTuple &coord) {
    return elementAddress(op, tensor, base, coord, emitter);
  };
  auto coordOf = [&](Value coord) {
    return std::get<alg::IntTuple>(bind(coord, emitter));
  };

  Type element = type.getElementType();
  if (auto load = dyn_cast<MemRefLoadOp>(op)) {
    FailureOr<Value> p = address(coordOf(load.getCoord()));
    if (failed(p))
      return failure();
    load.replaceAllUsesWith(
        PtrLoadOp::create(builder, loc, element, *p).getResult());
  } else if (auto store = dyn_cast<MemRefStoreOp>(op)) {
    FailureOr<Value> p = address(coordOf(store.getCoord()));
    if (failed(p))
      return failure();
    PtrStoreOp::create(builder, loc, store.getValue(), *p);
  } else if (auto load = dyn_cast<MemRefLoadVecOp>(op)) {
    // One access per run of consecutive elements: a single vector access
    // for a contiguous memref, scalars when no two elements are adjacent.
    auto vectorType = cast<VectorType>(load.getType());
    int64_t size = vectorType.getNumElements();
    int64_t run = getContiguousRun(type);
    Value result;
    if (run == size) {
      result = PtrLoadOp::create(builder, loc, vectorType, base);
    } else if (run == 1) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < size; ++i) {
        FailureOr<Value> p = address(alg::IntTuple(alg::Int(i)));
        if (failed(p))
          return failure();
        elements.push_back(PtrLoadOp::create(builder, loc, element, *p));
      }
      result =
          vector::FromElementsOp::create(builder, loc, vectorType, elements);
    } else {
      auto runType = VectorType::get({run}, element);
      result = arith::ConstantOp::create(builder, loc, vectorType,
                                         builder.getZeroAttr(vectorType));
      for (int64_t i = 0; i < size; i += run) {
        FailureOr<Value> p = address(alg::IntTuple(alg::Int(i)));
        if (failed(p))
          return failure();
        Value piece = PtrLoadOp::create(builder, loc, runType, *p);
        result = vector::InsertStridedSliceOp::create(builder, loc, piece,
                                                      result, {i}, {1});
      }
    }
    load.replaceAllUsesWith(result);
  } else {
    auto store = cast<MemRefStoreVecOp>(op);
    Value value = store.getValue();
    int64_t size = cast<VectorType>(value.getType()).getNumElements();
    int64_t run = getContiguousRun(type);
    if (run == size) {
      PtrStoreOp::create(builder, loc, value, base);
    } else {
      for (int64_t i = 0; i < size; i += run) {
        FailureOr<Value> p = address(alg::IntTuple(alg::Int(i)));
        if (failed(p))
          return failure();
        Value piece =
            run == 1 ? Value(vector::ExtractOp::create(builder, loc, value, i))
                     : Value(vector::ExtractStridedSliceOp::create(
                           builder, loc, value, {i}, {run}, {1}));
        PtrStoreOp::create(builder, loc, piece, *p);
      }
    }
  }
  op->erase();
  return success();
}

LogicalResult Lowerer::lower(Operation *op) {
  // Normal-form producers stay as they are, pointer arithmetic included.
  if (isa<StaticOp, MakeIntTupleOp, MakeComposedLayoutOp, MakeTileOp,
          MakeViewOp, AddOffsetOp, ApplySwizzleOp>(op) ||
      (isa<MakeLayoutOp>(op) && op->getNumOperands() == 2))
    return success();
  if (isa<MemRefLoadOp, MemRefStoreOp, MemRefLoadVecOp, MemRefStoreVecOp>(op))
    return lowerAccess(op);
  if (auto copy = dyn_cast<CopyOp>(op))
    return lowerCopy(copy);
  if (auto gemm = dyn_cast<GemmOp>(op))
    return lowerGemm(gemm);
  if (isa<CopyAtomCallOp, MmaAtomCallOp, CopyAtomCallSSAOp>(op))
    return lowerAtomCallOperands(op);
  // A fragment is fresh register storage of the type the algebra inferred.
  if (auto fragment = dyn_cast<MakeFragmentLikeOp>(op)) {
    builder.setInsertionPoint(op);
    Value alloca =
        MemRefAllocaOp::create(builder, op->getLoc(), fragment.getType());
    fragment.replaceAllUsesWith(alloca);
    fragment->erase();
    return success();
  }
  // Pointer ops, allocations and pointers from outside keep their form.
  if (!isEvaluatedByAlgebra(op->getName().getStringRef()) ||
      !isMemoryEffectFree(op))
    return success();
  // Leaves of a value built here are its operands; leaves of anything else
  // (a block argument) can only be read at run time.
  if (auto get = dyn_cast<GetLeavesOp>(op)) {
    Operation *def = get->getOperand(0).getDefiningOp();
    if (!def || !isa<StaticOp, MakeIntTupleOp, MakeLayoutOp,
                     MakeComposedLayoutOp, MakeTileOp, MakeViewOp>(def))
      return success();
    op->replaceAllUsesWith(leafValues(get->getOperand(0)));
    op->erase();
    return success();
  }
  // Likewise the pointer of a memref.
  if (auto get = dyn_cast<GetIterOp>(op)) {
    auto view = get.getTensor().getDefiningOp<MakeViewOp>();
    if (!view)
      return success();
    get.replaceAllUsesWith(view.getIter());
    get->erase();
    return success();
  }

  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);

  SmallVector<AlgebraValue, 2> operands;
  for (Value operand : op->getOperands())
    operands.push_back(bind(operand, emitter));

  alg::Arith ar(&emitter);
  SmallVector<AlgebraValue, 2> results;
  if (failed(evaluateAlgebraOp(op, operands, ar, results)) || ar.failed())
    return op->emitOpError() << (ar.failed() ? ar.error()
                                             : "cannot be lowered");

  SmallVector<Value> replacements;
  for (auto [value, result] : llvm::zip(results, op->getResults())) {
    Value r = rebuild(value, result.getType(), emitter, loc);
    if (!r)
      return op->emitOpError("has a result that cannot be rebuilt");
    replacements.push_back(r);
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return success();
}

void LayoutLowering::runOnOperation() {
  SmallVector<Operation *> worklist;
  getOperation()->walk([&](Operation *op) {
    if (isFlyOp(op))
      worklist.push_back(op);
  });
  Lowerer lowerer(getOperation());
  for (Operation *op : worklist)
    if (failed(lowerer.lower(op)))
      return signalPassFailure();

  // The operands of the rewritten ops are often left without users.
  // Erase users before their producers: walk in reverse program order.
  SmallVector<Operation *> flyOps;
  getOperation()->walk([&](Operation *op) {
    if (isFlyOp(op))
      flyOps.push_back(op);
  });
  for (Operation *op : llvm::reverse(flyOps))
    if (isOpTriviallyDead(op))
      op->erase();
}

} // namespace
