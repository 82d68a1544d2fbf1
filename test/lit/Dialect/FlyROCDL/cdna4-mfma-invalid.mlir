// RUN: fly-opt %s -split-input-file -verify-diagnostics

// cdna4.mfma types that are no gfx950 instruction: the error lists the ones
// there are.

// expected-error @+1 {{cdna4.mfma: no gfx950 MFMA is 16x16x16 ('f16', 'f16') -> 'f32'; the ones there are (accumulating i8 into i32, the others into f32): 16x16x32 f16, 32x32x16 f16, 16x16x32 bf16, 32x32x16 bf16, 16x16x64 i8, 32x32x32 i8}}
func.func private @cdna3_shape() -> !fly_rocdl.cdna4.mfma<16x16x16, (f16, f16) -> f32>

// -----

// expected-error @+1 {{no gfx950 MFMA is 16x16x64 ('i8', 'i8') -> 'f32'}}
func.func private @i8_into_f32() -> !fly_rocdl.cdna4.mfma<16x16x64, (i8, i8) -> f32>

// -----

// expected-error @+1 {{no gfx950 MFMA is 16x16x32 ('f8E4M3FN', 'f8E4M3FN') -> 'f32'}}
func.func private @fp8_is_cdna3() -> !fly_rocdl.cdna4.mfma<16x16x32, (f8E4M3FN, f8E4M3FN) -> f32>

// -----

// expected-error @+1 {{no gfx950 MFMA is 16x32x32 ('bf16', 'bf16') -> 'f32'}}
func.func private @not_square() -> !fly_rocdl.cdna4.mfma<16x32x32, (bf16, bf16) -> f32>
