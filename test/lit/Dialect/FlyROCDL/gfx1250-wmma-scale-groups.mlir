// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s

// gfx1250's scaled WMMA takes its scales from operand groups as gfx950's
// scaled MFMA does: each group's extra operand holds the call's value of
// the field (scale_a / scale_b: i32 for blocks of 32, i64 for 16).

// A's scales as E8M0 bytes (i8, zero-extended), B's as the field's i32.
// CHECK-LABEL: func.func @block32
// CHECK-DAG:     %[[XA:.*]] = llvm.alloca %{{.*}} x i8 {alignment = 1 : i64} : (i32) -> !llvm.ptr<5>
// CHECK-DAG:     %[[XB:.*]] = llvm.alloca %{{.*}} x i32 {alignment = 4 : i64} : (i32) -> !llvm.ptr<5>
// CHECK-DAG:     %[[LA:.*]] = llvm.load %[[XA]] {{.*}} : !llvm.ptr<5> -> vector<1xi8>
// CHECK-DAG:     %[[EA:.*]] = llvm.extractelement %[[LA]][%{{.*}} : i32] : vector<1xi8>
// CHECK-DAG:     %[[SA:.*]] = llvm.zext %[[EA]] : i8 to i32
// CHECK-DAG:     %[[LB:.*]] = llvm.load %[[XB]] {{.*}} : !llvm.ptr<5> -> vector<1xi32>
// CHECK-DAG:     %[[SB:.*]] = llvm.extractelement %[[LB]][%{{.*}} : i32] : vector<1xi32>
// CHECK:         rocdl.wmma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %[[SA]], %[[SB]]
!mma = !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>
func.func @block32() {
  %a = fly.memref.alloca : !fly.memref<f8E4M3FN, register, 64:1>
  %b = fly.memref.alloca : !fly.memref<f8E4M3FN, register, 64:1>
  %xa = fly.memref.alloca : !fly.memref<i8, register, 1:1>
  %xb = fly.memref.alloca : !fly.memref<i32, register, 1:1>
  %c = fly.memref.alloca : !fly.memref<f32, register, 8:1>
  %m = fly.static : !mma
  fly.mma_atom_call(%m, %c, [%a, %xa], [%b, %xb], %c) : (!mma, !fly.memref<f32, register, 8:1>, !fly.memref<f8E4M3FN, register, 64:1>, !fly.memref<i8, register, 1:1>, !fly.memref<f8E4M3FN, register, 64:1>, !fly.memref<i32, register, 1:1>, !fly.memref<f32, register, 8:1>) -> ()
  return
}

// -----

// Blocks of 16: i64 scales; B's group alone, A's scale from the field
// (zero when not set).
// CHECK-LABEL: func.func @block16_b_only
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[LB:.*]] = llvm.load %{{.*}} : !llvm.ptr<5> -> vector<1xi64>
// CHECK-DAG:     %[[SB:.*]] = llvm.extractelement %[[LB]][%{{.*}} : i32] : vector<1xi64>
// CHECK:         rocdl.wmma.scale16.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[SB]]
!mma16 = !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 16>>
func.func @block16_b_only() {
  %a = fly.memref.alloca : !fly.memref<f8E4M3FN, register, 64:1>
  %b = fly.memref.alloca : !fly.memref<f8E4M3FN, register, 64:1>
  %xb = fly.memref.alloca : !fly.memref<i64, register, 1:1>
  %c = fly.memref.alloca : !fly.memref<f32, register, 8:1>
  %m = fly.static : !mma16
  fly.mma_atom_call(%m, %c, %a, [%b, %xb], %c) : (!mma16, !fly.memref<f32, register, 8:1>, !fly.memref<f8E4M3FN, register, 64:1>, !fly.memref<f8E4M3FN, register, 64:1>, !fly.memref<i64, register, 1:1>, !fly.memref<f32, register, 8:1>) -> ()
  return
}
