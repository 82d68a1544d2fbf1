// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1100 | FileCheck %s

// Every gfx11.wmma instruction as an atom call on register values lowers to
// its ROCDL op: A and B as 16 elements (bf16 as i16, i8 and i4 packed into
// i32), a 32-bit C as 8 elements; a 16-bit C is spread over the low halves
// of 16 (opsel 0) and D gathered back from them. The integer flags become
// the op's signA / signB / clamp.

// CHECK-LABEL: func.func @f16_f16_f32_16x16x16
// CHECK:         %[[V0:.*]] = rocdl.wmma.f32.16x16x16.f16 %arg0, %arg1, %arg2 : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
func.func @f16_f16_f32_16x16x16(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32>>, vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_f32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x16.bf16 %[[V0]], %[[V1]], %arg2 : (vector<16xi16>, vector<16xi16>, vector<8xf32>) -> vector<8xf32>
func.func @bf16_bf16_f32_16x16x16(%a: vector<16xbf16>, %b: vector<16xbf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (bf16, bf16) -> f32>>, vector<16xbf16>, vector<16xbf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @f16_f16_f16_16x16x16
// CHECK:         %[[V0:.*]] = llvm.shufflevector %arg2, %arg2 [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7] : vector<8xf16>
// CHECK-NEXT:    %[[V1:.*]] = rocdl.wmma.f16.16x16x16.f16 %arg0, %arg1, %[[V0]] : (vector<16xf16>, vector<16xf16>, vector<16xf16>) -> vector<16xf16>
// CHECK-NEXT:    %[[V2:.*]] = llvm.shufflevector %[[V1]], %[[V1]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf16>
func.func @f16_f16_f16_16x16x16(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f16>>, vector<16xf16>, vector<16xf16>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_bf16_16x16x16
// CHECK:         %[[V0:.*]] = llvm.shufflevector %arg2, %arg2 [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7] : vector<8xbf16>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[V0]] : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[V2:.*]] = llvm.bitcast %arg0 : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[V3:.*]] = llvm.bitcast %arg1 : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[V4:.*]] = rocdl.wmma.bf16.16x16x16.bf16 %[[V2]], %[[V3]], %[[V1]] : (vector<16xi16>, vector<16xi16>, vector<16xi16>) -> vector<16xi16>
// CHECK-NEXT:    %[[V5:.*]] = llvm.bitcast %[[V4]] : vector<16xi16> to vector<16xbf16>
// CHECK-NEXT:    %[[V6:.*]] = llvm.shufflevector %[[V5]], %[[V5]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xbf16>
func.func @bf16_bf16_bf16_16x16x16(%a: vector<16xbf16>, %b: vector<16xbf16>, %c: vector<8xbf16>) -> vector<8xbf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (bf16, bf16) -> bf16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (bf16, bf16) -> bf16>>, vector<16xbf16>, vector<16xbf16>, vector<8xbf16>) -> vector<8xbf16>
  return %d : vector<8xbf16>
}

// -----

// CHECK-LABEL: func.func @i8_i8_i32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<16xi8> to vector<4xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<16xi8> to vector<4xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x16.iu8 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (vector<4xi32>, vector<4xi32>, vector<8xi32>) -> vector<8xi32>
func.func @i8_i8_i32_16x16x16(%a: vector<16xi8>, %b: vector<16xi8>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (i8, i8) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (i8, i8) -> i32, signA, signB, clamp>>, vector<16xi8>, vector<16xi8>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}

// -----

// CHECK-LABEL: func.func @i4_i4_i32_16x16x16
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<16xi4> to vector<2xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<16xi4> to vector<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x16.iu4 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (vector<2xi32>, vector<2xi32>, vector<8xi32>) -> vector<8xi32>
func.func @i4_i4_i32_16x16x16(%a: vector<16xi4>, %b: vector<16xi4>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (i4, i4) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (i4, i4) -> i32, signA, signB, clamp>>, vector<16xi4>, vector<16xi4>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}

// -----

// The integer flags print after the accumulator type, in a fixed order.
// CHECK-LABEL: func.func private @flags()
// CHECK-SAME:    -> !fly_rocdl.gfx11.wmma<16x16x16, (i4, i4) -> i32, signA, signB, clamp>
func.func private @flags() -> !fly_rocdl.gfx11.wmma<16x16x16, (i4, i4) -> i32, clamp, signB, signA>
