//===- WaveVectorizer.cpp - Kernels as SIMD wave functions ----------------===//
//
// Whole-function vectorisation (Karrenberg & Hack, CC'12) of an emulated
// kernel, with the hardware's own model of divergence: the control flow
// graph is kept, and a divergent branch narrows `exec` instead of choosing
// one side, as an AMD wave does with its EXEC register.
//
//   1. Preparation, on a copy of the kernel entry with its body inlined:
//      each branch to a trap block (a call that does not return, then
//      `unreachable`: the alignment and bounds traps convert-rocdl-to-emu
//      emits) becomes a guard marker in the branching block; then LLVM's
//      own passes make the CFG what the masking below needs: switches
//      lowered, one return, irreducible loops fixed, one exit per loop,
//      and StructurizeCFG (the AMDGPU backend's structurizer), after which
//      every conditional branch that is not a loop's back edge has its
//      false successor as the point where its two sides join, and every
//      loop leaves through its latch; then LCSSA.
//   2. Divergence analysis: a value is varying when it depends on the lane
//      (the work-item id x, the flat id, the lane id, a load through a
//      varying address, an atomic's result, private memory) or is a phi
//      where a divergent branch joins or a divergent loop exits; to a
//      fixed point.
//   3. Emission of the wave function: varying values become vectors of W
//      lanes (a per-lane <N x T> becomes <W*N x T>, lane-major, so that a
//      bitcast stays a bitcast; structs and arrays hold vectors), uniform
//      ones are copied as they are. exec is a <W x i1> value per block: a
//      divergent if runs its then-part with exec & c, skipped when no lane
//      takes it, and the phis where it joins blend by that mask; a
//      divergent loop runs while any lane is left, its header's exec a phi,
//      and what leaves it is caught per lane as the lane leaves. Memory
//      accesses through varying addresses are masked gathers and scatters;
//      everything else that has no vector form (calls into the runtime,
//      atomics, aggregates, dynamic element indices) runs lane by lane
//      over the active lanes, each lane with its own context.
// What it cannot take (a wave collective the SIMD mode does not implement
// yet, a barrier under divergent control flow, a CFG the structurizer
// leaves in another shape) is a fallback with its reason: the kernel runs
// as fibers, one per work-item.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/ROCDLToEmu/WaveVectorizer.h"
#include "fly/runtime/Emu.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <optional>

using namespace llvm;

namespace fly::emu {
namespace {

constexpr StringLiteral kTrapIf = "__fly_wave_trap_if";

/// FlyEmuContext fields that differ between the lanes of a wave (the others
/// are the same for every lane, given the lanes are consecutive in x).
constexpr int64_t kCtxWorkItemX = 0;
constexpr int64_t kCtxFlat = 48;
constexpr int64_t kCtxLane = 52;

/// A fallback: why a kernel has no wave function.
struct Unsupported {
  std::string reason;
};

// -- Preparation --------------------------------------------------------------

/// The trap blocks' branches as guard markers (see the file comment).
std::optional<Unsupported> guardTraps(Function &f) {
  Module &m = *f.getParent();
  LLVMContext &c = m.getContext();
  FunctionCallee marker = m.getOrInsertFunction(
      kTrapIf, FunctionType::get(Type::getVoidTy(c),
                                 {Type::getInt1Ty(c), PointerType::get(c, 0)},
                                 /*isVarArg=*/true));
  SmallVector<BasicBlock *> traps;
  for (BasicBlock &bb : f)
    if (isa<UnreachableInst>(bb.getTerminator()))
      traps.push_back(&bb);
  for (BasicBlock *trap : traps) {
    CallInst *call = nullptr;
    for (Instruction &inst : *trap) {
      if (isa<PHINode>(inst))
        continue; // its value from each branch, below
      if (auto *c = dyn_cast<CallInst>(&inst);
          c && c->getCalledFunction() && !c->getCalledFunction()->isIntrinsic()) {
        if (call)
          return Unsupported{"a trap block with two calls"};
        call = c;
      } else if (!isa<UnreachableInst>(inst) && inst.mayHaveSideEffects()) {
        return Unsupported{"a trap block with side effects besides its call"};
      }
    }
    if (!call)
      return Unsupported{"an unreachable block that is not a trap"};
    for (BasicBlock *pred : SmallVector<BasicBlock *>(predecessors(trap))) {
      auto *br = dyn_cast<BranchInst>(pred->getTerminator());
      if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1))
        return Unsupported{"a trap block reached other than by a branch"};
      IRBuilder<> b(br);
      Value *cond = br->getCondition();
      BasicBlock *cont = br->getSuccessor(0) == trap ? br->getSuccessor(1)
                                                     : br->getSuccessor(0);
      if (br->getSuccessor(1) == trap)
        cond = b.CreateNot(cond);
      ValueToValueMapTy map;
      for (PHINode &phi : trap->phis())
        map[&phi] = phi.getIncomingValueForBlock(pred);
      for (Instruction &inst : *trap) {
        if (isa<PHINode>(inst))
          continue;
        if (isa<UnreachableInst>(inst))
          break;
        if (&inst == call) {
          SmallVector<Value *> args = {cond, call->getCalledOperand()};
          for (Value *arg : call->args()) {
            Value *mapped = map.lookup(arg);
            args.push_back(mapped ? mapped : arg);
          }
          b.CreateCall(marker, args);
          continue;
        }
        Instruction *copy = inst.clone();
        RemapInstruction(copy, map, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
        b.Insert(copy);
        map[&inst] = copy;
      }
      BranchInst::Create(cont, br->getIterator());
      br->eraseFromParent();
      trap->removePredecessor(pred);
    }
    DeleteDeadBlock(trap);
  }
  return std::nullopt;
}

/// Runs LLVM's passes `pipeline` on `f`.
void runPasses(Function &f, StringRef pipeline) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  FunctionPassManager fpm;
  if (Error err = pb.parsePassPipeline(fpm, pipeline))
    report_fatal_error(std::move(err)); // a pipeline of this file: a bug
  fpm.run(f, fam);
}

// -- The wave function ---------------------------------------------------------

class WaveVectorizer {
public:
  WaveVectorizer(Function &scalar, unsigned waveSize)
      : f(scalar), m(*scalar.getParent()), c(m.getContext()), w(waveSize),
        dt(scalar), pdt(scalar), li(dt) {}

  /// Analyses `f` and emits its wave function named `name`, or says why not.
  std::optional<Unsupported> run(const std::string &name);

private:
  // Analysis.
  std::optional<Unsupported> analyse();
  bool isVarying(Value *v) const { return varying.contains(v); }
  std::optional<int64_t> ctxOffset(Value *v) const;
  bool computeVarying(Instruction &inst);
  std::optional<Unsupported> checkStructure();

  // Types and lanes.
  Type *wide(Type *t) const;
  Constant *splatConstant(Constant *k, Type *t);
  Value *splat(IRBuilder<> &b, Value *v, Type *t);
  Value *extractLane(IRBuilder<> &b, Value *wideValue, Type *t, Value *lane);
  Value *insertLane(IRBuilder<> &b, Value *acc, Value *v, Type *t, Value *lane);
  Value *replicate(IRBuilder<> &b, Value *mask, unsigned n);
  Value *blend(IRBuilder<> &b, Value *mask, Value *a, Value *bv, Type *t);
  Value *anyLane(IRBuilder<> &b, Value *mask);
  Value *maskBits(IRBuilder<> &b, Value *mask);

  // Values of the wave function.
  Value *scalarOf(Value *v);
  Value *wideOf(IRBuilder<> &b, Value *v);
  Value *laneValue(IRBuilder<> &b, Value *v, Value *lane);
  Value *laneContext(IRBuilder<> &b, Value *lane);

  // Emission.
  std::optional<Unsupported> emit();
  Value *execFor(BasicBlock *bb);
  std::optional<Unsupported> emitInstruction(IRBuilder<> &b, Instruction &inst);
  std::optional<Unsupported> emitCall(IRBuilder<> &b, CallInst &call);
  std::optional<Unsupported> emitWaveExchange(IRBuilder<> &b, CallInst &call,
                                              StringRef name, bool &exchanged);
  std::optional<Unsupported> emitTerminator(IRBuilder<> &b, Instruction &term);
  Value *emitLoad(IRBuilder<> &b, LoadInst &load);
  void emitStore(IRBuilder<> &b, StoreInst &store);
  // Lane-linear values: lane l's value is base + l * stride.
  struct Linear {
    Value *base;       // the wave function's scalar (lane 0's value)
    int64_t stride;    // per lane, in the value's units (bytes for pointers)
    Value *valid;      // an i1 of the wave function: the form holds (no
                       // lane's value wraps where an extension or a GEP
                       // index extension would tell); null: always
  };
  std::optional<Linear> linearOf(Value *v);
  void findLinear(IRBuilder<> &b, Instruction &inst);
  std::optional<Linear> extended(IRBuilder<> &b, const Linear &from, Type *to,
                                 bool isSigned);
  Value *contiguous(IRBuilder<> &b, Value *ptr, Type *t,
                    function_ref<Value *(IRBuilder<> &, Value *)> fast,
                    function_ref<Value *(IRBuilder<> &, bool rare)> slow);
  DenseMap<Value *, Linear> linear;
  DenseSet<Value *> deferred; // pure, lane-linear: vectors made on demand
  bool deferrable(Instruction &inst) const;
  Value *materialize(IRBuilder<> &b, Instruction &inst);
  Value *wideOp(IRBuilder<> &b, Instruction &inst);
  bool laneAddressable(Type *t) const;
  Value *laneSlots(Type *t);
  Value *elementPointers(IRBuilder<> &b, Value *ptr, Type *t, Value *&mask);
  Value *laneLoop(IRBuilder<> &b, Value *bits, Type *resultType,
                  function_ref<Value *(IRBuilder<> &, Value *)> body);
  Value *scalarize(IRBuilder<> &b, Instruction &inst, bool masked);
  // The bits of the lanes in `bits` where `cond` (of f) holds, lane by lane.
  Value *laneBits(IRBuilder<> &b, Value *bits, Value *cond);
  void finishPhis();

  Function &f;
  Module &m;
  LLVMContext &c;
  unsigned w;
  DominatorTree dt;
  PostDominatorTree pdt;
  LoopInfo li;

  DenseSet<Value *> varying;
  DenseSet<BasicBlock *> divergentJoins;  // where a divergent if joins
  DenseSet<BasicBlock *> divergentExits;  // the exit of a divergent loop
  DenseSet<Loop *> divergentLoops;

