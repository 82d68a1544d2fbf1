//===- WaveLanes.cpp - Lanes of the wave function ---------------------------===//
//
// The wave function's values: per-lane types widened to vectors, splats,
// lanes taken out and put back, masks; lane-linear forms (base + lane *
// stride) and the consecutive accesses they allow; loops over lanes.
//
//===----------------------------------------------------------------------===//

#include "WaveVectorizerImpl.h"

#include "llvm/IR/GetElementPtrTypeIterator.h"

using namespace llvm;

namespace fly::emu::wave {

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
                       : b.getInt64(allLanes());
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


} // namespace fly::emu::wave
