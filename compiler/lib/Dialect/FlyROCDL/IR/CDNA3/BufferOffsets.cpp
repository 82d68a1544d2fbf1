//===- CDNA3/BufferOffsets.cpp - Vector and scalar offsets of an access ---===//
//
// See BufferOffsets.h. The analysis runs inside convert-fly-to-rocdl, on
// the arith ops of the offsets (the layout arithmetic of
// fly-layout-lowering) and the LLVM-level buffer pointers the conversion
// builds (BufferPointer.h): a pointer's offset is followed back through the
// `insertvalue`s of its construction and the `extractvalue`s of add_offset.
//
// What is wave-uniform: a kernel's arguments, the block's ids and sizes
// and integer arithmetic on uniform values (LLVM's divergence analysis
// concludes the same, so the soffset operand stays an SGPR). What is known
// non-negative: constants >= 0, thread and block ids and sizes, the leaves
// of a memref argument's layout (tensor shapes and strides), and what
// addition, multiplication, division, remainder and bit operations make of
// non-negative values. Offsets are i32 and taken not to overflow, as
// everywhere in the buffer pointer's arithmetic.
//
//===----------------------------------------------------------------------===//

#include "BufferOffsets.h"

#include "fly/Dialect/Fly/IR/FlyTypes.h"
#include "fly/Dialect/FlyROCDL/IR/BufferPointer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
namespace flyd = ::mlir::fly;

namespace {

/// The value inserted at `index` into the struct `s` by the chain of
/// `llvm.insertvalue`s that built it; null when it is not visible.
Value insertedAt(Value s, int64_t index) {
  while (auto insert = s.getDefiningOp<LLVM::InsertValueOp>()) {
    ArrayRef<int64_t> position = insert.getPosition();
    if (position.size() == 1 && position[0] == index)
      return insert.getValue();
    s = insert.getContainer();
  }
  return {};
}

/// `v`, or what it extracts from a buffer pointer at `index` when that is
/// visible (getBufferRsrc and getBufferElementOffset of a built pointer).
Value lookThroughPointer(Value v, int64_t index) {
  while (auto extract = v.getDefiningOp<LLVM::ExtractValueOp>()) {
    ArrayRef<int64_t> position = extract.getPosition();
    if (position.size() != 1 || position[0] != index ||
        extract.getContainer().getType() !=
            fly_rocdl::getBufferPointerLLVMType(v.getContext()))
      break;
    Value inserted = insertedAt(extract.getContainer(), index);
    if (!inserted)
      break;
    v = inserted;
  }
  return v;
}

/// Whether the pointer's resource is one of max_size (num_records of
/// 4 GiB - 1): its range checks cannot reject an i32 offset that matters.
bool hasUncheckedRange(Value pointer) {
  Value rsrc = insertedAt(pointer, 0);
  if (!rsrc)
    return false;
  rsrc = lookThroughPointer(rsrc, 0);
  Operation *make = rsrc.getDefiningOp();
  if (!make || make->getName().getStringRef() != "rocdl.make.buffer.rsrc" ||
      make->getNumOperands() != 4)
    return false;
  APInt numRecords;
  return matchPattern(make->getOperand(2), m_ConstantInt(&numRecords)) &&
         numRecords.getZExtValue() >= 0xFFFFFFFFull;
}

struct Facts {
  bool uniform = false;
  bool nonNegative = false;
};

/// Wave-uniformity and sign of integer values (the file comment says which).
class OffsetFacts {
public:
  Facts of(Value v, unsigned depth = 0) {
    auto known = memo.find(v);
    if (known != memo.end())
      return known->second;
    Facts f = depth > kMaxDepth ? Facts() : compute(v, depth + 1);
    memo[v] = f;
    return f;
  }

private:
  static constexpr unsigned kMaxDepth = 48;

  Facts compute(Value v, unsigned depth);
  Facts ofArgument(BlockArgument arg, unsigned depth);
  Facts ofExtract(LLVM::ExtractValueOp extract);

  /// Uniform when every operand is; non-negative when `nonNegative`
  /// operands are (all of them by default).
  Facts combine(Operation *op, unsigned depth, ArrayRef<unsigned> signOf = {}) {
    Facts f{true, true};
    for (Value operand : op->getOperands())
      f.uniform &= of(operand, depth).uniform;
    if (signOf.empty()) {
      for (Value operand : op->getOperands())
        f.nonNegative &= of(operand, depth).nonNegative;
    } else {
      for (unsigned i : signOf)
        f.nonNegative &= of(op->getOperand(i), depth).nonNegative;
    }
    return f;
  }

