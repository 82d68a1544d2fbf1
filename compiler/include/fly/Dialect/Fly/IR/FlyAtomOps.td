//===- FlyAtomOps.td - Atom and tiled-atom ops of fly ------*- tablegen -*-===//
//
// SPEC §2.3, "atoms": building atoms and tiled atoms, and partitioning
// tensors with them. Included by FlyOps.td; the ops use the call-like
// assembly. Each op's `evaluate` (FlyAtomOps.cpp) calls the partitioning
// functions of fly/Algebra (TiledCopy.h, TiledMma.h) on the records that
// FlyAtoms.h builds from the types, so inference and the lowering agree.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYATOMOPS_TD
#define FLY_DIALECT_FLY_IR_FLYATOMOPS_TD

def Fly_ThreadIndex : AnyTypeOf<[Fly_IntTuple, I32, I64],
                                "fly int_tuple leaf or i32/i64 thread index">;

//===----------------------------------------------------------------------===//
// Atoms
//===----------------------------------------------------------------------===//

def Fly_MakeCopyAtomOp : Fly_Op<"make_copy_atom"> {
  let summary = "a copy atom";
  let description = [{
    `%a = fly.make_copy_atom : !fly.copy_atom<!fly.universal_copy<128>, 32>`:
    a static value, like `fly.static` of the same type.
  }];
  let results = (outs Fly_CopyAtom:$result);
  let extraClassDefinition = Fly_TypeOnlyAsm;
}

def Fly_MakeMmaAtomOp : Fly_Op<"make_mma_atom"> {
  let summary = "an MMA atom";
  let description = [{
    `%a = fly.make_mma_atom : !fly.mma_atom<!fly.universal_fma<f32>>`: a
    static value, like `fly.static` of the same type.
  }];
  let results = (outs Fly_MmaAtom:$result);
  let extraClassDefinition = Fly_TypeOnlyAsm;
}

def Fly_AtomSetValueOp
    : Fly_MemoryOp<"atom.set_value",
                   [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "an atom with one of its run-time fields set";
  let description = [{
    `%b = fly.atom.set_value(%a, %v) {field = "F"} : (ATOM, T) -> ATOM`:
    the atom (copy_atom, mma_atom, tiled_copy or tiled_mma) with its field F
    set to the run-time value %v; the other fields keep %a's values. The
    fields and their types are those of the atom's operation; an atom call
    on %b reads them from this chain of set_value ops (an atom from a block
    argument has its defaults). The target-neutral field:
    - universal_fma `accumulate` (i1, default true): when false, the call
      computes d = a * b, ignoring c (CuTe's ScaleOut::Zero, used to start
      an accumulation without clearing the accumulators).
    Like the atom itself, the result never reaches memory or a kernel
    signature: fly-canonicalize leaves it in place, and its type says
    nothing of the field.
  }];
  let arguments = (ins Fly_AnyAtom:$atom, AnyType:$value, StrAttr:$field);
  let results = (outs Fly_AnyAtom:$result);
  let hasVerifier = 1;
}

