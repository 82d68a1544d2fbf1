// RUN: fly-opt %s -split-input-file -verify-diagnostics

// What gfx1250.wmma_scale rejects: a shape or an operand type the
// instruction lacks (32x16x128 is fp4 alone), a block size other than 32
// and 16, a scale selector past the two lane halves (or, for 32x16x128's
// A, whose 32 rows' scales fill the wave, other than 0), a C modifier
// wider than 16 bits, and a scale field of the other block size's width.

// expected-error @+1 {{gfx1250.wmma_scale: no scaled WMMA is 16x16x64 ('f8E4M3FN', 'f8E4M3FN') -> 'f32'; the ones there are: 16x16x128, A and B each f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN or f4E2M1FN, and 32x16x128, A and B f4E2M1FN, into f32}}
func.func private @shape() -> !fly_rocdl.gfx1250.wmma_scale<16x16x64, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// The FNUZ types are gfx942's; gfx1250 takes the OCP ones.
// expected-error @+1 {{no scaled WMMA is 16x16x128 ('f8E4M3FNUZ', 'f4E2M1FN') -> 'f32'}}
func.func private @fnuz() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FNUZ, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// expected-error @+1 {{no scaled WMMA is 16x16x128 ('f16', 'f16') -> 'f32'}}
func.func private @f16() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f16, f16) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// expected-error @+1 {{no scaled WMMA is 16x16x128 ('f8E4M3FN', 'f8E4M3FN') -> 'f16'}}
func.func private @acc_f16() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f16, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// expected-error @+1 {{gfx1250.wmma_scale: block_size is the number of values of K one E8M0 scale covers, 32 or 16, not 64}}
func.func private @block() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 64>

// -----

// expected-error @+1 {{gfx1250.wmma_scale: opsel_a and opsel_b pick the lanes holding the scales (0: lanes 0-15, 1: lanes 16-31), got 0 and 2}}
func.func private @opsel() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E3M2FN, f6E2M3FN) -> f32, opselA = 0, opselB = 2, modC = 0, reuseA = false, reuseB = false, blockSize = 16>

// -----

// expected-error @+1 {{gfx1250.wmma_scale: mod_c is the instruction's 16-bit C modifier (0..65535), got 65536}}
func.func private @modc() -> !fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E5M2, f8E5M2) -> f32, opselA = 0, opselB = 0, modC = 65536, reuseA = false, reuseB = false, blockSize = 32>

// -----

// Block 16's scales are 64 bits (eight E8M0 bytes), not 32.
func.func @scale_width(%s: i32) {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 16>>
  // expected-error @+1 {{field 'scale_a' takes a value of type 'i64', not 'i32'}}
  %m1 = fly.atom.set_value(%m, %s) {field = "scale_a"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 16>>, i32) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 16>>
  return
}

// -----

// expected-error @+1 {{no scaled WMMA is 32x16x128 ('f4E2M1FN', 'f8E4M3FN') -> 'f32'}}
func.func private @f4_form_fp8_b() -> !fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f8E4M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// expected-error @+1 {{no scaled WMMA is 32x16x128 ('f6E2M3FN', 'f6E2M3FN') -> 'f32'}}
func.func private @f4_form_fp6() -> !fly_rocdl.gfx1250.wmma_scale<32x16x128, (f6E2M3FN, f6E2M3FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 16>

// -----

// expected-error @+1 {{no scaled WMMA is 32x16x128 ('f4E2M1FN', 'f4E2M1FN') -> 'f16'}}
func.func private @f4_form_f16() -> !fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f16, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// expected-error @+1 {{gfx1250.wmma_scale: the scales of 32x16x128's 32 rows of A fill the wave (row i in lane i), so opsel_a is 0, not 1}}
func.func private @f4_form_opsel_a() -> !fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 1, opselB = 1, modC = 0, reuseA = false, reuseB = false, blockSize = 32>

// -----

// The f4 form's block-32 scales are 32 bits.
func.func @f4_scale_width(%s: i64) {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>
  // expected-error @+1 {{field 'scale_b' takes a value of type 'i32', not 'i64'}}
  %m1 = fly.atom.set_value(%m, %s) {field = "scale_b"} : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>, i64) -> !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>
  return
}
