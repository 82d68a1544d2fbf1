// RUN: fly-opt %s -split-input-file -allow-unregistered-dialect -convert-fly-to-rocdl -verify-diagnostics

// A pointer in an address space without an LLVM number (a dialect attribute
// other passes own) is not lowered here.
func.func @address_space() -> f32 {
  %q = "test.pointer"() : () -> !fly.ptr<f32, #gpu.address_space<workgroup>>
  // expected-error @below {{'fly.ptr.load' op uses a pointer in the address space #gpu.address_space<workgroup>, which convert-fly-to-rocdl does not lower (generic, global, shared and register pointers only)}}
  %x = fly.ptr.load(%q) : (!fly.ptr<f32, #gpu.address_space<workgroup>>) -> f32
  return %x : f32
}

// -----

// A load must give the pointer's element type or a vector of it.
func.func @load_type(%p: !llvm.ptr<1>) -> f16 {
  %q = fly.make_ptr(%p) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  // expected-error @below {{'fly.ptr.load' op inferred type(s) 'f32' are incompatible with return type(s) of operation 'f16'}}
  // expected-error @below {{'fly.ptr.load' op failed to infer returned types}}
  %x = fly.ptr.load(%q) : (!fly.ptr<f32, global>) -> f16
  return %x : f16
}

// -----

func.func @store_type(%p: !llvm.ptr<3>, %v: vector<4xf16>) {
  %q = fly.make_ptr(%p) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  // expected-error @below {{'fly.ptr.store' op stores 'vector<4xf16>' through a pointer to 'f32'; expected the element type or a 1-D vector of it}}
  fly.ptr.store(%v, %q) : (vector<4xf16>, !fly.ptr<f32, shared>)
  return
}

// -----

// A memory access on a memref is fly-layout-lowering's to lower; left over,
// it is named (its construction operands are not reported again).
func.func @leftover_access(%p: !llvm.ptr<1>, %i: i32) -> f32 {
  %q = fly.make_ptr(%p) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %m = fly.make_view(%q, %l) : (!fly.ptr<f32, global>, !fly.layout<(4,8):(1,4)>)
  // expected-error @below {{'fly.memref.load' op is left for convert-fly-to-rocdl, which lowers only pointers, memory accesses and atom calls: fly-layout-lowering must have removed it}}
  %x = fly.memref.load(%m, %i) : (!fly.memref<f32, global, (4,8):(1,4)>, i32)
  return %x : f32
}

// -----

// So is the algebra, and a construction op whose value leaves the dialect.
func.func @leftover_algebra(%n: i32) -> (!fly.int_tuple<?{div=4}>, !fly.int_tuple<(?,4)>) {
  // expected-error @below {{'fly.make_int_tuple' op is left for convert-fly-to-rocdl}}
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(?,4)>
  // expected-error @below {{'fly.size' op is left for convert-fly-to-rocdl}}
  %z = fly.size(%s) : (!fly.int_tuple<(?,4)>)
  return %z, %s : !fly.int_tuple<?{div=4}>, !fly.int_tuple<(?,4)>
}

// -----

// A fly-typed function argument is fly-rewrite-func-signature's.
// expected-error @below {{'func.func' op has argument #0 of fly type '!fly.ptr<f32, global>', which convert-fly-to-rocdl does not lower: kernel arguments go through fly-rewrite-func-signature}}
func.func @argument(%m: !fly.ptr<f32, global>) -> f32 {
  %x = fly.ptr.load(%m) : (!fly.ptr<f32, global>) -> f32
  return %x : f32
}

// -----

// An atom call on a memref in an address space without an LLVM number is
// not lowered either.
func.func @atom_address_space(%v: vector<4xf32>) {
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<128>, 32>
  %m = "test.memref"() : () -> !fly.memref<f32, #gpu.address_space<workgroup>, 4:1>
  // expected-error @below {{'fly.copy_atom_call_ssa' op uses a pointer in the address space #gpu.address_space<workgroup>, which convert-fly-to-rocdl does not lower (generic, global, shared and register pointers only)}}
  fly.copy_atom_call_ssa(%a, %v, %m) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, vector<4xf32>, !fly.memref<f32, #gpu.address_space<workgroup>, 4:1>) -> ()
  return
}

// -----

// An atom call reads its values at the memref's pointer, which is where
// value 0 is only for a plain layout: a swizzled operand is
// fly-layout-lowering's to rebuild.
func.func @atom_swizzled(%s: !llvm.ptr<3>) -> vector<8xf16> {
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<128>, 16>
  %p = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
  %l = fly.static : !fly.composed_layout<S<3,3,3> o 0 o 8:1>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f16, shared, align<16>>, !fly.composed_layout<S<3,3,3> o 0 o 8:1>)
  // expected-error @below {{'fly.copy_atom_call_ssa' op has the memref operand '!fly.memref<f16, shared, S<3,3,3> o 0 o 8:1, align<16>>' whose layout is not a plain layout: convert-fly-to-rocdl reads an atom's values at the memref's pointer, so fly-layout-lowering must have rebuilt it as a view at its first element}}
  %v = fly.copy_atom_call_ssa(%a, %m) : (!fly.copy_atom<!fly.universal_copy<128>, 16>, !fly.memref<f16, shared, S<3,3,3> o 0 o 8:1, align<16>>) -> vector<8xf16>
  return %v : vector<8xf16>
}

// -----

// LLVM integers are signless: an atom call on unsigned elements is reported.
func.func @atom_unsigned(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>) {
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<32>, 32>
  %l = fly.static : !fly.layout<1:0>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<ui32, global>
  %mg = fly.make_view(%pg, %l) : (!fly.ptr<ui32, global>, !fly.layout<1:0>)
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<ui32, shared>
  %ms = fly.make_view(%ps, %l) : (!fly.ptr<ui32, shared>, !fly.layout<1:0>)
  // expected-error @below {{'fly.copy_atom_call' op has the operand or result type '!fly.memref<ui32, global, 1:0>' of signed or unsigned integers: convert-fly-to-rocdl lowers atom calls on signless integers only}}
  fly.copy_atom_call(%a, %mg, %ms) : (!fly.copy_atom<!fly.universal_copy<32>, 32>, !fly.memref<ui32, global, 1:0>, !fly.memref<ui32, shared, 1:0>)
  return
}

// -----

// So is an FMA on signed values.
func.func @fma_signed(%a: vector<1xsi32>) -> vector<1xsi32> {
  %m = fly.static : !fly.mma_atom<!fly.universal_fma<si32>>
  // expected-error @below {{'fly.mma_atom_call_ssa' op has the operand or result type 'vector<1xsi32>' of signed or unsigned integers: convert-fly-to-rocdl lowers atom calls on signless integers only}}
  %d = fly.mma_atom_call_ssa(%m, %a, %a, %a) : (!fly.mma_atom<!fly.universal_fma<si32>>, vector<1xsi32>, vector<1xsi32>, vector<1xsi32>) -> vector<1xsi32>
  return %d : vector<1xsi32>
}