def Fly_MakeLayoutTVOp : Fly_InferOp<"make_layout_tv"> {
  let summary = "the tile and thread-value layout of a thread and a value "
                "layout";
  let description = [{
    CuTe's make_layout_tv(thr, val): `raked_product(thr, val)` seen as
    (thread, value) -> column-major index in the tile, and that tile (one
    `N:1` mode per mode of the product's shape). Both layouts are static
    index maps.
    ```
    %tile, %tv = fly.make_layout_tv(%thr, %val)
        : (!fly.layout<(16,16):(16,1)>, !fly.layout<(1,4):(4,1)>)
        -> (!fly.tile<[16|64]>, !fly.layout<((16,16),4):((64,1),16)>)
    ```
  }];
  let arguments = (ins Fly_Layout:$thr, Fly_Layout:$val);
  let results = (outs Fly_Tile:$tile, Fly_Layout:$layout_tv);
}

def Fly_MakeTiledCopyOp : Fly_InferOp<"make_tiled_copy"> {
  let summary = "a copy atom tiled over a thread-value layout of a tile";
  let description = [{
    `fly.make_tiled_copy(%atom, %layout_tv, %tile)`: CuTe's
    make_tiled_copy_impl. The result is
    `!fly.tiled_copy<ATOM, LAYOUT_TV, TILE>`; the layout's image must lie
    inside the tile and its thread and value counts be multiples of the
    atom's.
  }];
  let arguments = (ins Fly_CopyAtom:$atom, Fly_Layout:$layout_tv,
                       Fly_Tile:$tile);
  let results = (outs Fly_TiledCopy:$result);
}

def Fly_MakeTiledCopyForOp : Fly_InferOp<"make_tiled_copy_for"> {
  let summary = "a copy atom tiled like an operand of a tiled MMA";
  let description = [{
    CuTe's make_tiled_copy_A/B/C:
    `fly.make_tiled_copy_for(%atom, %tiled_mma) {operand = "A"}` tiles the
    copy atom over the tiled MMA's thread-value layout of the operand
    (get_layoutA_TV), on the operand's tile (tile_size_mnk along M and K for
    A, N and K for B, M and N for C). The result is a `!fly.tiled_copy`.
  }];
  let arguments = (ins Fly_CopyAtom:$atom, Fly_TiledMma:$tiled_mma,
                       StrAttr:$operand);
  let results = (outs Fly_TiledCopy:$result);
}

def Fly_MakeTiledMmaOp : Fly_InferOp<"make_tiled_mma"> {
  let summary = "an MMA atom tiled over a layout of atoms";
  let description = [{
    `fly.make_tiled_mma(%atom, %atom_layout[, %permutation])`: CuTe's
    make_tiled_mma. The result is
    `!fly.tiled_mma<ATOM, ATOM_LAYOUT_MNK[, PERM]>`.
  }];
  let arguments = (ins Fly_MmaAtom:$atom, Fly_Layout:$atom_layout,
                       Optional<Fly_Tile>:$permutation);
  let results = (outs Fly_TiledMma:$result);
}

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

class Fly_TiledCopyPartitionOp<string mnemonic, string side>
    : Fly_InferOp<"tiled_copy.partition_" # mnemonic> {
  let summary = "the " # side # " elements one thread of a tiled copy moves";
  let description = [{
    CuTe's ThrCopy::partition_S / partition_D:
    `fly.tiled_copy.partition_src(%tiled_copy, %tensor, %thr_idx)`. The
    tensor (a memref, also behind a swizzle, or a coord_tensor) of shape
    (M,N,...) becomes the thread's view ((AtomVal,RestVal), RestM, RestN,
    ...): its layout is the algebra's partition, its pointer (or base) moves
    by the thread's offset. The thread index is an int_tuple leaf or an
    i32/i64 scalar and may be dynamic.
  }];
  let arguments = (ins Fly_TiledCopy:$tiled_copy, Fly_Tensor:$tensor,
                       Fly_ThreadIndex:$thr_idx);
  let results = (outs Fly_Tensor:$result);
}
def Fly_TiledCopyPartitionSrcOp : Fly_TiledCopyPartitionOp<"src", "source">;
def Fly_TiledCopyPartitionDstOp
    : Fly_TiledCopyPartitionOp<"dst", "destination">;

def Fly_TiledCopyRetileOp : Fly_InferOp<"tiled_copy.retile"> {
  let summary = "a register fragment in a tiled copy's value order";
  let description = [{
    CuTe's TiledCopy::retile: a fragment (V, X, Y, ...) regrouped as
    ((AtomVal,RestVal), RestX, RestY, ...) to match the partitions of the
    copy. The iterator is kept.
  }];
  let arguments = (ins Fly_TiledCopy:$tiled_copy, Fly_Tensor:$tensor);
  let results = (outs Fly_Tensor:$result);
}

