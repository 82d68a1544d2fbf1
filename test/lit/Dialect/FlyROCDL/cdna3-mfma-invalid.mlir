// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{cdna3.mfma: no CDNA3 MFMA is 16x16x5 ('f32', 'f32') -> 'f32'; the ones there are: 16x16x4 f32, 32x32x2 f32}}
func.func private @bad_shape() -> !fly_rocdl.cdna3.mfma<16x16x5, (f32, f32) -> f32>
