// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null

// gfx950's LDS loads and transposing reads on gfx942: errors naming gfx950.

func.func @async(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<1:1>) -> !fly.memref<f32, shared, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.buffer_load_async_lds<32>, 32>
  // expected-error @+1 {{BufferLoadAsyncLDS32b is not available on gfx942; the chips that have it: gfx950}}
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna4.buffer_load_async_lds<32>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}

// -----

func.func @global(%base: !llvm.ptr<1>, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<4:1>
  %src = fly.make_view(%g, %l) : (!fly.ptr<f32, global>, !fly.layout<4:1>) -> !fly.memref<f32, global, 4:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<4:1>) -> !fly.memref<f32, shared, 4:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<128>, 32>
  // expected-error @+1 {{GlobalLoadAsyncLDS128b is not available on gfx942; the chips that have it: gfx950}}
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<128>, 32>, !fly.memref<f32, global, 4:1>, !fly.memref<f32, shared, 4:1>) -> ()
  return
}

// -----

func.func @trans(%lds: !llvm.ptr<3>) -> vector<4xbf16> {
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<bf16, shared>
  %l = fly.static : !fly.layout<4:1>
  %src = fly.make_view(%s, %l) : (!fly.ptr<bf16, shared>, !fly.layout<4:1>) -> !fly.memref<bf16, shared, 4:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>
  // expected-error @+1 {{LDSReadTrans(16, 64) is not available on gfx942; the chips that have it: gfx950}}
  %r = fly.copy_atom_call_ssa(%a, %src) : (!fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>, !fly.memref<bf16, shared, 4:1>) -> vector<4xbf16>
  return %r : vector<4xbf16>
}
