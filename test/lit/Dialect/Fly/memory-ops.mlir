// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// Pointer and memory ops (SPEC §2.3). Result types that the operands
// determine are inferred; the CHECK lines state them.

// make_ptr takes the LLVM pointer of the same address space; ptr.to_llvm
// gives it back.
// CHECK-LABEL: func.func @make_ptr
// CHECK:         fly.make_ptr(%arg0) : (!llvm.ptr) -> !fly.ptr<f32, generic>
// CHECK:         fly.make_ptr(%arg1) : (!llvm.ptr<1>) -> !fly.ptr<f16, global, align<16>>
// CHECK:         fly.make_ptr(%arg2) : (!llvm.ptr<3>) -> !fly.ptr<i8, shared, align<4>>
// CHECK:         fly.make_ptr(%arg3) : (!llvm.ptr<5>) -> !fly.ptr<f32, register>
// CHECK:         fly.ptr.to_llvm(%{{.*}}) : (!fly.ptr<f16, global, align<16>>) -> !llvm.ptr<1>
// CHECK:         fly.ptr.to_llvm(%{{.*}}) : (!fly.ptr<i8, shared, align<4>>) -> !llvm.ptr<3>
func.func @make_ptr(%g: !llvm.ptr, %a: !llvm.ptr<1>, %s: !llvm.ptr<3>, %r: !llvm.ptr<5>) {
  %0 = fly.make_ptr(%g) : (!llvm.ptr) -> !fly.ptr<f32, generic>
  %1 = fly.make_ptr(%a) : (!llvm.ptr<1>) -> !fly.ptr<f16, global, align<16>>
  %2 = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<i8, shared, align<4>>
  %3 = fly.make_ptr(%r) : (!llvm.ptr<5>) -> !fly.ptr<f32, register>
  %4 = fly.ptr.to_llvm(%1) : (!fly.ptr<f16, global, align<16>>)
  %5 = fly.ptr.to_llvm(%2) : (!fly.ptr<i8, shared, align<4>>) -> !llvm.ptr<3>
  return
}

// extract_aligned_pointer_as_index: a memref's LLVM pointer, in its own
// address space, the generic one, or any from a generic memref.
// CHECK-LABEL: func.func @extract_aligned_pointer
// CHECK:         fly.extract_aligned_pointer_as_index(%arg0) : (!fly.memref<f32, global, 64:1>) -> !llvm.ptr
// CHECK:         fly.extract_aligned_pointer_as_index(%arg1) : (!fly.memref<f16, shared, (4,8):(8,1)>) -> !llvm.ptr<3>
// CHECK:         fly.extract_aligned_pointer_as_index(%arg2) : (!fly.memref<i8, generic, 16:1>) -> !llvm.ptr<1>
func.func @extract_aligned_pointer(%g: !fly.memref<f32, global, 64:1>,
                                   %s: !fly.memref<f16, shared, (4,8):(8,1)>,
                                   %f: !fly.memref<i8, generic, 16:1>) {
  %0 = fly.extract_aligned_pointer_as_index(%g) : (!fly.memref<f32, global, 64:1>) -> !llvm.ptr
  %1 = fly.extract_aligned_pointer_as_index(%s) : (!fly.memref<f16, shared, (4,8):(8,1)>) -> !llvm.ptr<3>
  %2 = fly.extract_aligned_pointer_as_index(%f) : (!fly.memref<i8, generic, 16:1>) -> !llvm.ptr<1>
  return
}

// add_offset: alignment = gcd(alignment, divisibility(offset) * bytes).
// CHECK-LABEL: func.func @add_offset
// A static 0 keeps the alignment; 2 f32 are 8 bytes; 12 f32 are 48 bytes.
// CHECK:         -> !fly.ptr<f32, global, align<16>>
// CHECK:         -> !fly.ptr<f32, global, align<8>>
// CHECK:         -> !fly.ptr<f32, global, align<16>>
// ?{div=4} f16 are a multiple of 8 bytes.
// CHECK:         -> !fly.ptr<f16, shared, align<8>>
// An i32 or i64 scalar is a dynamic leaf of divisor 1.
// CHECK:         -> !fly.ptr<f16, shared>
// CHECK:         -> !fly.ptr<f16, shared>
// Never more than the old alignment; a negative offset divides like its
// absolute value.
// CHECK:         -> !fly.ptr<f16, shared, align<16>>
// CHECK:         -> !fly.ptr<f32, global>{{$}}
// CHECK:         -> !fly.ptr<f32, global, align<8>>
// A vector element counts its whole size.
// CHECK:         -> !fly.ptr<vector<4xf32>, global>
func.func @add_offset(%p: !fly.ptr<f32, global, align<16>>, %q: !fly.ptr<f16, shared, align<16>>,
                      %w: !fly.ptr<vector<4xf32>, global>, %i: i32, %j: i64) {
  %c0 = fly.static : !fly.int_tuple<0>
  %c2 = fly.static : !fly.int_tuple<2>
  %c12 = fly.static : !fly.int_tuple<12>
  %cm2 = fly.static : !fly.int_tuple<-2>
  %c64 = fly.static : !fly.int_tuple<64>
  %d4 = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<?{div=4}>
  %0 = fly.add_offset(%p, %c0) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<0>)
  %1 = fly.add_offset(%p, %c2) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<2>)
  %2 = fly.add_offset(%p, %c12) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<12>)
  %3 = fly.add_offset(%q, %d4) : (!fly.ptr<f16, shared, align<16>>, !fly.int_tuple<?{div=4}>)
  %4 = fly.add_offset(%q, %i) : (!fly.ptr<f16, shared, align<16>>, i32)
  %5 = fly.add_offset(%q, %j) : (!fly.ptr<f16, shared, align<16>>, i64)
  %6 = fly.add_offset(%q, %c64) : (!fly.ptr<f16, shared, align<16>>, !fly.int_tuple<64>)
  %7 = fly.add_offset(%1, %i) : (!fly.ptr<f32, global, align<8>>, i32)
  %8 = fly.add_offset(%p, %cm2) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<-2>)
  %9 = fly.add_offset(%w, %c2) : (!fly.ptr<vector<4xf32>, global>, !fly.int_tuple<2>)
  return
}

