// RUN: fly-opt %s --fly-promote-regmem-to-vectorssa | FileCheck %s --implicit-check-not=fly.memref --implicit-check-not=register
// RUN: fly-opt %s --fly-promote-regmem-to-vectorssa --convert-fly-to-rocdl --canonicalize | FileCheck %s --check-prefix=LLVM --implicit-check-not=llvm.alloca

// fly-promote-regmem-to-vectorssa: a register fragment becomes values that
// start as zeros. When every access is at a static offset, the storage is
// cut at the bounds of every access into pieces, one vector<n x T> value
// each: an access to one piece is that value, a wider load joins pieces
// with vector.shuffle, a wider store is sliced. Otherwise it is one
// vector<cosize x T>: loads are extracts, stores inserts (strided slices for
// vectors at static offsets, one dynamic position per element otherwise).
// Loops and ifs that store into it carry the values. No fragment memory is
// left (no memref, no register pointer: the implicit CHECK-NOTs), so the
// lowering to LLVM has no stack allocation.

// Static offsets, added up along add_offset chains; cosize((4,2):(1,4)) = 8.
// The accesses cut the 8 scalars into [0,1) [1,4) [4,5) [5,6) [6,8): the
// store at 4 is sliced into the last three, the 2-wide load at 4 joins two.
// CHECK-LABEL: func.func @straight_line
// CHECK-SAME:    (%[[X:.*]]: f32, %[[V:.*]]: vector<4xf32>)
// CHECK-DAG:     arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK-DAG:     arith.constant dense<0.000000e+00> : vector<3xf32>
// CHECK-DAG:     arith.constant dense<0.000000e+00> : vector<2xf32>
// CHECK:         %[[P4:.*]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [1], strides = [1]} : vector<4xf32> to vector<1xf32>
// CHECK:         %[[P5:.*]] = vector.extract_strided_slice %[[V]] {offsets = [1], sizes = [1], strides = [1]} : vector<4xf32> to vector<1xf32>
// CHECK:         vector.extract_strided_slice %[[V]] {offsets = [2], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
// CHECK:         %[[P0:.*]] = vector.from_elements %[[X]] : vector<1xf32>
// CHECK:         %[[A:.*]] = vector.extract %[[P5]][0] : f32 from vector<1xf32>
// CHECK:         %[[B:.*]] = vector.shuffle %[[P4]], %[[P5]] [0, 1] : vector<1xf32>, vector<1xf32>
// CHECK:         %[[C:.*]] = vector.extract %[[P0]][0] : f32 from vector<1xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
// CHECK-NOT:     fly.memref.alloca
// CHECK-NOT:     fly.ptr.
func.func @straight_line(%x: f32, %v: vector<4xf32>) -> (f32, vector<2xf32>, f32) {
  %f = fly.memref.alloca : !fly.memref<f32, register, (4,2):(1,4)>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, (4,2):(1,4)>) -> !fly.ptr<f32, register>
  %c4 = fly.static : !fly.int_tuple<4>
  %p4 = fly.add_offset(%p, %c4) : (!fly.ptr<f32, register>, !fly.int_tuple<4>) -> !fly.ptr<f32, register>
  fly.ptr.store(%v, %p4) : (vector<4xf32>, !fly.ptr<f32, register>)
  fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  %c1 = fly.static : !fly.int_tuple<1>
  %p5 = fly.add_offset(%p4, %c1) : (!fly.ptr<f32, register>, !fly.int_tuple<1>) -> !fly.ptr<f32, register>
  %a = fly.ptr.load(%p5) : (!fly.ptr<f32, register>) -> f32
  %b = fly.ptr.load(%p4) : (!fly.ptr<f32, register>) -> vector<2xf32>
  %c = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %a, %b, %c : f32, vector<2xf32>, f32
}

