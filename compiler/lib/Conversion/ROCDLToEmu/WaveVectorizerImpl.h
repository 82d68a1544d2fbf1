//===- WaveVectorizerImpl.h - The wave vectorizer's parts -------*- C++ -*-===//
//
// What WaveVectorizer.cpp (preparation, divergence analysis, control flow),
// WaveLanes.cpp (lane types, values, lane-linear forms, lane loops) and
// WaveInstructions.cpp (instructions, memory, calls) share: the vectorizer
// class and its helpers. WaveVectorizer.cpp's file comment describes the
// method.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZERIMPL_H
#define FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZERIMPL_H

#include "fly/Conversion/ROCDLToEmu/WaveVectorizer.h"
#include "fly/runtime/Emu.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <optional>
#include <string>

namespace fly::emu::wave {

using namespace llvm;

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


/// The trap blocks' branches as guard markers (WaveVectorizer.cpp).
std::optional<Unsupported> guardTraps(Function &f);
/// Runs LLVM's passes `pipeline` on `f`.
void runPasses(Function &f, StringRef pipeline);

/// Whether lanes' values of `t` (or of its elements, for a vector) load
/// and store as the elements of a gather or scatter.
inline bool gatherable(Type *t) {
  if (auto *vt = dyn_cast<FixedVectorType>(t))
    t = vt->getElementType();
  return t->isPointerTy() || ((t->isIntegerTy() || t->isFloatingPointTy()) &&
                              t->getPrimitiveSizeInBits() % 8 == 0);
}

/// Whether the SIMD mode can represent values of `t`.
inline bool representable(Type *t) {
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

/// Whether the callee is a runtime function that is a wave collective (it
/// parks the fiber until the wave's lanes arrive) without a whole-wave form
/// yet (emitWaveExchange has the others).
inline bool isCollective(StringRef name) {
  return name == "fly_emu_ds_read_tr" || name == "fly_emu_barrier_checked";
}

inline Value *both(IRBuilder<> &b, Value *x, Value *y) {
  return !x ? y : !y ? x : b.CreateAnd(x, y);
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
  /// The exec bits of a wave whose lanes all take part.
  uint64_t allLanes() const { return w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

  // Values of the wave function.
  Value *scalarOf(Value *v);
  Value *wideOf(IRBuilder<> &b, Value *v);
  Value *laneValue(IRBuilder<> &b, Value *v, Value *lane);
  Value *laneContext(IRBuilder<> &b, Value *lane);

  // Emission.
  std::optional<Unsupported> emit(bool fullWave);
  std::optional<Unsupported> emitVerified(bool fullWave, const std::string &name);
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


} // namespace fly::emu::wave

#endif // FLY_CONVERSION_ROCDLTOEMU_WAVEVECTORIZERIMPL_H
