// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s
// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1100 -verify-diagnostics -split-input-file > /dev/null

// A CDNA3 MFMA atom call on register values: the ROCDL op of its shape and
// types, f32 operands as scalars, cbsz / abid / blgp 0. On gfx1100 the
// operation is an error naming the chips that have it.

// CHECK-LABEL: func.func @mfma_f32
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[A:.*]] = llvm.extractelement %arg0
// CHECK:         %[[B:.*]] = llvm.extractelement %arg1
// CHECK:         rocdl.mfma.f32.16x16x4f32 %[[A]], %[[B]], %arg2, %[[Z]], %[[Z]], %[[Z]] : (f32, f32, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @mfma_f32(%a: vector<1xf32>, %b: vector<1xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f32, f32) -> f32>>
  // expected-error @+1 {{MFMA(16, 16, 4, f32) is not available on gfx1100; the chips that have it: gfx942, gfx950}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x4, (f32, f32) -> f32>>, vector<1xf32>, vector<1xf32>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}