  Function *wave = nullptr;
  Argument *ctx = nullptr; // f's context argument
  Value *lane0 = nullptr;  // wave->lane[0]
  Value *waveArg = nullptr;
  Value *entryExec = nullptr;
  Constant *iota = nullptr; // <W x i32> 0, 1, ...
  DenseMap<Value *, Value *> scalars, wides, splats;
  DenseMap<BasicBlock *, BasicBlock *> head, tail;
  DenseMap<BasicBlock *, Value *> exec;
  DenseMap<BasicBlock *, Value *> thenExec; // then-block -> its exec
  struct PendingPhi {
    PHINode *phi;      // f's
    PHINode *copy;     // the wave function's
    bool wideCopy;
  };
  SmallVector<PendingPhi> phis;
  // A divergent loop's header exec phi and the live-out accumulators whose
  // latch values the latch fills in.
  DenseMap<BasicBlock *, PHINode *> headerExec;
  struct JoinBlend {
    PHINode *phi;      // f's phi at the join
    PHINode *fromThen; // the wave function's phi of the then-side values
    BasicBlock *branch;
  };
  SmallVector<JoinBlend> joinBlends;
};

std::optional<int64_t> WaveVectorizer::ctxOffset(Value *v) const {
  int64_t offset = 0;
  while (v != ctx) {
    auto *gep = dyn_cast<GetElementPtrInst>(v);
    if (!gep)
      return std::nullopt;
    APInt delta(64, 0);
    if (!gep->accumulateConstantOffset(m.getDataLayout(), delta))
      return std::nullopt;
    offset += delta.getSExtValue();
    v = gep->getPointerOperand();
  }
  return offset;
}

/// Whether the callee is a runtime function that is a wave collective (it
/// parks the fiber until the wave's lanes arrive) without a whole-wave form
/// yet (emitWaveExchange has the others).
static bool isCollective(StringRef name) {
  return name == "fly_emu_ds_read_tr" || name == "fly_emu_barrier_checked";
}

bool WaveVectorizer::computeVarying(Instruction &inst) {
  if (ctxOffset(&inst))
    return false; // a pointer into the context: see ctx loads
  if (auto *load = dyn_cast<LoadInst>(&inst)) {
    if (std::optional<int64_t> offset = ctxOffset(load->getPointerOperand()))
      return *offset == kCtxWorkItemX || *offset == kCtxFlat ||
             *offset == kCtxLane;
    return isVarying(load->getPointerOperand());
  }
  if (auto *phi = dyn_cast<PHINode>(&inst)) {
    if (divergentJoins.contains(phi->getParent()) ||
        divergentExits.contains(phi->getParent()))
      return true;
    return llvm::any_of(phi->incoming_values(),
                        [&](Value *v) { return isVarying(v); });
  }
  if (isa<AllocaInst, AtomicRMWInst, AtomicCmpXchgInst>(inst))
    return true;
  if (auto *call = dyn_cast<CallInst>(&inst)) {
    Function *callee = call->getCalledFunction();
    StringRef name = callee ? callee->getName() : "";
    if (name == "fly_emu_readfirstlane" || name == "fly_emu_readlane" ||
        name == "fly_emu_ballot")
      return false;
    if (!callee || (!callee->isIntrinsic() && name != kTrapIf))
      return !call->getType()->isVoidTy(); // per lane, with its context
  }
  return llvm::any_of(inst.operands(), [&](Value *v) { return isVarying(v); });
}

std::optional<Unsupported> WaveVectorizer::analyse() {
  ctx = f.getArg(0);
  ReversePostOrderTraversal<Function *> rpo(&f);
  for (bool changed = true; changed;) {
    changed = false;
    for (BasicBlock *bb : rpo) {
      for (Instruction &inst : *bb)
        if (!isVarying(&inst) && computeVarying(inst)) {
          varying.insert(&inst);
          changed = true;
        }
      auto *br = dyn_cast<BranchInst>(bb->getTerminator());
      if (!br || !br->isConditional() || !isVarying(br->getCondition()))
        continue;
      Loop *loop = li.getLoopFor(bb);
      if (loop && loop->getLoopLatch() == bb &&
          llvm::is_contained(br->successors(), loop->getHeader())) {
        if (divergentLoops.insert(loop).second) {
          changed = true;
          if (BasicBlock *exit = loop->getExitBlock())
            divergentExits.insert(exit);
        }
      } else if (divergentJoins.insert(br->getSuccessor(1)).second) {
        changed = true;
      }
    }
  }
  // Uses of the context other than loads of its fields and calls.
  for (Instruction &inst : instructions(f)) {
    for (Value *op : inst.operands()) {
      if (!ctxOffset(op))
        continue;
      if (isa<GetElementPtrInst>(inst) && ctxOffset(&inst))
        continue;
      if (auto *load = dyn_cast<LoadInst>(&inst)) {
        int64_t o = *ctxOffset(op);
        bool lanePart = (o >= kCtxWorkItemX && o < kCtxWorkItemX + 4) ||
                        (o >= kCtxFlat && o < kCtxLane + 4);
        if (lanePart && (o % 4 != 0 || !load->getType()->isIntegerTy(32)))
          return Unsupported{"an unusual load of the work-item id"};
        continue;
      }
      if (isa<CallInst>(inst) && op == ctx)
        continue;
      return Unsupported{"the context used other than by loads and calls"};
    }
  }
  return checkStructure();
}

std::optional<Unsupported> WaveVectorizer::checkStructure() {
  for (BasicBlock &bb : f) {
    auto *br = dyn_cast<BranchInst>(bb.getTerminator());
    if (!br) {
      if (isa<SwitchInst>(bb.getTerminator()) &&
          isVarying(cast<SwitchInst>(bb.getTerminator())->getCondition()))
        return Unsupported{"a switch on a lane-dependent value"};
      if (!isa<ReturnInst, SwitchInst>(bb.getTerminator()))
        return Unsupported{"a terminator the SIMD mode does not take: " +
                           std::string(bb.getTerminator()->getOpcodeName())};
      continue;
    }
    if (!br->isConditional() || !isVarying(br->getCondition()))
      continue;
    Loop *loop = li.getLoopFor(&bb);
    if (loop && divergentLoops.contains(loop) && loop->getLoopLatch() == &bb) {
      if (loop->getExitingBlock() != &bb || !loop->getExitBlock() ||
          !loop->getLoopPreheader() || loop->getExitBlock()->getSinglePredecessor() != &bb)
        return Unsupported{"a divergent loop of an unexpected shape"};
      continue;
    }
    BasicBlock *then = br->getSuccessor(0), *join = br->getSuccessor(1);
    if (then->getSinglePredecessor() != &bb || !pdt.dominates(join, &bb))
      return Unsupported{"a divergent branch of an unexpected shape"};
    // Every edge out of the then-region goes to the join.
    for (BasicBlock *pred : predecessors(join))
      if (pred != &bb && !dt.dominates(then, pred))
        return Unsupported{"a divergent branch whose join has other entries"};
    SmallVector<BasicBlock *> region;
    dt.getDescendants(then, region);
    for (BasicBlock *inside : region)
      for (BasicBlock *succ : successors(inside))
        if (succ != join && !dt.dominates(then, succ))
          return Unsupported{"a divergent region with more than one exit"};
  }
  // A loop with lanes leaving at different times must leave by its latch.
  for (Loop *loop : li.getLoopsInPreorder())
    if (!divergentLoops.contains(loop)) {
      SmallVector<BasicBlock *> exiting;
      loop->getExitingBlocks(exiting);
      for (BasicBlock *bb : exiting) {
        auto *br = dyn_cast<BranchInst>(bb->getTerminator());
        if (br && br->isConditional() && isVarying(br->getCondition()))
          return Unsupported{"a loop left at a lane-dependent branch"};
      }
    }
  return std::nullopt;
}

// -- Types and lanes ----------------------------------------------------------

Type *WaveVectorizer::wide(Type *t) const {
  if (t->isVoidTy())
    return t;
  if (auto *vt = dyn_cast<FixedVectorType>(t))
    return FixedVectorType::get(vt->getElementType(), vt->getNumElements() * w);
  if (auto *st = dyn_cast<StructType>(t)) {
    SmallVector<Type *> members;
    for (Type *member : st->elements())
      members.push_back(wide(member));
    return StructType::get(c, members, st->isPacked());
  }
  if (auto *at = dyn_cast<ArrayType>(t))
    return ArrayType::get(wide(at->getElementType()), at->getNumElements());
  return FixedVectorType::get(t, w);
}

/// Whether lanes' values of `t` (or of its elements, for a vector) load
/// and store as the elements of a gather or scatter.
static bool gatherable(Type *t) {
  if (auto *vt = dyn_cast<FixedVectorType>(t))
    t = vt->getElementType();
  return t->isPointerTy() || ((t->isIntegerTy() || t->isFloatingPointTy()) &&
                              t->getPrimitiveSizeInBits() % 8 == 0);
}

/// Whether the SIMD mode can represent values of `t`.
static bool representable(Type *t) {
  if (t->isVoidTy() || t->isIntegerTy() || t->isFloatingPointTy() ||
      t->isPointerTy())
    return true;
  if (auto *vt = dyn_cast<FixedVectorType>(t))
    return representable(vt->getElementType());
  if (auto *st = dyn_cast<StructType>(t))
    return !st->isOpaque() && llvm::all_of(st->elements(), representable);
  if (auto *at = dyn_cast<ArrayType>(t))
    return representable(at->getElementType());
  return false;
}

Constant *WaveVectorizer::splatConstant(Constant *k, Type *t) {
  if (isa<PoisonValue>(k))
    return PoisonValue::get(wide(t));
  if (isa<UndefValue>(k))
    return UndefValue::get(wide(t));
  if (auto *vt = dyn_cast<FixedVectorType>(t)) {
    SmallVector<Constant *> elements;
    for (unsigned lane = 0; lane < w; ++lane)
      for (unsigned j = 0; j < vt->getNumElements(); ++j)
        elements.push_back(k->getAggregateElement(j));
    return ConstantVector::get(elements);
  }
  if (auto *st = dyn_cast<StructType>(t)) {
    SmallVector<Constant *> members;
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      members.push_back(splatConstant(k->getAggregateElement(i), st->getElementType(i)));
    return ConstantStruct::get(cast<StructType>(wide(t)), members);
  }
  if (auto *at = dyn_cast<ArrayType>(t)) {
    SmallVector<Constant *> elements;
    for (unsigned i = 0; i < at->getNumElements(); ++i)
      elements.push_back(splatConstant(k->getAggregateElement(i), at->getElementType()));
    return ConstantArray::get(cast<ArrayType>(wide(t)), elements);
  }
  return ConstantVector::getSplat(ElementCount::getFixed(w), k);
}

