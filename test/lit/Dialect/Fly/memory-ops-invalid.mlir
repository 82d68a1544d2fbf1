// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Pointer and memory ops: wrong operands and written result types that
// differ from the inferred ones are located errors.

func.func @make_ptr_space(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{'fly.make_ptr' op makes a shared pointer, which is LLVM address space 3, from an LLVM pointer in address space 1}}
  %0 = fly.make_ptr(%p) : (!llvm.ptr<1>) -> !fly.ptr<f32, shared>
  return
}

// -----

func.func @extract_pointer_space(%g: !fly.memref<f32, global, 64:1>) {
  // expected-error @+1 {{'fly.extract_aligned_pointer_as_index' op cannot cast a memref in address space 1 to a pointer in address space 3; only to its own space or through the generic one (0)}}
  %0 = fly.extract_aligned_pointer_as_index(%g) : (!fly.memref<f32, global, 64:1>) -> !llvm.ptr<3>
  return
}

// -----

func.func @extract_pointer_not_llvm(%g: !fly.memref<f32, global, 64:1>) {
  // expected-error @+1 {{'fly.extract_aligned_pointer_as_index' op result #0 must be LLVM pointer, but got 'i64'}}
  %0 = fly.extract_aligned_pointer_as_index(%g) : (!fly.memref<f32, global, 64:1>) -> i64
  return
}

// -----

