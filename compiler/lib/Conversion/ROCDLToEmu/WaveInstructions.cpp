//===- WaveInstructions.cpp - Instructions of the wave function -------------===//
//
// Each instruction of the kernel as the wave function's: loads and
// stores (masked vector accesses, gathers, lane loops), calls (vector
// intrinsics, the runtime's whole-wave collectives, lane loops), the rest
// element-wise on vectors.
//
//===----------------------------------------------------------------------===//

#include "WaveVectorizerImpl.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace fly::emu::wave {

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


} // namespace fly::emu::wave