// apply_swizzle works on the byte address. S<3,4,3> reads bits 7..9 and
// writes bits 4..6: a 16-byte alignment survives, a 1024-byte one (no bit
// read can be set) is kept whole, 32 drops to 16.
// CHECK-LABEL: func.func @apply_swizzle
// CHECK:         -> !fly.ptr<f16, shared, align<16>>
// CHECK:         -> !fly.ptr<f16, shared, align<1024>>
// CHECK:         -> !fly.ptr<f16, shared, align<16>>
// A negative shift writes above the bits it reads (S<2,4,-2> reads 4..5 and
// writes 6..7): the known low bits never change.
// CHECK:         -> !fly.ptr<f16, shared, align<256>>
// The identity swizzle keeps everything.
// CHECK:         -> !fly.ptr<f16, shared, align<256>>
func.func @apply_swizzle(%a: !fly.ptr<f16, shared, align<16>>, %b: !fly.ptr<f16, shared, align<1024>>,
                         %c: !fly.ptr<f16, shared, align<32>>, %d: !fly.ptr<f16, shared, align<256>>) {
  %s = fly.static : !fly.swizzle<S<3,4,3>>
  %n = fly.static : !fly.swizzle<S<2,4,-2>>
  %z = fly.static : !fly.swizzle<S<0,4,3>>
  %0 = fly.apply_swizzle(%a, %s) : (!fly.ptr<f16, shared, align<16>>, !fly.swizzle<S<3,4,3>>)
  %1 = fly.apply_swizzle(%b, %s) : (!fly.ptr<f16, shared, align<1024>>, !fly.swizzle<S<3,4,3>>)
  %2 = fly.apply_swizzle(%c, %s) : (!fly.ptr<f16, shared, align<32>>, !fly.swizzle<S<3,4,3>>)
  %3 = fly.apply_swizzle(%d, %n) : (!fly.ptr<f16, shared, align<256>>, !fly.swizzle<S<2,4,-2>>)
  %4 = fly.apply_swizzle(%d, %z) : (!fly.ptr<f16, shared, align<256>>, !fly.swizzle<S<0,4,3>>)
  return
}

// ptr.load infers the element type; a 1-D vector of it is a vectorised
// access, wider than the alignment or not. Stores print without `->`.
// CHECK-LABEL: func.func @ptr_load_store
// CHECK:         %[[X:.*]] = fly.ptr.load(%arg0) : (!fly.ptr<f32, global>) -> f32
// CHECK:         %[[V:.*]] = fly.ptr.load(%arg0) : (!fly.ptr<f32, global>) -> vector<4xf32>
// CHECK:         fly.ptr.load(%arg1) : (!fly.ptr<vector<2xf16>, shared>) -> vector<2xf16>
// CHECK:         fly.ptr.store(%[[X]], %arg0) : (f32, !fly.ptr<f32, global>){{$}}
// CHECK:         fly.ptr.store(%[[V]], %arg0) : (vector<4xf32>, !fly.ptr<f32, global>){{$}}
func.func @ptr_load_store(%p: !fly.ptr<f32, global>, %q: !fly.ptr<vector<2xf16>, shared>) {
  %0 = fly.ptr.load(%p) : (!fly.ptr<f32, global>)
  %1 = fly.ptr.load(%p) : (!fly.ptr<f32, global>) -> vector<4xf32>
  %2 = fly.ptr.load(%q) : (!fly.ptr<vector<2xf16>, shared>)
  fly.ptr.store(%0, %p) : (f32, !fly.ptr<f32, global>)
  fly.ptr.store(%1, %p) : (vector<4xf32>, !fly.ptr<f32, global>) -> ()
  return
}