// A view of a pointer into the fragment is that pointer; a dead user of
// the fragment goes away. The 2-wide load joins the stored piece and the
// zeros after it.
// CHECK-LABEL: func.func @view_and_dead_user
// CHECK-SAME:    (%[[X:.*]]: f16)
// CHECK-DAG:     %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf16>
// CHECK:         %[[S:.*]] = vector.from_elements %[[X]] : vector<1xf16>
// CHECK-NEXT:    %[[R:.*]] = vector.shuffle %[[S]], %[[Z]] [0, 1] : vector<1xf16>, vector<1xf16>
// CHECK-NEXT:    return %[[R]]
func.func @view_and_dead_user(%x: f16) -> vector<2xf16> {
  %f = fly.memref.alloca : !fly.memref<f16, register, (2,2):(1,2)>
  %unused = fly.get_layout(%f) : (!fly.memref<f16, register, (2,2):(1,2)>) -> !fly.layout<(2,2):(1,2)>
  %p = fly.get_iter(%f) : (!fly.memref<f16, register, (2,2):(1,2)>) -> !fly.ptr<f16, register>
  %c2 = fly.static : !fly.int_tuple<2>
  %q = fly.add_offset(%p, %c2) : (!fly.ptr<f16, register>, !fly.int_tuple<2>) -> !fly.ptr<f16, register>
  %l = fly.static : !fly.layout<2:1>
  %m = fly.make_view(%q, %l) : (!fly.ptr<f16, register>, !fly.layout<2:1>) -> !fly.memref<f16, register, 2:1>
  %r = fly.get_iter(%m) : (!fly.memref<f16, register, 2:1>) -> !fly.ptr<f16, register>
  fly.ptr.store(%x, %r) : (f16, !fly.ptr<f16, register>)
  %v = fly.ptr.load(%r) : (!fly.ptr<f16, register>) -> vector<2xf16>
  return %v : vector<2xf16>
}

// Dynamic offsets (an int_tuple leaf, a plain i64) are index positions; a
// vector access at one is an access per element.
// CHECK-LABEL: func.func @dynamic_offset
// CHECK-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i64, %[[X:.*]]: f32, %[[V:.*]]: vector<2xf32>)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK:         %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:         %[[S1:.*]] = vector.insert %[[X]], %[[Z]] [%[[II]]] : f32 into vector<8xf32>
// CHECK:         %[[II2:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:         %[[P2:.*]] = arith.addi %[[II2]], %{{.*}} : index
// CHECK:         %[[E0:.*]] = vector.extract %[[V]][0] : f32 from vector<2xf32>
// CHECK:         %[[S2:.*]] = vector.insert %[[E0]], %[[S1]] [%[[P2]]] : f32 into vector<8xf32>
// CHECK:         %[[E1:.*]] = vector.extract %[[V]][1] : f32 from vector<2xf32>
// CHECK:         %[[P3:.*]] = arith.addi %[[P2]], %{{.*}} : index
// CHECK:         %[[S3:.*]] = vector.insert %[[E1]], %[[S2]] [%[[P3]]] : f32 into vector<8xf32>
// CHECK:         %[[JI:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK:         %[[A:.*]] = vector.extract %[[S3]][%[[JI]]] : f32 from vector<8xf32>
// CHECK:         %[[II3:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:         %[[B0:.*]] = vector.extract %[[S3]][%[[II3]]] : f32 from vector<8xf32>
// CHECK:         %[[P4:.*]] = arith.addi %[[II3]], %{{.*}} : index
// CHECK:         %[[B1:.*]] = vector.extract %[[S3]][%[[P4]]] : f32 from vector<8xf32>
// CHECK:         %[[B:.*]] = vector.from_elements %[[B0]], %[[B1]] : vector<2xf32>
// CHECK:         return %[[A]], %[[B]]
func.func @dynamic_offset(%i: i32, %j: i64, %x: f32, %v: vector<2xf32>) -> (f32, vector<2xf32>) {
  %f = fly.memref.alloca : !fly.memref<f32, register, 8:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 8:1>) -> !fly.ptr<f32, register>
  %it = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<?>
  %q = fly.add_offset(%p, %it) : (!fly.ptr<f32, register>, !fly.int_tuple<?>) -> !fly.ptr<f32, register>
  fly.ptr.store(%x, %q) : (f32, !fly.ptr<f32, register>)
  %c2 = fly.static : !fly.int_tuple<2>
  %q2 = fly.add_offset(%q, %c2) : (!fly.ptr<f32, register>, !fly.int_tuple<2>) -> !fly.ptr<f32, register>
  fly.ptr.store(%v, %q2) : (vector<2xf32>, !fly.ptr<f32, register>)
  %r = fly.add_offset(%p, %j) : (!fly.ptr<f32, register>, i64) -> !fly.ptr<f32, register>
  %a = fly.ptr.load(%r) : (!fly.ptr<f32, register>) -> f32
  %b = fly.ptr.load(%q) : (!fly.ptr<f32, register>) -> vector<2xf32>
  return %a, %b : f32, vector<2xf32>
}

