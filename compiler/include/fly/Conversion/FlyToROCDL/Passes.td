//===- Passes.td - Conversion of fly to ROCDL --------------*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Conversion/FlyToROCDL.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_FLYTOROCDL_PASSES_TD
#define FLY_CONVERSION_FLYTOROCDL_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFlyToROCDL : Pass<"convert-fly-to-rocdl"> {
  let summary = "Lower fly pointers, memory accesses and atom calls to the "
                "llvm dialect";
  let description = [{
    A dialect conversion of what fly-layout-lowering leaves: pointers,
    memory accesses and atom calls. `!fly.ptr<T, AS>` and
    `!fly.memref<T, AS, L>` become `!llvm.ptr<N>` (generic 0, global 1,
    shared 3, register 5; the layout of a memref is gone by now, so the
    memref is its pointer);

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

    Floats LLVM IR has no type for (8-, 6- and 4-bit ones, E8M0) are
    integers of their width in every LLVM and ROCDL op the pass leaves
    (loads, stores, element types, vectors, bitcasts), as LLVMTypeConverter
    makes them in arith and vector ops later; values of those ops meet
    the converted ones through unrealized casts that cancel out.

    Atom calls are lowered by their copy or MMA operation (a tiled_copy or
    tiled_mma operand stands for its atom), through the operation's type
    interface (FlyAtomInterfaces.td): its emitRead / emitWrite / emitCopy
    for copies, its emitMma for MMAs. With `chip=`, an operation the chip
    does not have (the interface's isAvailableOn) is an error naming it,
    the chip and the chips that have it. What the target-neutral
    operations become follows. Their memref operands are views with a plain layout
    over contiguous values (a swizzled one is fly-layout-lowering's to
    rebuild; left over, it is an error), so the atom's values are one access
    at the view's pointer, with the pointer type's alignment (the proven
    one, never more); integers must be signless.

    - `%v = fly.copy_atom_call_ssa(%atom, %src)` of a universal_copy is one
      `llvm.load` of the result type `vector<N x T>` from the source (N may
      be 1: the result stays a one-element vector).
    - `fly.copy_atom_call_ssa(%atom, %v, %dst)` of a universal_copy is one
      `llvm.store` of the vector. Of a `universal_atomic<op, T>` (one value)
      it is a monotonic `llvm.atomicrmw` of element 0 on the destination:
      add is `fadd` (floats) or `add` (integers); max and min are
      `fmax`/`fmin` for floats (LLVM's maxnum/minnum: a NaN operand yields
      the other one) and the signed `max`/`min` for integers (a signless
      integer is taken as signed). Its syncscope is the atom's
      (`universal_atomic<add, f32, "agent">`), the system scope when it
      names none.
    - `fly.copy_atom_call(%atom, %src, %dst)`, both sides in memory (global to
      shared, or what fly-convert-atom-call-to-ssa-form left), is the load of
      the source values followed by their store (bitcast first when the two
      element types differ at one width) or, for an atomic atom, their
      atomicrmw.
    - `%d = fly.mma_atom_call_ssa(%atom, %a, %b, %c)` of a universal_fma
      computes d = a * b + c on the one-element vectors in D's type: a, b and
      c are first converted to it (floats `arith.extf`/`arith.truncf`,
      through f32 between two types of one width such as f16 and bf16;
      integers `arith.extsi`/`arith.trunci`; an integer to a float with
      `arith.sitofp`, a float to an integer with `arith.fptosi`), then a
      float D is one `llvm.intr.fma` and an integer D an `arith.muli` and an
      `arith.addi` (wrapping). With four equal types it is just the fma.
      When `fly.atom.set_value` gave the atom an `accumulate` flag, c is
      `arith.select %accumulate, c, 0` first.
    - `fly.mma_atom_call(%atom, %d, %a, %b, %c)` on memory (fragments in
      registers or shared memory) loads one element each of a, b and c,
      computes as above and stores d.

    `fly.print` becomes `gpu.printf`: its scalar operands keep their
    conversions (an index goes as i64), each static fly value's text (its
    type's value, `(4,8):(1,4)`) replaces its `%s` in the format.

    Launch dimensions. In gpu.modules, `gpu.block_dim` and `gpu.grid_dim`
    are read from the HSA kernel dispatch packet
    (`llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"`, invariant loads):
    workgroup_size_{x,y,z} (u16 at bytes 4, 6, 8) and, for the grid,
    ceil(grid_size / workgroup_size) with grid_size_{x,y,z} the work-items
    (u32 at 12, 16, 20). convert-gpu-to-rocdl would make them calls of the
    ROCm device library, which code objects are linked without. In a
    kernel with `known_block_size`, `gpu.block_dim` is that constant.

    Structured control flow carrying pointers (scf.for iter_args, scf.if
    results) is converted with them. The construction ops that only fed
    these (`fly.static`, `fly.make_int_tuple`, `fly.make_layout`, the atom
    and tiled-atom makers, ...) are erased. Any other fly op, or a
    fly-typed block argument, is reported as an error naming it:
    fly-layout-lowering (and, for kernel arguments,
    fly-rewrite-func-signature) must have removed it.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the module is compiled for: atom calls of operations "
           "it lacks are errors (empty: not checked)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

#endif // FLY_CONVERSION_FLYTOROCDL_PASSES_TD
