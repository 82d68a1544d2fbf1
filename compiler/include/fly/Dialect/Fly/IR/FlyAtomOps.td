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
    CuTe's make_fragment_A/B/C:
    `fly.mma.make_fragment(%tiled_mma, %partitioned) {operand = "C"}`. A
    fresh `register` memref whose layout is the algebra's fragment of the
    partitioned layout (A and B like it, C compact column-major) and whose
    element type is the MMA operation's type of that operand. The
    partitioned layout must be static. It canonicalizes to
    `fly.memref.alloca` of its type.
  }];
  let arguments = (ins Fly_TiledMma:$tiled_mma, Fly_Tensor:$tensor,
                       StrAttr:$operand);
  let results = (outs Fly_MemRef:$result);
  let hasCanonicalizeMethod = 1;
}

#endif // FLY_DIALECT_FLY_IR_FLYATOMOPS_TD
