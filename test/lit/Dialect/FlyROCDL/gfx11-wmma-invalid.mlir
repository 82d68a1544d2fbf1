// RUN: fly-opt %s -split-input-file -verify-diagnostics

// The gfx11.wmma verifier: a shape or type RDNA3 lacks lists what it has;
// the integer flags belong to the integer forms only; unknown flags do not
// parse.

// expected-error @+1 {{gfx11.wmma: RDNA3 (gfx11) has no WMMA 16x16x32 ('f16', 'f16') -> 'f32'; the ones there are: 16x16x16 (f16, f16) -> f32, 16x16x16 (bf16, bf16) -> f32, 16x16x16 (f16, f16) -> f16, 16x16x16 (bf16, bf16) -> bf16, 16x16x16 (i8, i8) -> i32, 16x16x16 (i4, i4) -> i32}}
func.func private @bad_shape() -> !fly_rocdl.gfx11.wmma<16x16x32, (f16, f16) -> f32>

// -----

// expected-error @+1 {{gfx11.wmma: RDNA3 (gfx11) has no WMMA 16x16x16 ('f16', 'f16') -> 'bf16'}}
func.func private @mixed_acc() -> !fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> bf16>

// -----

// expected-error @+1 {{gfx11.wmma: RDNA3 (gfx11) has no WMMA 16x16x16 ('f8E4M3FN', 'f8E4M3FN') -> 'f32'}}
func.func private @no_fp8() -> !fly_rocdl.gfx11.wmma<16x16x16, (f8E4M3FN, f8E4M3FN) -> f32>

// -----

// expected-error @+1 {{gfx11.wmma: signA, signB and clamp are flags of the integer (iu8, iu4) WMMA only, not of ('f16', 'f16') -> 'f32'}}
func.func private @float_flags() -> !fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32, clamp>

// -----

// expected-error @+1 {{expected signA, signB or clamp, not saturate}}
func.func private @unknown_flag() -> !fly_rocdl.gfx11.wmma<16x16x16, (i8, i8) -> i32, saturate>
