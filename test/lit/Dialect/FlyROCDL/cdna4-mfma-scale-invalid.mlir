// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{cdna4.mfma_scale: no scaled MFMA is 16x16x64 ('f8E4M3FN', 'f8E4M3FN') -> 'f32'; the ones there are: 16x16x128 and 32x32x64, A and B each f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN or f4E2M1FN, into f32}}
func.func private @shape() -> !fly_rocdl.cdna4.mfma_scale<16x16x64, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>

// -----

// The FNUZ types are gfx942's; the scaled MFMA takes the OCP ones.
// expected-error @+1 {{no scaled MFMA is 16x16x128 ('f8E4M3FNUZ', 'f8E4M3FN') -> 'f32'}}
func.func private @fnuz() -> !fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FNUZ, f8E4M3FN) -> f32, opsel = (0, 0)>

// -----

// expected-error @+1 {{cdna4.mfma_scale: opsel_a and opsel_b pick a byte of the scale register (0..3), got 4 and 0}}
func.func private @opsel() -> !fly_rocdl.cdna4.mfma_scale<32x32x64, (f6E2M3FN, f6E3M2FN) -> f32, opsel = (4, 0)>
