// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl | FileCheck %s

// convert-fly-to-rocdl on the target-neutral atom calls. Their memref
// operands are views with a plain layout over contiguous values, so the
// values are one vector access at the view's pointer, with the alignment
// its pointer type proves (never more).

// A 128-bit copy of f32 from global memory to values: one vector<4xf32>
// load, 16-byte aligned; the atom and the view's layout go away.
// CHECK-LABEL: func.func @copy_load_128
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>)
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[G]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT:    return %[[V]] : vector<4xf32>
func.func @copy_load_128(%g: !llvm.ptr<1>) -> vector<4xf32> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %l = fly.static : !fly.layout<4:1>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<4:1>)
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<128>, 32>
  %v = fly.copy_atom_call_ssa(%a, %m) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, 4:1, align<16>>) -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// The alignment is the pointer type's: a 128-bit copy from a pointer only
// known 4-byte aligned stays align 4. The values' layout may be any that
// coalesces to 4:1.
// CHECK-LABEL: func.func @copy_load_underaligned
// CHECK-NEXT:    llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xf32>
func.func @copy_load_underaligned(%g: !llvm.ptr<1>) -> vector<4xf32> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %l = fly.static : !fly.layout<(2,2):(1,2)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global>, !fly.layout<(2,2):(1,2)>)
  %a = fly.make_copy_atom : !fly.copy_atom<!fly.universal_copy<128>, 32>
  %v = fly.copy_atom_call_ssa(%a, %m) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, (2,2):(1,2)>) -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// Values to global memory and to shared memory: one vector store each.
// CHECK-LABEL: func.func @copy_store
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[S:.*]]: !llvm.ptr<3>, %[[V:.*]]: vector<4xf32>)
// CHECK-NEXT:    llvm.store %[[V]], %[[G]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:    llvm.store %[[V]], %[[S]] {alignment = 8 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:    return
func.func @copy_store(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %v: vector<4xf32>) {
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<128>, 32>
  %l = fly.static : !fly.layout<4:1>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %mg = fly.make_view(%pg, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<4:1>)
  fly.copy_atom_call_ssa(%a, %v, %mg) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, vector<4xf32>, !fly.memref<f32, global, 4:1, align<16>>) -> ()
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared, align<8>>
  %ms = fly.make_view(%ps, %l) : (!fly.ptr<f32, shared, align<8>>, !fly.layout<4:1>)
  fly.copy_atom_call_ssa(%a, %v, %ms) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, vector<4xf32>, !fly.memref<f32, shared, 4:1, align<8>>) -> ()
  return
}

// -----

