//===- PromoteRegMemToVectorSSA.cpp - Register fragments to vectors -------===//
//
// A register fragment (`fly.memref.alloca`) is storage for cosize(layout)
// elements that only the thread itself sees. When its pointer is only
// moved (`fly.add_offset`, `fly.get_iter`, `fly.make_view`) and accessed
// (`fly.ptr.load`, `fly.ptr.store`), the storage is a set of values that
// start as zeros:
// - when every access is at a static offset, the storage is cut into
//   pieces at the bounds of every access, so that each access covers whole
//   pieces, and each piece is a `vector<n x T>` of its own. An access to one
//   piece is that piece's value (a GEMM's accumulator tiles, each read and
//   written by one MMA, are independent values); a wider load concatenates
//   pieces with `vector.shuffle`, a wider store slices its value;
// - otherwise the storage is one `vector<cosize x T>`, read with
//   `vector.extract*` and replaced by `vector.insert*` at each store.
// In straight-line code a piece's current value is the one the last store
// produced; structured control flow that stores into the fragment carries
// the pieces through SSA: an `scf.for` as more iteration arguments, an
// `scf.if` as more results (an else branch that yields them unchanged is
// created when missing), an `scf.while` as more arguments of both regions
// and more results. Regions that only read the fragment see the values that
// dominate them.
//
// Elements that are themselves vectors (`!fly.ptr<vector<2xf16>, register>`)
// are stored flattened: the storage is `vector<cosize * 2 x f16>`, and every
// access is a run of consecutive scalars of it.
//
// Everything else the pointer can meet (a call, a store of the pointer
// itself, a region op the pass does not know that stores into it, a block
// other than the allocation's) makes the fragment unpromotable, and the
// pass fails with an error at that op: the point of the pass is that no
// stack memory is left in the kernel. All fragments are checked before any
// IR is changed.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

namespace mlir::fly {
#define GEN_PASS_DEF_FLYPROMOTEREGMEMTOVECTORSSA
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

namespace {

constexpr StringLiteral kCannotPromote =
    "register fragment cannot be promoted: ";

/// The element offset of a pointer from the start of its fragment: a
/// static part and the offset operands of the `fly.add_offset`s on the way
/// whose value is only known at run time (int_tuple leaves or scalars).
struct Offset {
  int64_t constant = 0;
  SmallVector<Value, 2> dynamic;
};

/// The static value of an add_offset's offset, if it has one; nullopt for
/// a run-time one, failure for something that is not an integer.
FailureOr<std::optional<int64_t>> staticOffset(Value amount) {
  if (amount.getType().isSignlessInteger())
    return std::optional<int64_t>();
  std::optional<alg::IntTuple> tuple =
      getAlgebraValueAs<alg::IntTuple>(amount.getType());
  if (!tuple || !tuple->isLeaf() || tuple->leaf().isBasis() ||
      tuple->leaf().isNone())
    return failure();
  if (tuple->leaf().isStatic())
    return std::optional<int64_t>(tuple->leaf().value());
  return std::optional<int64_t>();
}

/// The offset of `ptr`, a pointer the analysis has followed from a
/// fragment: the sum of the add_offsets back to the allocation. Recomputed
/// from the IR when needed, because rewriting control flow replaces the
/// block arguments and results an offset may be made of.
Offset offsetOf(Value ptr) {
  Offset offset;
  while (Operation *def = ptr.getDefiningOp()) {
    if (auto add = dyn_cast<AddOffsetOp>(def)) {
      FailureOr<std::optional<int64_t>> amount = staticOffset(add.getOffset());
      if (succeeded(amount) && *amount)
        offset.constant += **amount;
      else
        offset.dynamic.push_back(add.getOffset());
      ptr = add.getPtr();
    } else if (auto getIter = dyn_cast<GetIterOp>(def)) {
      auto view = getIter.getTensor().getDefiningOp<MakeViewOp>();
      if (!view)
        break;
      ptr = view.getIter();
    } else {
      break;
    }
  }
  return offset;
}

/// The pointer a load or store goes through.
Value accessedPointer(Operation *access) {
  if (auto store = dyn_cast<PtrStoreOp>(access))
    return store.getPtr();
  return cast<PtrLoadOp>(access).getPtr();
}

/// Everything the rewrite needs to know about one fragment, gathered
/// before any IR changes.
struct Fragment {
  MemRefAllocaOp alloca;
  /// The scalar type of the storage and the scalars per element (the
  /// length of a vector element type, else 1).
  Type scalarType;
  int64_t scalarsPerElement = 1;
  int64_t cosize = 0;
  /// The loads and stores, in no particular order.
  SmallVector<Operation *> accesses;
  /// `fly.get_layout` of the fragment's memrefs.
  SmallVector<Operation *> layoutQueries;
  /// The address computations and the dead users of the fragment: erased
  /// once the accesses are gone.
  llvm::SetVector<Operation *> dead;