  DenseMap<Value, Facts> memo;
};

/// A kernel: its arguments are the same in every lane.
bool isKernel(Operation *op) {
  return op->hasAttr("gpu.kernel") || op->hasAttr("rocdl.kernel");
}

Facts OffsetFacts::ofArgument(BlockArgument arg, unsigned depth) {
  Block *block = arg.getOwner();
  Operation *parent = block->getParentOp();
  if (!parent)
    return {};
  if (isa<FunctionOpInterface>(parent) && block->isEntryBlock())
    return {isKernel(parent), false};
  // An scf.for induction variable: lower bound, then steps.
  if (parent->getName().getStringRef() == "scf.for" && arg.getArgNumber() == 0 &&
      parent->getNumOperands() >= 3) {
    Facts lower = of(parent->getOperand(0), depth);
    Facts upper = of(parent->getOperand(1), depth);
    Facts step = of(parent->getOperand(2), depth);
    return {lower.uniform && upper.uniform && step.uniform,
            lower.nonNegative && step.nonNegative};
  }
  return {};
}

/// A leaf of a kernel argument's leaf struct: uniform; non-negative when
/// the argument carries a memref's layout (fly.abi `leaves:<i>` of an
/// original memref argument <i>).
Facts OffsetFacts::ofExtract(LLVM::ExtractValueOp extract) {
  auto arg = dyn_cast<BlockArgument>(extract.getContainer());
  if (!arg)
    return {};
  Operation *function = arg.getOwner()->getParentOp();
  if (!function || !isa<FunctionOpInterface>(function) ||
      !arg.getOwner()->isEntryBlock() || !isKernel(function))
    return {};
  Facts f{true, false};
  auto abi = function->getAttrOfType<ArrayAttr>("fly.abi");
  auto original = function->getAttrOfType<TypeAttr>("fly.original_type");
  if (!abi || !original || arg.getArgNumber() >= abi.size())
    return f;
  auto kind = dyn_cast<StringAttr>(abi[arg.getArgNumber()]);
  auto signature = dyn_cast<FunctionType>(original.getValue());
  if (!kind || !signature)
    return f;
  StringRef text = kind.getValue();
  unsigned index = 0;
  if (!text.consume_front("leaves:") || text.getAsInteger(10, index) ||
      index >= signature.getNumInputs())
    return f;
  f.nonNegative = isa<flyd::MemTensorType>(signature.getInput(index));
  return f;
}

Facts OffsetFacts::compute(Value v, unsigned depth) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return ofArgument(arg, depth);
  Operation *op = v.getDefiningOp();
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return {true, !constant.isNegative()};
  if (auto extract = dyn_cast<LLVM::ExtractValueOp>(op))
    return ofExtract(extract);

  enum class Kind { Unknown, UniformIndex, LaneIndex };
  Kind kind = llvm::StringSwitch<Kind>(op->getName().getStringRef())
                  .Cases("gpu.block_id", "gpu.grid_dim", "gpu.block_dim",
                         Kind::UniformIndex)
                  .Cases("gpu.cluster_id", "gpu.cluster_dim",
                         "gpu.cluster_block_id", Kind::UniformIndex)
                  .StartsWith("rocdl.workgroup.id.", Kind::UniformIndex)
                  .StartsWith("rocdl.workgroup.dim.", Kind::UniformIndex)
                  .StartsWith("rocdl.grid.dim.", Kind::UniformIndex)
                  .Cases("gpu.thread_id", "gpu.lane_id", Kind::LaneIndex)
                  .StartsWith("rocdl.workitem.id.", Kind::LaneIndex)
                  .Default(Kind::Unknown);
  if (kind == Kind::UniformIndex)
    return {true, true};
  if (kind == Kind::LaneIndex)
    return {false, true};

  // Non-negative from non-negative operands.
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp,
          arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::OrIOp, arith::XOrIOp, arith::MinSIOp,
          arith::MaxSIOp, arith::FloorDivSIOp, arith::IndexCastOp,
          arith::ExtSIOp, arith::TruncIOp>(op))
    return combine(op, depth);
  // Non-negative from the shifted or divided operand.
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op))
    return combine(op, depth, {0});
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return {of(op->getOperand(0), depth).uniform, true};
  if (isa<arith::AndIOp>(op)) {
    Facts f = combine(op, depth, {0});
    f.nonNegative |= of(op->getOperand(1), depth).nonNegative;
    return f;
  }
  if (isa<arith::SelectOp>(op))
    return combine(op, depth, {1, 2});
  if (isa<arith::SubIOp, arith::CmpIOp>(op))
    return {combine(op, depth).uniform, false};
  return {};
}

/// The terms of a sum of `arith.addi`s, through the offsets of the
/// pointers it adds to.
void collectTerms(Value v, SmallVectorImpl<Value> &terms, unsigned depth = 0) {
  v = lookThroughPointer(v, 1);
  if (auto add = v.getDefiningOp<arith::AddIOp>(); add && depth < 64) {
    collectTerms(add.getLhs(), terms, depth + 1);
    collectTerms(add.getRhs(), terms, depth + 1);
    return;
  }
  terms.push_back(v);
}

Value sum(OpBuilder &b, Location loc, ArrayRef<Value> terms) {
  if (terms.empty())
    return arith::ConstantIntOp::create(b, loc, 0, 32);
  Value total = terms.front();
  for (Value term : terms.drop_front())
    total = arith::AddIOp::create(b, loc, total, term);
  return total;
}

} // namespace

fly_rocdl::BufferOffsetSplit
fly_rocdl::splitBufferElementOffset(OpBuilder &b, Location loc, Value pointer) {
  Value whole = getBufferElementOffset(b, loc, pointer);
  Value offset = insertedAt(pointer, 1);
  if (!offset || !hasUncheckedRange(pointer))
    return {whole, Value()};

  SmallVector<Value> terms, varying, uniform;
  collectTerms(offset, terms);
  OffsetFacts facts;
  for (Value term : terms) {
    if (term.getType() != b.getI32Type())
      return {whole, Value()};
    APInt constant;
    bool isConstant = matchPattern(term, m_ConstantInt(&constant));
    if (isConstant && constant.isZero())
      continue;
    Facts f = facts.of(term);
    if (!f.nonNegative)
      return {whole, Value()};
    // Constants stay with the vector offset: LLVM folds them into the
    // instruction's immediate.
    (f.uniform && !isConstant ? uniform : varying).push_back(term);
  }
  if (uniform.empty())
    return {whole, Value()};
  return {sum(b, loc, varying), sum(b, loc, uniform)};
}
