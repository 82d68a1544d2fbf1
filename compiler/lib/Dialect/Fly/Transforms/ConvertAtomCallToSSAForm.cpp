//===- ConvertAtomCallToSSAForm.cpp - Atom calls on values ----------------===//
//
// fly-convert-atom-call-to-ssa-form (Passes.td says what each call becomes).
// After it, an atom call touches memory only where its instruction does (a
// global load, an LDS store); what it reads from or writes to register
// fragments goes through plain pointer loads and stores, which
// fly-promote-regmem-to-vectorssa then turns into vector SSA values.
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/Layout.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYCONVERTATOMCALLTOSSAFORM
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

namespace {

struct ConvertAtomCallToSSAForm
    : public mlir::fly::impl::FlyConvertAtomCallToSSAFormBase<
          ConvertAtomCallToSSAForm> {
  void runOnOperation() override;
};

bool isRegister(Value memref) {
  auto space =
      cast<MemTensorType>(memref.getType()).getPointer().getKnownAddressSpace();
  return space && *space == AddressSpace::Register;
}

/// Reads and writes the values of an atom call's operand view: value i is
/// the element at the layout's 1-D index i.
class ValueAccess {
public:
  ValueAccess(OpBuilder &b, Operation *call) : b(b), call(call) {}

  FailureOr<Value> read(Value view);
  LogicalResult write(Value values, Value view);

private:
  /// The element offsets of the view's values; one run of `size` when
  /// they are contiguous (empty `offsets`, `contiguous` set).
  struct Offsets {
    SmallVector<int64_t> offsets;
    bool contiguous = false;
    int64_t size = 0;
  };

public:
  /// The number of values of a view (an error for a view the pass cannot
  /// read or write).
  FailureOr<int64_t> size(Value view) {
    FailureOr<Offsets> offsets = offsetsOf(cast<MemTensorType>(view.getType()));
    if (failed(offsets))
      return failure();
    return offsets->size;
  }

private:
  FailureOr<Offsets> offsetsOf(MemTensorType type);
  Value elementPointer(Value base, int64_t offset);

