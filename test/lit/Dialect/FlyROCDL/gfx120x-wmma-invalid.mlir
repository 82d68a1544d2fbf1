// RUN: fly-opt %s -split-input-file -verify-diagnostics

// The gfx120x.wmma verifier: a shape or type RDNA4 lacks lists what it has;
// the integer flags belong to the integer forms only.

// expected-error @+1 {{gfx120x.wmma: RDNA4 (gfx120x) has no WMMA 16x16x32 ('f16', 'f16') -> 'f32'; the ones there are: 16x16x16 (f16, f16) -> f32, 16x16x16 (bf16, bf16) -> f32, 16x16x16 (f16, f16) -> f16, 16x16x16 (bf16, bf16) -> bf16, 16x16x16 (i8, i8) -> i32, 16x16x16 (i4, i4) -> i32, 16x16x32 (i4, i4) -> i32, 16x16x16 (f8E4M3FN, f8E4M3FN) -> f32, 16x16x16 (f8E4M3FN, f8E5M2) -> f32, 16x16x16 (f8E5M2, f8E4M3FN) -> f32, 16x16x16 (f8E5M2, f8E5M2) -> f32}}
func.func private @bad_shape() -> !fly_rocdl.gfx120x.wmma<16x16x32, (f16, f16) -> f32>

// -----

// The FNUZ 8-bit floats are CDNA3's; RDNA4's are the OCP ones.
// expected-error @+1 {{gfx120x.wmma: RDNA4 (gfx120x) has no WMMA 16x16x16 ('f8E4M3FNUZ', 'f8E4M3FNUZ') -> 'f32'}}
func.func private @fnuz() -> !fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>

// -----

// expected-error @+1 {{gfx120x.wmma: RDNA4 (gfx120x) has no WMMA 16x16x16 ('f8E4M3FN', 'f8E4M3FN') -> 'f16'}}
func.func private @fp8_f16() -> !fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E4M3FN) -> f16>

// -----

// expected-error @+1 {{gfx120x.wmma: signA, signB and clamp are flags of the integer (iu8, iu4) WMMA only, not of ('f8E4M3FN', 'f8E5M2') -> 'f32'}}
func.func private @fp8_flags() -> !fly_rocdl.gfx120x.wmma<16x16x16, (f8E4M3FN, f8E5M2) -> f32, signA>
