// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s

// Every cdna3.mfma instruction as an atom call on register values lowers to
// its ROCDL op, A and B in the op's operand form (f32 and f64 scalars, f16
// vectors, bf16 as i16 vectors for the .1k ops, 8-bit types packed into an
// i64), C a vector of the accumulator type, cbsz / abid / blgp 0. (The fp8
// and bf8 ones are gfx942's FNUZ types here; cdna4-mfma.mlir has gfx950's.)

// CHECK-LABEL: func.func @f32_16x16x4
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.extractelement %arg0[%[[Z]] : i32]
// CHECK:         %[[B:.*]] = llvm.extractelement %arg1[%[[Z]] : i32]
// CHECK:         rocdl.mfma.f32.16x16x4f32 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (f32, f32, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @f32_16x16x4(%a: vector<1xf32>, %b: vector<1xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f32, f32) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f32, f32) -> f32>>, vector<1xf32>, vector<1xf32>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @f32_32x32x2
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.extractelement %arg0[%[[Z]] : i32]
// CHECK:         %[[B:.*]] = llvm.extractelement %arg1[%[[Z]] : i32]
// CHECK:         rocdl.mfma.f32.32x32x2f32 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (f32, f32, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @f32_32x32x2(%a: vector<1xf32>, %b: vector<1xf32>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x2, (f32, f32) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x2, (f32, f32) -> f32>>, vector<1xf32>, vector<1xf32>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @f16_16x16x16
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.16x16x16f16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @f16_16x16x16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>, vector<4xf16>, vector<4xf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @f16_32x32x8
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         rocdl.mfma.f32.32x32x8f16 %arg0, %arg1, %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @f16_32x32x8(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (f16, f16) -> f32>>, vector<4xf16>, vector<4xf16>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_16x16x16
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<4xbf16> to vector<4xi16>
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<4xbf16> to vector<4xi16>
// CHECK:         rocdl.mfma.f32.16x16x16bf16.1k %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xi16>, vector<4xi16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @bf16_16x16x16(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (bf16, bf16) -> f32>>, vector<4xbf16>, vector<4xbf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_32x32x8
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<4xbf16> to vector<4xi16>
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<4xbf16> to vector<4xi16>
// CHECK:         rocdl.mfma.f32.32x32x8bf16.1k %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @bf16_32x32x8(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x8, (bf16, bf16) -> f32>>, vector<4xbf16>, vector<4xbf16>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @i8_16x16x32
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<8xi8> to i64
// CHECK:         rocdl.mfma.i32.16x16x32.i8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
func.func @i8_16x16x32(%a: vector<8xi8>, %b: vector<8xi8>, %c: vector<4xi32>) -> vector<4xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (i8, i8) -> i32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (i8, i8) -> i32>>, vector<8xi8>, vector<8xi8>, vector<4xi32>) -> vector<4xi32>
  return %d : vector<4xi32>
}

// -----

// CHECK-LABEL: func.func @i8_32x32x16
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %arg0 : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %arg1 : vector<8xi8> to i64
// CHECK:         rocdl.mfma.i32.32x32x16.i8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xi32>, i32, i32, i32) -> vector<16xi32>
func.func @i8_32x32x16(%a: vector<8xi8>, %b: vector<8xi8>, %c: vector<16xi32>) -> vector<16xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (i8, i8) -> i32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (i8, i8) -> i32>>, vector<8xi8>, vector<8xi8>, vector<16xi32>) -> vector<16xi32>
  return %d : vector<16xi32>
}

// -----

// CHECK-LABEL: func.func @f64_16x16x4
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.extractelement %arg0[%[[Z]] : i32]
// CHECK:         %[[B:.*]] = llvm.extractelement %arg1[%[[Z]] : i32]
// CHECK:         rocdl.mfma.f64.16x16x4f64 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (f64, f64, vector<4xf64>, i32, i32, i32) -> vector<4xf64>
func.func @f64_16x16x4(%a: vector<1xf64>, %b: vector<1xf64>, %c: vector<4xf64>) -> vector<4xf64> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f64, f64) -> f64>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f64, f64) -> f64>>, vector<1xf64>, vector<1xf64>, vector<4xf64>) -> vector<4xf64>
  return %d : vector<4xf64>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.fp8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @fp8_fp8_16x16x32(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.fp8.bf8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @fp8_bf8_16x16x32(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E5M2FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.bf8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @bf8_fp8_16x16x32(%a: vector<8xf8E5M2FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_16x16x32
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.16x16x32.bf8.bf8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @bf8_bf8_16x16x32(%a: vector<8xf8E5M2FNUZ>, %b: vector<8xf8E5M2FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2FNUZ, f8E5M2FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E5M2FNUZ, f8E5M2FNUZ) -> f32>>, vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_32x32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.32x32x16.fp8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @fp8_fp8_32x32x16(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_32x32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.32x32x16.fp8.bf8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @fp8_bf8_32x32x16(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E5M2FNUZ>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E5M2FNUZ>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_32x32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.32x32x16.bf8.fp8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @bf8_fp8_32x32x16(%a: vector<8xf8E5M2FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_32x32x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to i64
// CHECK:         %[[B:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to i64
// CHECK:         rocdl.mfma.f32.32x32x16.bf8.bf8 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @bf8_bf8_32x32x16(%a: vector<8xf8E5M2FNUZ>, %b: vector<8xf8E5M2FNUZ>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E5M2FNUZ) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E5M2FNUZ) -> f32>>, vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