  /// Where the pieces of the storage start, in scalars, and where the last
  /// ends: {0, all scalars} for one piece.
  SmallVector<int64_t> bounds;
  /// The storage is one vector accessed at positions, static or not,
  /// rather than pieces that each access covers whole.
  bool oneVector = false;

  int64_t scalars() const {
    return std::max<int64_t>(cosize, 1) * scalarsPerElement;
  }
  VectorType pieceType(unsigned piece) const {
    return VectorType::get({bounds[piece + 1] - bounds[piece]}, scalarType);
  }
};

/// True when `op` has no effect and every user of its results is such an
/// op too: the whole tree can go. Ops with regions are not taken: erasing
/// one would take ops inside with it that the analysis of another fragment
/// may have recorded.
bool isDeadTree(Operation *op) {
  if (op->getNumRegions() != 0 || !wouldOpBeTriviallyDead(op))
    return false;
  for (Operation *user : op->getUsers())
    if (user == op || !isDeadTree(user))
      return false;
  return true;
}

void collectDeadTree(Operation *op, llvm::SetVector<Operation *> &out) {
  if (!out.insert(op))
    return;
  for (Operation *user : op->getUsers())
    collectDeadTree(user, out);
}

/// The number of elements a load or store of `type` through a pointer to
/// `element` covers (the verifier allows the element or a 1-D vector of it).
int64_t elementsAccessed(Type type, Type element) {
  if (type == element)
    return 1;
  return cast<VectorType>(type).getNumElements();
}

/// The scalars of the storage a load or store of `type` covers.
int64_t scalarsAccessed(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

/// The type a load reads or a store writes.
Type accessedType(Operation *access) {
  if (auto store = dyn_cast<PtrStoreOp>(access))
    return store.getValue().getType();
  return cast<PtrLoadOp>(access).getType();
}

/// More pieces than this and the fragment stays one vector: a loop would
/// carry that many values.
constexpr size_t kMaxPieces = 1024;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// Follows the fragment's memref and pointers to their accesses; reports
/// the first use it cannot promote.
class Analyzer {
public:
  explicit Analyzer(Fragment &fragment) : f(fragment) {}

  LogicalResult run();

private:
  InFlightDiagnostic error(Operation *at) {
    InFlightDiagnostic diag = at->emitError(kCannotPromote);
    if (at != f.alloca.getOperation())
      diag.attachNote(f.alloca.getLoc()) << "the fragment is allocated here";
    return diag;
  }

  LogicalResult checkStorage();
  LogicalResult visitMemRef(Value memref);
  LogicalResult visitPointer(Value ptr);
  LogicalResult checkAccess(Operation *access);
  void cutIntoPieces();

  Fragment &f;
};

LogicalResult Analyzer::run() {
  if (failed(checkStorage()))
    return failure();
  if (failed(visitMemRef(f.alloca.getResult())))
    return failure();
  for (Operation *access : f.accesses)
    if (failed(checkAccess(access)))
      return failure();
  cutIntoPieces();
  return success();
}

/// The bounds of every access when all are static; else one piece.
void Analyzer::cutIntoPieces() {
  std::set<int64_t> cuts = {0, f.scalars()};
  for (Operation *access : f.accesses) {
    Offset offset = offsetOf(accessedPointer(access));
    if (!offset.dynamic.empty()) {
      f.oneVector = true;
      break;
    }
    int64_t start = offset.constant * f.scalarsPerElement;
    cuts.insert(start);
    cuts.insert(start + scalarsAccessed(accessedType(access)));
  }
  if (cuts.size() > kMaxPieces + 1)
    f.oneVector = true;
  if (f.oneVector)
    cuts = {0, f.scalars()};
  f.bounds.assign(cuts.begin(), cuts.end());
}

/// The storage is a 1-D vector of scalars: the element type must be an
/// integer or float, or a 1-D vector of them, and the cosize static.
LogicalResult Analyzer::checkStorage() {
  MemTensorType type = f.alloca.getType();
  Type element = type.getElementType();
  f.scalarType = element;
  if (auto vector = dyn_cast<VectorType>(element)) {
    if (vector.getRank() != 1 || vector.isScalable())
      return error(f.alloca) << "its element type " << element
                             << " is not a scalar or a fixed 1-D vector";
    f.scalarType = vector.getElementType();
    f.scalarsPerElement = vector.getNumElements();
  }
  if (!isa<IntegerType, FloatType>(f.scalarType))
    return error(f.alloca) << "its element type " << element
                           << " is not made of integers or floats";
  auto layout = getAlgebraValueAs<alg::Layout>(type.getLayout());
  if (!layout)
    return error(f.alloca) << "its layout " << type.getLayout()
                           << " is not a plain layout";
  alg::Arith ar;
  alg::Int cosize = alg::cosize(ar, *layout);
  if (ar.failed() || !cosize.isStatic() || cosize.isBasis())
    return error(f.alloca) << "the cosize of its layout " << type.getLayout()
                           << " is not a static integer";
  f.cosize = cosize.value();
  return success();
}

/// A memref over the fragment: the alloca, or a view of a pointer into it.
LogicalResult Analyzer::visitMemRef(Value memref) {
  for (Operation *user : memref.getUsers()) {
    if (auto getIter = dyn_cast<GetIterOp>(user)) {
      f.dead.insert(user);
      if (failed(visitPointer(getIter.getResult())))
        return failure();
      continue;
    }
    if (isDeadTree(user)) {
      collectDeadTree(user, f.dead);
      continue;
    }
    if (isa<GetLayoutOp>(user)) {
      f.layoutQueries.push_back(user);
      continue;
    }
    return error(user) << "its memref is used by '" << user->getName() << "'";
  }
  return success();
}

/// A pointer into the fragment: moved, viewed, loaded from, stored to.
LogicalResult Analyzer::visitPointer(Value ptr) {
  for (OpOperand &use : ptr.getUses()) {
    Operation *user = use.getOwner();
    if (auto add = dyn_cast<AddOffsetOp>(user)) {
      if (failed(staticOffset(add.getOffset())))
        return error(user) << "the offset " << add.getOffset().getType()
                           << " is not an integer";
      f.dead.insert(user);
      if (failed(visitPointer(add.getResult())))
        return failure();
      continue;
    }
    if (auto view = dyn_cast<MakeViewOp>(user)) {
      f.dead.insert(user);
      if (failed(visitMemRef(view.getResult())))
        return failure();
      continue;
    }
    if (isa<PtrLoadOp>(user)) {
      f.accesses.push_back(user);
      continue;
    }
    if (auto store = dyn_cast<PtrStoreOp>(user)) {
      if (use.getOperandNumber() != store.getPtrMutable().getOperandNumber())
        return error(user) << "its pointer is stored as a value";
      f.accesses.push_back(user);
      continue;
    }
    if (isDeadTree(user)) {
      collectDeadTree(user, f.dead);
      continue;
    }
    return error(user) << "its pointer is used by '" << user->getName() << "'";
  }
  return success();
}

/// Every access must be in the allocation's block or nested in ops of it,
/// and a store may only be nested in the structured control flow the
/// rewrite threads the value through. A static access must lie within the
/// storage.
LogicalResult Analyzer::checkAccess(Operation *op) {
  bool isStore = isa<PtrStoreOp>(op);
  Block *home = f.alloca->getBlock();
  SmallVector<Operation *> enclosing;
  for (Operation *at = op; at->getBlock() != home;) {
    at = at->getParentOp();
    if (!at || !at->getBlock())
      return error(op) << "it is accessed outside the block of its "
                          "allocation (unstructured control flow)";
    enclosing.push_back(at);
  }
  if (isStore)
    for (Operation *at : enclosing)
      if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(at))
        return error(at) << "it is written inside '" << at->getName() << "'";

  Value ptr = accessedPointer(op);
  Type accessed = isStore ? cast<PtrStoreOp>(op).getValue().getType()
                          : cast<PtrLoadOp>(op).getValue().getType();
  int64_t count = elementsAccessed(
      accessed, cast<PointerType>(ptr.getType()).getElementType());
  Offset offset = offsetOf(ptr);
  if (offset.dynamic.empty() &&
      (offset.constant < 0 || offset.constant > f.cosize - count))
    return error(op) << "the access to " << count << " element(s) at offset "
                     << offset.constant << " is outside its " << f.cosize
                     << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// The values of a fragment's pieces at one point of the program.
using PieceValues = SmallVector<Value, 4>;

/// Replaces one analysed fragment by its pieces' values, in program order
/// from the allocation on.
class Promoter {
public:
  Promoter(Fragment &fragment, IRRewriter &rewriter)
      : f(fragment), rewriter(rewriter) {}

  LogicalResult run();

private:
  /// Rewrites the accesses of `block` from `begin` on with `current` the
  /// values at `begin`; returns the values at the end of the block.
  FailureOr<PieceValues> threadBlock(Block *block, Block::iterator begin,
                                     PieceValues current);
  FailureOr<PieceValues> threadFor(scf::ForOp op, const PieceValues &current);
  FailureOr<PieceValues> threadIf(scf::IfOp op, const PieceValues &current);
  FailureOr<PieceValues> threadWhile(scf::WhileOp op,
                                     const PieceValues &current);
  /// Appends `values` to the operands of the terminator of `block`.
  void appendToTerminator(Block *block, ValueRange values);

  /// The scalar position of an access in the storage: static when the
  /// offset is, else an index value built before `op`.
  OpFoldResult position(Operation *access);
  OpFoldResult plus(OpFoldResult pos, int64_t delta, Location loc);
  /// The pieces [first, last) a static access at `start` covers.
  std::pair<unsigned, unsigned> piecesOf(int64_t start, int64_t count) const;
  void rewriteLoad(PtrLoadOp load, const PieceValues &current);
  PieceValues rewriteStore(PtrStoreOp store, PieceValues current);
  void eraseLeftovers();

  Fragment &f;
  IRRewriter &rewriter;
  /// The accesses not rewritten yet.
  DenseSet<Operation *> accesses;
  /// The ops that contain a store to the fragment, not threaded yet.
  DenseSet<Operation *> writers;
};

LogicalResult Promoter::run() {
  Block *home = f.alloca->getBlock();
  for (Operation *access : f.accesses) {
    accesses.insert(access);
    // The analysis checked that the ancestors lead to `home`.
    if (isa<PtrStoreOp>(access))
      for (Operation *at = access; at->getBlock() != home;) {
        at = at->getParentOp();
        writers.insert(at);
      }
  }

  rewriter.setInsertionPoint(f.alloca);
  // One zero constant per piece length.
  DenseMap<int64_t, Value> zeros;
  PieceValues initial;
  for (unsigned piece = 0, e = f.bounds.size() - 1; piece < e; ++piece) {
    VectorType type = f.pieceType(piece);
    Value &zero = zeros[type.getNumElements()];
    if (!zero)
      zero = arith::ConstantOp::create(
          rewriter, f.alloca.getLoc(), type,
          cast<TypedAttr>(rewriter.getZeroAttr(type)));
    initial.push_back(zero);
  }
  if (failed(threadBlock(home, std::next(Block::iterator(f.alloca)),
                         std::move(initial))))
    return failure();
  eraseLeftovers();
  return success();
}

FailureOr<PieceValues> Promoter::threadBlock(Block *block,
                                             Block::iterator begin,
                                             PieceValues current) {
  for (Block::iterator it = begin; it != block->end();) {
    // The op may be replaced: step past it first. An access or writer
    // leaves its set before it is rewritten (and erased), so that an op
    // created later at the same address is not taken for it.
    Operation *op = &*it++;
    if (accesses.erase(op)) {
      if (auto store = dyn_cast<PtrStoreOp>(op))
        current = rewriteStore(store, std::move(current));
      else
        rewriteLoad(cast<PtrLoadOp>(op), current);
      continue;
    }
    if (writers.erase(op)) {
      FailureOr<PieceValues> after =
          TypeSwitch<Operation *, FailureOr<PieceValues>>(op)
              .Case([&](scf::ForOp loop) { return threadFor(loop, current); })
              .Case([&](scf::IfOp branch) { return threadIf(branch, current); })
              .Case(
                  [&](scf::WhileOp loop) { return threadWhile(loop, current); })
              .Default([&](Operation *other) -> FailureOr<PieceValues> {
                return other->emitError(kCannotPromote)
                       << "it is written inside '" << other->getName() << "'";
              });
      if (failed(after))
        return failure();
      current = std::move(*after);
      continue;
    }
    if (op->getNumRegions() == 0)
      continue;
    // Nothing inside stores to the fragment: every load in there reads the
    // values that dominate the op.
    SmallVector<PtrLoadOp> loads;
    op->walk([&](PtrLoadOp load) {
      if (accesses.erase(load))
        loads.push_back(load);
    });
    for (PtrLoadOp load : loads)
      rewriteLoad(load, current);
  }
  return current;
}

void Promoter::appendToTerminator(Block *block, ValueRange values) {
  Operation *terminator = block->getTerminator();
  rewriter.modifyOpInPlace(terminator, [&] {
    terminator->insertOperands(terminator->getNumOperands(), values);
  });
}

/// The loop carries the pieces as more iteration arguments; the results
/// are the values after the loop.
FailureOr<PieceValues> Promoter::threadFor(scf::ForOp op,
                                           const PieceValues &current) {
  rewriter.setInsertionPoint(op);
  unsigned count = current.size();
  // Yield the arguments for now: the body is rewritten afterwards, in the
  // new loop, and gives the values to yield.
  FailureOr<LoopLikeOpInterface> replaced = op.replaceWithAdditionalYields(
      rewriter, current, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  if (failed(replaced))
    return op.emitError(kCannotPromote) << "this loop cannot carry it";
  auto loop = cast<scf::ForOp>(replaced->getOperation());
  Block *body = loop.getBody();
  PieceValues args(loop.getRegionIterArgs().take_back(count));
  FailureOr<PieceValues> end = threadBlock(body, body->begin(), args);
  if (failed(end))
    return failure();
  Operation *yield = body->getTerminator();
  unsigned first = yield->getNumOperands() - count;
  rewriter.modifyOpInPlace(yield, [&] {
    for (auto [i, value] : llvm::enumerate(*end))
      yield->setOperand(first + i, value);
  });
  return PieceValues(loop.getResults().take_back(count));
}

/// The branches yield the pieces as more results; a missing else branch
/// is created to yield them unchanged.
FailureOr<PieceValues> Promoter::threadIf(scf::IfOp op,
                                          const PieceValues &current) {
  rewriter.setInsertionPoint(op);
  unsigned count = current.size();
  SmallVector<Type> types(op.getResultTypes());
  for (Value value : current)
    types.push_back(value.getType());
  auto branch = scf::IfOp::create(rewriter, op.getLoc(), types,
                                  op.getCondition(), /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
  branch->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getThenRegion(), branch.getThenRegion(),
                              branch.getThenRegion().end());
  rewriter.inlineRegionBefore(op.getElseRegion(), branch.getElseRegion(),
                              branch.getElseRegion().end());
  if (branch.getElseRegion().empty()) {
    // Without an else branch the op had no results: an empty yield.
    rewriter.createBlock(&branch.getElseRegion());
    scf::YieldOp::create(rewriter, op.getLoc(), ValueRange());
  }
  for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
    Block *block = &region->front();
    FailureOr<PieceValues> end = threadBlock(block, block->begin(), current);
    if (failed(end))
      return failure();
    appendToTerminator(block, *end);
  }
  rewriter.replaceOp(op, branch.getResults().drop_back(count));
  return PieceValues(branch.getResults().take_back(count));
}

/// Both regions take the pieces as more arguments: the before region
/// passes the values it ends with to `scf.condition` (so they are also the
/// results), the after region yields its own to the next iteration.
FailureOr<PieceValues> Promoter::threadWhile(scf::WhileOp op,
                                             const PieceValues &current) {
  rewriter.setInsertionPoint(op);
  unsigned count = current.size();
  SmallVector<Value> inits(op.getInits());
  llvm::append_range(inits, current);
  SmallVector<Type> types(op.getResultTypes());
  for (Value value : current)
    types.push_back(value.getType());
  auto loop = scf::WhileOp::create(rewriter, op.getLoc(), types, inits);
  loop->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getBefore(), loop.getBefore(),
                              loop.getBefore().end());
  rewriter.inlineRegionBefore(op.getAfter(), loop.getAfter(),
                              loop.getAfter().end());
  for (Block *block : {loop.getBeforeBody(), loop.getAfterBody()}) {
    PieceValues args;
    for (Value value : current)
      args.push_back(block->addArgument(value.getType(), op.getLoc()));
    FailureOr<PieceValues> end = threadBlock(block, block->begin(), args);
    if (failed(end))
      return failure();
    appendToTerminator(block, *end);
  }
  rewriter.replaceOp(op, loop.getResults().drop_back(count));
  return PieceValues(loop.getResults().take_back(count));
}

OpFoldResult Promoter::position(Operation *access) {
  int64_t k = f.scalarsPerElement;
  Offset offset = offsetOf(accessedPointer(access));
  if (offset.dynamic.empty())
    return rewriter.getIndexAttr(offset.constant * k);
  Location loc = access->getLoc();
  rewriter.setInsertionPoint(access);
  Value sum;
  for (Value term : offset.dynamic) {
    // An int_tuple leaf holds one i32/i64 leaf value; a scalar is itself.
    SmallVector<Value> leaves = getLeafValues(rewriter, term);
    for (Value leaf : leaves) {
      Value index = arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getIndexType(), leaf);
      sum = sum ? arith::AddIOp::create(rewriter, loc, sum, index) : index;
    }
  }
  if (offset.constant != 0)
    sum = arith::AddIOp::create(
        rewriter, loc, sum,
        arith::ConstantIndexOp::create(rewriter, loc, offset.constant));
  if (k != 1)
    sum = arith::MulIOp::create(
        rewriter, loc, sum, arith::ConstantIndexOp::create(rewriter, loc, k));
  return sum;
}

OpFoldResult Promoter::plus(OpFoldResult pos, int64_t delta, Location loc) {
  if (delta == 0)
    return pos;
  if (auto attr = dyn_cast<Attribute>(pos))
    return rewriter.getIndexAttr(cast<IntegerAttr>(attr).getInt() + delta);
  return arith::AddIOp::create(
             rewriter, loc, cast<Value>(pos),
             arith::ConstantIndexOp::create(rewriter, loc, delta))
      .getResult();
}

std::pair<unsigned, unsigned> Promoter::piecesOf(int64_t start,
                                                 int64_t count) const {
  // The analysis cut the storage at both ends of every static access.
  auto at = [&](int64_t bound) {
    return unsigned(llvm::lower_bound(f.bounds, bound) - f.bounds.begin());
  };
  return {at(start), at(start + count)};
}

/// A load is its piece, the pieces it covers joined, or, from a fragment
/// that is one vector, the scalar at its position or the run of scalars
/// from it: a strided slice when the position is static, one dynamic
/// extract per scalar otherwise.
void Promoter::rewriteLoad(PtrLoadOp load, const PieceValues &current) {
  Location loc = load.getLoc();
  OpFoldResult pos = position(load);
  rewriter.setInsertionPoint(load);
  Type type = load.getType();
  auto attr = dyn_cast<Attribute>(pos);
  Value result;
  if (!f.oneVector) {
    // Every position is static.
    auto [first, last] =
        piecesOf(cast<IntegerAttr>(attr).getInt(), scalarsAccessed(type));
    if (!isa<VectorType>(type)) {
      OpFoldResult zero = rewriter.getIndexAttr(0);
      result = vector::ExtractOp::create(rewriter, loc, current[first], zero);
    } else {
      result = current[first];
      for (unsigned piece = first + 1; piece < last; ++piece) {
        int64_t size = cast<VectorType>(result.getType()).getNumElements() +
                       f.pieceType(piece).getNumElements();
        result = vector::ShuffleOp::create(
            rewriter, loc, result, current[piece],
            llvm::to_vector(llvm::seq<int64_t>(0, size)));
      }
    }
  } else if (!isa<VectorType>(type)) {
    result = vector::ExtractOp::create(rewriter, loc, current[0], pos);
  } else if (attr) {
    int64_t size = cast<VectorType>(type).getNumElements();
    result = vector::ExtractStridedSliceOp::create(
        rewriter, loc, current[0], {cast<IntegerAttr>(attr).getInt()}, {size},
        {1});
  } else {
    SmallVector<Value> scalars;
    for (int64_t i = 0, e = cast<VectorType>(type).getNumElements(); i < e; ++i)
      scalars.push_back(vector::ExtractOp::create(rewriter, loc, current[0],
                                                  plus(pos, i, loc)));
    result = vector::FromElementsOp::create(rewriter, loc, type, scalars);
  }
  rewriter.replaceOp(load, result);
}

/// A store replaces the pieces it covers (its value, or slices of it), or,
/// in a fragment that is one vector, the scalars at its position: the new
/// storage values.
PieceValues Promoter::rewriteStore(PtrStoreOp store, PieceValues current) {
  Location loc = store.getLoc();
  OpFoldResult pos = position(store);
  rewriter.setInsertionPoint(store);
  Value value = store.getValue();
  auto attr = dyn_cast<Attribute>(pos);
  if (!f.oneVector) {
    int64_t start = cast<IntegerAttr>(attr).getInt();
    auto [first, last] = piecesOf(start, scalarsAccessed(value.getType()));
    if (!isa<VectorType>(value.getType())) {
      current[first] = vector::FromElementsOp::create(
          rewriter, loc, f.pieceType(first), ValueRange{value});
    } else if (last == first + 1) {
      current[first] = value;
    } else {
      for (unsigned piece = first; piece < last; ++piece)
        current[piece] = vector::ExtractStridedSliceOp::create(
            rewriter, loc, value, {f.bounds[piece] - start},
            {f.pieceType(piece).getNumElements()}, {1});
    }
  } else if (!isa<VectorType>(value.getType())) {
    current[0] =
        vector::InsertOp::create(rewriter, loc, value, current[0], pos);
  } else if (attr) {
    current[0] = vector::InsertStridedSliceOp::create(
        rewriter, loc, value, current[0], {cast<IntegerAttr>(attr).getInt()},
        {1});
  } else {
    Value result = current[0];
    for (int64_t i = 0, e = cast<VectorType>(value.getType()).getNumElements();
         i < e; ++i) {
      Value scalar = vector::ExtractOp::create(rewriter, loc, value, i);
      result = vector::InsertOp::create(rewriter, loc, scalar, result,
                                        plus(pos, i, loc));
    }
    current[0] = result;
  }
  rewriter.eraseOp(store);
  return current;
}

/// The layout queries get the layout (the one a view was built with, or the
/// fragment's static one), then the address computations and dead users go
/// (users before what they use), the allocation last. The values that only
/// fed them (offsets, view layouts) go with them.
void Promoter::eraseLeftovers() {
  for (Operation *query : f.layoutQueries) {
    Value layout;
    if (auto view = query->getOperand(0).getDefiningOp<MakeViewOp>())
      layout = view.getLayout();
    else {
      rewriter.setInsertionPoint(query);
      layout = StaticOp::create(rewriter, query->getLoc(),
                                query->getResult(0).getType());
    }
    rewriter.replaceOp(query, layout);
  }
  // Only the offsets and view layouts: an operand of a dead user may be
  // the pointer of another fragment, whose records must stay valid.
  llvm::SetVector<Operation *> inputs;
  for (Operation *op : f.dead) {
    Value input;
    if (auto add = dyn_cast<AddOffsetOp>(op))
      input = add.getOffset();
    else if (auto view = dyn_cast<MakeViewOp>(op))
      input = view.getLayout();
    if (Operation *def = input ? input.getDefiningOp() : nullptr)
      inputs.insert(def);
  }
  SmallVector<Operation *> pending(f.dead.begin(), f.dead.end());
  while (!pending.empty()) {
    size_t before = pending.size();
    llvm::erase_if(pending, [&](Operation *op) {
      if (!op->use_empty())
        return false;
      rewriter.eraseOp(op);
      return true;
    });
    // Only a use outside the analysed trees could keep an op alive, and
    // the analysis admits none; stop rather than loop if it ever did.
    if (pending.size() == before)
      break;
  }
  if (f.alloca->use_empty())
    rewriter.eraseOp(f.alloca);
  for (Operation *def : inputs)
    if (isOpTriviallyDead(def))
      rewriter.eraseOp(def);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct PromoteRegMemToVectorSSA
    : public mlir::fly::impl::FlyPromoteRegMemToVectorSSABase<
          PromoteRegMemToVectorSSA> {
  void runOnOperation() override {
    SmallVector<std::unique_ptr<Fragment>> fragments;
    bool ok = true;
    getOperation()->walk([&](MemRefAllocaOp alloca) {
      auto fragment = std::make_unique<Fragment>();
      fragment->alloca = alloca;
      if (failed(Analyzer(*fragment).run()))
        ok = false;
      fragments.push_back(std::move(fragment));
    });
    if (!ok)
      return signalPassFailure();
    // A dead op may use the pointers of two fragments: the first erases it.
    DenseSet<Operation *> claimed;
    for (std::unique_ptr<Fragment> &fragment : fragments) {
      fragment->dead.remove_if(
          [&](Operation *op) { return claimed.contains(op); });
      claimed.insert(fragment->dead.begin(), fragment->dead.end());
    }

    IRRewriter rewriter(&getContext());
    for (std::unique_ptr<Fragment> &fragment : fragments)
      if (failed(Promoter(*fragment, rewriter).run()))
        return signalPassFailure();
  }
};

} // namespace