  OpBuilder &b;
  Operation *call;
};

FailureOr<ValueAccess::Offsets> ValueAccess::offsetsOf(MemTensorType type) {
  auto layout = getAlgebraValueAs<alg::Layout>(type.getLayout());
  if (!layout)
    return call->emitOpError("has an operand behind a composed layout ")
           << type.getLayout()
           << "; fly-layout-lowering must run before this pass";
  alg::Arith ar;
  alg::Int size = alg::size(ar, *layout);
  if (ar.failed() || !size.isStatic())
    return call->emitOpError("has an operand of dynamic size ")
           << type.getLayout();
  Offsets result;
  result.size = size.value();
  alg::Layout flat = alg::coalesce(ar, *layout);
  if (!ar.failed() && flat.shape.isLeaf() &&
      (size.value() == 1 || flat.stride.leaf().isStaticValue(1))) {
    result.contiguous = true;
    return result;
  }
  for (int64_t i = 0; i < size.value(); ++i) {
    alg::IntTuple index = alg::crd2idx(ar, alg::IntTuple(alg::Int(i)), *layout);
    if (ar.failed() || !index.isLeaf() || !index.leaf().isStatic())
      return call->emitOpError("has an operand whose layout ")
             << type.getLayout() << " gives no static offset for value " << i;
    result.offsets.push_back(index.leaf().value());
  }
  return result;
}

Value ValueAccess::elementPointer(Value base, int64_t offset) {
  if (offset == 0)
    return base;
  MLIRContext *ctx = b.getContext();
  Value off = StaticOp::create(
      b, call->getLoc(), IntTupleType::get(ctx, alg::IntTuple(alg::Int(offset))));
  return AddOffsetOp::create(b, call->getLoc(), base, off);
}

FailureOr<Value> ValueAccess::read(Value view) {
  auto type = cast<MemTensorType>(view.getType());
  FailureOr<Offsets> offsets = offsetsOf(type);
  if (failed(offsets))
    return failure();
  Location loc = call->getLoc();
  Value base = getPointerValue(b, view);
  Type element = type.getElementType();
  if (offsets->contiguous)
    return Value(PtrLoadOp::create(
        b, loc, VectorType::get({offsets->size}, element), base));
  SmallVector<Value> elements;
  for (int64_t offset : offsets->offsets)
    elements.push_back(
        PtrLoadOp::create(b, loc, element, elementPointer(base, offset)));
  auto vectorType = VectorType::get({int64_t(elements.size())}, element);
  return Value(vector::FromElementsOp::create(b, loc, vectorType, elements));
}

LogicalResult ValueAccess::write(Value values, Value view) {
  auto type = cast<MemTensorType>(view.getType());
  FailureOr<Offsets> offsets = offsetsOf(type);
  if (failed(offsets))
    return failure();
  Location loc = call->getLoc();
  Value base = getPointerValue(b, view);
  if (offsets->contiguous) {
    PtrStoreOp::create(b, loc, values, base);
    return success();
  }
  for (auto [i, offset] : llvm::enumerate(offsets->offsets)) {
    Value element = vector::ExtractOp::create(b, loc, values, int64_t(i));
    PtrStoreOp::create(b, loc, element, elementPointer(base, offset));
  }
  return success();
}

/// One copy call: the register sides become values.
LogicalResult convertCopy(CopyAtomCallOp op) {
  bool srcInRegisters = isRegister(op.getSrc());
  bool dstInRegisters = isRegister(op.getDst());
  if (!srcInRegisters && !dstInRegisters)
    return success();
  OpBuilder b(op);
  ValueAccess access(b, op);
  Value values;
  if (srcInRegisters) {
    FailureOr<Value> read = access.read(op.getSrc());
    if (failed(read))
      return failure();
    values = *read;
  }
  if (dstInRegisters) {
    if (!srcInRegisters) {
      FailureOr<int64_t> n = access.size(op.getDst());
      if (failed(n))
        return failure();
      auto vectorType =
          VectorType::get({*n}, op.getDst().getType().getElementType());
      values = CopyAtomCallSSAOp::create(b, op.getLoc(), vectorType,
                                         op.getAtom(), op.getSrc(), Value())
                   .getResult();
    }
    if (failed(access.write(values, op.getDst())))
      return failure();
  } else {
    CopyAtomCallSSAOp::create(b, op.getLoc(), Type(), op.getAtom(), values,
                              op.getDst());
  }
  op->erase();
  return success();
}

/// One MMA call: its operands are read as values and its result written
/// back, wherever they live; the values of the auxiliary operands of A and
/// B (one each) become the fields of the call's atom they set.
LogicalResult convertMma(MmaAtomCallOp op) {
  OpBuilder b(op);
  ValueAccess access(b, op);
  SmallVector<Value, 3> inputs;
  for (Value operand : {op.getAOperand(), op.getBOperand(), Value(op.getC())}) {
    FailureOr<Value> read = access.read(operand);
    if (failed(read))
      return failure();
    inputs.push_back(*read);
  }
  auto scalars = [&](ValueRange views) {
    SmallVector<Value> values;
    for (Value view : views)
      values.push_back(PtrLoadOp::create(
          b, op.getLoc(), cast<MemTensorType>(view.getType()).getElementType(),
          getPointerValue(b, view)));
    return values;
  };
  Value atom = withAuxiliaryValues(b, op.getLoc(), op.getAtom(),
                                   scalars(op.getAAuxiliary()),
                                   scalars(op.getBAuxiliary()));
  auto cType = cast<VectorType>(inputs[2].getType());
  auto dType = VectorType::get(cType.getShape(),
                               op.getD().getType().getElementType());
  Value d = MmaAtomCallSSAOp::create(b, op.getLoc(), dType, atom,
                                     inputs[0], inputs[1], inputs[2]);
  if (failed(access.write(d, op.getD())))
    return failure();
  op->erase();
  return success();
}

void ConvertAtomCallToSSAForm::runOnOperation() {
  SmallVector<Operation *> calls;
  getOperation()->walk([&](Operation *op) {
    if (isa<CopyAtomCallOp, MmaAtomCallOp>(op))
      calls.push_back(op);
  });
  for (Operation *op : calls) {
    LogicalResult result = isa<CopyAtomCallOp>(op)
                               ? convertCopy(cast<CopyAtomCallOp>(op))
                               : convertMma(cast<MmaAtomCallOp>(op));
    if (failed(result))
      return signalPassFailure();
  }
}

} // namespace
