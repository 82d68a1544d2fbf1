// RUN: fly-opt %s -split-input-file -convert-fly-to-rocdl | FileCheck %s

// convert-fly-to-rocdl: fly pointers become LLVM pointers of the same address
// space; make_ptr and ptr.to_llvm are the pointer itself; add_offset is a GEP
// over the element type (a static offset is the GEP's constant index, or a
// constant beyond 32 bits; 0 folds away); loads and stores carry the pointer
// type's alignment, a vector type being one vector access.

// CHECK-LABEL: func.func @pointers
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[I:.*]]: i32, %[[J:.*]]: i64)
// CHECK:         %[[P8:.*]] = llvm.getelementptr inbounds %[[G]][8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK:         %[[PI:.*]] = llvm.getelementptr inbounds %[[P8]][%[[I]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:         %[[V:.*]] = llvm.load %[[PI]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         %[[PJ:.*]] = llvm.getelementptr inbounds %[[PI]][%[[J]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:         %[[X:.*]] = llvm.load %[[PJ]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:         llvm.store %[[X]], %[[PI]] {alignment = 16 : i64} : f32, !llvm.ptr<1>
// CHECK:         llvm.store %[[V]], %[[PI]] : vector<4xf32>, !llvm.ptr<1>
// CHECK:         %[[BIG:.*]] = llvm.mlir.constant(4294967296 : i64) : i64
// CHECK:         llvm.getelementptr inbounds %[[G]][%[[BIG]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NOT:     fly.
// CHECK:         return %[[V]]
func.func @pointers(%g: !llvm.ptr<1>, %i: i32, %j: i64) -> vector<4xf32> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %c0 = fly.static : !fly.int_tuple<0>
  %c8 = fly.static : !fly.int_tuple<8>
  %p0 = fly.add_offset(%p, %c0) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<0>)
  %p8 = fly.add_offset(%p0, %c8) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<8>)
  %it = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<?{div=4}>
  %pi = fly.add_offset(%p8, %it) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?{div=4}>)
  %v = fly.ptr.load(%pi) : (!fly.ptr<f32, global, align<16>>) -> vector<4xf32>
  %pj = fly.add_offset(%pi, %j) : (!fly.ptr<f32, global, align<16>>, i64)
  %x = fly.ptr.load(%pj) : (!fly.ptr<f32, global>) -> f32
  fly.ptr.store(%x, %pi) : (f32, !fly.ptr<f32, global, align<16>>)
  %raw = fly.ptr.to_llvm(%pi) : (!fly.ptr<f32, global, align<16>>)
  llvm.store %v, %raw : vector<4xf32>, !llvm.ptr<1>
  %c4g = fly.static : !fly.int_tuple<4294967296>
  %pbig = fly.add_offset(%p, %c4g) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<4294967296>)
  %y = fly.ptr.load(%pbig) : (!fly.ptr<f32, global, align<16>>) -> f32
  return %v : vector<4xf32>
}

// -----

// The address spaces: generic 0, shared 3, register 5.
// CHECK-LABEL: func.func @spaces
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> vector<2xf32>
// CHECK:         llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> f16
// CHECK:         llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<5> -> i8
func.func @spaces(%a: !llvm.ptr, %b: !llvm.ptr<3>, %c: !llvm.ptr<5>) -> (vector<2xf32>, f16, i8) {
  %pa = fly.make_ptr(%a) : (!llvm.ptr) -> !fly.ptr<vector<2xf32>, generic>
  %pb = fly.make_ptr(%b) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared>
  %pc = fly.make_ptr(%c) : (!llvm.ptr<5>) -> !fly.ptr<i8, register>
  %x = fly.ptr.load(%pa) : (!fly.ptr<vector<2xf32>, generic>) -> vector<2xf32>
  %y = fly.ptr.load(%pb) : (!fly.ptr<f16, shared>) -> f16
  %z = fly.ptr.load(%pc) : (!fly.ptr<i8, register>) -> i8
  return %x, %y, %z : vector<2xf32>, f16, i8
}

// -----

