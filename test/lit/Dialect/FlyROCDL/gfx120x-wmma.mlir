// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1201 | FileCheck %s

// Every gfx120x.wmma instruction as an atom call on register values lowers
// to its ROCDL op: A and B as K / 2 elements (bf16 as i16; i8, i4, fp8 and
// bf8 packed into i32, one i32 a scalar), C and D as 8 elements (16-bit
// ones packed two to a register). The integer flags become the op's
// signA / signB / clamp.

// CHECK-LABEL: func.func @f16_f16_f32_16x16x16
// CHECK:         %[[V0:.*]] = rocdl.wmma.f32.16x16x16.f16 %arg0, %arg1, %arg2 : (vector<8xf16>, vector<8xf16>, vector<8xf32>) -> vector<8xf32>
func.func @f16_f16_f32_16x16x16(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f32>>, vector<8xf16>, vector<8xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_f32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<8xbf16> to vector<8xi16>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<8xbf16> to vector<8xi16>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.bf16 %[[V0]], %[[V1]], %arg2 : (vector<8xi16>, vector<8xi16>, vector<8xf32>) -> vector<8xf32>
func.func @bf16_bf16_f32_16x16x16(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (bf16, bf16) -> f32>>, vector<8xbf16>, vector<8xbf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @f16_f16_f16_16x16x16
// CHECK:         %[[V0:.*]] = rocdl.wmma.f16.16x16x16.f16 %arg0, %arg1, %arg2 : (vector<8xf16>, vector<8xf16>, vector<8xf16>) -> vector<8xf16>
func.func @f16_f16_f16_16x16x16(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f16>>, vector<8xf16>, vector<8xf16>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_bf16_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg2 : vector<8xbf16> to vector<8xi16>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg0 : vector<8xbf16> to vector<8xi16>
// CHECK-NEXT:    %[[V2:.*]] = llvm.bitcast %arg1 : vector<8xbf16> to vector<8xi16>
// CHECK-NEXT:    %[[V3:.*]] = rocdl.wmma.bf16.16x16x16.bf16 %[[V1]], %[[V2]], %[[V0]] : (vector<8xi16>, vector<8xi16>, vector<8xi16>) -> vector<8xi16>
// CHECK-NEXT:    %[[V4:.*]] = llvm.bitcast %[[V3]] : vector<8xi16> to vector<8xbf16>
func.func @bf16_bf16_bf16_16x16x16(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<8xbf16>) -> vector<8xbf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (bf16, bf16) -> bf16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (bf16, bf16) -> bf16>>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) -> vector<8xbf16>
  return %d : vector<8xbf16>
}

// -----

// CHECK-LABEL: func.func @i8_i8_i32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x16.iu8 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (vector<2xi32>, vector<2xi32>, vector<8xi32>) -> vector<8xi32>
func.func @i8_i8_i32_16x16x16(%a: vector<8xi8>, %b: vector<8xi8>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (i8, i8) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (i8, i8) -> i32, signA, signB, clamp>>, vector<8xi8>, vector<8xi8>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}

// -----

// CHECK-LABEL: func.func @i4_i4_i32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<8xi4> to i32
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<8xi4> to i32
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x16.iu4 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (i32, i32, vector<8xi32>) -> vector<8xi32>
func.func @i4_i4_i32_16x16x16(%a: vector<8xi4>, %b: vector<8xi4>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (i4, i4) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (i4, i4) -> i32, signA, signB, clamp>>, vector<8xi4>, vector<8xi4>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}

// -----

// CHECK-LABEL: func.func @i4_i4_i32_16x16x32
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<16xi4> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<16xi4> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x32.iu4 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (vector<2xi32>, vector<2xi32>, vector<8xi32>) -> vector<8xi32>
func.func @i4_i4_i32_16x16x32(%a: vector<16xi4>, %b: vector<16xi4>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x32, (i4, i4) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x32, (i4, i4) -> i32, signA, signB, clamp>>, vector<16xi4>, vector<16xi4>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_f32_16x16x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.fp8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_fp8_f32_16x16x16(%a: vector<8xf8E4M3FN>, %b: vector<8xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E4M3FN) -> f32>>, vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_f32_16x16x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2> to vector<8xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.fp8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_bf8_f32_16x16x16(%a: vector<8xf8E4M3FN>, %b: vector<8xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E5M2) -> f32>>, vector<8xf8E4M3FN>, vector<8xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_f32_16x16x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E4M3FN> to vector<8xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.bf8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_fp8_f32_16x16x16(%a: vector<8xf8E5M2>, %b: vector<8xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E5M2, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E5M2, f8E4M3FN) -> f32>>, vector<8xf8E5M2>, vector<8xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_f32_16x16x16
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<8xf8E5M2> to vector<8xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<8xf8E5M2> to vector<8xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<8xi8> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.bf8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_bf8_f32_16x16x16(%a: vector<8xf8E5M2>, %b: vector<8xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E5M2, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f8E5M2, f8E5M2) -> f32>>, vector<8xf8E5M2>, vector<8xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}