def Fly_TiledMmaPartitionOp : Fly_InferOp<"tiled_mma.partition"> {
  let summary = "the elements of an MMA operand one thread owns";
  let description = [{
    CuTe's ThrMMA::partition_A/B/C:
    `fly.tiled_mma.partition(%tiled_mma, %tensor, %thr_idx) {operand = "A"}`.
    The tensor is (M,K) for A, (N,K) for B, (M,N) for C; the result is the
    thread's view (FrgV, RestX, RestY, ...), its pointer (or base) moved by
    the thread's offset. The thread index may be dynamic.
  }];
  let arguments = (ins Fly_TiledMma:$tiled_mma, Fly_Tensor:$tensor,
                       Fly_ThreadIndex:$thr_idx, StrAttr:$operand);
  let results = (outs Fly_Tensor:$result);
}

def Fly_MmaMakeFragmentOp
    : Fly_InferOp<"mma.make_fragment", [Fly_AllocatesRegisters],
                  /*scalarResults=*/0, /*pure=*/0> {
  let summary = "register storage for a thread's part of an MMA operand";
  let description = [{
    FlyDSL's mma_make_fragment (make_fragment_A/B/C):
    `fly.mma.make_fragment(%tiled_mma, %tile) {operand = "A"}` takes the
    whole, unpartitioned tile of the operand ((M,K) for A, (N,K) for B,
    (M,N) for C; extra modes are carried along) and gives a fresh
    `register` memref for one thread's part of it: the shape of thread 0's
    partition (FrgV, RestX, RestY, ...), the value mode compact and the
    rest modes compact in the order of the tile's strides (the same rule
    for A, B and C), and the element type of that operand of the MMA
    operation. With `stages = N`, only the tile's first two modes are
    partitioned and a stage mode of N follows them, outermost. The tile's
    shape must be static; its strides may be dynamic (they only order the
    modes). It canonicalizes to `fly.memref.alloca` of its type.
  }];
  let arguments = (ins Fly_TiledMma:$tiled_mma, Fly_Tensor:$tensor,
                       StrAttr:$operand, OptionalAttr<I64Attr>:$stages);
  let results = (outs Fly_MemRef:$result);
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Copy and gemm
//===----------------------------------------------------------------------===//

// The atom operand of a copy: a copy_atom, or a tiled_copy (its atom).
def Fly_CopyAtomLike : AnyTypeOf<[Fly_CopyAtom, Fly_TiledCopy],
                                 "fly copy_atom or tiled_copy">;
// The atom operand of a gemm: an mma_atom, or a tiled_mma (its atom).
def Fly_MmaAtomLike : AnyTypeOf<[Fly_MmaAtom, Fly_TiledMma],
                                "fly mma_atom or tiled_mma">;

def Fly_CopyOp : Fly_MemoryOp<"copy"> {
  let summary = "copy a tensor with an atom, optionally predicated";
  let description = [{
    CuTe's copy(atom, src, dst) and copy_if(atom, pred, src, dst):
    ```
    fly.copy(%atom, %src, %dst[, %pred]) : (ATOM, SRC, DST[, PRED])
    ```
    The atom is a copy_atom or a tiled_copy (whose atom is used); the
    tensors are memrefs, usually a thread's partitions and a register
    fragment of the same shape ((AtomVal,RestVal), Rest...). A rank-1
    tensor is one atom call; otherwise the modes 1..R-1 are grouped and
    looped over (column-major), and each slice is one call, or several when
    its value mode holds a multiple of the atom's values (a nested value
    mode is peeled). Every call moves the atom's values: on each side they
    must be contiguous (the slice coalesces to N:1) and, behind a swizzle,
    stay contiguous through it. The rest sizes must be static: the calls
    are unrolled by fly-layout-lowering into `fly.copy_atom_call`s.

    The predicate, when given, is a memref of i1 holding one flag per slice
    of the grouped rest modes (size(PRED) = the product of modes 1..R-1 of
    SRC, indexed column-major; 1 for a rank-1 copy); a slice whose flag is
    false is not copied and its destination keeps its values.
  }];
  let arguments = (ins Fly_CopyAtomLike:$atom,
                       Arg<Fly_MemRef, "the source", [MemRead]>:$src,
                       Arg<Fly_MemRef, "the destination", [MemWrite]>:$dst,
                       Optional<Fly_MemRef>:$pred);
  let hasVerifier = 1;
}

