// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s
// RUN: fly-opt %s -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// gfx1250's MX-scaled WMMA: A and B (64 values a lane) packed into i32
// vectors (16 for 8-bit floats, 12 for 6-bit, 8 for 4-bit), the formats
// as fmtA / fmtB (fp8 0, bf8 1, fp6 2, bf6 3, fp4 4), opsel as the scale
// selectors scaleAType / scaleBType, modC and the reuse hints from the
// type; the scales from the atom's fields (0 when not set): i32 for block
// 32 (wmma.scale), i64 for block 16 (wmma.scale16). Attributes at their
// defaults are not printed.

// ROUNDTRIP-LABEL: func.func @fp8_fp4
// ROUNDTRIP: !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 32>
// CHECK-LABEL: func.func @fp8_fp4
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf4E2M1FN> to vector<64xi4>
// CHECK-DAG:     %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-DAG:     %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi4> to vector<8xi32>
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.wmma.scale.f32.16x16x128.f8f6f4 %[[A]], %[[B]], %arg2, %arg3, %[[ZERO]] {fmtB = 4 : i32, reuseA = true, scaleAType = 1 : i32} : (vector<16xi32>, vector<8xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
func.func @fp8_fp4(%a: vector<64xf8E4M3FN>, %b: vector<64xf4E2M1FN>, %c: vector<8xf32>, %sa: i32) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 32>>
  %m1 = fly.atom.set_value(%m, %sa) {field = "scale_a"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 32>>, i32) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 32>>
  %d = fly.mma_atom_call_ssa(%m1, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 32>>, vector<64xf8E4M3FN>, vector<64xf4E2M1FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// ROUNDTRIP-LABEL: func.func @fp6_bf8_block16
// ROUNDTRIP: !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E2M3FN, f8E5M2) -> f32, opselA = 0, opselB = 1, modC = 2, reuseA = false, reuseB = true, blockSize = 16>
// CHECK-LABEL: func.func @fp6_bf8_block16
// CHECK-DAG:     %[[A:.*]] = llvm.bitcast %{{.*}} : vector<64xi6> to vector<12xi32>
// CHECK-DAG:     %[[B:.*]] = llvm.bitcast %{{.*}} : vector<64xi8> to vector<16xi32>
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         rocdl.wmma.scale16.f32.16x16x128.f8f6f4 %[[A]], %[[B]], %arg2, %[[ZERO]], %arg3 {fmtA = 2 : i32, fmtB = 1 : i32, modC = 2 : i16, reuseB = true, scaleBType = 1 : i32} : (vector<12xi32>, vector<16xi32>, vector<8xf32>, i64, i64) -> vector<8xf32>
func.func @fp6_bf8_block16(%a: vector<64xf6E2M3FN>, %b: vector<64xf8E5M2>, %c: vector<8xf32>, %sb: i64) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E2M3FN, f8E5M2) -> f32, opselA = 0, opselB = 1, modC = 2, reuseA = false, reuseB = true, blockSize = 16>>
  %m1 = fly.atom.set_value(%m, %sb) {field = "scale_b"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E2M3FN, f8E5M2) -> f32, opselA = 0, opselB = 1, modC = 2, reuseA = false, reuseB = true, blockSize = 16>>, i64) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E2M3FN, f8E5M2) -> f32, opselA = 0, opselB = 1, modC = 2, reuseA = false, reuseB = true, blockSize = 16>>
  %d = fly.mma_atom_call_ssa(%m1, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E2M3FN, f8E5M2) -> f32, opselA = 0, opselB = 1, modC = 2, reuseA = false, reuseB = true, blockSize = 16>>, vector<64xf6E2M3FN>, vector<64xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// The 32x16x128 f4 form: A (128 fp4 values a lane, 32 rows) in 16 i32,
// B in 8, C and D 16 f32; no format attributes (fp4 is the op's); the
// B scale selector, modC and the reuse hints from the type.
// ROUNDTRIP-LABEL: func.func @f4_32x16
// ROUNDTRIP: !fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 1, modC = 1, reuseA = true, reuseB = false, blockSize = 32>
// CHECK-LABEL: func.func @f4_32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<128xf4E2M1FN> to vector<128xi4>
// CHECK-DAG:     %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<128xi4> to vector<16xi32>
// CHECK-DAG:     %[[B:.*]] = llvm.bitcast %{{.*}} : vector<64xi4> to vector<8xi32>
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.wmma.scale.f32.32x16x128.f4 %[[A]], %[[B]], %arg2, %[[ZERO]], %arg3 {modC = 1 : i16, reuseA = true, scaleBType = 1 : i32} : (vector<16xi32>, vector<8xi32>, vector<16xf32>, i32, i32) -> vector<16xf32>
// CHECK-NOT:     fmtA
func.func @f4_32x16(%a: vector<128xf4E2M1FN>, %b: vector<64xf4E2M1FN>, %c: vector<16xf32>, %sb: i32) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 1, modC = 1, reuseA = true, reuseB = false, blockSize = 32>>
  %m1 = fly.atom.set_value(%m, %sb) {field = "scale_b"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 1, modC = 1, reuseA = true, reuseB = false, blockSize = 32>>, i32) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 1, modC = 1, reuseA = true, reuseB = false, blockSize = 32>>
  %d = fly.mma_atom_call_ssa(%m1, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 1, modC = 1, reuseA = true, reuseB = false, blockSize = 32>>, vector<128xf4E2M1FN>, vector<64xf4E2M1FN>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// Block 16: rocdl.wmma.scale16.f32.32x16x128.f4, i64 scales.
// CHECK-LABEL: func.func @f4_32x16_block16
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         rocdl.wmma.scale16.f32.32x16x128.f4 %{{.*}}, %{{.*}}, %arg2, %arg3, %[[ZERO]] {reuseB = true} : (vector<16xi32>, vector<8xi32>, vector<16xf32>, i64, i64) -> vector<16xf32>
func.func @f4_32x16_block16(%a: vector<128xf4E2M1FN>, %b: vector<64xf4E2M1FN>, %c: vector<16xf32>, %sa: i64) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = true, blockSize = 16>>
  %m1 = fly.atom.set_value(%m, %sa) {field = "scale_a"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = true, blockSize = 16>>, i64) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = true, blockSize = 16>>
  %d = fly.mma_atom_call_ssa(%m1, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = true, blockSize = 16>>, vector<128xf4E2M1FN>, vector<64xf4E2M1FN>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