Value *WaveVectorizer::splat(IRBuilder<> &b, Value *v, Type *t) {
  if (auto *k = dyn_cast<Constant>(v))
    return splatConstant(k, t);
  if (auto *vt = dyn_cast<FixedVectorType>(t)) {
    SmallVector<int> mask;
    for (unsigned lane = 0; lane < w; ++lane)
      for (unsigned j = 0; j < vt->getNumElements(); ++j)
        mask.push_back(int(j));
    return b.CreateShuffleVector(v, mask);
  }
  if (t->isStructTy() || t->isArrayTy()) {
    Value *acc = PoisonValue::get(wide(t));
    unsigned n = t->isStructTy() ? t->getStructNumElements() : t->getArrayNumElements();
    for (unsigned i = 0; i < n; ++i) {
      Type *member = t->isStructTy() ? t->getStructElementType(i) : t->getArrayElementType();
      acc = b.CreateInsertValue(acc, splat(b, b.CreateExtractValue(v, i), member), i);
    }
    return acc;
  }
  return b.CreateVectorSplat(w, v);
}

Value *WaveVectorizer::extractLane(IRBuilder<> &b, Value *wv, Type *t, Value *lane) {
  if (auto *vt = dyn_cast<FixedVectorType>(t)) {
    unsigned n = vt->getNumElements();
    Value *base = b.CreateMul(lane, b.getInt32(n));
    Value *acc = PoisonValue::get(t);
    for (unsigned j = 0; j < n; ++j)
      acc = b.CreateInsertElement(
          acc, b.CreateExtractElement(wv, b.CreateAdd(base, b.getInt32(j))), j);
    return acc;
  }
  if (t->isStructTy() || t->isArrayTy()) {
    Value *acc = PoisonValue::get(t);
    unsigned n = t->isStructTy() ? t->getStructNumElements() : t->getArrayNumElements();
    for (unsigned i = 0; i < n; ++i) {
      Type *member = t->isStructTy() ? t->getStructElementType(i) : t->getArrayElementType();
      acc = b.CreateInsertValue(
          acc, extractLane(b, b.CreateExtractValue(wv, i), member, lane), i);
    }
    return acc;
  }
  return b.CreateExtractElement(wv, lane);
}

Value *WaveVectorizer::insertLane(IRBuilder<> &b, Value *acc, Value *v, Type *t,
                                  Value *lane) {
  if (auto *vt = dyn_cast<FixedVectorType>(t)) {
    unsigned n = vt->getNumElements();
    Value *base = b.CreateMul(lane, b.getInt32(n));
    for (unsigned j = 0; j < n; ++j)
      acc = b.CreateInsertElement(acc, b.CreateExtractElement(v, j),
                                  b.CreateAdd(base, b.getInt32(j)));
    return acc;
  }
  if (t->isStructTy() || t->isArrayTy()) {
    unsigned n = t->isStructTy() ? t->getStructNumElements() : t->getArrayNumElements();
    for (unsigned i = 0; i < n; ++i) {
      Type *member = t->isStructTy() ? t->getStructElementType(i) : t->getArrayElementType();
      acc = b.CreateInsertValue(
          acc,
          insertLane(b, b.CreateExtractValue(acc, i), b.CreateExtractValue(v, i),
                     member, lane),
          i);
    }
    return acc;
  }
  return b.CreateInsertElement(acc, v, lane);
}

Value *WaveVectorizer::replicate(IRBuilder<> &b, Value *mask, unsigned n) {
  if (n == 1)
    return mask;
  SmallVector<int> indices;
  for (unsigned lane = 0; lane < w; ++lane)
    for (unsigned j = 0; j < n; ++j)
      indices.push_back(int(lane));
  return b.CreateShuffleVector(mask, indices);
}

Value *WaveVectorizer::blend(IRBuilder<> &b, Value *mask, Value *a, Value *bv,
                             Type *t) {
  if (auto *vt = dyn_cast<FixedVectorType>(t))
    return b.CreateSelect(replicate(b, mask, vt->getNumElements()), a, bv);
  if (t->isStructTy() || t->isArrayTy()) {
    Value *acc = PoisonValue::get(wide(t));
    unsigned n = t->isStructTy() ? t->getStructNumElements() : t->getArrayNumElements();
    for (unsigned i = 0; i < n; ++i) {
      Type *member = t->isStructTy() ? t->getStructElementType(i) : t->getArrayElementType();
      acc = b.CreateInsertValue(acc,
                                blend(b, mask, b.CreateExtractValue(a, i),
                                      b.CreateExtractValue(bv, i), member),
                                i);
    }
    return acc;
  }
  return b.CreateSelect(mask, a, bv);
}

Value *WaveVectorizer::maskBits(IRBuilder<> &b, Value *mask) {
  return b.CreateZExt(b.CreateBitCast(mask, b.getIntNTy(w)), b.getInt64Ty());
}

Value *WaveVectorizer::anyLane(IRBuilder<> &b, Value *mask) {
  return b.CreateICmpNE(b.CreateBitCast(mask, b.getIntNTy(w)),
                        ConstantInt::get(b.getIntNTy(w), 0));
}

// -- Values -----------------------------------------------------------------

Value *WaveVectorizer::scalarOf(Value *v) {
  if (isa<Constant, InlineAsm, BasicBlock, MetadataAsValue>(v))
    return v;
  if (auto *arg = dyn_cast<Argument>(v))
    return arg == ctx ? lane0 : wave->getArg(2); // (ctx, args) -> args
  return scalars.lookup(v);
}

Value *WaveVectorizer::wideOf(IRBuilder<> &b, Value *v) {
  if (deferred.contains(v))
    return materialize(b, *cast<Instruction>(v));
  if (isVarying(v))
    return wides.lookup(v);
  if (auto *k = dyn_cast<Constant>(v))
    return splatConstant(k, v->getType());
  if (Value *cached = splats.lookup(v))
    return cached;
  // Splatted once, right after the scalar's definition.
  Value *s = scalarOf(v);
  IRBuilder<> at(c);
  if (auto *inst = dyn_cast<Instruction>(s)) {
    if (isa<PHINode>(inst))
      at.SetInsertPoint(inst->getParent(), inst->getParent()->getFirstInsertionPt());
    else if (Instruction *next = inst->getNextNode())
      at.SetInsertPoint(next);
    else // the block being emitted, which has no terminator yet
      at.SetInsertPoint(inst->getParent());
  } else {
    at.SetInsertPoint(&wave->getEntryBlock(),
                      wave->getEntryBlock().getFirstInsertionPt());
  }
  Value *result = splat(at, s, v->getType());
  splats[v] = result;
  (void)b;
  return result;
}

Value *WaveVectorizer::laneValue(IRBuilder<> &b, Value *v, Value *lane) {
  if (v == ctx)
    return laneContext(b, lane);
  if (!isVarying(v))
    return scalarOf(v);
  if (deferred.contains(v)) {
    const Linear &form = linear.find(v)->second;
    if (!form.valid) { // lane 0's value and the lane's steps
      Type *t = v->getType();
      if (form.stride == 0)
        return form.base;
      if (t->isPointerTy())
        return b.CreateGEP(b.getInt8Ty(), form.base,
                           b.CreateMul(b.CreateZExt(lane, b.getInt64Ty()),
                                       b.getInt64(uint64_t(form.stride))));
      return b.CreateAdd(form.base,
                         b.CreateMul(b.CreateZExtOrTrunc(lane, t),
                                     ConstantInt::get(t, form.stride, true)));
    }
    // The operation itself on the lane's operands: scalar code (the wide
    // form may not hold, and this is the rare path).
    auto *inst = cast<Instruction>(v);
    Instruction *copy = inst->clone();
    for (unsigned i = 0; i < copy->getNumOperands(); ++i)
      copy->setOperand(i, laneValue(b, inst->getOperand(i), lane));
    return b.Insert(copy);
  }
  return extractLane(b, wideOf(b, v), v->getType(), lane);
}

Value *WaveVectorizer::laneContext(IRBuilder<> &b, Value *lane) {
  Value *slot = b.CreateGEP(b.getPtrTy(), waveArg, b.CreateZExt(lane, b.getInt64Ty()));
  return b.CreateLoad(b.getPtrTy(), slot);
}

// -- Lane-linear values ---------------------------------------------------------

std::optional<WaveVectorizer::Linear> WaveVectorizer::linearOf(Value *v) {
  if (!isVarying(v)) {
    if (!v->getType()->isIntegerTy() && !v->getType()->isPointerTy())
      return std::nullopt;
    Value *s = scalarOf(v);
    if (!s)
      return std::nullopt;
    return Linear{s, 0, nullptr};
  }
  auto it = linear.find(v);
  if (it == linear.end())
    return std::nullopt;
  return it->second;
}

static Value *both(IRBuilder<> &b, Value *x, Value *y) {
  return !x ? y : !y ? x : b.CreateAnd(x, y);
}

/// `from` (an integer form) extended to `to`: the extension of lane 0's
/// value plus l * stride, valid where lane W-1's value does not wrap in
/// the narrow type (then no lane between wraps either).
std::optional<WaveVectorizer::Linear>
WaveVectorizer::extended(IRBuilder<> &b, const Linear &from, Type *to,
                         bool isSigned) {
  Type *narrow = from.base->getType();
  Value *base = isSigned ? b.CreateSExt(from.base, to) : b.CreateZExt(from.base, to);
  if (from.stride == 0)
    return Linear{base, 0, from.valid};
  unsigned bits = narrow->getIntegerBitWidth();
  APInt span(bits, uint64_t(from.stride * int64_t(w - 1)), /*isSigned=*/true);
  Intrinsic::ID id = isSigned ? Intrinsic::sadd_with_overflow
                              : Intrinsic::uadd_with_overflow;
  if (!isSigned && from.stride < 0)
    id = Intrinsic::usub_with_overflow, span = -span;
  Value *sum = b.CreateBinaryIntrinsic(id, from.base, ConstantInt::get(narrow, span));
  Value *fits = b.CreateNot(b.CreateExtractValue(sum, 1));
  return Linear{base, from.stride, both(b, from.valid, fits)};
}