// A GEMM-like accumulator: zeroed, then loaded, added to and stored back
// every iteration; the loop carries it and its result is the final value.
// Every access covers the one piece: no slice or insert is left, and the
// loop starts from the stored zeros (the second constant; the first is the
// pass's).
// CHECK-LABEL: func.func @accumulate
// CHECK:         arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[INIT:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>) {
// CHECK-NEXT:      %[[A:.*]] = fly.ptr.load(%{{.*}}) : (!fly.ptr<f32, global, align<16>>) -> vector<4xf32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[ACC]], %[[A]] : vector<4xf32>
// CHECK-NEXT:      scf.yield %[[NEW]] : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @accumulate(%g: !llvm.ptr<1>, %n: index) -> vector<4xf32> {
  %src = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %acc = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%acc) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  fly.ptr.store(%zero, %p) : (vector<4xf32>, !fly.ptr<f32, register>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %a = fly.ptr.load(%src) : (!fly.ptr<f32, global, align<16>>) -> vector<4xf32>
    %old = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
    %new = arith.addf %old, %a : vector<4xf32>
    fly.ptr.store(%new, %p) : (vector<4xf32>, !fly.ptr<f32, register>)
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
  return %r : vector<4xf32>
}

// Nested loops: the inner loop's results are what the outer body reads
// after it and yields; the existing iteration argument stays first. Each
// element is a piece: both loops carry both.
// CHECK-LABEL: func.func @nested_for
// CHECK-SAME:    (%[[X:.*]]: f32, %[[N:.*]]: index, %[[S:.*]]: f32)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK:         %[[OUTER:.*]]:3 = scf.for %{{.*}} iter_args(%[[SUM:.*]] = %[[S]], %[[F0:.*]] = %[[Z]], %[[F1:.*]] = %[[Z]]) -> (f32, vector<1xf32>, vector<1xf32>) {
// CHECK:           %[[INNER:.*]]:2 = scf.for %{{.*}} iter_args(%[[G0:.*]] = %[[F0]], %[[G1:.*]] = %[[F1]]) -> (vector<1xf32>, vector<1xf32>) {
// CHECK:             %[[OLD:.*]] = vector.extract %[[G0]][0] : f32 from vector<1xf32>
// CHECK:             %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f32
// CHECK:             %[[UPD:.*]] = vector.from_elements %[[NEW]] : vector<1xf32>
// CHECK:             scf.yield %[[UPD]], %[[G1]] : vector<1xf32>, vector<1xf32>
// CHECK:           }
// CHECK:           %[[SEEN:.*]] = vector.extract %[[INNER]]#1[0] : f32 from vector<1xf32>
// CHECK:           %[[NEXT:.*]] = arith.addf %[[SUM]], %[[SEEN]] : f32
// CHECK:           scf.yield %[[NEXT]], %[[INNER]]#0, %[[INNER]]#1 : f32, vector<1xf32>, vector<1xf32>
// CHECK:         }
// CHECK:         %[[R:.*]] = vector.extract %[[OUTER]]#1[0] : f32 from vector<1xf32>
// CHECK:         return %[[R]], %[[OUTER]]#0
func.func @nested_for(%x: f32, %n: index, %s: f32) -> (f32, f32) {
  %f = fly.memref.alloca : !fly.memref<f32, register, 2:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 2:1>) -> !fly.ptr<f32, register>
  %c1t = fly.static : !fly.int_tuple<1>
  %p1 = fly.add_offset(%p, %c1t) : (!fly.ptr<f32, register>, !fly.int_tuple<1>) -> !fly.ptr<f32, register>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (f32) {
    scf.for %j = %c0 to %n step %c1 {
      %old = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
      %new = arith.addf %old, %x : f32
      fly.ptr.store(%new, %p) : (f32, !fly.ptr<f32, register>)
    }
    %seen = fly.ptr.load(%p1) : (!fly.ptr<f32, register>) -> f32
    %next = arith.addf %acc, %seen : f32
    scf.yield %next : f32
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r, %sum : f32, f32
}

