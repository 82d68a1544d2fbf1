// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{cdna3.buffer_copy_lds: an LDS DMA moves 32 or 128 bits per lane, not 64 (there is no 64-bit LDS DMA instruction)}}
func.func private @width(!fly_rocdl.cdna3.buffer_copy_lds<64>)

// -----

func.func @global_source(%p: !fly.memref<f32, global, 1:1>, %s: !fly.memref<f32, shared, 1:1>) {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  // expected-error @below {{an LDS DMA from a buffer reads buffer memory (a tensor of fx.rocdl.make_buffer_tensor), not #fly.address_space<global> memory}}
  fly.copy_atom_call(%a, %p, %s) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, !fly.memref<f32, global, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}

// -----

func.func @register_destination(%p: !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, %r: !fly.memref<f32, register, 1:1>) {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  // expected-error @below {{an LDS DMA writes LDS (shared memory), not #fly.address_space<register> memory}}
  fly.copy_atom_call(%a, %p, %r) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, register, 1:1>) -> ()
  return
}