void WaveVectorizer::findLinear(IRBuilder<> &b, Instruction &inst) {
  auto set = [&](std::optional<Linear> form) {
    if (form)
      linear[&inst] = *form;
  };
  if (auto *bin = dyn_cast<BinaryOperator>(&inst)) {
    std::optional<Linear> x = linearOf(bin->getOperand(0));
    std::optional<Linear> y = linearOf(bin->getOperand(1));
    if (!x || !y)
      return;
    auto constant = [](const Linear &l) -> std::optional<int64_t> {
      if (auto *k = dyn_cast<ConstantInt>(l.base); k && l.stride == 0 &&
                                                    k->getBitWidth() <= 64)
        return k->getSExtValue();
      return std::nullopt;
    };
    Value *valid = both(b, x->valid, y->valid);
    switch (bin->getOpcode()) {
    case Instruction::Add:
      return set(Linear{b.CreateAdd(x->base, y->base), x->stride + y->stride, valid});
    case Instruction::Or:
      if (cast<PossiblyDisjointInst>(bin)->isDisjoint() && (!x->stride || !y->stride))
        return set(Linear{b.CreateOr(x->base, y->base), x->stride + y->stride, valid});
      return;
    case Instruction::Sub:
      return set(Linear{b.CreateSub(x->base, y->base), x->stride - y->stride, valid});
    case Instruction::Mul:
      if (std::optional<int64_t> k = constant(*y))
        return set(Linear{b.CreateMul(x->base, y->base), x->stride * *k, valid});
      if (std::optional<int64_t> k = constant(*x))
        return set(Linear{b.CreateMul(x->base, y->base), y->stride * *k, valid});
      return;
    case Instruction::Shl:
      if (std::optional<int64_t> k = constant(*y); k && *k >= 0 && *k < 32)
        return set(Linear{b.CreateShl(x->base, y->base), x->stride << *k, valid});
      break;
    case Instruction::And:
      // The low bits of a line whose stride is a multiple of their span:
      // the same in every lane (an alignment test).
      if (std::optional<int64_t> k = constant(*y);
          k && *k >= 0 && isPowerOf2_64(uint64_t(*k) + 1) && x->stride % (*k + 1) == 0)
        return set(Linear{b.CreateAnd(x->base, y->base), 0, valid});
      break;
    default:
      break;
    }
  }
  if (auto *cast = dyn_cast<PtrToIntInst>(&inst)) {
    if (std::optional<Linear> x = linearOf(cast->getOperand(0));
        x && cast->getType()->getIntegerBitWidth() == 64)
      return set(Linear{b.CreatePtrToInt(x->base, cast->getType()), x->stride, x->valid});
  }
  if (auto *cast = dyn_cast<CastInst>(&inst)) {
    std::optional<Linear> x = linearOf(cast->getOperand(0));
    if (!x || !cast->getType()->isIntegerTy() || !x->base->getType()->isIntegerTy())
      return;
    switch (cast->getOpcode()) {
    case Instruction::SExt:
      return set(extended(b, *x, cast->getType(), /*isSigned=*/true));
    case Instruction::ZExt:
      return set(extended(b, *x, cast->getType(), /*isSigned=*/false));
    case Instruction::Trunc:
      return set(Linear{b.CreateTrunc(x->base, cast->getType()), x->stride, x->valid});
    default:
      break;
    }
  }

  if (auto *gep = dyn_cast<GetElementPtrInst>(&inst)) {
    std::optional<Linear> p = linearOf(gep->getPointerOperand());
    if (!p)
      return;
    const DataLayout &dl = m.getDataLayout();
    Type *indexType = dl.getIndexType(gep->getPointerOperandType());
    SmallVector<Value *> indices;
    int64_t stride = p->stride;
    Value *valid = p->valid;
    for (auto it = gep_type_begin(gep); it != gep_type_end(gep); ++it) {
      std::optional<Linear> index = linearOf(it.getOperand());
      if (!index)
        return;
      if (it.isStruct()) {
        indices.push_back(index->base);
        continue;
      }
      // GEP sign-extends a narrow index to the pointer's index width.
      if (index->base->getType() != indexType && index->stride != 0) {
        index = extended(b, *index, indexType, /*isSigned=*/true);
        if (!index)
          return;
      }
      stride += index->stride * int64_t(it.getSequentialElementStride(dl).getFixedValue());
      valid = both(b, valid, index->valid);
      indices.push_back(index->base);
    }
    return set(Linear{b.CreateGEP(gep->getSourceElementType(), p->base, indices, "",
                                  gep->getNoWrapFlags()),
                      stride, valid});
  }
  if (auto *sel = dyn_cast<SelectInst>(&inst)) {
    std::optional<Linear> x = linearOf(sel->getTrueValue());
    std::optional<Linear> y = linearOf(sel->getFalseValue());
    if (!x || !y || x->stride != y->stride || isVarying(sel->getCondition()))
      return;
    return set(Linear{b.CreateSelect(scalarOf(sel->getCondition()), x->base, y->base),
                      x->stride, both(b, x->valid, y->valid)});
  }
  // An operation of values every lane agrees on (under `valid`): lane 0's.
  if (!inst.mayHaveSideEffects() && !inst.mayReadFromMemory() && !isa<PHINode>(inst) &&
      (!isa<BinaryOperator>(inst) || !cast<BinaryOperator>(inst).isIntDivRem())) {
    Value *valid = nullptr;
    SmallVector<Value *> bases;
    for (Value *op : inst.operands()) {
      std::optional<Linear> form = linearOf(op);
      if (!form || form->stride != 0)
        return;
      valid = both(b, valid, form->valid);
      bases.push_back(form->base);
    }
    Instruction *copy = inst.clone();
    for (auto [i, base] : llvm::enumerate(bases))
      copy->setOperand(unsigned(i), base);
    b.Insert(copy);
    return set(Linear{copy, 0, valid});
  }
}

bool WaveVectorizer::deferrable(Instruction &inst) const {
  Type *t = inst.getType();
  if (!t->isIntegerTy() && !t->isPointerTy())
    return false;
  if (auto *bin = dyn_cast<BinaryOperator>(&inst))
    return !bin->isIntDivRem();
  return isa<CastInst, GetElementPtrInst, CmpInst, SelectInst>(inst);
}

Value *WaveVectorizer::materialize(IRBuilder<> &b, Instruction &inst) {
  const Linear &form = linear.find(&inst)->second;
  if (form.valid) // the form may not hold: the operation itself, on vectors
    return wideOp(b, inst);
  Type *t = inst.getType();
  Value *base = b.CreateVectorSplat(w, form.base);
  if (form.stride == 0)
    return base;
  if (t->isPointerTy()) {
    Type *index = m.getDataLayout().getIndexType(t);
    Value *offsets = b.CreateMul(b.CreateZExt(iota, FixedVectorType::get(index, w)),
                                 ConstantVector::getSplat(ElementCount::getFixed(w),
                                                          ConstantInt::get(index, form.stride)));
    return b.CreateGEP(b.getInt8Ty(), base, offsets);
  }
  Value *lanes = b.CreateZExtOrTrunc(iota, FixedVectorType::get(t, w));
  return b.CreateAdd(base, b.CreateMul(lanes, ConstantVector::getSplat(
                                                  ElementCount::getFixed(w),
                                                  ConstantInt::get(t, form.stride, true))));
}

/// A load or store of per-lane `t` at `ptr`: fast(b, lane 0's address) when
/// the lanes' addresses are consecutive elements (a masked vector access),
/// else slow(b, rare); the value of the one that ran. `rare`: the addresses
/// are consecutive but for lanes whose index wraps (compact code is worth
/// more there than speed).
Value *WaveVectorizer::contiguous(IRBuilder<> &b, Value *ptr, Type *t,
                                  function_ref<Value *(IRBuilder<> &, Value *)> fast,
                                  function_ref<Value *(IRBuilder<> &, bool)> slow) {
  std::optional<Linear> form = linearOf(ptr);
  if (!form || form->stride != int64_t(m.getDataLayout().getTypeStoreSize(t)) ||
      m.getDataLayout().getTypeStoreSize(t) != m.getDataLayout().getTypeAllocSize(t))
    return slow(b, /*rare=*/false);
  if (!form->valid)
    return fast(b, form->base);
  BasicBlock *fastBlock = BasicBlock::Create(c, "consecutive", wave);
  BasicBlock *slowBlock = BasicBlock::Create(c, "scattered", wave);
  BasicBlock *done = BasicBlock::Create(c, "accessed", wave);
  b.CreateCondBr(form->valid, fastBlock, slowBlock);
  b.SetInsertPoint(fastBlock);
  Value *x = fast(b, form->base);
  BasicBlock *fastEnd = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(slowBlock);
  Value *y = slow(b, /*rare=*/true);
  BasicBlock *slowEnd = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  if (!x)
    return nullptr;
  PHINode *phi = b.CreatePHI(x->getType(), 2);
  phi->addIncoming(x, fastEnd);
  phi->addIncoming(y, slowEnd);
  return phi;
}

// -- Emission -----------------------------------------------------------------

/// Whether lanes' values of `t` can sit side by side in memory, lane l's
/// at l * sizeof(t) (what a <W*N x E> vector is in memory).
bool WaveVectorizer::laneAddressable(Type *t) const {
  const DataLayout &dl = m.getDataLayout();
  return gatherable(t) && dl.getTypeStoreSize(t) == dl.getTypeAllocSize(t);
}

Value *WaveVectorizer::laneSlots(Type *t) {
  IRBuilder<> entry(&wave->getEntryBlock(), wave->getEntryBlock().begin());
  AllocaInst *slots = entry.CreateAlloca(wide(t));
  slots->setAlignment(Align(64));
  return slots;
}