// 64-, 32-, 16- and 8-bit copies of f16 and i8: vector<4xf16>, <2xf16>,
// <2xi8> and <1xi8> accesses (a single value is still a one-element vector).
// CHECK-LABEL: func.func @copy_widths
// CHECK-SAME:    (%[[H:.*]]: !llvm.ptr<1>, %[[B:.*]]: !llvm.ptr<3>, %[[R:.*]]: !llvm.ptr<5>)
// CHECK-NEXT:    %[[H4:.*]] = llvm.load %[[H]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xf16>
// CHECK-NEXT:    %[[H2:.*]] = llvm.load %[[H]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf16>
// CHECK-NEXT:    %[[B2:.*]] = llvm.load %[[B]] {alignment = 1 : i64} : !llvm.ptr<3> -> vector<2xi8>
// CHECK-NEXT:    %[[B1:.*]] = llvm.load %[[B]] {alignment = 1 : i64} : !llvm.ptr<3> -> vector<1xi8>
// CHECK-NEXT:    llvm.store %[[H4]], %[[R]] {alignment = 2 : i64} : vector<4xf16>, !llvm.ptr<5>
// CHECK-NEXT:    llvm.store %[[B1]], %[[R]] {alignment = 2 : i64} : vector<1xi8>, !llvm.ptr<5>
// CHECK-NEXT:    return %[[H2]], %[[B2]]
func.func @copy_widths(%h: !llvm.ptr<1>, %b: !llvm.ptr<3>, %r: !llvm.ptr<5>) -> (vector<2xf16>, vector<2xi8>) {
  %ph = fly.make_ptr(%h) : (!llvm.ptr<1>) -> !fly.ptr<f16, global, align<8>>
  %l4 = fly.static : !fly.layout<4:1>
  %l2 = fly.static : !fly.layout<2:1>
  %l1 = fly.static : !fly.layout<1:0>
  %mh4 = fly.make_view(%ph, %l4) : (!fly.ptr<f16, global, align<8>>, !fly.layout<4:1>)
  %mh2 = fly.make_view(%ph, %l2) : (!fly.ptr<f16, global, align<8>>, !fly.layout<2:1>)
  %a64 = fly.static : !fly.copy_atom<!fly.universal_copy<64>, 16>
  %a32 = fly.static : !fly.copy_atom<!fly.universal_copy<32>, 16>
  %h4 = fly.copy_atom_call_ssa(%a64, %mh4) : (!fly.copy_atom<!fly.universal_copy<64>, 16>, !fly.memref<f16, global, 4:1, align<8>>) -> vector<4xf16>
  %h2 = fly.copy_atom_call_ssa(%a32, %mh2) : (!fly.copy_atom<!fly.universal_copy<32>, 16>, !fly.memref<f16, global, 2:1, align<8>>) -> vector<2xf16>
  %pb = fly.make_ptr(%b) : (!llvm.ptr<3>) -> !fly.ptr<i8, shared>
  %mb2 = fly.make_view(%pb, %l2) : (!fly.ptr<i8, shared>, !fly.layout<2:1>)
  %mb1 = fly.make_view(%pb, %l1) : (!fly.ptr<i8, shared>, !fly.layout<1:0>)
  %a16 = fly.static : !fly.copy_atom<!fly.universal_copy<16>, 8>
  %a8 = fly.static : !fly.copy_atom<!fly.universal_copy<8>, 8>
  %b2 = fly.copy_atom_call_ssa(%a16, %mb2) : (!fly.copy_atom<!fly.universal_copy<16>, 8>, !fly.memref<i8, shared, 2:1>) -> vector<2xi8>
  %b1 = fly.copy_atom_call_ssa(%a8, %mb1) : (!fly.copy_atom<!fly.universal_copy<8>, 8>, !fly.memref<i8, shared, 1:0>) -> vector<1xi8>
  %pr = fly.make_ptr(%r) : (!llvm.ptr<5>) -> !fly.ptr<f16, register>
  %mr = fly.make_view(%pr, %l4) : (!fly.ptr<f16, register>, !fly.layout<4:1>)
  fly.copy_atom_call_ssa(%a64, %h4, %mr) : (!fly.copy_atom<!fly.universal_copy<64>, 16>, vector<4xf16>, !fly.memref<f16, register, 4:1>) -> ()
  %pr8 = fly.make_ptr(%r) : (!llvm.ptr<5>) -> !fly.ptr<i8, register, align<2>>
  %mr8 = fly.make_view(%pr8, %l1) : (!fly.ptr<i8, register, align<2>>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%a8, %b1, %mr8) : (!fly.copy_atom<!fly.universal_copy<8>, 8>, vector<1xi8>, !fly.memref<i8, register, 1:0, align<2>>) -> ()
  return %h2, %b2 : vector<2xf16>, vector<2xi8>
}

// -----

