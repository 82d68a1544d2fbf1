// RUN: fly-opt %s -split-input-file -verify-diagnostics

// cdna3.mfma types that are no CDNA3 instruction: the error lists the ones
// there are.

// expected-error @+1 {{cdna3.mfma: no CDNA3 MFMA is 16x16x5 ('f32', 'f32') -> 'f32'; the ones there are (accumulating i8 into i32, f64 into f64, the others into f32): 16x16x4 f32, 32x32x2 f32, 16x16x16 f16, 32x32x8 f16, 16x16x16 bf16, 32x32x8 bf16, 16x16x32 i8, 32x32x16 i8, 16x16x4 f64, 16x16x32 fp8, 16x16x32 fp8 bf8, 16x16x32 bf8 fp8, 16x16x32 bf8, 32x32x16 fp8, 32x32x16 fp8 bf8, 32x32x16 bf8 fp8, 32x32x16 bf8}}
func.func private @bad_shape() -> !fly_rocdl.cdna3.mfma<16x16x5, (f32, f32) -> f32>

// -----

// An i8 MFMA accumulates into i32, not f32.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x32 ('i8', 'i8') -> 'f32'}}
func.func private @i8_into_f32() -> !fly_rocdl.cdna3.mfma<16x16x32, (i8, i8) -> f32>

// -----

// f64's MFMA accumulates into f64.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x4 ('f64', 'f64') -> 'f32'}}
func.func private @f64_into_f32() -> !fly_rocdl.cdna3.mfma<16x16x4, (f64, f64) -> f32>

// -----

// A and B of different types outside the fp8 / bf8 pairs.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x16 ('f16', 'bf16') -> 'f32'}}
func.func private @mixed() -> !fly_rocdl.cdna3.mfma<16x16x16, (f16, bf16) -> f32>

// -----

// 8-bit floats of two encodings (FNUZ and OCP) together.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x32 ('f8E4M3FNUZ', 'f8E5M2') -> 'f32'}}
func.func private @two_encodings() -> !fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E5M2) -> f32>

// -----

// gfx950's 16x16x32 f16 is a cdna4.mfma.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x32 ('f16', 'f16') -> 'f32'}}
func.func private @cdna4_shape() -> !fly_rocdl.cdna3.mfma<16x16x32, (f16, f16) -> f32>

// -----

// The IEEE-like f8E4M3 is neither encoding of the chips.
// expected-error @+1 {{no CDNA3 MFMA is 16x16x32 ('f8E4M3', 'f8E4M3') -> 'f32'}}
func.func private @ieee_e4m3() -> !fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3, f8E4M3) -> f32>
