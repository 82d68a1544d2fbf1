//===- Passes.td - Passes of the fly dialect ---------------*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Dialect/Fly/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
#define FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    coord_tensor's new base. Pointer ops, memory accesses and allocations
    keep their form.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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

#endif // FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