// Atomic add of f32 and max of i32 on global and shared memory: one
// monotonic atomicrmw of the single value with the atom's syncscope (here
// "agent" and "workgroup" for the adds, the system scope, no syncscope, for
// the maxes); float add is fadd, integer max the signed max.
// CHECK-LABEL: func.func @atomics
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[S:.*]]: !llvm.ptr<3>, %[[F:.*]]: vector<1xf32>, %[[I:.*]]: vector<1xi32>)
// CHECK:         %[[F0:.*]] = llvm.extractelement %[[F]][%{{.*}} : i32] : vector<1xf32>
// CHECK-NEXT:    llvm.atomicrmw fadd %[[G]], %[[F0]] syncscope("agent") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
// CHECK:         %[[F1:.*]] = llvm.extractelement %[[F]][%{{.*}} : i32] : vector<1xf32>
// CHECK-NEXT:    llvm.atomicrmw fadd %[[S]], %[[F1]] syncscope("workgroup") monotonic {alignment = 4 : i64} : !llvm.ptr<3>, f32
// CHECK:         %[[I0:.*]] = llvm.extractelement %[[I]][%{{.*}} : i32] : vector<1xi32>
// CHECK-NEXT:    llvm.atomicrmw max %[[G]], %[[I0]] monotonic {alignment = 16 : i64} : !llvm.ptr<1>, i32
// CHECK:         %[[I1:.*]] = llvm.extractelement %[[I]][%{{.*}} : i32] : vector<1xi32>
// CHECK-NEXT:    llvm.atomicrmw max %[[S]], %[[I1]] monotonic {alignment = 4 : i64} : !llvm.ptr<3>, i32
// CHECK-NOT:     fly.
// CHECK:         return
func.func @atomics(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %f: vector<1xf32>, %i: vector<1xi32>) {
  %l = fly.static : !fly.layout<1:0>
  %add = fly.static : !fly.copy_atom<!fly.universal_atomic<add, f32, "agent">, 32>
  %addw = fly.static : !fly.copy_atom<!fly.universal_atomic<add, f32, "workgroup">, 32>
  %max = fly.static : !fly.copy_atom<!fly.universal_atomic<max, i32>, 32>
  %pgf = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %mgf = fly.make_view(%pgf, %l) : (!fly.ptr<f32, global>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%add, %f, %mgf) : (!fly.copy_atom<!fly.universal_atomic<add, f32, "agent">, 32>, vector<1xf32>, !fly.memref<f32, global, 1:0>) -> ()
  %psf = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %msf = fly.make_view(%psf, %l) : (!fly.ptr<f32, shared>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%addw, %f, %msf) : (!fly.copy_atom<!fly.universal_atomic<add, f32, "workgroup">, 32>, vector<1xf32>, !fly.memref<f32, shared, 1:0>) -> ()
  %pgi = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<i32, global, align<16>>
  %mgi = fly.make_view(%pgi, %l) : (!fly.ptr<i32, global, align<16>>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%max, %i, %mgi) : (!fly.copy_atom<!fly.universal_atomic<max, i32>, 32>, vector<1xi32>, !fly.memref<i32, global, 1:0, align<16>>) -> ()
  %psi = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<i32, shared>
  %msi = fly.make_view(%psi, %l) : (!fly.ptr<i32, shared>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%max, %i, %msi) : (!fly.copy_atom<!fly.universal_atomic<max, i32>, 32>, vector<1xi32>, !fly.memref<i32, shared, 1:0>) -> ()
  return
}

// -----

// The other atomic operations: min of f16 is fmin, add of i64 is add,
// min of i8 the signed min (all of the system scope: no syncscope).
// CHECK-LABEL: func.func @atomic_ops
// CHECK:         llvm.atomicrmw fmin %{{.*}}, %{{.*}} monotonic {alignment = 2 : i64} : !llvm.ptr<1>, f16
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic {alignment = 8 : i64} : !llvm.ptr<3>, i64
// CHECK:         llvm.atomicrmw min %{{.*}}, %{{.*}} monotonic {alignment = 1 : i64} : !llvm.ptr, i8
func.func @atomic_ops(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %p: !llvm.ptr, %h: vector<1xf16>, %j: vector<1xi64>, %b: vector<1xi8>) {
  %l = fly.static : !fly.layout<1:0>
  %fmin = fly.static : !fly.copy_atom<!fly.universal_atomic<min, f16>, 16>
  %add = fly.static : !fly.copy_atom<!fly.universal_atomic<add, i64>, 64>
  %min = fly.static : !fly.copy_atom<!fly.universal_atomic<min, i8>, 8>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f16, global>
  %mg = fly.make_view(%pg, %l) : (!fly.ptr<f16, global>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%fmin, %h, %mg) : (!fly.copy_atom<!fly.universal_atomic<min, f16>, 16>, vector<1xf16>, !fly.memref<f16, global, 1:0>) -> ()
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<i64, shared>
  %ms = fly.make_view(%ps, %l) : (!fly.ptr<i64, shared>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%add, %j, %ms) : (!fly.copy_atom<!fly.universal_atomic<add, i64>, 64>, vector<1xi64>, !fly.memref<i64, shared, 1:0>) -> ()
  %pp = fly.make_ptr(%p) : (!llvm.ptr) -> !fly.ptr<i8, generic>
  %mp = fly.make_view(%pp, %l) : (!fly.ptr<i8, generic>, !fly.layout<1:0>)
  fly.copy_atom_call_ssa(%min, %b, %mp) : (!fly.copy_atom<!fly.universal_atomic<min, i8>, 8>, vector<1xi8>, !fly.memref<i8, generic, 1:0>) -> ()
  return
}