// CHECK-LABEL: func.func @get_dyn_shared
// CHECK:         fly.get_dyn_shared : !fly.ptr<f16, shared, align<16>>
// CHECK:         fly.get_dyn_shared : !fly.ptr<vector<4xi32>, shared, align<128>>
func.func @get_dyn_shared() {
  %0 = fly.get_dyn_shared : !fly.ptr<f16, shared, align<16>>
  %1 = fly.get_dyn_shared : !fly.ptr<vector<4xi32>, shared, align<128>>
  return
}

// memref.alloca makes a register fragment; loads and stores take a
// coordinate (an int_tuple of the layout's shape or a 1-D index), load_vec
// and store_vec the whole tensor as a vector of size(layout) elements.
// CHECK-LABEL: func.func @fragments
// CHECK:         %[[F:.*]] = fly.memref.alloca : !fly.memref<f32, register, (4,2):(1,4)>
// CHECK:         fly.memref.alloca : !fly.memref<f16, register, S<1,1,1> o 0 o 8:1, align<16>>
// CHECK:         %[[X:.*]] = fly.memref.load(%[[F]], %{{.*}}) : (!fly.memref<f32, register, (4,2):(1,4)>, !fly.int_tuple<(1,1)>) -> f32
// CHECK:         fly.memref.load(%[[F]], %arg0) : (!fly.memref<f32, register, (4,2):(1,4)>, i32) -> f32
// CHECK:         fly.memref.load(%[[F]], %{{.*}}) : (!fly.memref<f32, register, (4,2):(1,4)>, !fly.int_tuple<(?,1)>) -> f32
// CHECK:         fly.memref.store(%[[X]], %[[F]], %arg0) : (f32, !fly.memref<f32, register, (4,2):(1,4)>, i32){{$}}
// CHECK:         %[[V:.*]] = fly.memref.load_vec(%[[F]]) : (!fly.memref<f32, register, (4,2):(1,4)>) -> vector<8xf32>
// CHECK:         fly.memref.store_vec(%[[V]], %[[F]]) : (vector<8xf32>, !fly.memref<f32, register, (4,2):(1,4)>){{$}}
// CHECK:         fly.memref.load_vec(%{{.*}}) : (!fly.memref<f16, register, S<1,1,1> o 0 o 8:1, align<16>>) -> vector<8xf16>
func.func @fragments(%i: i32) {
  %f = fly.memref.alloca : !fly.memref<f32, register, (4,2):(1,4)>
  %g = fly.memref.alloca : !fly.memref<f16, register, S<1,1,1> o 0 o 8:1, align<16>>
  %c = fly.static : !fly.int_tuple<(1,1)>
  %x = fly.memref.load(%f, %c) : (!fly.memref<f32, register, (4,2):(1,4)>, !fly.int_tuple<(1,1)>)
  %y = fly.memref.load(%f, %i) : (!fly.memref<f32, register, (4,2):(1,4)>, i32)
  %d = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,1)>
  %z = fly.memref.load(%f, %d) : (!fly.memref<f32, register, (4,2):(1,4)>, !fly.int_tuple<(?,1)>)
  fly.memref.store(%x, %f, %i) : (f32, !fly.memref<f32, register, (4,2):(1,4)>, i32)
  %v = fly.memref.load_vec(%f) : (!fly.memref<f32, register, (4,2):(1,4)>)
  fly.memref.store_vec(%v, %f) : (vector<8xf32>, !fly.memref<f32, register, (4,2):(1,4)>)
  %w = fly.memref.load_vec(%g) : (!fly.memref<f16, register, S<1,1,1> o 0 o 8:1, align<16>>)
  return
}

// Loads and stores on memrefs of any address space, dynamic layouts
// included (load_vec needs a static size only).
// CHECK-LABEL: func.func @global_access
// CHECK:         fly.memref.load(%arg0, %{{.*}}) : (!fly.memref<bf16, global, (?,?):(1,?), align<16>>, !fly.int_tuple<(?,?)>) -> bf16
// CHECK:         fly.memref.load_vec(%arg1) : (!fly.memref<i8, shared, (4,4):(?,1)>) -> vector<16xi8>
func.func @global_access(%m: !fly.memref<bf16, global, (?,?):(1,?), align<16>>,
                         %s: !fly.memref<i8, shared, (4,4):(?,1)>, %i: i32, %j: i32) {
  %c = fly.make_int_tuple(%i, %j) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %0 = fly.memref.load(%m, %c) : (!fly.memref<bf16, global, (?,?):(1,?), align<16>>, !fly.int_tuple<(?,?)>)
  %1 = fly.memref.load_vec(%s) : (!fly.memref<i8, shared, (4,4):(?,1)>)
  return
}