// The A and B groups of fly.gemm and fly.mma_atom_call are one variadic
// operand, split by `operandSegmentSizes` = [1, 1, size(A), size(B), 1] (the
// attribute FlyDSL's AttrSizedOperandSegments form of these ops carries;
// ODS's own segment support does not build with attributes in the
// dictionary). The shared assembly prints the groups in brackets.
defvar Fly_MmaGroupArguments = (ins Fly_MmaAtomLike:$atom,
    Arg<Fly_MemRef, "D", [MemWrite]>:$d,
    Arg<Variadic<Fly_MemRef>, "the A group, then the B group: each its "
        "operand and auxiliary operands", [MemRead]>:$groups,
    Arg<Fly_MemRef, "C", [MemRead]>:$c,
    DenseI32ArrayAttr:$operandSegmentSizes);
defvar Fly_MmaGroupBuilders = [
  OpBuilder<(ins "::mlir::Value":$atom, "::mlir::Value":$d,
                 "::mlir::ValueRange":$a, "::mlir::ValueRange":$b,
                 "::mlir::Value":$c), [{
    ::llvm::SmallVector<::mlir::Value> groups(a);
    groups.append(b.begin(), b.end());
    build($_builder, $_state, atom, d, groups, c,
          $_builder.getDenseI32ArrayAttr(
              {1, 1, int32_t(a.size()), int32_t(b.size()), 1}));
  }]>];
defvar Fly_MmaGroupAccessors = [{
    /// The A (B) group: the operand, then its auxiliary operands.
    ::mlir::OperandRange getA() {
      return getGroups().take_front(getOperandSegmentSizes()[2]);
    }
    ::mlir::OperandRange getB() {
      return getGroups().drop_front(getOperandSegmentSizes()[2]);
    }
    ::mlir::Value getAOperand() { return getA().front(); }
    ::mlir::Value getBOperand() { return getB().front(); }
    ::mlir::OperandRange getAAuxiliary() { return getA().drop_front(); }
    ::mlir::OperandRange getBAuxiliary() { return getB().drop_front(); }
}];

def Fly_GemmOp : Fly_MemoryOp<"gemm"> {
  let summary = "D = A * B + C with an MMA atom over partitioned fragments";
  let description = [{
    CuTe's gemm(mma, D, A, B, C):
    `fly.gemm(%mma, %d, %a, %b, %c) : (MMA, D, A, B, C)`. The atom is an
    mma_atom or a tiled_mma (whose atom is used); the tensors are memrefs
    (usually register fragments from `fly.mma.make_fragment`). The ranks
    select the loops: (V)x(V)=>(V) one call; (M)x(N)=>(M,N) and
    (M,K)x(N,K)=>(M,N) with a unit value mode; (V,M)x(V,N)=>(V,M,N)
    row-major serpentine; (V,M,K)x(V,N,K)=>(V,M,N) with K outermost. Each
    call's value modes hold the atom's value counts. D may be C. The sizes
    must be static: fly-layout-lowering unrolls the calls into
    `fly.mma_atom_call`s.

    A and B are operand groups: the operand, then the auxiliary operands
    its MMA operation takes (MmaOpTypeInterface::getAuxiliaryField; a
    scaled MFMA's per-lane scales), written in brackets with their types
    in line: `fly.gemm(%mma, %d, [%a, %sa], [%b, %sb], %c) : (MMA, D, A,
    SA, B, SB, C)`. An auxiliary operand has the rank of its operand and
    the same tile modes, (1, M[, K]) for A and (1, N[, K]) for B after a
    (V[, M[, K]]) operand; each call takes its slice at the call's tile,
    one value.

    `traversal = array<i32: m0, n0, k0, m1, n1, k1, ...>` (rank-3 D only)
    gives the calls' order instead: one call per (m, n, k) tile listed (k
    is 0 when A and B have no K mode), the first call on a tile of D
    reading C's tile and later ones D's (FlyDSL's gemm traversal orders
    and layouts, which the front end turns into this list). Each tile must
    be inside the (M, N, K) tiles.
  }];
  let arguments = !con(Fly_MmaGroupArguments,
                       (ins OptionalAttr<DenseI32ArrayAttr>:$traversal));
  let builders = [
    OpBuilder<(ins "::mlir::Value":$atom, "::mlir::Value":$d,
                   "::mlir::ValueRange":$a, "::mlir::ValueRange":$b,
                   "::mlir::Value":$c), [{
      ::llvm::SmallVector<::mlir::Value> groups(a);
      groups.append(b.begin(), b.end());
      build($_builder, $_state, atom, d, groups, c,
            $_builder.getDenseI32ArrayAttr(
                {1, 1, int32_t(a.size()), int32_t(b.size()), 1}),
            ::mlir::DenseI32ArrayAttr());
    }]>];
  let extraClassDeclaration = Fly_MmaGroupAccessors;
  let hasVerifier = 1;
}