// A swizzle xors bits of the byte address, computed in the width of the
// address space (32 bits for LDS, 64 for global), and moves the pointer by
// the difference. S<3,4,3> reads the bits 7..9 (mask 896) and xors them into
// bits 4..6; S<2,4,-2> reads bits 4..5 (mask 48) and xors them into 6..7.
// CHECK-LABEL: func.func @swizzle
// CHECK-SAME:    (%[[S:.*]]: !llvm.ptr<3>, %[[G:.*]]: !llvm.ptr<1>)
// CHECK:         %[[A:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK:         %[[M:.*]] = arith.constant 896 : i32
// CHECK:         %[[R:.*]] = arith.andi %[[A]], %[[M]] : i32
// CHECK:         %[[C3:.*]] = arith.constant 3 : i32
// CHECK:         %[[SH:.*]] = arith.shrui %[[R]], %[[C3]] : i32
// CHECK:         %[[X:.*]] = arith.xori %[[A]], %[[SH]] : i32
// CHECK:         %[[D:.*]] = arith.subi %[[X]], %[[A]] : i32
// CHECK:         %[[P:.*]] = llvm.getelementptr %[[S]][%[[D]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:         llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK:         %[[GA:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr<1> to i64
// CHECK:         arith.constant 48 : i64
// CHECK:         %[[L:.*]] = arith.shli %{{.*}}, %{{.*}} : i64
// CHECK:         arith.xori %[[GA]], %[[L]] : i64
// CHECK:         llvm.getelementptr %[[G]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
func.func @swizzle(%s: !llvm.ptr<3>, %g: !llvm.ptr<1>) -> (vector<8xf16>, f32) {
  %p = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
  %sw = fly.static : !fly.swizzle<S<3,4,3>>
  %q = fly.apply_swizzle(%p, %sw) : (!fly.ptr<f16, shared, align<16>>, !fly.swizzle<S<3,4,3>>)
  %v = fly.ptr.load(%q) : (!fly.ptr<f16, shared, align<16>>) -> vector<8xf16>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<4>>
  %swl = fly.static : !fly.swizzle<S<2,4,-2>>
  %qg = fly.apply_swizzle(%pg, %swl) : (!fly.ptr<f32, global, align<4>>, !fly.swizzle<S<2,4,-2>>)
  %x = fly.ptr.load(%qg) : (!fly.ptr<f32, global, align<4>>) -> f32
  return %v, %x : vector<8xf16>, f32
}

// -----

// The dynamic shared memory is one external zero-sized LDS global per
// gpu.module, aligned to the largest alignment asked for; a register
// fragment is an alloca of its cosize in the entry block, in address space
// 5; a memref built with make_view is its pointer.
// CHECK-LABEL: gpu.module @shared
// CHECK:         llvm.mlir.global external @__fly_dyn_shared() {addr_space = 3 : i32, alignment = 64 : i64} : !llvm.array<0 x i8>
// CHECK-NOT:     llvm.mlir.global
// CHECK:         gpu.func @k
// CHECK-NEXT:      %[[N:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:      %[[F:.*]] = llvm.alloca %[[N]] x f32 {alignment = 4 : i64} : (i32) -> !llvm.ptr<5>
// CHECK:           %[[D:.*]] = llvm.mlir.addressof @__fly_dyn_shared : !llvm.ptr<3>
// CHECK:           scf.if
// CHECK:             %[[E:.*]] = llvm.mlir.addressof @__fly_dyn_shared : !llvm.ptr<3>
// CHECK:             llvm.store %{{.*}}, %[[E]] {alignment = 64 : i64} : i8, !llvm.ptr<3>
// CHECK:           %[[X:.*]] = llvm.load %[[D]] {alignment = 16 : i64} : !llvm.ptr<3> -> f32
// CHECK:           %[[F7:.*]] = llvm.getelementptr inbounds %[[F]][7] : (!llvm.ptr<5>) -> !llvm.ptr<5>, f32
// CHECK:           llvm.store %[[X]], %[[F7]] {alignment = 4 : i64} : f32, !llvm.ptr<5>
// CHECK-NOT:       fly.
// CHECK:           gpu.return
gpu.module @shared {
  gpu.func @k(%c: i1, %b: i8) kernel {
    %d = fly.get_dyn_shared : !fly.ptr<f32, shared, align<16>>
    scf.if %c {
      %e = fly.get_dyn_shared : !fly.ptr<i8, shared, align<64>>
      fly.ptr.store(%b, %e) : (i8, !fly.ptr<i8, shared, align<64>>)
    }
    %f = fly.memref.alloca : !fly.memref<f32, register, (4,2):(1,4)>
    %fp = fly.get_iter(%f) : (!fly.memref<f32, register, (4,2):(1,4)>)
    %x = fly.ptr.load(%d) : (!fly.ptr<f32, shared, align<16>>) -> f32
    %c7 = fly.static : !fly.int_tuple<7>
    %f7 = fly.add_offset(%fp, %c7) : (!fly.ptr<f32, register>, !fly.int_tuple<7>)
    fly.ptr.store(%x, %f7) : (f32, !fly.ptr<f32, register>)
    gpu.return
  }
}