Value *WaveVectorizer::laneLoop(IRBuilder<> &b, Value *bits, Type *resultType,
                                function_ref<Value *(IRBuilder<> &, Value *)> body) {
  // Each lane's result goes to its slot of a buffer (lane-addressable
  // types) or into the vector (others); the wave's value is read after.
  const bool slotted = !resultType->isVoidTy() && laneAddressable(resultType);
  Value *slots = slotted ? laneSlots(resultType) : nullptr;
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(c, "lanes", wave);
  BasicBlock *loop = BasicBlock::Create(c, "lane", wave);
  BasicBlock *done = BasicBlock::Create(c, "lanes.done", wave);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *left = b.CreatePHI(b.getInt64Ty(), 2, "left");
  PHINode *acc = nullptr;
  if (!resultType->isVoidTy() && !slotted)
    acc = b.CreatePHI(wide(resultType), 2, "acc");
  left->addIncoming(bits, pre);
  if (acc)
    acc->addIncoming(PoisonValue::get(wide(resultType)), pre);
  b.CreateCondBr(b.CreateICmpEQ(left, b.getInt64(0)), done, loop);
  b.SetInsertPoint(loop);
  Value *lane = b.CreateTrunc(
      b.CreateIntrinsic(Intrinsic::cttz, {b.getInt64Ty()}, {left, b.getTrue()}),
      b.getInt32Ty());
  Value *next = b.CreateAnd(left, b.CreateSub(left, b.getInt64(1)));
  Value *r = body(b, lane);
  if (slotted)
    b.CreateStore(r, b.CreateGEP(resultType, slots, lane));
  Value *accNext = acc ? insertLane(b, acc, r, resultType, lane) : nullptr;
  left->addIncoming(next, b.GetInsertBlock());
  if (acc)
    acc->addIncoming(accNext, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(done);
  if (slotted)
    return b.CreateAlignedLoad(wide(resultType), slots, Align(64));
  return acc;
}

Value *WaveVectorizer::laneBits(IRBuilder<> &b, Value *bits, Value *cond) {
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(c, "test.lanes", wave);
  BasicBlock *loop = BasicBlock::Create(c, "test.lane", wave);
  BasicBlock *done = BasicBlock::Create(c, "tested.lanes", wave);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *left = b.CreatePHI(b.getInt64Ty(), 2);
  PHINode *acc = b.CreatePHI(b.getInt64Ty(), 2);
  left->addIncoming(bits, pre);
  acc->addIncoming(b.getInt64(0), pre);
  b.CreateCondBr(b.CreateICmpEQ(left, b.getInt64(0)), done, loop);
  b.SetInsertPoint(loop);
  Value *lane64 = b.CreateIntrinsic(Intrinsic::cttz, {b.getInt64Ty()}, {left, b.getTrue()});
  Value *holds = laneValue(b, cond, b.CreateTrunc(lane64, b.getInt32Ty()));
  Value *bit = b.CreateShl(b.CreateZExt(holds, b.getInt64Ty()), lane64);
  left->addIncoming(b.CreateAnd(left, b.CreateSub(left, b.getInt64(1))), b.GetInsertBlock());
  acc->addIncoming(b.CreateOr(acc, bit), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(done);
  return acc;
}

Value *WaveVectorizer::scalarize(IRBuilder<> &b, Instruction &inst, bool masked) {
  Value *bits = masked ? maskBits(b, exec.lookup(inst.getParent()))
                       : b.getInt64(w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1);
  // Varying operands the lanes read one at a time wait in lane slots (a
  // vector indexed by a run-time lane would go through memory each time).
  DenseMap<Value *, Value *> spilled;
  for (Value *op : inst.operands())
    if (isVarying(op) && !deferred.contains(op) && !spilled.count(op) &&
        laneAddressable(op->getType())) {
      Value *slots = laneSlots(op->getType());
      b.CreateAlignedStore(wideOf(b, op), slots, Align(64));
      spilled[op] = slots;
    }
  return laneLoop(b, bits, inst.getType(), [&](IRBuilder<> &lb, Value *lane) {
    Instruction *copy = inst.clone();
    for (Use &op : copy->operands()) {
      if (isa<BasicBlock>(op.get()))
        continue;
      if (Value *slots = spilled.lookup(op.get()))
        op.set(lb.CreateLoad(op->getType(), lb.CreateGEP(op->getType(), slots, lane)));
      else
        op.set(laneValue(lb, op.get(), lane));
    }
    lb.Insert(copy);
    return copy;
  });
}

/// The element addresses of a per-lane access of `t` at the lanes' `ptr`,
/// and `mask` replicated to them.
Value *WaveVectorizer::elementPointers(IRBuilder<> &b, Value *ptr, Type *t,
                                       Value *&mask) {
  Value *pointers = wideOf(b, ptr);
  auto *vt = dyn_cast<FixedVectorType>(t);
  if (!vt)
    return pointers;
  unsigned n = vt->getNumElements();
  SmallVector<int> each;
  SmallVector<Constant *> offsets;
  for (unsigned lane = 0; lane < w; ++lane)
    for (unsigned j = 0; j < n; ++j) {
      each.push_back(int(lane));
      offsets.push_back(b.getInt32(j));
    }
  mask = replicate(b, mask, n);
  return b.CreateGEP(vt->getElementType(), b.CreateShuffleVector(pointers, each),
                     ConstantVector::get(offsets));
}

Value *WaveVectorizer::emitLoad(IRBuilder<> &b, LoadInst &load) {
  Type *t = load.getType();
  if (load.isAtomic() || load.isVolatile() || !gatherable(t))
    return scalarize(b, load, /*masked=*/true);
  Value *mask = exec.lookup(load.getParent());
  Type *element = t->getScalarType();
  Align elementAlign = commonAlignment(load.getAlign(),
                                       m.getDataLayout().getTypeStoreSize(element));
  return contiguous(
      b, load.getPointerOperand(), t,
      [&](IRBuilder<> &fb, Value *first) -> Value * {
        unsigned n = t->isVectorTy() ? cast<FixedVectorType>(t)->getNumElements() : 1;
        return fb.CreateMaskedLoad(wide(t), first, elementAlign, replicate(fb, mask, n));
      },
      [&](IRBuilder<> &sb, bool rare) -> Value * {
        // A vector per lane: each lane's own load (a gather would fetch
        // element by element).
        if (t->isVectorTy() || rare)
          return scalarize(sb, load, /*masked=*/true);
        Value *m2 = mask;
        Value *pointers = elementPointers(sb, load.getPointerOperand(), t, m2);
        return sb.CreateMaskedGather(wide(t), pointers, elementAlign, m2);
      });
}

void WaveVectorizer::emitStore(IRBuilder<> &b, StoreInst &store) {
  Value *value = store.getValueOperand(), *ptr = store.getPointerOperand();
  Type *t = value->getType();
  Value *mask = exec.lookup(store.getParent());
  if (!isVarying(ptr) && !store.isAtomic() && !store.isVolatile()) {
    // Every active lane stores to the one address: the last lane's value
    // is what stays, as a scatter's lane order has it.
    Value *lane = b.CreateTrunc(
        b.CreateSub(b.getInt64(63), b.CreateIntrinsic(Intrinsic::ctlz, {b.getInt64Ty()},
                                                      {maskBits(b, mask), b.getTrue()})),
        b.getInt32Ty());
    b.CreateAlignedStore(laneValue(b, value, lane), scalarOf(ptr), store.getAlign());
    return;
  }
  if (store.isAtomic() || store.isVolatile() || !gatherable(t)) {
    scalarize(b, store, /*masked=*/true);
    return;
  }
  Type *element = t->getScalarType();
  Align elementAlign = commonAlignment(store.getAlign(),
                                       m.getDataLayout().getTypeStoreSize(element));
  contiguous(
      b, ptr, t,
      [&](IRBuilder<> &fb, Value *first) -> Value * {
        unsigned n = t->isVectorTy() ? cast<FixedVectorType>(t)->getNumElements() : 1;
        fb.CreateMaskedStore(wideOf(fb, value), first, elementAlign, replicate(fb, mask, n));
        return nullptr;
      },
      [&](IRBuilder<> &sb, bool) -> Value * {
        // Lane by lane: the host has no scatter instruction, and the
        // scatter intrinsic would become one branch and store per lane,
        // code that takes long to compile.
        scalarize(sb, store, /*masked=*/true);
        return nullptr;
      });
}

std::optional<Unsupported> WaveVectorizer::emitCall(IRBuilder<> &b, CallInst &call) {
  Function *callee = call.getCalledFunction();
  if (!callee)
    return Unsupported{"an indirect call"};
  StringRef name = callee->getName();
  Value *mask = exec.lookup(call.getParent());
  if (callee->isIntrinsic()) {
    Intrinsic::ID id = callee->getIntrinsicID();
    switch (id) {
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl:
    case Intrinsic::dbg_declare:
    case Intrinsic::dbg_value:
    case Intrinsic::dbg_label:
    case Intrinsic::donothing:
    case Intrinsic::sideeffect:
      return std::nullopt;
    default:
      break;
    }
    if (!isVarying(&call) && !call.mayHaveSideEffects()) {
      Instruction *copy = call.clone();
      for (Use &op : copy->operands())
        if (!isa<Function>(op.get()))
          op.set(scalarOf(op.get()));
      b.Insert(copy);
      scalars[&call] = copy;
      return std::nullopt;
    }
    bool elementwise = isTriviallyVectorizable(id) && !call.getType()->isStructTy();
    for (unsigned i = 0; elementwise && i < call.arg_size(); ++i)
      if (isVectorIntrinsicWithScalarOpAtArg(id, i, nullptr) &&
          isVarying(call.getArgOperand(i)))
        elementwise = false;
    if (elementwise) {
      SmallVector<Type *> overloads;
      SmallVector<Value *> args;
      if (isVectorIntrinsicWithOverloadTypeAtArg(id, -1, nullptr))
        overloads.push_back(wide(call.getType()));
      for (unsigned i = 0; i < call.arg_size(); ++i) {
        Value *arg = call.getArgOperand(i);
        Value *mapped = isVectorIntrinsicWithScalarOpAtArg(id, i, nullptr)
                            ? scalarOf(arg)
                            : wideOf(b, arg);
        if (isVectorIntrinsicWithOverloadTypeAtArg(id, i, nullptr))
          overloads.push_back(mapped->getType());
        args.push_back(mapped);
      }
      Function *decl = Intrinsic::getOrInsertDeclaration(&m, id, overloads);
      CallInst *copy = b.CreateCall(decl, args);
      copy->copyFastMathFlags(&call);
      wides[&call] = copy;
      return std::nullopt;
    }
    Value *r = scalarize(b, call, /*masked=*/call.mayHaveSideEffects() ||
                                      call.mayReadFromMemory());
    if (r)
      wides[&call] = r;
    return std::nullopt;
  }
  if (name == kTrapIf) {
    // The first lane whose condition holds traps; the call never returns.
    // A condition every lane agrees on where its form holds (an alignment
    // test of a lane-linear address) is tested once there.
    Value *cond = call.getArgOperand(0);
    std::optional<Linear> form = isVarying(cond) ? linearOf(cond) : std::nullopt;
    Value *hit; // the bits of the lanes that trap
    if (form && form->stride == 0) {
      // Every lane agrees where the form holds; else each lane's own test,
      // lane by lane (rare: an index that wraps).
      BasicBlock *agreed = BasicBlock::Create(c, "agreed", wave);
      BasicBlock *apart = BasicBlock::Create(c, "apart", wave);
      BasicBlock *joined = BasicBlock::Create(c, "tested", wave);
      b.CreateCondBr(form->valid ? form->valid : b.getTrue(), agreed, apart);
      b.SetInsertPoint(agreed);
      Value *x = b.CreateSelect(form->base, maskBits(b, mask), b.getInt64(0));
      b.CreateBr(joined);
      b.SetInsertPoint(apart);
      Value *y = laneBits(b, maskBits(b, mask), cond);
      BasicBlock *apartEnd = b.GetInsertBlock();
      b.CreateBr(joined);
      b.SetInsertPoint(joined);
      PHINode *phi = b.CreatePHI(b.getInt64Ty(), 2);
      phi->addIncoming(x, agreed);
      phi->addIncoming(y, apartEnd);
      hit = phi;
    } else {
      hit = maskBits(b, b.CreateAnd(mask, wideOf(b, cond)));
    }
    BasicBlock *trap = BasicBlock::Create(c, "trap", wave);
    BasicBlock *cont = BasicBlock::Create(c, "no.trap", wave);
    b.CreateCondBr(b.CreateICmpNE(hit, b.getInt64(0)), trap, cont);
    b.SetInsertPoint(trap);
    Value *lane = b.CreateTrunc(
        b.CreateIntrinsic(Intrinsic::cttz, {b.getInt64Ty()}, {hit, b.getTrue()}),
        b.getInt32Ty());
    auto *target = cast<Function>(call.getArgOperand(1));
    SmallVector<Value *> args;
    for (unsigned i = 2; i < call.arg_size(); ++i)
      args.push_back(laneValue(b, call.getArgOperand(i), lane));
    b.CreateCall(target, args);
    b.CreateUnreachable();
    b.SetInsertPoint(cont);
    return std::nullopt;
  }
  if (name == "fly_emu_readfirstlane") {
    Value *lane = b.CreateTrunc(
        b.CreateIntrinsic(Intrinsic::cttz, {b.getInt64Ty()}, {maskBits(b, mask), b.getTrue()}),
        b.getInt32Ty());
    scalars[&call] = laneValue(b, call.getArgOperand(1), lane);
    return std::nullopt;
  }
  if (name == "fly_emu_readlane") {
    if (isVarying(call.getArgOperand(2)))
      return Unsupported{"readlane with a lane-dependent lane"};
    Value *lane = b.CreateAnd(scalarOf(call.getArgOperand(2)), b.getInt32(w - 1));
    Value *active = b.CreateExtractElement(mask, lane);
    scalars[&call] = b.CreateSelect(active, laneValue(b, call.getArgOperand(1), lane),
                                    b.getInt32(0));
    return std::nullopt;
  }
  if (name == "fly_emu_ballot") {
    Value *pred = b.CreateICmpNE(wideOf(b, call.getArgOperand(1)),
                                 ConstantVector::getSplat(ElementCount::getFixed(w),
                                                          b.getInt32(0)));
    scalars[&call] = maskBits(b, b.CreateAnd(mask, pred));
    return std::nullopt;
  }
  if (name == "fly_emu_ds_bpermute") {
    // Each lane pulls from the lane its byte address names; inactive
    // sources give 0.
    Value *table = laneSlots(b.getInt32Ty());
    Value *zero = ConstantVector::getSplat(ElementCount::getFixed(w), b.getInt32(0));
    b.CreateAlignedStore(b.CreateSelect(mask, wideOf(b, call.getArgOperand(2)), zero), table,
                         Align(64));
    Value *index = b.CreateAnd(b.CreateLShr(wideOf(b, call.getArgOperand(1)), 2),
                               ConstantVector::getSplat(ElementCount::getFixed(w),
                                                        b.getInt32(w - 1)));
    Value *pointers = b.CreateGEP(b.getInt32Ty(), table, index);
    wides[&call] = b.CreateMaskedGather(wide(b.getInt32Ty()), pointers, Align(4), mask);
    return std::nullopt;
  }
  if (name == "fly_emu_barrier") {
    if (mask != entryExec)
      return Unsupported{"a barrier under lane-dependent control flow"};
    b.CreateCall(callee, {lane0});
    return std::nullopt;
  }
  bool exchanged = false;
  if (std::optional<Unsupported> no = emitWaveExchange(b, call, name, exchanged))
    return no;
  if (exchanged)
    return std::nullopt;
  if (isCollective(name))
    return Unsupported{"the wave operation " + name.str() +
                       " is not in the SIMD mode yet"};
  Value *r = scalarize(b, call, /*masked=*/true);
  if (r)
    wides[&call] = r;
  return std::nullopt;
}

/// The lane exchanges and matrix instructions: the runtime's whole-wave
/// form (fly_emu_wave_*, Emu.h), each lane's operand in its slot of an
/// array; nothing for other calls.
std::optional<Unsupported> WaveVectorizer::emitWaveExchange(IRBuilder<> &b,
                                                            CallInst &call,
                                                            StringRef name,
                                                            bool &exchanged) {
  struct Form {
    StringRef name, wave;
    SmallVector<unsigned, 4> lanes; // arguments with a value per lane
    Type *result;                   // each lane's, or void
  };
  Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty(), *ptr = b.getPtrTy();
  const Form forms[] = {
      {"fly_emu_ds_swizzle", "fly_emu_wave_ds_swizzle", {1}, i32},
      {"fly_emu_update_dpp", "fly_emu_wave_update_dpp", {1, 2}, i32},
      {"fly_emu_permlanex16", "fly_emu_wave_permlanex16", {1, 2}, i32},
      {"fly_emu_permlane_swap", "fly_emu_wave_permlane_swap", {1, 2}, i64},
      {"fly_emu_matrix", "fly_emu_wave_matrix", {3, 4, 5, 6}, b.getVoidTy()},
      {"fly_emu_matrix_scale", "fly_emu_wave_matrix", {3, 4, 5, 6, 7, 8},
       b.getVoidTy()},
  };
  const Form *form = nullptr;
  for (const Form &f : forms)
    if (f.name == name)
      form = &f;
  if (!form)
    return std::nullopt;
  exchanged = true;
  // (wave, exec, then the per-lane function's arguments but its context:
  // arrays for the lanes' operands, the others as they are)
  SmallVector<Value *> args = {waveArg, maskBits(b, exec.lookup(call.getParent()))};
  SmallVector<Type *> types = {ptr, i64};
  for (unsigned i = 1; i < call.arg_size(); ++i) {
    Value *arg = call.getArgOperand(i);
    if (llvm::is_contained(form->lanes, i)) {
      Value *slots = laneSlots(arg->getType());
      b.CreateAlignedStore(wideOf(b, arg), slots, Align(64));
      args.push_back(slots);
      types.push_back(ptr);
    } else if (isVarying(arg)) {
      return Unsupported{name.str() + " with a lane-dependent operand the hardware "
                                      "takes as a scalar"};
    } else {
      args.push_back(scalarOf(arg));
      types.push_back(arg->getType());
    }
  }
  if (name == "fly_emu_matrix") { // no scales
    args.append({ConstantPointerNull::get(cast<PointerType>(ptr)),
                 ConstantPointerNull::get(cast<PointerType>(ptr))});
    types.append({ptr, ptr});
  }
  Value *out = nullptr;
  if (!form->result->isVoidTy()) {
    out = laneSlots(form->result);
    args.push_back(out);
    types.push_back(ptr);
  }
  FunctionCallee callee = m.getOrInsertFunction(
      form->wave, FunctionType::get(b.getVoidTy(), types, false));
  b.CreateCall(callee, args);
  if (out) {
    Value *result = b.CreateAlignedLoad(wide(form->result), out, Align(64));
    if (form->result != call.getType())
      result = b.CreateTrunc(result, wide(call.getType()));
    wides[&call] = result;
  }
  return std::nullopt;
}

std::optional<Unsupported> WaveVectorizer::emitInstruction(IRBuilder<> &b,
                                                           Instruction &inst) {
  if (!representable(inst.getType()))
    return Unsupported{"a value of a type the SIMD mode does not take"};
  if (ctxOffset(&inst))
    return std::nullopt; // folded into the loads of the context
  if (auto *call = dyn_cast<CallInst>(&inst))
    return emitCall(b, *call);
  if (auto *load = dyn_cast<LoadInst>(&inst)) {
    if (std::optional<int64_t> o = ctxOffset(load->getPointerOperand())) {
      Value *field = b.CreateLoad(load->getType(),
                                  b.CreateConstGEP1_64(b.getInt8Ty(), lane0, *o));
      if (*o == kCtxLane) {
        wides[load] = iota;
        linear[load] = Linear{b.getInt32(0), 1, nullptr};
      } else if (*o == kCtxWorkItemX || *o == kCtxFlat) {
        wides[load] = b.CreateAdd(b.CreateVectorSplat(w, field), iota);
        linear[load] = Linear{field, 1, nullptr};
      } else
        scalars[load] = field;
      return std::nullopt;
    }
    if (!isVarying(load)) {
      Instruction *copy = load->clone();
      copy->setOperand(0, scalarOf(load->getPointerOperand()));
      b.Insert(copy);
      scalars[load] = copy;
      return std::nullopt;
    }
    wides[load] = emitLoad(b, *load);
    return std::nullopt;
  }
  if (auto *store = dyn_cast<StoreInst>(&inst)) {
    if (!isVarying(store->getValueOperand()) && !isVarying(store->getPointerOperand()) &&
        !store->isVolatile()) {
      Instruction *copy = store->clone();
      copy->setOperand(0, scalarOf(store->getValueOperand()));
      copy->setOperand(1, scalarOf(store->getPointerOperand()));
      b.Insert(copy);
      return std::nullopt;
    }
    emitStore(b, *store);
    return std::nullopt;
  }
  if (auto *phi = dyn_cast<PHINode>(&inst)) {
    if (divergentExits.contains(phi->getParent()))
      return std::nullopt; // its accumulator, made at the latch
    bool isWide = isVarying(phi);
    PHINode *copy = b.CreatePHI(isWide ? wide(phi->getType()) : phi->getType(),
                                phi->getNumIncomingValues());
    (isWide ? wides : scalars)[phi] = copy;
    phis.push_back({phi, copy, isWide});
    return std::nullopt;
  }
  if (auto *alloca = dyn_cast<AllocaInst>(&inst)) {
    if (!alloca->isStaticAlloca() || !representable(alloca->getAllocatedType()))
      return Unsupported{"a dynamic alloca"};
    // Each lane's private copy, side by side.
    IRBuilder<> entry(&wave->getEntryBlock(), wave->getEntryBlock().begin());
    Type *each = alloca->getAllocatedType();
    if (alloca->isArrayAllocation())
      each = ArrayType::get(each, cast<ConstantInt>(alloca->getArraySize())->getZExtValue());
    AllocaInst *copies = entry.CreateAlloca(ArrayType::get(each, w));
    copies->setAlignment(alloca->getAlign());
    Constant *zero = b.getInt32(0);
    linear[alloca] = Linear{copies, int64_t(m.getDataLayout().getTypeAllocSize(each)),
                            nullptr};
    wides[alloca] = entry.CreateGEP(copies->getAllocatedType(), copies,
                                    {ConstantVector::getSplat(ElementCount::getFixed(w), zero),
                                     iota});
    return std::nullopt;
  }
  if (isa<FenceInst>(inst)) {
    b.Insert(inst.clone());
    return std::nullopt;
  }
  if (!isVarying(&inst)) {
    if (inst.mayHaveSideEffects())
      return Unsupported{std::string("a uniform ") + inst.getOpcodeName() +
                         " with side effects"};
    Instruction *copy = inst.clone();
    for (Use &op : copy->operands())
      op.set(scalarOf(op.get()));
    b.Insert(copy);
    scalars[&inst] = copy;
    return std::nullopt;
  }
  if (isa<AtomicRMWInst, AtomicCmpXchgInst>(inst)) {
    wides[&inst] = scalarize(b, inst, /*masked=*/true);
    return std::nullopt;
  }
  // A pure operation whose lanes form a line (or agree) is made where a
  // vector of it is needed (materialize): code that only needs lane 0's
  // value, the uniform address of a contiguous access, never builds it.
  if (deferrable(inst)) {
    findLinear(b, inst);
    if (linear.count(&inst)) {
      deferred.insert(&inst);
      return std::nullopt;
    }
  }
  if (Value *v = wideOp(b, inst)) {
    wides[&inst] = v;
    return std::nullopt;
  }
  return Unsupported{std::string("the instruction ") + inst.getOpcodeName() +
                     " on lane-dependent values"};
}

Value *WaveVectorizer::wideOp(IRBuilder<> &b, Instruction &inst) {
  if (auto *bin = dyn_cast<BinaryOperator>(&inst)) {
    Value *lhs = wideOf(b, bin->getOperand(0)), *rhs = wideOf(b, bin->getOperand(1));
    if (bin->isIntDivRem()) {
      // Inactive lanes divide by 1: their divisor may be anything.
      unsigned n = isa<FixedVectorType>(bin->getType())
                       ? cast<FixedVectorType>(bin->getType())->getNumElements()
                       : 1;
      rhs = b.CreateSelect(replicate(b, exec.lookup(inst.getParent()), n), rhs,
                           ConstantInt::get(rhs->getType(), 1));
    }
    auto *copy = cast<BinaryOperator>(b.CreateBinOp(bin->getOpcode(), lhs, rhs));
    copy->copyIRFlags(bin);
    return copy;
  }
  if (auto *un = dyn_cast<UnaryOperator>(&inst)) {
    auto *copy = cast<Instruction>(b.CreateUnOp(un->getOpcode(), wideOf(b, un->getOperand(0))));
    copy->copyIRFlags(un);
    return copy;
  }
  if (auto *cast = dyn_cast<CastInst>(&inst)) {
    Value *copy = b.CreateCast(cast->getOpcode(), wideOf(b, cast->getOperand(0)),
                               wide(cast->getType()));
    if (auto *copied = dyn_cast<Instruction>(copy))
      copied->copyIRFlags(cast);
    return copy;
  }
  if (auto *cmp = dyn_cast<CmpInst>(&inst)) {
    auto *copy = cast<Instruction>(b.CreateCmp(cmp->getPredicate(),
                                               wideOf(b, cmp->getOperand(0)),
                                               wideOf(b, cmp->getOperand(1))));
    copy->copyIRFlags(cmp);
    return copy;
  }
  if (auto *sel = dyn_cast<SelectInst>(&inst)) {
    Type *t = sel->getType();
    Value *a = wideOf(b, sel->getTrueValue()), *bv = wideOf(b, sel->getFalseValue());
    Value *copy;
    if (!isVarying(sel->getCondition()))
      copy = b.CreateSelect(scalarOf(sel->getCondition()), a, bv);
    else if (sel->getCondition()->getType()->isVectorTy())
      copy = b.CreateSelect(wideOf(b, sel->getCondition()), a, bv);
    else
      copy = blend(b, wideOf(b, sel->getCondition()), a, bv, t);
    if (auto *copied = dyn_cast<Instruction>(copy); copied && isa<FPMathOperator>(copied))
      copied->copyFastMathFlags(sel);
    return copy;
  }
  if (auto *fr = dyn_cast<FreezeInst>(&inst)) {
    return b.CreateFreeze(wideOf(b, fr->getOperand(0)));
  }
  if (auto *gep = dyn_cast<GetElementPtrInst>(&inst)) {
    if (llvm::any_of(gep->operands(), [](Value *v) { return v->getType()->isVectorTy(); }))
      return nullptr; // a vector getelementptr
    SmallVector<Value *> indices;
    bool struct_ = false;
    for (auto it = gep_type_begin(gep); it != gep_type_end(gep); ++it) {
      Value *index = it.getOperand();
      struct_ = it.isStruct();
      indices.push_back(struct_ || !isVarying(index) ? scalarOf(index) : wideOf(b, index));
    }
    Value *base = isVarying(gep->getPointerOperand())
                      ? wideOf(b, gep->getPointerOperand())
                      : scalarOf(gep->getPointerOperand());
    return b.CreateGEP(gep->getSourceElementType(), base, indices, "",
                       gep->getNoWrapFlags());
  }
  if (auto *ev = dyn_cast<ExtractValueInst>(&inst)) {
    return b.CreateExtractValue(wideOf(b, ev->getAggregateOperand()), ev->getIndices());
  }
  if (auto *iv = dyn_cast<InsertValueInst>(&inst)) {
    return b.CreateInsertValue(wideOf(b, iv->getAggregateOperand()),
                               wideOf(b, iv->getInsertedValueOperand()), iv->getIndices());
  }
  if (auto *ee = dyn_cast<ExtractElementInst>(&inst)) {
    auto *vt = cast<FixedVectorType>(ee->getVectorOperandType());
    if (auto *k = dyn_cast<ConstantInt>(ee->getIndexOperand());
        k && k->getZExtValue() < vt->getNumElements()) {
      SmallVector<int> mask;
      for (unsigned lane = 0; lane < w; ++lane)
        mask.push_back(int(lane * vt->getNumElements() + k->getZExtValue()));
      return b.CreateShuffleVector(wideOf(b, ee->getVectorOperand()), mask);
    }
    return scalarize(b, inst, /*masked=*/false);
  }
  if (auto *ie = dyn_cast<InsertElementInst>(&inst)) {
    auto *vt = cast<FixedVectorType>(ie->getType());
    unsigned n = vt->getNumElements();
    if (auto *k = dyn_cast<ConstantInt>(ie->getOperand(2)); k && k->getZExtValue() < n) {
      SmallVector<int> mask;
      for (unsigned i = 0; i < w * n; ++i)
        mask.push_back(i % n == k->getZExtValue() ? int(w * n + i / n) : int(i));
      // The inserted lanes, widened to <W*N> (lane l's value at l).
      Value *scalars = wideOf(b, ie->getOperand(1));
      SmallVector<int> grow;
      for (unsigned i = 0; i < w * n; ++i)
        grow.push_back(i < w ? int(i) : -1);
      Value *grown = b.CreateShuffleVector(scalars, grow);
      return b.CreateShuffleVector(wideOf(b, ie->getOperand(0)), grown, mask);
    }
    return scalarize(b, inst, /*masked=*/false);
  }
  if (auto *sv = dyn_cast<ShuffleVectorInst>(&inst)) {
    unsigned n = cast<FixedVectorType>(sv->getOperand(0)->getType())->getNumElements();
    ArrayRef<int> lanes = sv->getShuffleMask();
    SmallVector<int> mask;
    for (unsigned lane = 0; lane < w; ++lane)
      for (int e : lanes)
        mask.push_back(e < 0 ? -1
                       : unsigned(e) < n ? int(lane * n + e)
                                         : int(w * n + lane * n + (e - n)));
    return b.CreateShuffleVector(wideOf(b, sv->getOperand(0)),
                                 wideOf(b, sv->getOperand(1)), mask);
  }
  return nullptr;
}

Value *WaveVectorizer::execFor(BasicBlock *bb) {
  if (bb == &f.getEntryBlock())
    return entryExec;
  if (Value *then = thenExec.lookup(bb))
    return then;
  Loop *loop = li.getLoopFor(bb);
  if (loop && loop->getHeader() == bb && divergentLoops.contains(loop)) {
    IRBuilder<> b(head[bb], head[bb]->begin());
    PHINode *phi = b.CreatePHI(entryExec->getType(), 2, "exec");
    BasicBlock *pre = loop->getLoopPreheader();
    phi->addIncoming(exec.lookup(pre), tail[pre]);
    headerExec[bb] = phi;
    return phi;
  }
  for (Loop *l : divergentLoops)
    if (l->getExitBlock() == bb)
      return exec.lookup(l->getLoopPreheader());
  return exec.lookup(dt.getNode(bb)->getIDom()->getBlock());
}

std::optional<Unsupported> WaveVectorizer::emitTerminator(IRBuilder<> &b,
                                                          Instruction &term) {
  BasicBlock *bb = term.getParent();
  if (isa<ReturnInst>(term)) {
    b.CreateRetVoid();
    return std::nullopt;
  }
  if (auto *sw = dyn_cast<SwitchInst>(&term)) {
    SwitchInst *copy = b.CreateSwitch(scalarOf(sw->getCondition()),
                                      head[sw->getDefaultDest()], sw->getNumCases());
    for (auto kase : sw->cases())
      copy->addCase(kase.getCaseValue(), head[kase.getCaseSuccessor()]);
    return std::nullopt;
  }
  auto *br = cast<BranchInst>(&term);
  if (!br->isConditional()) {
    b.CreateBr(head[br->getSuccessor(0)]);
    return std::nullopt;
  }
  if (!isVarying(br->getCondition())) {
    b.CreateCondBr(scalarOf(br->getCondition()), head[br->getSuccessor(0)],
                   head[br->getSuccessor(1)]);
    return std::nullopt;
  }
  Value *mask = exec.lookup(bb);
  Value *cond = wideOf(b, br->getCondition());
  Loop *loop = li.getLoopFor(bb);
  if (loop && divergentLoops.contains(loop) && loop->getLoopLatch() == bb) {
    BasicBlock *exitBlock = loop->getExitBlock(), *header = loop->getHeader();
    Value *leaves = br->getSuccessor(0) == exitBlock ? cond : b.CreateNot(cond);
    Value *leaving = b.CreateAnd(mask, leaves);
    Value *staying = b.CreateAnd(mask, b.CreateNot(leaves));
    // What lanes take out of the loop: each lane's value as it leaves.
    IRBuilder<> top(head[header], head[header]->getFirstNonPHIIt());
    BasicBlock *pre = loop->getLoopPreheader();
    for (PHINode &phi : exitBlock->phis()) {
      Type *t = phi.getType();
      PHINode *acc = PHINode::Create(wide(t), 2, "leaving", head[header]->begin());
      acc->addIncoming(PoisonValue::get(wide(t)), tail[pre]);
      Value *next = blend(b, leaving, wideOf(b, phi.getIncomingValue(0)), acc, t);
      acc->addIncoming(next, b.GetInsertBlock());
      wides[&phi] = next;
    }
    headerExec[header]->addIncoming(staying, b.GetInsertBlock());
    b.CreateCondBr(anyLane(b, staying), head[header], head[exitBlock]);
    return std::nullopt;
  }
  // A divergent if: the then-side under exec & cond, skipped when no lane
  // takes it; the join restores exec (its dominator's).
  BasicBlock *then = br->getSuccessor(0), *join = br->getSuccessor(1);
  Value *thenMask = b.CreateAnd(mask, cond);
  thenExec[then] = thenMask;
  for (PHINode &phi : join->phis()) {
    auto *fromThen = PHINode::Create(wide(phi.getType()), phi.getNumIncomingValues(),
                                     "then", head[join]->begin());
    joinBlends.push_back({&phi, fromThen, bb});
  }
  b.CreateCondBr(anyLane(b, thenMask), head[then], head[join]);
  return std::nullopt;
}

std::optional<Unsupported> WaveVectorizer::emit() {
  Type *ptr = PointerType::get(c, 0);
  auto *type = FunctionType::get(Type::getVoidTy(c),
                                 {ptr, Type::getInt64Ty(c), ptr}, false);
  wave = Function::Create(type, GlobalValue::ExternalLinkage, "", m);
  waveArg = wave->getArg(0);
  ReversePostOrderTraversal<Function *> rpo(&f);
  for (BasicBlock *bb : rpo)
    head[bb] = BasicBlock::Create(c, bb->getName(), wave);
  IRBuilder<> b(head[&f.getEntryBlock()]);
  lane0 = b.CreateLoad(ptr, waveArg, "lane0");
  // exec from its bits by a test of each lane's bit: a vector compare the
  // host does in a few instructions (a bitcast of the integer to <W x i1>
  // would be taken apart bit by bit).
  SmallVector<Constant *> bits;
  for (unsigned lane = 0; lane < w; ++lane)
    bits.push_back(b.getInt64(uint64_t(1) << lane));
  entryExec = b.CreateICmpNE(
      b.CreateAnd(b.CreateVectorSplat(w, wave->getArg(1)), ConstantVector::get(bits)),
      ConstantVector::getSplat(ElementCount::getFixed(w), b.getInt64(0)), "exec");
  SmallVector<Constant *> lanes;
  for (unsigned lane = 0; lane < w; ++lane)
    lanes.push_back(b.getInt32(lane));
  iota = ConstantVector::get(lanes);
  for (BasicBlock *bb : rpo) {
    b.SetInsertPoint(head[bb]);
    if (bb != &f.getEntryBlock())
      b.SetInsertPoint(head[bb], head[bb]->end());
    exec[bb] = execFor(bb);
    for (Instruction &inst : *bb) {
      if (inst.isTerminator()) {
        tail[bb] = b.GetInsertBlock();
        if (std::optional<Unsupported> no = emitTerminator(b, inst))
          return no;
        break;
      }
      if (std::optional<Unsupported> no = emitInstruction(b, inst))
        return no;

    }
  }
  finishPhis();
  return std::nullopt;
}

void WaveVectorizer::finishPhis() {
  for (PendingPhi &p : phis) {
    if (p.phi->getNumIncomingValues() == 0)
      continue;
    // A phi where a divergent if joins is filled by its blend below; a
    // phi at a divergent loop's exit was replaced by its accumulator.
    if (divergentExits.contains(p.phi->getParent()))
      continue;
    bool joined = llvm::any_of(joinBlends, [&](const JoinBlend &j) { return j.phi == p.phi; });
    if (joined)
      continue;
    for (unsigned i = 0; i < p.phi->getNumIncomingValues(); ++i) {
      BasicBlock *pred = p.phi->getIncomingBlock(i);
      Value *v = p.phi->getIncomingValue(i);
      IRBuilder<> b(tail[pred]->getTerminator());
      p.copy->addIncoming(p.wideCopy ? wideOf(b, v) : scalarOf(v), tail[pred]);
    }
  }
  for (JoinBlend &j : joinBlends) {
    PHINode *copy = cast<PHINode>(wides.lookup(j.phi));
    BasicBlock *join = j.phi->getParent();
    Value *fromBranch = nullptr;
    for (unsigned i = 0; i < j.phi->getNumIncomingValues(); ++i) {
      BasicBlock *pred = j.phi->getIncomingBlock(i);
      Value *v = j.phi->getIncomingValue(i);
      IRBuilder<> b(tail[pred]->getTerminator());
      if (pred == j.branch) {
        fromBranch = wideOf(b, v);
        j.fromThen->addIncoming(PoisonValue::get(j.fromThen->getType()), tail[pred]);
      } else {
        j.fromThen->addIncoming(wideOf(b, v), tail[pred]);
      }
    }
    // The blend replaces the placeholder phi made for the join's phi.
    IRBuilder<> b(head[join], head[join]->getFirstNonPHIIt());
    Value *blended = blend(b, thenExec.lookup(j.branch->getTerminator()->getSuccessor(0)),
                           j.fromThen, fromBranch, j.phi->getType());
    copy->replaceAllUsesWith(blended);
    copy->eraseFromParent();
    wides[j.phi] = blended;
  }
}

std::optional<Unsupported> WaveVectorizer::run(const std::string &name) {
  if (std::optional<Unsupported> no = analyse())
    return no;
  std::optional<Unsupported> no = emit();
  if (!no) {
    std::string problems;
    raw_string_ostream os(problems);
    if (verifyFunction(*wave, &os))
      no = Unsupported{"the wave function does not verify (a bug): " + problems};
  }
  if (no) {
    wave->eraseFromParent();
    return no;
  }
  wave->setName(name);
  // The emitted code is plain (a splat per use, lane-0 forms computed
  // beside their vectors, blocks split at lane loops): LLVM's cleanups.
  runPasses(*wave, "instcombine<no-verify-fixpoint>,simplifycfg,early-cse,adce");
  return std::nullopt;
}

/// The kernel entry `entry` (ctx, params) with its body inlined, prepared
/// for the vectorizer, or why it cannot be.
Expected<Function *> prepare(Function &entry) {
  ValueToValueMapTy map;
  Function *copy = CloneFunction(&entry, map);
  copy->setLinkage(GlobalValue::InternalLinkage);
  SmallVector<CallInst *> calls;
  for (Instruction &inst : instructions(*copy))
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (call->getCalledFunction() && !call->getCalledFunction()->isDeclaration())
        calls.push_back(call);
  for (CallInst *call : calls) {
    InlineFunctionInfo info;
    if (!InlineFunction(*call, info).isSuccess()) {
      copy->eraseFromParent();
      return createStringError("the kernel body does not inline");
    }
  }
  runPasses(*copy, "sroa<modify-cfg>,simplifycfg");
  if (std::optional<Unsupported> no = guardTraps(*copy)) {
    copy->eraseFromParent();
    return createStringError(no->reason);
  }
  runPasses(*copy, "lower-switch,mergereturn,fix-irreducible,unify-loop-exits,"
                   "structurizecfg,loop-simplify,lcssa");
  return copy;
}

} // namespace

std::vector<WaveFunctionResult>
addWaveFunctions(Module &module, ArrayRef<std::string> kernels, unsigned waveSize) {
  std::vector<WaveFunctionResult> results;
  for (const std::string &kernel : kernels) {
    WaveFunctionResult result{kernel, {}};
    Function *entry = module.getFunction(kernel);
    if (!entry || entry->isDeclaration() || entry->arg_size() != 2) {
      result.fallback = "no kernel entry of the emulator's form";
    } else {
      Expected<Function *> prepared = prepare(*entry);
      if (!prepared) {
        result.fallback = toString(prepared.takeError());
      } else {
        WaveVectorizer vectorizer(**prepared, waveSize);
        if (std::optional<Unsupported> no =
                vectorizer.run(kernel + FLY_EMU_WAVE_SUFFIX))
          result.fallback = no->reason;
        (*prepared)->eraseFromParent();
      }
    }
    if (!result.fallback.empty()) {
      Constant *text = ConstantDataArray::getString(module.getContext(), result.fallback);
      new GlobalVariable(module, text->getType(), /*isConstant=*/true,
                         GlobalValue::ExternalLinkage, text,
                         FLY_EMU_WAVE_FALLBACK_PREFIX + kernel);
    }
    results.push_back(std::move(result));
  }
  if (Function *marker = module.getFunction(kTrapIf); marker && marker->use_empty())
    marker->eraseFromParent();
  return results;
}

} // namespace fly::emu
