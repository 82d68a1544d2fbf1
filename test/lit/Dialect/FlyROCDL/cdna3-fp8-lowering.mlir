// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s

// 8-, 6- and 4-bit floats have no LLVM IR type: in every LLVM and ROCDL op
// convert-fly-to-rocdl leaves they are integers of their width (what
// LLVMTypeConverter makes of them later in arith and vector ops): loads,
// stores, GEP and alloca element types, the vectors of copy atoms and the
// bitcasts of MMA operands. Values of ops the pass does not lower meet them
// through casts that the later lowering to LLVM cancels.

// Pointer loads and stores, a GEP over the element type.
// CHECK-LABEL: func.func @pointer_access
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[I:.*]]: i32)
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %[[G]][%[[I]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
// CHECK:         %[[V:.*]] = llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<8xi8>
// CHECK:         %[[R:.*]] = builtin.unrealized_conversion_cast %[[V]] : vector<8xi8> to vector<8xf8E4M3FNUZ>
// CHECK:         llvm.store %[[V]], %[[G]] {alignment = 8 : i64} : vector<8xi8>, !llvm.ptr<1>
// CHECK:         return %[[R]] : vector<8xf8E4M3FNUZ>
// CHECK-NOT:     f8E4M3FNUZ
func.func @pointer_access(%g: !llvm.ptr<1>, %i: i32) -> vector<8xf8E4M3FNUZ> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f8E4M3FNUZ, global, align<8>>
  %it = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<?{div=8}>
  %q = fly.add_offset(%p, %it) : (!fly.ptr<f8E4M3FNUZ, global, align<8>>, !fly.int_tuple<?{div=8}>)
  %v = fly.ptr.load(%q) : (!fly.ptr<f8E4M3FNUZ, global, align<8>>) -> vector<8xf8E4M3FNUZ>
  fly.ptr.store(%v, %p) : (vector<8xf8E4M3FNUZ>, !fly.ptr<f8E4M3FNUZ, global, align<8>>)
  return %v : vector<8xf8E4M3FNUZ>
}

// -----

// A register fragment: the alloca's element type is i8; a value from
// outside (an arith constant) enters through a cast.
// CHECK-LABEL: gpu.func @fragment
// CHECK:         %[[N:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.alloca %[[N]] x i8 {alignment = 1 : i64} : (i32) -> !llvm.ptr<5>
// CHECK:         %[[C:.*]] = arith.constant dense<1.000000e+00> : vector<4xf8E5M2>
// CHECK:         %[[CI:.*]] = builtin.unrealized_conversion_cast %[[C]] : vector<4xf8E5M2> to vector<4xi8>
// CHECK:         llvm.store %[[CI]], %[[A]] {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr<5>
gpu.module @m {
  gpu.func @fragment() kernel {
    %c = arith.constant dense<1.0> : vector<4xf8E5M2>
    %f = fly.memref.alloca : !fly.memref<f8E5M2, register, 4:1>
    %fp = fly.get_iter(%f) : (!fly.memref<f8E5M2, register, 4:1>)
    fly.ptr.store(%c, %fp) : (vector<4xf8E5M2>, !fly.ptr<f8E5M2, register>)
    gpu.return
  }
}

// -----

// A copy atom's read of an fp8 memref and an MFMA of the values: one
// vector<8xi8> load, bitcast to the i64 operand; no fp8 type is left.
// CHECK-LABEL: func.func @copy_and_mfma
// CHECK:         %[[A:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<8xi8>
// CHECK:         %[[AI:.*]] = llvm.bitcast %[[A]] : vector<8xi8> to i64
// CHECK:         %[[BI:.*]] = llvm.bitcast %[[A]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.fp8.fp8 %[[AI]], %[[BI]], %arg1
// CHECK-NOT:     f8E4M3FNUZ
func.func @copy_and_mfma(%g: !llvm.ptr<1>, %c: vector<4xf32>) -> vector<4xf32> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f8E4M3FNUZ, global, align<8>>
  %l = fly.static : !fly.layout<8:1>
  %v = fly.make_view(%p, %l) : (!fly.ptr<f8E4M3FNUZ, global, align<8>>, !fly.layout<8:1>)
  %ca = fly.static : !fly.copy_atom<!fly.universal_copy<64>, 8>
  %a = fly.copy_atom_call_ssa(%ca, %v) : (!fly.copy_atom<!fly.universal_copy<64>, 8>, !fly.memref<f8E4M3FNUZ, global, 8:1, align<8>>) -> vector<8xf8E4M3FNUZ>
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %a, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}