// -----

// Memory to memory (global to shared): the source loaded as values, then
// stored; with an atomic atom, loaded then combined. A tiled copy's atom is
// used.
// CHECK-LABEL: func.func @copy_memory
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[S:.*]]: !llvm.ptr<3>)
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[G]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK-NEXT:    llvm.store %[[V]], %[[S]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[S]] {alignment = 4 : i64} : !llvm.ptr<3> -> vector<1xf32>
// CHECK-NEXT:    %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[X0:.*]] = llvm.extractelement %[[X]][%[[C0]] : i32] : vector<1xf32>
// CHECK-NEXT:    llvm.atomicrmw fadd %[[G]], %[[X0]] monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
// CHECK-NEXT:    return
func.func @copy_memory(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>) {
  %tc = fly.static : !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 16>, (64,8):(8,1), [8|64]>
  %l8 = fly.static : !fly.layout<8:1>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f16, global, align<16>>
  %mg = fly.make_view(%pg, %l8) : (!fly.ptr<f16, global, align<16>>, !fly.layout<8:1>)
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
  %ms = fly.make_view(%ps, %l8) : (!fly.ptr<f16, shared, align<16>>, !fly.layout<8:1>)
  fly.copy_atom_call(%tc, %mg, %ms) : (!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 16>, (64,8):(8,1), [8|64]>, !fly.memref<f16, global, 8:1, align<16>>, !fly.memref<f16, shared, 8:1, align<16>>)
  %add = fly.static : !fly.copy_atom<!fly.universal_atomic<add, f32>, 32>
  %l1 = fly.static : !fly.layout<1:0>
  %psf = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %msf = fly.make_view(%psf, %l1) : (!fly.ptr<f32, shared>, !fly.layout<1:0>)
  %pgf = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %mgf = fly.make_view(%pgf, %l1) : (!fly.ptr<f32, global>, !fly.layout<1:0>)
  fly.copy_atom_call(%add, %msf, %mgf) : (!fly.copy_atom<!fly.universal_atomic<add, f32>, 32>, !fly.memref<f32, shared, 1:0>, !fly.memref<f32, global, 1:0>)
  return
}

// -----

// Source and destination elements of one width but different types: the
// values are bitcast to the destination's.
// CHECK-LABEL: func.func @copy_bitcast
// CHECK-NEXT:    %[[V:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NEXT:    %[[B:.*]] = llvm.bitcast %[[V]] : vector<2xf32> to vector<2xi32>
// CHECK-NEXT:    llvm.store %[[B]], %{{.*}} {alignment = 4 : i64} : vector<2xi32>, !llvm.ptr<3>
func.func @copy_bitcast(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>) {
  %a = fly.static : !fly.copy_atom<!fly.universal_copy<64>, 32>
  %l = fly.static : !fly.layout<2:1>
  %pg = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<8>>
  %mg = fly.make_view(%pg, %l) : (!fly.ptr<f32, global, align<8>>, !fly.layout<2:1>)
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<i32, shared>
  %ms = fly.make_view(%ps, %l) : (!fly.ptr<i32, shared>, !fly.layout<2:1>)
  fly.copy_atom_call(%a, %mg, %ms) : (!fly.copy_atom<!fly.universal_copy<64>, 32>, !fly.memref<f32, global, 2:1, align<8>>, !fly.memref<i32, shared, 2:1>)
  return
}

