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

#include "WaveVectorizerImpl.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstring>

using namespace llvm;

namespace fly::emu {
namespace wave {

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

std::optional<Unsupported> WaveVectorizer::emit(bool fullWave) {
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
  entryExec = fullWave
                  ? ConstantVector::getSplat(ElementCount::getFixed(w), b.getTrue())
                  : b.CreateICmpNE(b.CreateAnd(b.CreateVectorSplat(w, wave->getArg(1)),
                                               ConstantVector::get(bits)),
                                   ConstantVector::getSplat(ElementCount::getFixed(w),
                                                            b.getInt64(0)),
                                   "exec");
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

std::optional<Unsupported> WaveVectorizer::emitVerified(bool fullWave,
                                                        const std::string &name) {
  scalars.clear(), wides.clear(), splats.clear(), head.clear(), tail.clear();
  exec.clear(), thenExec.clear(), phis.clear(), headerExec.clear();
  joinBlends.clear(), linear.clear(), deferred.clear();
  std::optional<Unsupported> no = emit(fullWave);
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
  wave->setLinkage(GlobalValue::InternalLinkage);
  // The emitted code is plain (a splat per use, lane-0 forms computed
  // beside their vectors, blocks split at lane loops): LLVM's cleanups.
  runPasses(*wave, "instcombine<no-verify-fixpoint>,simplifycfg,early-cse,adce");
  return std::nullopt;
}

std::optional<Unsupported> WaveVectorizer::run(const std::string &name) {
  if (std::optional<Unsupported> no = analyse())
    return no;
  // Twice: for a wave of any live lanes, and for a full wave, whose exec is
  // a constant (its masks fold away: plain vector loads and stores, no
  // blends where nothing diverges). `name` picks one by the wave's exec.
  // (Both are named ...wave too: the runtime compiles the wave functions
  // apart from the kernels, FLY_EMU_WAVE_SUFFIX.)
  const std::string stem = name.substr(0, name.size() - strlen(FLY_EMU_WAVE_SUFFIX));
  if (std::optional<Unsupported> no = emitVerified(false, stem + ".partial" FLY_EMU_WAVE_SUFFIX))
    return no;
  Function *partial = wave;
  if (std::optional<Unsupported> no = emitVerified(true, stem + ".full" FLY_EMU_WAVE_SUFFIX)) {
    partial->eraseFromParent();
    return no;
  }
  Function *full = wave;
  Function *dispatch = Function::Create(full->getFunctionType(),
                                        GlobalValue::ExternalLinkage, name, m);
  BasicBlock *entry = BasicBlock::Create(c, "", dispatch);
  BasicBlock *isFull = BasicBlock::Create(c, "full", dispatch);
  BasicBlock *isPartial = BasicBlock::Create(c, "partial", dispatch);
  IRBuilder<> b(entry);
  SmallVector<Value *> args(llvm::make_pointer_range(dispatch->args()));
  b.CreateCondBr(b.CreateICmpEQ(dispatch->getArg(1), b.getInt64(allLanes())), isFull,
                 isPartial);
  for (auto [block, callee] : {std::pair{isFull, full}, {isPartial, partial}}) {
    b.SetInsertPoint(block);
    b.CreateCall(callee, args);
    b.CreateRetVoid();
  }
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


} // namespace wave

using namespace wave;

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
