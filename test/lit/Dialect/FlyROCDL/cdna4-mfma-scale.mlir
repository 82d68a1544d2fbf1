// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 | FileCheck %s

// gfx950's scaled MFMA: A and B packed into i32 vectors (8 for 8-bit
// floats, 4 for 4-bit ones), the formats as cbsz / blgp (fp8 0, bf8 1,
// fp4 4), opsel from the type, the scales from the atom's fields (0 for a
// static atom).

// CHECK-LABEL: func.func @fp8_bf8
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E5M2> to vector<32xi8>
// CHECK-DAG:     %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-DAG:     %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-DAG:     %[[F0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:     %[[F1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:     %[[S2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:     %[[S3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         rocdl.mfma.scale.f32.16x16x128.f8f6f4 %[[A]], %[[B]], %arg2, %[[F0]], %[[F1]], %[[S2]], %{{.*}}, %[[S3]], %{{.*}} : (vector<8xi32>, vector<8xi32>, vector<4xf32>, i32, i32, i32, i32, i32, i32) -> vector<4xf32>
func.func @fp8_bf8(%a: vector<32xf8E4M3FN>, %b: vector<32xf8E5M2>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E5M2) -> f32, opsel = (2, 3)>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E5M2) -> f32, opsel = (2, 3)>>, vector<32xf8E4M3FN>, vector<32xf8E5M2>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @fp4
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf4E2M1FN> to vector<32xi4>
// CHECK-DAG:     %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi4> to vector<4xi32>
// CHECK:         %[[FA:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[FB:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         rocdl.mfma.scale.f32.32x32x64.f8f6f4 %[[A]], %{{.*}}, %arg2, %[[FA]], %[[FB]], {{.*}} : (vector<4xi32>, vector<4xi32>, vector<16xf32>, i32, i32, i32, i32, i32, i32) -> vector<16xf32>
func.func @fp4(%a: vector<32xf4E2M1FN>, %b: vector<32xf4E2M1FN>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<32x32x64, (f4E2M1FN, f4E2M1FN) -> f32, opsel = (0, 0)>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<32x32x64, (f4E2M1FN, f4E2M1FN) -> f32, opsel = (0, 0)>>, vector<32xf4E2M1FN>, vector<32xf4E2M1FN>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