// -----

// universal_fma on values: llvm.intr.fma when all four types agree (also
// through a tiled MMA).
// CHECK-LABEL: func.func @fma_f32
// CHECK-SAME:    (%[[A:.*]]: vector<1xf32>, %[[B:.*]]: vector<1xf32>, %[[C:.*]]: vector<1xf32>)
// CHECK-NEXT:    %[[D:.*]] = llvm.intr.fma(%[[A]], %[[B]], %[[C]]) : (vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT:    %[[E:.*]] = llvm.intr.fma(%[[A]], %[[B]], %[[D]]) : (vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT:    return %[[E]]
func.func @fma_f32(%a: vector<1xf32>, %b: vector<1xf32>, %c: vector<1xf32>) -> vector<1xf32> {
  %m = fly.make_mma_atom : !fly.mma_atom<!fly.universal_fma<f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly.universal_fma<f32>>, vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
  %t = fly.static : !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,0)>
  %e = fly.mma_atom_call_ssa(%t, %a, %b, %d) : (!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,0)>, vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
  return %e : vector<1xf32>
}

// -----

// Mixed types: a, b and c are converted to D's type first (f16 extended to
// f32; bf16 to f16 through f32; an integer converted as a signed one), then
// the fma.
// CHECK-LABEL: func.func @fma_mixed
// CHECK-SAME:    (%[[A:.*]]: vector<1xf16>, %[[B:.*]]: vector<1xf16>, %[[C:.*]]: vector<1xf32>, %[[X:.*]]: vector<1xbf16>, %[[I:.*]]: vector<1xi8>)
// CHECK-NEXT:    %[[A32:.*]] = arith.extf %[[A]] : vector<1xf16> to vector<1xf32>
// CHECK-NEXT:    %[[B32:.*]] = arith.extf %[[B]] : vector<1xf16> to vector<1xf32>
// CHECK-NEXT:    %[[D:.*]] = llvm.intr.fma(%[[A32]], %[[B32]], %[[C]]) : (vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT:    %[[XW:.*]] = arith.extf %[[X]] : vector<1xbf16> to vector<1xf32>
// CHECK-NEXT:    %[[XH:.*]] = arith.truncf %[[XW]] : vector<1xf32> to vector<1xf16>
// CHECK-NEXT:    %[[IH:.*]] = arith.sitofp %[[I]] : vector<1xi8> to vector<1xf16>
// CHECK-NEXT:    %[[CH:.*]] = arith.truncf %[[C]] : vector<1xf32> to vector<1xf16>
// CHECK-NEXT:    %[[E:.*]] = llvm.intr.fma(%[[XH]], %[[IH]], %[[CH]]) : (vector<1xf16>, vector<1xf16>, vector<1xf16>) -> vector<1xf16>
// CHECK-NEXT:    return %[[D]], %[[E]]
func.func @fma_mixed(%a: vector<1xf16>, %b: vector<1xf16>, %c: vector<1xf32>, %x: vector<1xbf16>, %i: vector<1xi8>) -> (vector<1xf32>, vector<1xf16>) {
  %m = fly.static : !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, vector<1xf16>, vector<1xf16>, vector<1xf32>) -> vector<1xf32>
  %n = fly.static : !fly.mma_atom<!fly.universal_fma<f16, bf16, i8, f32>>
  %e = fly.mma_atom_call_ssa(%n, %x, %i, %c) : (!fly.mma_atom<!fly.universal_fma<f16, bf16, i8, f32>>, vector<1xbf16>, vector<1xi8>, vector<1xf32>) -> vector<1xf16>
  return %d, %e : vector<1xf32>, vector<1xf16>
}

// -----