def Fly_CopyAtomCallOp : Fly_MemoryOp<"copy_atom_call"> {
  let summary = "one call of a copy atom";
  let description = [{
    `fly.copy_atom_call(%atom, %src, %dst) : (ATOM, SRC, DST)`: the atom's
    instruction on exactly its values (size(SRC), size(DST) are the atom's
    source and destination value counts), contiguous on each side as for
    `fly.copy`. The element types have the atom's value width. An atomic
    atom (universal_atomic) combines the source into a global or shared
    destination.
  }];
  let arguments = (ins Fly_CopyAtomLike:$atom,
                       Arg<Fly_MemRef, "the source", [MemRead]>:$src,
                       Arg<Fly_MemRef, "the destination", [MemWrite]>:$dst);
  let hasVerifier = 1;
}

def Fly_MmaAtomCallOp : Fly_MemoryOp<"mma_atom_call"> {
  let summary = "one call of an MMA atom";
  let description = [{
    `fly.mma_atom_call(%atom, %d, %a, %b, %c) : (ATOM, D, A, B, C)`: the
    atom's instruction on exactly its values; value i of an operand is the
    tensor's element at 1-D index i. The element types are the atom's.
    A and B are operand groups as in `fly.gemm`
    (`fly.mma_atom_call(%atom, %d, [%a, %sa], %b, %c)`): each auxiliary
    operand holds one value, which sets its field of the atom
    (MmaOpTypeInterface::getAuxiliaryField) for this call.
  }];
  let arguments = Fly_MmaGroupArguments;
  let builders = Fly_MmaGroupBuilders;
  let extraClassDeclaration = Fly_MmaGroupAccessors;
  let hasVerifier = 1;
}

def Fly_CopyAtomCallSSAOp : Fly_MemoryOp<"copy_atom_call_ssa"> {
  let summary = "one call of a copy atom with its register side as values";
  let description = [{
    The value form of `fly.copy_atom_call` (fly-convert-atom-call-to-ssa-form):
    ```
    %v = fly.copy_atom_call_ssa(%atom, %src) : (ATOM, SRC) -> vector<N x T>
    fly.copy_atom_call_ssa(%atom, %v, %dst) : (ATOM, vector<N x T>, DST) -> ()
    ```
    The first reads the atom's N source values from memory, the second
    writes (or, for an atomic atom, combines) N values into memory; value i
    is the tensor's element at 1-D index i.
  }];
  let arguments = (ins Fly_CopyAtomLike:$atom, AnyType:$src,
                       Optional<Fly_MemRef>:$dst);
  let results = (outs Optional<AnyVectorOfNonZeroRank>:$result);
  let hasVerifier = 1;
}

def Fly_MmaAtomCallSSAOp : Fly_MemoryOp<"mma_atom_call_ssa", [Pure]> {
  let summary = "one call of an MMA atom on values";
  let description = [{
    `%d = fly.mma_atom_call_ssa(%atom, %a, %b, %c)
        : (ATOM, vector<NA x TA>, vector<NB x TB>, vector<NC x TC>)
        -> vector<NC x TD>`: the value form of `fly.mma_atom_call`, with the
    atom's value counts and element types.
  }];
  let arguments = (ins Fly_MmaAtomLike:$atom, AnyVectorOfNonZeroRank:$a,
                       AnyVectorOfNonZeroRank:$b, AnyVectorOfNonZeroRank:$c);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let hasVerifier = 1;
}

#endif // FLY_DIALECT_FLY_IR_FLYATOMOPS_TD
