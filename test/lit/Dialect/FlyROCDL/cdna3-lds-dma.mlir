// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s
// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 | FileCheck %s

// cdna3.buffer_copy_lds: one atom call is rocdl.raw.ptr.buffer.load.lds on
// the buffer pointer's resource and byte offset, the LDS pointer as M0's
// source, the width in bytes, soffset in bytes (elements of the source
// times their size) and the constant imm_offset as the offset field.

// CHECK-LABEL: func.func @dma32
// CHECK-DAG:     %[[SIZE:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[R:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(ptr<8>, i32)>
// CHECK-DAG:     %[[EO:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[VO:.*]] = arith.muli %[[EO]], %{{.*}} : i32
// CHECK:         rocdl.raw.ptr.buffer.load.lds %[[R]], %arg2, %[[SIZE]], %[[VO]], %{{.*}}, %{{.*}}, %{{.*}}
func.func @dma32(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<1:1>) -> !fly.memref<f32, shared, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f32, shared, 1:1>) -> ()
  return
}

// -----

// soffset in f16 elements (times 2 bytes), imm_offset 64 bytes; a 32-bit
// atom over f16 tensors, one value per call: the elements are not its
// width, which an LDS DMA allows (it takes addresses only).
// CHECK-LABEL: func.func @fields
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         %[[SB:.*]] = arith.muli %arg3, %[[TWO]] : i32
// CHECK:         %[[SIZE:.*]] = arith.constant 4 : i32
// CHECK:         %[[IMM:.*]] = arith.constant 64 : i32
// CHECK:         rocdl.raw.ptr.buffer.load.lds %{{.*}}, %arg2, %[[SIZE]], %{{.*}}, %[[SB]], %[[IMM]], %{{.*}}
func.func @fields(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>, %soff: i32) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f16, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f16, global> -> !fly.ptr<f16, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<f16, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f16, #fly_rocdl.buffer_desc, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<f16, shared>, !fly.layout<1:1>) -> !fly.memref<f16, shared, 1:1>
  %a0 = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  %c64 = arith.constant 64 : i32
  %a1 = fly.atom.set_value(%a0, %soff) {field = "soffset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  %a2 = fly.atom.set_value(%a1, %c64) {field = "imm_offset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>
  fly.copy_atom_call(%a2, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy_lds<32>, 32>, !fly.memref<f16, #fly_rocdl.buffer_desc, 1:1>, !fly.memref<f16, shared, 1:1>) -> ()
  return
}
