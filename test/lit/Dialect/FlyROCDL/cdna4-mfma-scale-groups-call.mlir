// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 | FileCheck %s

// fly.mma_atom_call with operand groups, lowered on memory (without the
// SSA form): each scale fragment's one value is loaded and, an i8 E8M0
// byte, zero-extended to the i32 of the field it sets.

// CHECK-LABEL: func.func @call_i8_scale
// CHECK-DAG:     %[[XA:.*]] = llvm.alloca %{{.*}} x i8 {alignment = 1 : i64} : (i32) -> !llvm.ptr<5>
// CHECK-DAG:     %[[XB:.*]] = llvm.alloca %{{.*}} x i32 {alignment = 4 : i64} : (i32) -> !llvm.ptr<5>
// CHECK-DAG:     %[[LA:.*]] = llvm.load %[[XA]] {{.*}} : !llvm.ptr<5> -> vector<1xi8>
// CHECK-DAG:     %[[EA:.*]] = llvm.extractelement %[[LA]][%{{.*}} : i32] : vector<1xi8>
// CHECK-DAG:     %[[ZA:.*]] = llvm.zext %[[EA]] : i8 to i32
// CHECK-DAG:     %[[LB:.*]] = llvm.load %[[XB]] {{.*}} : !llvm.ptr<5> -> vector<1xi32>
// CHECK-DAG:     %[[EB:.*]] = llvm.extractelement %[[LB]][%{{.*}} : i32] : vector<1xi32>
// CHECK:         rocdl.mfma.scale.f32.32x32x64.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZA]], %{{.*}}, %[[EB]] : (vector<8xi32>, vector<8xi32>, vector<16xf32>, i32, i32, i32, i32, i32, i32) -> vector<16xf32>
!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<32x32x64, (f8E4M3FN, f8E5M2) -> f32, opsel = (0, 0)>>
func.func @call_i8_scale() {
  %a = fly.memref.alloca : !fly.memref<f8E4M3FN, register, 32:1>
  %b = fly.memref.alloca : !fly.memref<f8E5M2, register, 32:1>
  %xa = fly.memref.alloca : !fly.memref<i8, register, 1:1>
  %xb = fly.memref.alloca : !fly.memref<i32, register, 1:1>
  %c = fly.memref.alloca : !fly.memref<f32, register, 16:1>
  %m = fly.static : !mma
  fly.mma_atom_call(%m, %c, [%a, %xa], [%b, %xb], %c) : (!mma, !fly.memref<f32, register, 16:1>, !fly.memref<f8E4M3FN, register, 32:1>, !fly.memref<i8, register, 1:1>, !fly.memref<f8E5M2, register, 32:1>, !fly.memref<i32, register, 1:1>, !fly.memref<f32, register, 16:1>) -> ()
  return
}
