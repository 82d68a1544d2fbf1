// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{cdna3.buffer_copy: a buffer access moves 8, 16, 32, 64 or 128 bits, not 96}}
func.func private @width(!fly_rocdl.cdna3.buffer_copy<96>)

// -----

// expected-error @below {{cdna3.buffer_atomic: no buffer atomic is min on 'f32'}}
func.func private @fmin(!fly_rocdl.cdna3.buffer_atomic<min, f32>)

// -----

func.func @not_global(%p: !fly.ptr<f32, shared>, %n: i64) {
  // expected-error @below {{makes a buffer resource over global memory, not}}
  %b = fly_rocdl.make_buffer_ptr %p, %n : !fly.ptr<f32, shared> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  return
}

// -----

func.func @global_side(%p: !fly.memref<f32, global, 4:1>) -> vector<4xf32> {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128>, 32>
  // expected-error @below {{a buffer copy moves data between buffer memory (a tensor of fx.rocdl.make_buffer_tensor) and registers, not #fly.address_space<global> memory}}
  %r = fly.copy_atom_call_ssa(%a, %p) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128>, 32>, !fly.memref<f32, global, 4:1>) -> vector<4xf32>
  return %r : vector<4xf32>
}
