// RUN: fly-opt %s -verify-diagnostics --convert-fly-to-rocdl

// A buffer resource's 4th word depends on the chip: without chip= the
// conversion stops at make_buffer_ptr.
func.func @no_chip(%base: !llvm.ptr<1>, %n: i64) -> !llvm.ptr<8> {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  // expected-error @below {{needs the chip (convert-fly-to-rocdl chip=...)}}
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %r = fly_rocdl.get_buffer_rsrc %b : !fly.ptr<f32, #fly_rocdl.buffer_desc> -> !llvm.ptr<8>
  return %r : !llvm.ptr<8>
}