// Both branches store: each yields the pieces as more results.
// CHECK-LABEL: func.func @if_then_else
// CHECK-SAME:    (%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK:         %[[IF:.*]]:3 = scf.if %[[C]] -> (i32, vector<1xf32>, vector<1xf32>) {
// CHECK:           %[[T:.*]] = vector.from_elements %[[X]] : vector<1xf32>
// CHECK:           scf.yield %{{.*}}, %[[T]], %[[Z]] : i32, vector<1xf32>, vector<1xf32>
// CHECK:         } else {
// CHECK:           %[[E:.*]] = vector.from_elements %[[Y]] : vector<1xf32>
// CHECK:           scf.yield %{{.*}}, %[[Z]], %[[E]] : i32, vector<1xf32>, vector<1xf32>
// CHECK:         }
// CHECK:         %[[R:.*]] = vector.extract %[[IF]]#1[0] : f32 from vector<1xf32>
// CHECK:         return %[[R]], %[[IF]]#0
func.func @if_then_else(%c: i1, %x: f32, %y: f32) -> (f32, i32) {
  %f = fly.memref.alloca : !fly.memref<f32, register, 2:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 2:1>) -> !fly.ptr<f32, register>
  %k = scf.if %c -> (i32) {
    fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
    %one = arith.constant 1 : i32
    scf.yield %one : i32
  } else {
    %c1t = fly.static : !fly.int_tuple<1>
    %p1 = fly.add_offset(%p, %c1t) : (!fly.ptr<f32, register>, !fly.int_tuple<1>) -> !fly.ptr<f32, register>
    fly.ptr.store(%y, %p1) : (f32, !fly.ptr<f32, register>)
    %two = arith.constant 2 : i32
    scf.yield %two : i32
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r, %k : f32, i32
}

// An if without else gets one that yields the pieces unchanged.
// CHECK-LABEL: func.func @if_then
// CHECK-SAME:    (%[[C:.*]]: i1, %[[X:.*]]: f32)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK:         %[[S:.*]] = vector.from_elements %[[X]] : vector<1xf32>
// CHECK:         %[[IF:.*]]:2 = scf.if %[[C]] -> (vector<1xf32>, vector<1xf32>) {
// CHECK:           %[[D:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK:           %[[T:.*]] = vector.from_elements %[[D]] : vector<1xf32>
// CHECK:           scf.yield %[[T]], %[[Z]] : vector<1xf32>, vector<1xf32>
// CHECK:         } else {
// CHECK:           scf.yield %[[S]], %[[Z]] : vector<1xf32>, vector<1xf32>
// CHECK:         }
// CHECK:         %[[R:.*]] = vector.extract %[[IF]]#0[0] : f32 from vector<1xf32>
// CHECK:         return %[[R]]
func.func @if_then(%c: i1, %x: f32) -> f32 {
  %f = fly.memref.alloca : !fly.memref<f32, register, 2:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 2:1>) -> !fly.ptr<f32, register>
  fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  scf.if %c {
    %d = arith.addf %x, %x : f32
    fly.ptr.store(%d, %p) : (f32, !fly.ptr<f32, register>)
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r : f32
}

