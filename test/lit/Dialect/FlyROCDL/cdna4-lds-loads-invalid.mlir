// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{cdna4.buffer_load_async_lds: an LDS DMA moves 32, 96 or 128 bits per lane, not 64 (there is no 64-bit LDS DMA instruction)}}
func.func private @buffer_width(!fly_rocdl.cdna4.buffer_load_async_lds<64>)

// -----

// expected-error @below {{cdna4.global_load_async_lds: an LDS DMA moves 32, 96 or 128 bits per lane, not 16}}
func.func private @global_width(!fly_rocdl.cdna4.global_load_async_lds<16>)

// -----

// expected-error @below {{cdna4.lds_read_trans: no transposing LDS read has 16-bit elements and 96 bits per lane; the ones there are: (16, 64), (8, 64), (4, 64) and (6, 96)}}
func.func private @trans_form(!fly_rocdl.cdna4.lds_read_trans<16, 96>)

// -----

func.func @buffer_source(%p: !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, %s: !fly.memref<f32, shared, 1:1>) {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<32>, 32>
  // expected-error @below {{an LDS DMA from global memory reads a global tensor, not #fly_rocdl.buffer_desc memory}}
  fly.copy_atom_call(%a, %p, %s) : (!fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<32>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}

// -----

func.func @trans_from_global(%p: !fly.memref<bf16, global, 4:1>) -> vector<4xbf16> {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>
  // expected-error @below {{a transposing LDS read reads LDS (shared memory)}}
  %r = fly.copy_atom_call_ssa(%a, %p) : (!fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>, !fly.memref<bf16, global, 4:1>) -> vector<4xbf16>
  return %r : vector<4xbf16>
}

// -----

// The value width still matters for a transposing read (registers).
func.func @trans_elements(%p: !fly.memref<f32, shared, 2:1>) -> vector<2xf32> {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>
  // expected-error @below {{element type 'f32' does not have the atom's value width of 16 bits}}
  %r = fly.copy_atom_call_ssa(%a, %p) : (!fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>, !fly.memref<f32, shared, 2:1>) -> vector<2xf32>
  return %r : vector<2xf32>
}