// Integers: a multiply and an add in D's type, the operands sign-extended
// (or truncated) to it first; a float operand is converted towards zero.
// CHECK-LABEL: func.func @fma_int
// CHECK-SAME:    (%[[A:.*]]: vector<1xi32>, %[[B:.*]]: vector<1xi32>, %[[C:.*]]: vector<1xi32>, %[[X:.*]]: vector<1xi8>, %[[Y:.*]]: vector<1xi64>, %[[F:.*]]: vector<1xf32>)
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[A]], %[[B]] : vector<1xi32>
// CHECK-NEXT:    %[[D:.*]] = arith.addi %[[M]], %[[C]] : vector<1xi32>
// CHECK-NEXT:    %[[XW:.*]] = arith.extsi %[[X]] : vector<1xi8> to vector<1xi32>
// CHECK-NEXT:    %[[YN:.*]] = arith.trunci %[[Y]] : vector<1xi64> to vector<1xi32>
// CHECK-NEXT:    %[[FI:.*]] = arith.fptosi %[[F]] : vector<1xf32> to vector<1xi32>
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[XW]], %[[YN]] : vector<1xi32>
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[N]], %[[FI]] : vector<1xi32>
// CHECK-NEXT:    return %[[D]], %[[E]]
func.func @fma_int(%a: vector<1xi32>, %b: vector<1xi32>, %c: vector<1xi32>, %x: vector<1xi8>, %y: vector<1xi64>, %f: vector<1xf32>) -> (vector<1xi32>, vector<1xi32>) {
  %m = fly.static : !fly.mma_atom<!fly.universal_fma<i32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly.universal_fma<i32>>, vector<1xi32>, vector<1xi32>, vector<1xi32>) -> vector<1xi32>
  %n = fly.static : !fly.mma_atom<!fly.universal_fma<i32, i8, i64, f32>>
  %e = fly.mma_atom_call_ssa(%n, %x, %y, %f) : (!fly.mma_atom<!fly.universal_fma<i32, i8, i64, f32>>, vector<1xi8>, vector<1xi64>, vector<1xf32>) -> vector<1xi32>
  return %d, %e : vector<1xi32>, vector<1xi32>
}

// -----

// mma_atom_call on memory (fragments in shared memory and registers): a, b
// and c loaded as the vectors of the values the atom gives a thread (one
// each), the fma, d stored.
// CHECK-LABEL: func.func @mma_memory
// CHECK-SAME:    (%[[S:.*]]: !llvm.ptr<3>, %[[R:.*]]: !llvm.ptr<5>)
// CHECK-NEXT:    %[[A:.*]] = llvm.load %[[S]] {alignment = 2 : i64} : !llvm.ptr<3> -> vector<1xf16>
// CHECK-NEXT:    %[[B:.*]] = llvm.load %[[S]] {alignment = 2 : i64} : !llvm.ptr<3> -> vector<1xf16>
// CHECK-NEXT:    %[[C:.*]] = llvm.load %[[R]] {alignment = 4 : i64} : !llvm.ptr<5> -> vector<1xf32>
// CHECK-NEXT:    %[[AW:.*]] = arith.extf %[[A]] : vector<1xf16> to vector<1xf32>
// CHECK-NEXT:    %[[BW:.*]] = arith.extf %[[B]] : vector<1xf16> to vector<1xf32>
// CHECK-NEXT:    %[[D:.*]] = llvm.intr.fma(%[[AW]], %[[BW]], %[[C]]) : (vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT:    llvm.store %[[D]], %[[R]] {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<5>
// CHECK-NEXT:    return
func.func @mma_memory(%s: !llvm.ptr<3>, %r: !llvm.ptr<5>) {
  %m = fly.static : !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
  %l = fly.static : !fly.layout<1:0>
  %ps = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared>
  %ms = fly.make_view(%ps, %l) : (!fly.ptr<f16, shared>, !fly.layout<1:0>)
  %pr = fly.make_ptr(%r) : (!llvm.ptr<5>) -> !fly.ptr<f32, register>
  %mr = fly.make_view(%pr, %l) : (!fly.ptr<f32, register>, !fly.layout<1:0>)
  fly.mma_atom_call(%m, %mr, %ms, %ms, %mr) : (!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, !fly.memref<f32, register, 1:0>, !fly.memref<f16, shared, 1:0>, !fly.memref<f16, shared, 1:0>, !fly.memref<f32, register, 1:0>)
  return
}