// Regions that only read the fragment, a loop or an op the pass does not
// know, use the values that dominate them: the loop gets no argument.
// CHECK-LABEL: func.func @read_only_regions
// CHECK-SAME:    (%[[X:.*]]: f32, %[[N:.*]]: index, %{{.*}}: !llvm.ptr<1>)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK:         %[[S:.*]] = vector.from_elements %[[X]] : vector<1xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:      %[[V:.*]] = vector.extract %[[S]][0] : f32 from vector<1xf32>
// CHECK-NEXT:      fly.ptr.store(%[[V]], %{{.*}}) : (f32, !fly.ptr<f32, global>)
// CHECK-NEXT:    }
// CHECK:         %[[W:.*]] = scf.execute_region -> f32 {
// CHECK-NEXT:      %[[E:.*]] = vector.extract %[[Z]][0] : f32 from vector<1xf32>
// CHECK-NEXT:      scf.yield %[[E]] : f32
// CHECK-NEXT:    }
// CHECK:         return %[[W]]
func.func @read_only_regions(%x: f32, %n: index, %g: !llvm.ptr<1>) -> f32 {
  %dst = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %f = fly.memref.alloca : !fly.memref<f32, register, 2:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 2:1>) -> !fly.ptr<f32, register>
  fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
    fly.ptr.store(%v, %dst) : (f32, !fly.ptr<f32, global>)
  }
  %w = scf.execute_region -> f32 {
    %c1t = fly.static : !fly.int_tuple<1>
    %p1 = fly.add_offset(%p, %c1t) : (!fly.ptr<f32, register>, !fly.int_tuple<1>) -> !fly.ptr<f32, register>
    %e = fly.ptr.load(%p1) : (!fly.ptr<f32, register>) -> f32
    scf.yield %e : f32
  }
  return %w : f32
}

// Two fragments written in the same loop: iteration arguments for the
// pieces of each (2 = 1 + 1 scalars, 4 = 1 + 3).
// CHECK-LABEL: func.func @two_fragments
// CHECK-SAME:    (%[[X:.*]]: f32, %[[N:.*]]: index)
// CHECK:         %[[L:.*]]:4 = scf.for %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[B1:.*]] = %{{.*}}) -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<3xf32>) {
// CHECK:           %[[VA:.*]] = vector.extract %[[A]][0] : f32 from vector<1xf32>
// CHECK:           %[[S:.*]] = arith.addf %[[VA]], %[[X]] : f32
// CHECK:           %[[A2:.*]] = vector.from_elements %[[S]] : vector<1xf32>
// CHECK:           %[[VB:.*]] = vector.extract %[[B]][0] : f32 from vector<1xf32>
// CHECK:           %[[T:.*]] = arith.mulf %[[VB]], %[[S]] : f32
// CHECK:           %[[B2:.*]] = vector.from_elements %[[T]] : vector<1xf32>
// CHECK:           scf.yield %[[A2]], %[[A1]], %[[B2]], %[[B1]] : vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<3xf32>
// CHECK:         }
// CHECK:         %[[RA:.*]] = vector.extract %[[L]]#0[0] : f32 from vector<1xf32>
// CHECK:         %[[RB:.*]] = vector.extract %[[L]]#2[0] : f32 from vector<1xf32>
// CHECK:         return %[[RA]], %[[RB]]
func.func @two_fragments(%x: f32, %n: index) -> (f32, f32) {
  %a = fly.memref.alloca : !fly.memref<f32, register, 2:1>
  %b = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %pa = fly.get_iter(%a) : (!fly.memref<f32, register, 2:1>) -> !fly.ptr<f32, register>
  %pb = fly.get_iter(%b) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %va = fly.ptr.load(%pa) : (!fly.ptr<f32, register>) -> f32
    %s = arith.addf %va, %x : f32
    fly.ptr.store(%s, %pa) : (f32, !fly.ptr<f32, register>)
    %vb = fly.ptr.load(%pb) : (!fly.ptr<f32, register>) -> f32
    %t = arith.mulf %vb, %s : f32
    fly.ptr.store(%t, %pb) : (f32, !fly.ptr<f32, register>)
  }
  %ra = fly.ptr.load(%pa) : (!fly.ptr<f32, register>) -> f32
  %rb = fly.ptr.load(%pb) : (!fly.ptr<f32, register>) -> f32
  return %ra, %rb : f32, f32
}

