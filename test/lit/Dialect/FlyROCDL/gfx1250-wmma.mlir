// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s

// Every gfx1250.wmma instruction as an atom call on register values lowers
// to its ROCDL op: A and B as K / 2 elements (f16, bf16 and f32 as they
// are; fp8, bf8 and i8 packed into i32), C and D as 8 elements; the neg,
// modC and reuse operands keep their defaults (0). The integer flags become
// the op's signA / signB / clamp.

// CHECK-LABEL: func.func @f32_f32_f32_16x16x4
// CHECK:         %[[V0:.*]] = rocdl.wmma.f32.16x16x4.f32 %arg0, %arg1, %arg2 : (vector<2xf32>, vector<2xf32>, vector<8xf32>) -> vector<8xf32>
func.func @f32_f32_f32_16x16x4(%a: vector<2xf32>, %b: vector<2xf32>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x4, (f32, f32) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x4, (f32, f32) -> f32>>, vector<2xf32>, vector<2xf32>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @f16_f16_f32_16x16x32
// CHECK:         %[[V0:.*]] = rocdl.wmma.f32.16x16x32.f16 %arg0, %arg1, %arg2 : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
func.func @f16_f16_f32_16x16x32(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f32>>, vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_f32_16x16x32
// CHECK:         %[[V0:.*]] = rocdl.wmma.f32.16x16x32.bf16 %arg0, %arg1, %arg2 : (vector<16xbf16>, vector<16xbf16>, vector<8xf32>) -> vector<8xf32>
func.func @bf16_bf16_f32_16x16x32(%a: vector<16xbf16>, %b: vector<16xbf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (bf16, bf16) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (bf16, bf16) -> f32>>, vector<16xbf16>, vector<16xbf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @f16_f16_f16_16x16x32
// CHECK:         %[[V0:.*]] = rocdl.wmma.f16.16x16x32.f16 %arg0, %arg1, %arg2 : (vector<16xf16>, vector<16xf16>, vector<8xf16>) -> vector<8xf16>
func.func @f16_f16_f16_16x16x32(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f16>>, vector<16xf16>, vector<16xf16>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_bf16_bf16_16x16x32
// CHECK:         %[[V0:.*]] = rocdl.wmma.bf16.16x16x32.bf16 %arg0, %arg1, %arg2 : (vector<16xbf16>, vector<16xbf16>, vector<8xbf16>) -> vector<8xbf16>
func.func @bf16_bf16_bf16_16x16x32(%a: vector<16xbf16>, %b: vector<16xbf16>, %c: vector<8xbf16>) -> vector<8xbf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (bf16, bf16) -> bf16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (bf16, bf16) -> bf16>>, vector<16xbf16>, vector<16xbf16>, vector<8xbf16>) -> vector<8xbf16>
  return %d : vector<8xbf16>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_f32_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x64.fp8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_fp8_f32_16x16x64(%a: vector<32xf8E4M3FN>, %b: vector<32xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E4M3FN) -> f32>>, vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_f32_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E5M2> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x64.fp8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_bf8_f32_16x16x64(%a: vector<32xf8E4M3FN>, %b: vector<32xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E5M2) -> f32>>, vector<32xf8E4M3FN>, vector<32xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_f32_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E5M2> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x64.bf8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_fp8_f32_16x16x64(%a: vector<32xf8E5M2>, %b: vector<32xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E4M3FN) -> f32>>, vector<32xf8E5M2>, vector<32xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_f32_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E5M2> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E5M2> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x64.bf8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_bf8_f32_16x16x64(%a: vector<32xf8E5M2>, %b: vector<32xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E5M2) -> f32>>, vector<32xf8E5M2>, vector<32xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_f16_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x64.fp8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf16>) -> vector<8xf16>
func.func @fp8_fp8_f16_16x16x64(%a: vector<32xf8E4M3FN>, %b: vector<32xf8E4M3FN>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E4M3FN) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E4M3FN) -> f16>>, vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_f16_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E5M2> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x64.fp8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf16>) -> vector<8xf16>
func.func @fp8_bf8_f16_16x16x64(%a: vector<32xf8E4M3FN>, %b: vector<32xf8E5M2>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E5M2) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E5M2) -> f16>>, vector<32xf8E4M3FN>, vector<32xf8E5M2>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_f16_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E5M2> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x64.bf8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf16>) -> vector<8xf16>
func.func @bf8_fp8_f16_16x16x64(%a: vector<32xf8E5M2>, %b: vector<32xf8E4M3FN>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E4M3FN) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E4M3FN) -> f16>>, vector<32xf8E5M2>, vector<32xf8E4M3FN>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_f16_16x16x64
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<32xf8E5M2> to vector<32xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<32xf8E5M2> to vector<32xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x64.bf8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<8xi32>, vector<8xi32>, vector<8xf16>) -> vector<8xf16>
func.func @bf8_bf8_f16_16x16x64(%a: vector<32xf8E5M2>, %b: vector<32xf8E5M2>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E5M2) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (f8E5M2, f8E5M2) -> f16>>, vector<32xf8E5M2>, vector<32xf8E5M2>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_f32_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x128.fp8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_fp8_f32_16x16x128(%a: vector<64xf8E4M3FN>, %b: vector<64xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32>>, vector<64xf8E4M3FN>, vector<64xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_f32_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E5M2> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x128.fp8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf32>) -> vector<8xf32>
func.func @fp8_bf8_f32_16x16x128(%a: vector<64xf8E4M3FN>, %b: vector<64xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E5M2) -> f32>>, vector<64xf8E4M3FN>, vector<64xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_f32_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E5M2> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x128.bf8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_fp8_f32_16x16x128(%a: vector<64xf8E5M2>, %b: vector<64xf8E4M3FN>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E4M3FN) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E4M3FN) -> f32>>, vector<64xf8E5M2>, vector<64xf8E4M3FN>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_f32_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E5M2> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E5M2> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f32.16x16x128.bf8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf32>) -> vector<8xf32>
func.func @bf8_bf8_f32_16x16x128(%a: vector<64xf8E5M2>, %b: vector<64xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E5M2) -> f32>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E5M2) -> f32>>, vector<64xf8E5M2>, vector<64xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @fp8_fp8_f16_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x128.fp8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf16>) -> vector<8xf16>
func.func @fp8_fp8_f16_16x16x128(%a: vector<64xf8E4M3FN>, %b: vector<64xf8E4M3FN>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E4M3FN) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E4M3FN) -> f16>>, vector<64xf8E4M3FN>, vector<64xf8E4M3FN>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @fp8_bf8_f16_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E5M2> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x128.fp8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf16>) -> vector<8xf16>
func.func @fp8_bf8_f16_16x16x128(%a: vector<64xf8E4M3FN>, %b: vector<64xf8E5M2>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E5M2) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E4M3FN, f8E5M2) -> f16>>, vector<64xf8E4M3FN>, vector<64xf8E5M2>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf8_fp8_f16_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E5M2> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E4M3FN> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x128.bf8_fp8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf16>) -> vector<8xf16>
func.func @bf8_fp8_f16_16x16x128(%a: vector<64xf8E5M2>, %b: vector<64xf8E4M3FN>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E4M3FN) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E4M3FN) -> f16>>, vector<64xf8E5M2>, vector<64xf8E4M3FN>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @bf8_bf8_f16_16x16x128
// CHECK-DAG:     %[[ARG0:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<64xf8E5M2> to vector<64xi8>
// CHECK-DAG:     %[[ARG1:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<64xf8E5M2> to vector<64xi8>
// CHECK:         %[[V0:.*]] = llvm.bitcast %[[ARG0]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %[[ARG1]] : vector<64xi8> to vector<16xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.f16.16x16x128.bf8_bf8 %[[V0]], %[[V1]], %arg2 : (vector<16xi32>, vector<16xi32>, vector<8xf16>) -> vector<8xf16>
func.func @bf8_bf8_f16_16x16x128(%a: vector<64xf8E5M2>, %b: vector<64xf8E5M2>, %c: vector<8xf16>) -> vector<8xf16> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E5M2) -> f16>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x128, (f8E5M2, f8E5M2) -> f16>>, vector<64xf8E5M2>, vector<64xf8E5M2>, vector<8xf16>) -> vector<8xf16>
  return %d : vector<8xf16>
}

// -----

// CHECK-LABEL: func.func @i8_i8_i32_16x16x64
// CHECK:         %[[V0:.*]] = llvm.bitcast %arg0 : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = llvm.bitcast %arg1 : vector<32xi8> to vector<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = rocdl.wmma.i32.16x16x64.iu8 %[[V0]], %[[V1]], %arg2 {clamp = true, signA = true, signB = true} : (vector<8xi32>, vector<8xi32>, vector<8xi32>) -> vector<8xi32>
func.func @i8_i8_i32_16x16x64(%a: vector<32xi8>, %b: vector<32xi8>, %c: vector<8xi32>) -> vector<8xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (i8, i8) -> i32, signA, signB, clamp>>
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x64, (i8, i8) -> i32, signA, signB, clamp>>, vector<32xi8>, vector<32xi8>, vector<8xi32>) -> vector<8xi32>
  return %d : vector<8xi32>
}