// -----

// A memref view is its pointer: the dynamic layout it was built with goes
// away with its construction ops.
// CHECK-LABEL: func.func @view
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32)
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[G]] {alignment = 16 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT:    return %[[X]]
func.func @view(%g: !llvm.ptr<1>, %n: i32) -> f32 {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(4,?)>
  %l = fly.make_layout(%s) : (!fly.int_tuple<(4,?)>)
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4,?):(1,4)>)
  %q = fly.get_iter(%m) : (!fly.memref<f32, global, (4,?):(1,4), align<16>>)
  %x = fly.ptr.load(%q) : (!fly.ptr<f32, global, align<16>>) -> f32
  return %x : f32
}

// -----

// extract_aligned_pointer_as_index (FlyDSL's) is the memref's pointer, cast
// to the generic address space when asked for that one.
// CHECK-LABEL: func.func @extract_aligned_pointer
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32)
// CHECK-NEXT:    %[[GEN:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<1> to !llvm.ptr
// CHECK-NEXT:    return %[[GEN]], %[[G]] : !llvm.ptr, !llvm.ptr<1>
func.func @extract_aligned_pointer(%g: !llvm.ptr<1>, %n: i32) -> (!llvm.ptr, !llvm.ptr<1>) {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(4,?)>
  %l = fly.make_layout(%s) : (!fly.int_tuple<(4,?)>)
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4,?):(1,4)>)
  %generic = fly.extract_aligned_pointer_as_index(%m) : (!fly.memref<f32, global, (4,?):(1,4), align<16>>) -> !llvm.ptr
  %global = fly.extract_aligned_pointer_as_index(%m) : (!fly.memref<f32, global, (4,?):(1,4), align<16>>) -> !llvm.ptr<1>
  return %generic, %global : !llvm.ptr, !llvm.ptr<1>
}

// -----

// A generic memref's pointer cast to the global space, as mem_ops'
// get_llvm_ptr asks for.
// CHECK-LABEL: func.func @extract_global_pointer_of_generic
// CHECK-SAME:    (%[[P:.*]]: !llvm.ptr)
// CHECK-NEXT:    %[[G:.*]] = llvm.addrspacecast %[[P]] : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT:    return %[[G]] : !llvm.ptr<1>
func.func @extract_global_pointer_of_generic(%raw: !llvm.ptr) -> !llvm.ptr<1> {
  %p = fly.make_ptr(%raw) : (!llvm.ptr) -> !fly.ptr<i8, generic>
  %l = fly.static : !fly.layout<16:1>
  %m = fly.make_view(%p, %l) : (!fly.ptr<i8, generic>, !fly.layout<16:1>)
  %g = fly.extract_aligned_pointer_as_index(%m) : (!fly.memref<i8, generic, 16:1>) -> !llvm.ptr<1>
  return %g : !llvm.ptr<1>
}

// -----

// Pointers carried by structured control flow are converted with it.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[R:.*]] = scf.for %{{.*}} iter_args(%[[Q:.*]] = %{{.*}}) -> (!llvm.ptr<1>)
// CHECK:           %[[Q4:.*]] = llvm.getelementptr inbounds %[[Q]][4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK:           scf.yield %[[Q4]] : !llvm.ptr<1>
// CHECK:         llvm.load %[[R]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
func.func @loop(%g: !llvm.ptr<1>, %n: index) -> f32 {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %four = fly.static : !fly.int_tuple<4>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%q = %p) -> (!fly.ptr<f32, global>) {
    %q4 = fly.add_offset(%q, %four) : (!fly.ptr<f32, global>, !fly.int_tuple<4>)
    scf.yield %q4 : !fly.ptr<f32, global>
  }
  %x = fly.ptr.load(%r) : (!fly.ptr<f32, global>) -> f32
  return %x : f32
}