// A dynamic offset made of a loop's induction variable: the loop is
// rebuilt, and the offset read from the new one.
// CHECK-LABEL: func.func @offset_in_loop
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[F:.*]] = %{{.*}}) -> (vector<4xf32>) : i32 {
// CHECK:           %[[KI:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK:           %[[U:.*]] = vector.insert %{{.*}}, %[[F]] [%[[KI]]] : f32 into vector<4xf32>
// CHECK:           scf.yield %[[U]] : vector<4xf32>
func.func @offset_in_loop(%x: f32) -> vector<4xf32> {
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %kt = fly.make_int_tuple(%k) : (i32) -> !fly.int_tuple<?>
    %q = fly.add_offset(%p, %kt) : (!fly.ptr<f32, register>, !fly.int_tuple<?>) -> !fly.ptr<f32, register>
    fly.ptr.store(%x, %q) : (f32, !fly.ptr<f32, register>)
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
  return %r : vector<4xf32>
}

// scf.while: both regions take the pieces; the condition passes them on,
// so they are also the results.
// CHECK-LABEL: func.func @while_loop
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// CHECK:         %[[W:.*]]:2 = scf.while (%{{.*}} = %{{.*}}, %[[B:.*]] = %[[Z]]) : (i32, vector<1xf32>) -> (i32, vector<1xf32>) {
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %[[B]] : i32, vector<1xf32>
// CHECK:         } do {
// CHECK:         ^bb0(%{{.*}}: i32, %[[A:.*]]: vector<1xf32>):
// CHECK:           %[[OLD:.*]] = vector.extract %[[A]][0] : f32 from vector<1xf32>
// CHECK:           %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK:           %[[UPD:.*]] = vector.from_elements %[[NEW]] : vector<1xf32>
// CHECK:           scf.yield %{{.*}}, %[[UPD]] : i32, vector<1xf32>
// CHECK:         }
// CHECK:         %[[R:.*]] = vector.extract %[[W]]#1[0] : f32 from vector<1xf32>
// CHECK:         return %[[R]]
func.func @while_loop(%x: f32, %n: i32) -> f32 {
  %f = fly.memref.alloca : !fly.memref<f32, register, 1:0>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 1:0>) -> !fly.ptr<f32, register>
  %c0 = arith.constant 0 : i32
  %w = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%i: i32):
    %old = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
    %new = arith.addf %old, %x : f32
    fly.ptr.store(%new, %p) : (f32, !fly.ptr<f32, register>)
    %c1 = arith.constant 1 : i32
    %next = arith.addi %i, %c1 : i32
    scf.yield %next : i32
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r : f32
}

// Vector elements are stored flattened: element i is scalars [2i, 2i+2).
// CHECK-LABEL: func.func @vector_elements
// CHECK-SAME:    (%[[X:.*]]: vector<2xf16>, %[[I:.*]]: i32)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf16>
// CHECK:         %[[S:.*]] = vector.insert_strided_slice %[[X]], %[[Z]] {offsets = [6], strides = [1]} : vector<2xf16> into vector<8xf16>
// CHECK:         %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:         %[[P:.*]] = arith.muli %[[II]], %{{.*}} : index
// CHECK:         %[[E0:.*]] = vector.extract %[[S]][%[[P]]] : f16 from vector<8xf16>
// CHECK:         %[[P1:.*]] = arith.addi %[[P]], %{{.*}} : index
// CHECK:         %[[E1:.*]] = vector.extract %[[S]][%[[P1]]] : f16 from vector<8xf16>
// CHECK:         %[[R:.*]] = vector.from_elements %[[E0]], %[[E1]] : vector<2xf16>
// CHECK:         return %[[R]]
func.func @vector_elements(%x: vector<2xf16>, %i: i32) -> vector<2xf16> {
  %f = fly.memref.alloca : !fly.memref<vector<2xf16>, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<vector<2xf16>, register, 4:1>) -> !fly.ptr<vector<2xf16>, register>
  %c3 = fly.static : !fly.int_tuple<3>
  %q = fly.add_offset(%p, %c3) : (!fly.ptr<vector<2xf16>, register>, !fly.int_tuple<3>) -> !fly.ptr<vector<2xf16>, register>
  fly.ptr.store(%x, %q) : (vector<2xf16>, !fly.ptr<vector<2xf16>, register>)
  %r = fly.add_offset(%p, %i) : (!fly.ptr<vector<2xf16>, register>, i32) -> !fly.ptr<vector<2xf16>, register>
  %v = fly.ptr.load(%r) : (!fly.ptr<vector<2xf16>, register>) -> vector<2xf16>
  return %v : vector<2xf16>
}

