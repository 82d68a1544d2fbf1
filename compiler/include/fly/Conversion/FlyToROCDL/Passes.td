//===- Passes.td - Conversion of fly to ROCDL --------------*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Conversion/FlyToROCDL.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_FLYTOROCDL_PASSES_TD
#define FLY_CONVERSION_FLYTOROCDL_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFlyToROCDL : Pass<"convert-fly-to-rocdl"> {
  let summary = "Lower fly pointers and memory accesses to the llvm dialect";
  let description = [{
    A dialect conversion of what fly-layout-lowering leaves: pointers and
    memory accesses. `!fly.ptr<T, AS>` and `!fly.memref<T, AS, L>` become
    `!llvm.ptr<N>` (generic 0, global 1, shared 3, register 5; the layout of
    a memref is gone by now, so the memref is its pointer);

    - `fly.make_ptr`, `fly.ptr.to_llvm`, `fly.make_view` and `fly.get_iter`
      of a memref are the pointer itself;
    - `fly.add_offset` is an `llvm.getelementptr` over `T` by the offset (a
      static one folds into the instruction, 0 into nothing);
    - `fly.apply_swizzle` xors the bits of the byte address: `ptrtoint` in
      the address space's width (32 bits for shared and register), the
      swizzle on that integer, and an i8 `llvm.getelementptr` by the
      difference, so the pointer keeps its provenance;
    - `fly.ptr.load` / `fly.ptr.store` are `llvm.load` / `llvm.store` with
      the pointer type's alignment (a vector type is one vector access);
    - `fly.get_dyn_shared` is `llvm.mlir.addressof` an external zero-sized
      `llvm.mlir.global` in address space 3, one per symbol table (the
      gpu.module), aligned to the largest alignment asked for;
    - `fly.memref.alloca` is an `llvm.alloca` in address space 5 at the start
      of the function's entry block, of cosize(layout) elements.

    Structured control flow carrying pointers (scf.for iter_args, scf.if
    results) is converted with them. The construction ops that only fed
    these (`fly.static`, `fly.make_int_tuple`, `fly.make_layout`, ...) are
    erased. Any other fly op, or a fly-typed block argument, is reported as
    an error naming it: fly-layout-lowering (and, for kernel arguments,
    fly-rewrite-func-signature) must have removed it.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // FLY_CONVERSION_FLYTOROCDL_PASSES_TD
