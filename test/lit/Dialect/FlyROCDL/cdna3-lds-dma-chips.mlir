// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null

// The 128-bit LDS DMA is gfx950's alone (the chip table's LDS DMA widths):
// on gfx942 an error naming gfx950.
// A run-time imm_offset cannot be the instruction's offset field.

func.func @wide(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<1:1>) -> !fly.memref<f32, shared, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<128>, 128>
  // expected-error @+1 {{BufferCopyLDS128b is not available on gfx942; the chips that have it: gfx950}}
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<128>, 128>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}

// -----

func.func @dynamic_imm(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>, %imm: i32) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<1:1>) -> !fly.memref<f32, shared, 1:1>
  %a0 = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  %a1 = fly.atom.set_value(%a0, %imm) {field = "imm_offset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  // expected-error @+2 {{failed to legalize operation 'fly.copy_atom_call'}}
  // expected-error @+1 {{BufferCopyLDS32b: imm_offset must be a compile-time constant (it is the instruction's offset field, applied to both addresses)}}
  fly.copy_atom_call(%a1, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}
