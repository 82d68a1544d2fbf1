// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 | FileCheck %s

// gfx950's MFMAs: the cdna4.mfma ones (f16 and bf16 as vectors of 8, i8's
// 16 values as a vector<4xi32>), and CDNA3's, whose fp8 and bf8 forms take
// the OCP types here (f8E4M3FN, f8E5M2) and lower to the same ops.

// CHECK-LABEL: func.func @f16_16x16x32
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.16x16x32.f16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<8xf16>, vector<8xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @f16_16x16x32(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (f16, f16) -> f32>>, vector<8xf16>, vector<8xf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @f16_32x32x16
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.32x32x16.f16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<8xf16>, vector<8xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @f16_32x32x16(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x16, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x16, (f16, f16) -> f32>>, vector<8xf16>, vector<8xf16>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_16x16x32
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.16x16x32.bf16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<8xbf16>, vector<8xbf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @bf16_16x16x32(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (bf16, bf16) -> f32>>, vector<8xbf16>, vector<8xbf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_32x32x16
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.32x32x16.bf16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<8xbf16>, vector<8xbf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @bf16_32x32x16(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x16, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x16, (bf16, bf16) -> f32>>, vector<8xbf16>, vector<8xbf16>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @i8_16x16x64
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<16xi8> to vector<4xi32>
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<16xi8> to vector<4xi32>
// CHECK:         rocdl.mfma.i32.16x16x64.i8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xi32>, vector<4xi32>, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
func.func @i8_16x16x64(%a: vector<16xi8>, %b: vector<16xi8>, %c: vector<4xi32>) -> vector<4xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x64, (i8, i8) -> i32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x64, (i8, i8) -> i32>>, vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
  return %d : vector<4xi32>
}

// -----

// CHECK-LABEL: func.func @i8_32x32x32
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<16xi8> to vector<4xi32>
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<16xi8> to vector<4xi32>
// CHECK:         rocdl.mfma.i32.32x32x32.i8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xi32>, vector<4xi32>, vector<16xi32>, i32, i32, i32) -> vector<16xi32>
func.func @i8_32x32x32(%a: vector<16xi8>, %b: vector<16xi8>, %c: vector<16xi32>) -> vector<16xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x32, (i8, i8) -> i32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x32, (i8, i8) -> i32>>, vector<16xi8>, vector<16xi8>, vector<16xi32>) -> vector<16xi32>
  return %d : vector<16xi32>
}

// -----

// CHECK-LABEL: func.func @ocp_fp8_fp8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.fp8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @ocp_fp8_fp8_16x16x32(%a: vector<8xf8E4M3FN>, %b: vector<8xf8E4M3FN>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FN, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FN, f8E4M3FN) -> f32>>, vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @ocp_bf8_fp8_32x32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.32x32x16.bf8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @ocp_bf8_fp8_32x32x16(%a: vector<8xf8E5M2>, %b: vector<8xf8E4M3FN>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2, f8E4M3FN) -> f32>>, vector<8xf8E5M2>, vector<8xf8E4M3FN>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @ocp_bf8_bf8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.bf8.bf8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @ocp_bf8_bf8_16x16x32(%a: vector<8xf8E5M2>, %b: vector<8xf8E5M2>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2, f8E5M2) -> f32>>, vector<8xf8E5M2>, vector<8xf8E5M2>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @cdna3_bf16_on_gfx950
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<4xbf16> to vector<4xi16>
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<4xbf16> to vector<4xi16>
// CHECK:         rocdl.mfma.f32.32x32x8bf16.1k %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @cdna3_bf16_on_gfx950(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (bf16, bf16) -> f32>>, vector<4xbf16>, vector<4xbf16>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