// Two accumulator tiles of one fragment, each read and written by one
// update per iteration: two pieces, two independent iteration arguments.
// After the loop one 8-wide load joins them; an 8-wide store is sliced into
// the pieces the 4-wide loads read.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME:    (%[[A:.*]]: vector<4xf32>, %[[W:.*]]: vector<8xf32>, %[[N:.*]]: index)
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[L:.*]]:2 = scf.for %{{.*}} iter_args(%[[T0:.*]] = %[[Z]], %[[T1:.*]] = %[[Z]]) -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT:      %[[U0:.*]] = arith.addf %[[T0]], %[[A]] : vector<4xf32>
// CHECK-NEXT:      %[[U1:.*]] = arith.mulf %[[T1]], %[[A]] : vector<4xf32>
// CHECK-NEXT:      scf.yield %[[U0]], %[[U1]] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ALL:.*]] = vector.shuffle %[[L]]#0, %[[L]]#1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:    %[[W0:.*]] = vector.extract_strided_slice %[[W]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK-NEXT:    %[[W1:.*]] = vector.extract_strided_slice %[[W]] {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK-NEXT:    return %[[ALL]], %[[W1]], %[[W0]]
func.func @tiles(%a: vector<4xf32>, %w: vector<8xf32>, %n: index) -> (vector<8xf32>, vector<4xf32>, vector<4xf32>) {
  %f = fly.memref.alloca : !fly.memref<f32, register, 8:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 8:1>) -> !fly.ptr<f32, register>
  %c4t = fly.static : !fly.int_tuple<4>
  %p4 = fly.add_offset(%p, %c4t) : (!fly.ptr<f32, register>, !fly.int_tuple<4>) -> !fly.ptr<f32, register>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %t0 = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
    %u0 = arith.addf %t0, %a : vector<4xf32>
    fly.ptr.store(%u0, %p) : (vector<4xf32>, !fly.ptr<f32, register>)
    %t1 = fly.ptr.load(%p4) : (!fly.ptr<f32, register>) -> vector<4xf32>
    %u1 = arith.mulf %t1, %a : vector<4xf32>
    fly.ptr.store(%u1, %p4) : (vector<4xf32>, !fly.ptr<f32, register>)
  }
  %all = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<8xf32>
  fly.ptr.store(%w, %p) : (vector<8xf32>, !fly.ptr<f32, register>)
  %r1 = fly.ptr.load(%p4) : (!fly.ptr<f32, register>) -> vector<4xf32>
  %r0 = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
  return %all, %r1, %r0 : vector<8xf32>, vector<4xf32>, vector<4xf32>
}

// A kernel: after the lowering to LLVM, no stack memory is left.
// LLVM-LABEL: gpu.func @kernel
// LLVM:         scf.for
// LLVM:           llvm.load %{{.*}} : !llvm.ptr<1> -> vector<4xf32>
// LLVM:           arith.addf
// LLVM:         llvm.store %{{.*}}, %{{.*}} : vector<4xf32>, !llvm.ptr<1>
// LLVM:         gpu.return
gpu.module @kernels {
  gpu.func @kernel(%g: !llvm.ptr<1>, %n: index) kernel {
    %gp = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %acc = fly.memref.alloca : !fly.memref<f32, register, 4:1>
    %p = fly.get_iter(%acc) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %a = fly.ptr.load(%gp) : (!fly.ptr<f32, global, align<16>>) -> vector<4xf32>
      %old = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
      %new = arith.addf %old, %a : vector<4xf32>
      fly.ptr.store(%new, %p) : (vector<4xf32>, !fly.ptr<f32, register>)
    }
    %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> vector<4xf32>
    fly.ptr.store(%r, %gp) : (vector<4xf32>, !fly.ptr<f32, global, align<16>>)
    gpu.return
  }
}
