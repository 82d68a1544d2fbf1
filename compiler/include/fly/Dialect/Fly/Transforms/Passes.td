//===- Passes.td - Passes of the fly dialect ---------------*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Dialect/Fly/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
#define FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlyRewriteFuncSignature
    : Pass<"fly-rewrite-func-signature", "::mlir::ModuleOp"> {
  let summary = "Fly values leave function signatures: static ones vanish, "
                "dynamic ones become structs of their leaves";
  let description = [{
    Every `func.func` and `gpu.func` whose signature holds Fly types gets a
    signature without them (and every public `func.func` at the top of the
    module, a host function, gets the ABI metadata below even when it has
    none). Each original argument (and result) of Fly type
    is carried by:
    - nothing, when it is static (`isStatic`: a static int_tuple, layout,
      swizzle, composed_layout, tile or coord_tensor);
    - one `!llvm.struct<(...)>` of its dynamic leaves, in the order of
      `getDynamicLeafTypes` (i32 for `?`, i64 for `?{i64}`; LLVM's natural
      struct layout), for an int_tuple, layout, composed_layout or
      coord_tensor with dynamic leaves;
    - an `!llvm.ptr<AS>` (AS: generic 0, global 1, shared 3, register 5)
      with `llvm.align` set to the type's alignment, for a `!fly.ptr`;
    - for a `!fly.memref`, that pointer followed, when its layout has
      dynamic leaves, by the struct of them.
    Other arguments pass unchanged. The body starts by rebuilding each
    original value in normal form (`fly.static`; `llvm.extractvalue` of
    each leaf, then `fly.make_int_tuple` / `fly.make_layout` /
    `fly.make_composed_layout`; `fly.make_ptr` and `fly.make_view`), with
    the original type. Returns, `func.call`s and `gpu.launch_func`s pack
    their operands the same way (leaves from the producer's operands when it
    is a construction op, else `fly.get_leaves`, `fly.get_iter` and
    `fly.ptr.to_llvm`); call results are rebuilt after the call.

    ABI metadata, the one description of a kernel argument block (read by
    the Python packer and the host entry), on each rewritten function:
    - `fly.original_type`: the original FunctionType, as a TypeAttr;
    - `fly.abi`: an array with one string per new argument, in order:
      `"value:I"` (original argument I, unchanged), `"ptr:I"` (the address
      of the pointer or memref argument I), `"leaves:I"` (the struct of the
      dynamic leaves of argument I, in getDynamicLeafTypes order of its
      original type). A static argument I appears nowhere.
    - `fly.result_abi`: the same for the results, when there are any.

    A value with no runtime form (a tile with dynamic leaves, a pointer in
    a dialect address space, register memory as a kernel argument) is an
    error naming the argument.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def FlyCanonicalize : Pass<"fly-canonicalize"> {
  let summary = "Fold every Fly op whose result is fully static to its normal "
                "form";
  let description = [{
    An op of the `fly` dialect whose result types hold only static leaves is
    replaced by `fly.static : T` (the type is the value), and
    `fly.get_scalar` of a static leaf by an `arith.constant`. Ops left
    without users are erased. What remains of the algebra afterwards
    depends on a dynamic leaf.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FlyLayoutLowering : Pass<"fly-layout-lowering"> {
  let summary = "Lower the layout algebra on dynamic leaves to arith";
  let description = [{
    Every algebra, query, extraction and tuple-arithmetic op of the `fly`
    dialect is evaluated by the same algebra code that infers its type, with
    the dynamic leaves of its operands bound to SSA values: static parts
    fold, and each operation on a dynamic leaf becomes an `arith` op. The
    result is rebuilt in normal form (`fly.make_int_tuple` of its dynamic
    leaves, `fly.make_layout` of two such tuples, `fly.static` when nothing
    dynamic is left), and `fly.get_scalar` / `fly.get_leaves` become the SSA
    values themselves. Result types, with their divisibility, are
    unchanged. A value whose producer is not a Fly construction op (a block
    argument) is opened with `fly.get_leaves`. A tensor result is rebuilt as
    `fly.make_view` of its layout and its iterator: a memref's pointer
    (`fly.get_iter` of a block argument) advanced by `fly.add_offset`, or a
    coord_tensor's new base. Pointer ops keep their form.

    Memory accesses on memrefs become pointer accesses:
    `fly.memref.load(%m, %c)` / `fly.memref.store` is `fly.ptr.load` /
    `fly.ptr.store` at the tensor's pointer advanced by `fly.add_offset`
    of the layout's index of `%c` (for a swizzled composed layout, the
    swizzle's xor chain on that index). `fly.memref.load_vec` /
    `store_vec` of a tensor whose layout coalesces to `N:1` is one vector
    access at its pointer, with the pointer's alignment. When the first
    mode of the coalesced layout has stride 1, each run of that many
    consecutive elements is one vector access (put together with
    `vector.insert_strided_slice`, taken apart with
    `vector.extract_strided_slice`); otherwise there is one access per
    element in 1-D index order (`vector.from_elements` /
    `vector.extract`).
    `fly.make_fragment_like` is `fly.memref.alloca` of its type.

    `fly.copy` and `fly.gemm` become their atom calls, in the order of the
    algebra's plan (CuTe's copy and gemm loops, unrolled):
    `fly.copy_atom_call` / `fly.mma_atom_call` on views of each call's
    slices. A predicated copy reads the flag of each call's slice and runs
    the call under `scf.if`. An atom call's operand behind a swizzle becomes
    a plain view at the (swizzled) address of its first element; the
    verifiers guarantee the values behind it are contiguous.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def FlyIntSwizzleSimplify : Pass<"fly-int-swizzle-simplify"> {
  let summary = "Pull period multiples out of swizzle xor chains";
  let description = [{
    A swizzle lowered to integers is `x ^ ((x & m) >> s)` (or `<< s`): it
    reads and writes only the bits below `P`, the power of two above the
    highest bit of `m` and of `m` shifted. If `x` is a sum in which some
    addends are multiples of `P` (a constant, `y * c` or `y << k` with
    `c`, `2^k` multiples of `P`), the swizzle commutes with them:
    `swz(a + c) = swz(a) + c`. The pass rewrites the xor chain so these
    addends are added after the swizzle, where they fold with the rest of
    the address arithmetic (tile offsets, loop strides).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FlyConvertAtomCallToSSAForm : Pass<"fly-convert-atom-call-to-ssa-form"> {
  let summary = "Atom calls on register fragments become value-form calls";
  let description = [{
    After fly-layout-lowering, every `fly.copy_atom_call` and
    `fly.mma_atom_call` works on tensor views (`fly.make_view` of a pointer
    and a static layout). Each operand view in the `register` address space
    is replaced by its values: a register source is read with `fly.ptr.load`
    (one vector load when the view's layout coalesces to `N:1`, else one
    load per element put together with `vector.from_elements`), and a
    register destination is written the same way from the result of the
    value-form call. `fly.copy_atom_call(%atom, %src, %dst)` becomes
    `%v = fly.copy_atom_call_ssa(%atom, %src)` when only the destination is
    in registers, `fly.copy_atom_call_ssa(%atom, %v, %dst)` when only the
    source is, and plain loads and stores when both are;
    `fly.mma_atom_call(%atom, %d, %a, %b, %c)` on register fragments becomes
    `%d = fly.mma_atom_call_ssa(%atom, %a, %b, %c)`. Calls on memory in
    other address spaces keep their form.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def FlyPromoteRegMemToVectorSSA : Pass<"fly-promote-regmem-to-vectorssa"> {
  let summary = "Register fragments become vectors in SSA form";
  let description = [{
    Every `fly.memref.alloca` (register storage of cosize(layout) elements,
    plain static layout) whose pointers are only moved (`fly.get_iter`,
    `fly.add_offset` by int_tuple leaves or i32/i64 scalars, `fly.make_view`),
    loaded from and stored to is replaced by SSA values (an element type
    `vector<N x T>` is stored flattened, as N scalars). When every access is
    at a static offset, the storage is cut at the bounds of every access
    into pieces, each a `vector<n x T>` value of its own: an access to one
    piece is that value, a wider load joins pieces (`vector.shuffle`), a
    wider store is sliced (`vector.extract_strided_slice`). Otherwise (a
    dynamic offset, or more than 1024 pieces) the storage is one
    `vector<cosize x T>`: loads become `vector.extract` /
    `vector.extract_strided_slice`, stores `vector.insert` /
    `vector.insert_strided_slice` (a dynamic offset gives dynamic positions,
    one per scalar). The values are threaded in program order through the
    `scf.for` (as iteration arguments), `scf.if` (as results; a missing
    else branch is created) and `scf.while` (as arguments of both regions
    and results) that write the fragment; regions that only read it use
    the dominating values. The storage starts as zeros. Dead pure users of
    the fragment are erased. A fragment whose pointer escapes (passed to a
    call or another op, turned into an LLVM pointer, carried by a loop,
    written inside a region op other than those three, accessed in another
    block of an unstructured CFG, or accessed out of bounds at a static
    offset) is an error at the op that lets it escape, and nothing is
    rewritten: no stack memory is left in the kernel.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