func.func @extract_pointer_of_buffer(%b: !fly.memref<f32, #fly_rocdl.buffer_desc, 64:1>) {
  // expected-error @+1 {{'fly.extract_aligned_pointer_as_index' op takes a generic, global or shared memref, not one in #fly_rocdl.buffer_desc}}
  %0 = fly.extract_aligned_pointer_as_index(%b) : (!fly.memref<f32, #fly_rocdl.buffer_desc, 64:1>) -> !llvm.ptr
  return
}

// -----

func.func @extract_pointer_of_registers(%r: !fly.memref<f32, register, 4:1>) {
  // expected-error @+1 {{'fly.extract_aligned_pointer_as_index' op takes a generic, global or shared memref, not a register one}}
  %0 = fly.extract_aligned_pointer_as_index(%r) : (!fly.memref<f32, register, 4:1>) -> !llvm.ptr<5>
  return
}

// -----

func.func @make_ptr_dialect_space(%p: !llvm.ptr<3>) {
  // expected-error @+1 {{'fly.make_ptr' op cannot make a pointer in the address space #gpu.address_space<workgroup> from an LLVM pointer}}
  %0 = fly.make_ptr(%p) : (!llvm.ptr<3>) -> !fly.ptr<f32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @make_ptr_needs_type(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{expected '->' and the result type of 'fly.make_ptr'}}
  %0 = fly.make_ptr(%p) : (!llvm.ptr<1>)
  return
}

// -----

func.func @to_llvm_dialect_space(%p: !fly.ptr<f32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{'fly.ptr.to_llvm' op has no LLVM address space for #gpu.address_space<workgroup>}}
  %0 = fly.ptr.to_llvm(%p) : (!fly.ptr<f32, #gpu.address_space<workgroup>>)
  return
}

// -----

func.func @to_llvm_wrong_space(%p: !fly.ptr<f32, shared>) {
  // expected-error @+2 {{'fly.ptr.to_llvm' op inferred type(s) '!llvm.ptr<3>' are incompatible with return type(s) of operation '!llvm.ptr<1>'}}
  // expected-error @+1 {{'fly.ptr.to_llvm' op failed to infer returned types}}
  %0 = fly.ptr.to_llvm(%p) : (!fly.ptr<f32, shared>) -> !llvm.ptr<1>
  return
}

// -----

// The written alignment must be the inferred one.
func.func @add_offset_alignment(%p: !fly.ptr<f32, global, align<16>>, %i: i32) {
  // expected-error @+2 {{'fly.add_offset' op inferred type(s) '!fly.ptr<f32, global>' are incompatible with return type(s) of operation '!fly.ptr<f32, global, align<16>>'}}
  // expected-error @+1 {{'fly.add_offset' op failed to infer returned types}}
  %0 = fly.add_offset(%p, %i) : (!fly.ptr<f32, global, align<16>>, i32) -> !fly.ptr<f32, global, align<16>>
  return
}

// -----

func.func @add_offset_tuple(%p: !fly.ptr<f32, global>) {
  %c = fly.static : !fly.int_tuple<(1,2)>
  // expected-error @+1 {{'fly.add_offset' op the offset must be an integer leaf, got (1,2)}}
  %0 = fly.add_offset(%p, %c) : (!fly.ptr<f32, global>, !fly.int_tuple<(1,2)>)
  return
}

// -----

func.func @add_offset_basis(%p: !fly.ptr<f32, global>) {
  %c = fly.static : !fly.int_tuple<2E0>
  // expected-error @+1 {{'fly.add_offset' op the offset must be an integer leaf, got 2E0}}
  %0 = fly.add_offset(%p, %c) : (!fly.ptr<f32, global>, !fly.int_tuple<2E0>)
  return
}

// -----

func.func @add_offset_operand(%p: !fly.ptr<f32, global>, %x: f32) {
  // expected-error @+1 {{'fly.add_offset' op operand #1 has type 'f32', not a fly type or i32/i64}}
  %0 = fly.add_offset(%p, %x) : (!fly.ptr<f32, global>, f32)
  return
}

// -----

func.func @swizzle_alignment(%p: !fly.ptr<f16, shared, align<64>>) {
  %s = fly.static : !fly.swizzle<S<3,4,3>>
  // expected-error @+2 {{'fly.apply_swizzle' op inferred type(s) '!fly.ptr<f16, shared, align<16>>' are incompatible}}
  // expected-error @+1 {{'fly.apply_swizzle' op failed to infer returned types}}
  %0 = fly.apply_swizzle(%p, %s) : (!fly.ptr<f16, shared, align<64>>, !fly.swizzle<S<3,4,3>>) -> !fly.ptr<f16, shared, align<64>>
  return
}

// -----

func.func @load_type(%p: !fly.ptr<f32, global>) {
  // expected-error @+2 {{'fly.ptr.load' op inferred type(s) 'f32' are incompatible with return type(s) of operation 'f16'}}
  // expected-error @+1 {{'fly.ptr.load' op failed to infer returned types}}
  %0 = fly.ptr.load(%p) : (!fly.ptr<f32, global>) -> f16
  return
}

// -----

func.func @load_vector_of_other(%p: !fly.ptr<f32, global>) {
  // expected-error @+2 {{'fly.ptr.load' op inferred type(s) 'f32' are incompatible with return type(s) of operation 'vector<4xi32>'}}
  // expected-error @+1 {{'fly.ptr.load' op failed to infer returned types}}
  %0 = fly.ptr.load(%p) : (!fly.ptr<f32, global>) -> vector<4xi32>
  return
}

// -----

// A vector element loads as itself, not as a longer vector.
func.func @load_vector_element(%p: !fly.ptr<vector<2xf16>, global>) {
  // expected-error @+2 {{'fly.ptr.load' op inferred type(s) 'vector<2xf16>' are incompatible with return type(s) of operation 'vector<4xf16>'}}
  // expected-error @+1 {{'fly.ptr.load' op failed to infer returned types}}
  %0 = fly.ptr.load(%p) : (!fly.ptr<vector<2xf16>, global>) -> vector<4xf16>
  return
}

// -----

func.func @load_not_pointer(%p: !llvm.ptr) {
  // expected-error @+1 {{'fly.ptr.load' op expects one !fly.ptr operand}}
  %0 = fly.ptr.load(%p) : (!llvm.ptr)
  return
}

// -----

func.func @store_type(%p: !fly.ptr<f32, global>, %v: vector<4xf16>) {
  // expected-error @+1 {{'fly.ptr.store' op stores 'vector<4xf16>' through a pointer to 'f32'; expected the element type or a 1-D vector of it}}
  fly.ptr.store(%v, %p) : (vector<4xf16>, !fly.ptr<f32, global>)
  return
}

// -----

func.func @store_2d(%p: !fly.ptr<f32, global>, %v: vector<2x2xf32>) {
  // expected-error @+1 {{'fly.ptr.store' op stores 'vector<2x2xf32>' through a pointer to 'f32'}}
  fly.ptr.store(%v, %p) : (vector<2x2xf32>, !fly.ptr<f32, global>)
  return
}

// -----

func.func @dyn_shared_space() {
  // expected-error @+1 {{'fly.get_dyn_shared' op gives a shared pointer, not '!fly.ptr<f16, global>'}}
  %0 = fly.get_dyn_shared : !fly.ptr<f16, global>
  return
}

// -----

func.func @alloca_space() {
  // expected-error @+1 {{'fly.memref.alloca' op allocates register fragments only, not '!fly.memref<f32, shared, 8:1>'}}
  %0 = fly.memref.alloca : !fly.memref<f32, shared, 8:1>
  return
}

// -----

func.func @alloca_dynamic() {
  // expected-error @+1 {{'fly.memref.alloca' op needs a static layout, got '!fly.layout<(4,?):(1,4)>'}}
  %0 = fly.memref.alloca : !fly.memref<f32, register, (4,?):(1,4)>
  return
}

// -----

func.func @alloca_dynamic_composed() {
  // expected-error @+1 {{'fly.memref.alloca' op needs a static layout}}
  %0 = fly.memref.alloca : !fly.memref<f32, register, S<1,1,1> o ? o 8:1>
  return
}

// -----

func.func @memref_load_coord(%m: !fly.memref<f32, global, (4,8):(1,4)>) {
  %c = fly.static : !fly.int_tuple<(1,2,3)>
  // expected-error @+1 {{'fly.memref.load' op coordinate (1,2,3) is not compatible with shape (4,8)}}
  %0 = fly.memref.load(%m, %c) : (!fly.memref<f32, global, (4,8):(1,4)>, !fly.int_tuple<(1,2,3)>)
  return
}

// -----

func.func @memref_load_type(%m: !fly.memref<f32, global, (4,8):(1,4)>, %i: i32) {
  // expected-error @+2 {{'fly.memref.load' op inferred type(s) 'f32' are incompatible with return type(s) of operation 'vector<2xf32>'}}
  // expected-error @+1 {{'fly.memref.load' op failed to infer returned types}}
  %0 = fly.memref.load(%m, %i) : (!fly.memref<f32, global, (4,8):(1,4)>, i32) -> vector<2xf32>
  return
}

// -----

func.func @memref_load_not_memref(%p: !fly.ptr<f32, global>, %i: i32) {
  // expected-error @+1 {{'fly.memref.load' op expects a !fly.memref, got '!fly.ptr<f32, global>'}}
  %0 = fly.memref.load(%p, %i) : (!fly.ptr<f32, global>, i32)
  return
}

// -----

func.func @memref_store_type(%m: !fly.memref<f32, global, 8:1>, %x: f16, %i: i32) {
  // expected-error @+1 {{'fly.memref.store' op stores 'f16' into a memref of 'f32'}}
  fly.memref.store(%x, %m, %i) : (f16, !fly.memref<f32, global, 8:1>, i32)
  return
}

// -----

func.func @memref_store_coord(%m: !fly.memref<f32, global, 8:1>, %x: f32) {
  %c = fly.static : !fly.int_tuple<(1,1)>
  // expected-error @+1 {{'fly.memref.store' op coordinate (1,1) is not compatible with shape 8}}
  fly.memref.store(%x, %m, %c) : (f32, !fly.memref<f32, global, 8:1>, !fly.int_tuple<(1,1)>)
  return
}

// -----

func.func @load_vec_dynamic(%m: !fly.memref<f32, global, (4,?):(1,4)>) {
  // expected-error @+1 {{'fly.memref.load_vec' op needs a static size, got ?{div=4} for '!fly.layout<(4,?):(1,4)>'}}
  %0 = fly.memref.load_vec(%m) : (!fly.memref<f32, global, (4,?):(1,4)>)
  return
}

// -----

func.func @load_vec_vector_element(%m: !fly.memref<vector<2xf16>, register, 4:1>) {
  // expected-error @+1 {{'fly.memref.load_vec' op needs a scalar element type to form a vector, got 'vector<2xf16>'}}
  %0 = fly.memref.load_vec(%m) : (!fly.memref<vector<2xf16>, register, 4:1>)
  return
}

// -----

func.func @load_vec_size(%m: !fly.memref<f32, register, (4,2):(1,4)>) {
  // expected-error @+2 {{'fly.memref.load_vec' op inferred type(s) 'vector<8xf32>' are incompatible with return type(s) of operation 'vector<4xf32>'}}
  // expected-error @+1 {{'fly.memref.load_vec' op failed to infer returned types}}
  %0 = fly.memref.load_vec(%m) : (!fly.memref<f32, register, (4,2):(1,4)>) -> vector<4xf32>
  return
}

// -----

func.func @store_vec_size(%m: !fly.memref<f32, register, (4,2):(1,4)>, %v: vector<4xf32>) {
  // expected-error @+1 {{'fly.memref.store_vec' op stores 'vector<4xf32>' as the whole of a memref, which is 'vector<8xf32>'}}
  fly.memref.store_vec(%v, %m) : (vector<4xf32>, !fly.memref<f32, register, (4,2):(1,4)>)
  return
}

// -----

func.func @print_dynamic_layout(%n: i32) {
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<?>
  // expected-error @+1 {{'fly.print' op operand 0 is the dynamic '!fly.int_tuple<?>': only a static fly value can be printed (print its leaves, fly.get_leaves, as scalars)}}
  fly.print(%s) {format = "%s\n"} : (!fly.int_tuple<?>) -> ()
  return
}

// -----

func.func @print_count(%x: f32) {
  // expected-error @+1 {{'fly.print' op has 2 conversions in its format for 1 operands}}
  fly.print(%x) {format = "%f %d\n"} : (f32) -> ()
  return
}

// -----

func.func @print_fly_value_needs_s() {
  %l = fly.static : !fly.layout<4:1>
  // expected-error @+1 {{'fly.print' op operand 0 is a fly value: its conversion must be %s}}
  fly.print(%l) {format = "%d\n"} : (!fly.layout<4:1>) -> ()
  return
}
