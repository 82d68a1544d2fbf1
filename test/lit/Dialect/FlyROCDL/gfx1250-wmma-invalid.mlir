// RUN: fly-opt %s -split-input-file -verify-diagnostics

// The gfx1250.wmma verifier: a shape or type gfx1250 lacks lists what it
// has; the integer flags belong to the integer form only.

// RDNA's 16x16x16 is not a gfx1250 shape.
// expected-error @+1 {{gfx1250.wmma: gfx1250 has no WMMA 16x16x16 ('f16', 'f16') -> 'f32'; the ones there are: 16x16x4 (f32, f32) -> f32, 16x16x32 (f16, f16) -> f32, 16x16x32 (bf16, bf16) -> f32, 16x16x32 (f16, f16) -> f16, 16x16x32 (bf16, bf16) -> bf16, 16x16x64 (f8E4M3FN, f8E4M3FN) -> f32}}
func.func private @rdna_shape() -> !fly_rocdl.gfx1250.wmma<16x16x16, (f16, f16) -> f32>

// -----

// expected-error @+1 {{gfx1250.wmma: gfx1250 has no WMMA 16x16x32 ('i8', 'i8') -> 'i32'}}
func.func private @i8_k32() -> !fly_rocdl.gfx1250.wmma<16x16x32, (i8, i8) -> i32>

// -----

// expected-error @+1 {{gfx1250.wmma: gfx1250 has no WMMA 16x16x64 ('f8E4M3FN', 'f8E4M3FN') -> 'bf16'}}
func.func private @fp8_bf16() -> !fly_rocdl.gfx1250.wmma<16x16x64, (f8E4M3FN, f8E4M3FN) -> bf16>

// -----

// expected-error @+1 {{gfx1250.wmma: signA, signB and clamp are flags of the integer (iu8, iu4) WMMA only, not of ('bf16', 'bf16') -> 'f32'}}
func.func private @bf16_flags() -> !fly_rocdl.gfx1250.wmma<16x16x32, (bf16, bf16) -> f32, signB>

