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
  // expected-error @below {{'fly.memref.load' op is left for convert-fly-to-rocdl, which lowers only pointers and memory accesses: fly-layout-lowering must have removed it}}
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
