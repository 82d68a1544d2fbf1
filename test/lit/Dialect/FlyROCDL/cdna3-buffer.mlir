// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,CDNA
// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1100 | FileCheck %s --check-prefixes=CHECK,RDNA

// Buffer memory: make_buffer_ptr is a raw resource (stride 0, the chip's
// 4th word: 0x27000 on CDNA, 0x31027000 on RDNA) at element offset 0;
// add_offset moves the i32 element offset; a buffer copy's load is
// rocdl.raw.ptr.buffer.load at the byte offset (+ imm_offset) with soffset
// in bytes and the cache bits as aux; its store the same.

// CHECK-LABEL: func.func @load
// CHECK-DAG:     %[[STRIDE:.*]] = llvm.mlir.constant(0 : i16) : i16
// CDNA-DAG:      %[[FLAGS:.*]] = llvm.mlir.constant(159744 : i32) : i32
// RDNA-DAG:      %[[FLAGS:.*]] = llvm.mlir.constant(822243328 : i32) : i32
// CHECK:         %[[R:.*]] = rocdl.make.buffer.rsrc %arg0, %[[STRIDE]], %arg1, %[[FLAGS]] : <1> to <8>
// CHECK:         %[[P:.*]] = llvm.insertvalue %[[R]], %{{.*}}[0] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[P0:.*]] = llvm.insertvalue %{{.*}}, %[[P]][1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[MOVED:.*]] = arith.addi %{{.*}}, %arg2 : i32
// CHECK:         %[[EO:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK:         %[[BYTES:.*]] = arith.muli %[[EO]], %{{.*}} : i32
// CHECK:         %[[V:.*]] = arith.addi %[[BYTES]], %arg4 : i32
// CHECK:         %[[S:.*]] = arith.muli %arg3, %{{.*}} : i32
// CHECK:         %[[AUX:.*]] = arith.constant 2 : i32
// CHECK:         %[[L:.*]] = rocdl.raw.ptr.buffer.load %{{.*}}, %[[V]], %[[S]], %[[AUX]] : vector<4xi32>
// CHECK:         llvm.bitcast %[[L]] : vector<4xi32> to vector<4xf32>
func.func @load(%base: !llvm.ptr<1>, %n: i64, %i: i32, %s: i32, %imm: i32) -> vector<4xf32> {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
  %p = fly.add_offset(%b, %i) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %l = fly.static : !fly.layout<4:1>
  %v = fly.make_view(%p, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<4:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 4:1>
  %a0 = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>
  %a1 = fly.atom.set_value(%a0, %s) {field = "soffset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>
  %a2 = fly.atom.set_value(%a1, %imm) {field = "imm_offset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>
  %r = fly.copy_atom_call_ssa(%a2, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<128, cache = 2>, 32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 4:1>) -> vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// A 16-bit store of one f16: i16 data, soffset and imm_offset 0 by default.
// CHECK-LABEL: func.func @store16
// CHECK:         %[[D:.*]] = llvm.bitcast %arg2 : vector<1xf16> to i16
// CHECK:         %[[B:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         rocdl.raw.ptr.buffer.store %[[D]], %{{.*}}, %[[B]], %[[Z]], %{{.*}} : i16
func.func @store16(%base: !llvm.ptr<1>, %n: i64, %x: vector<1xf16>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f16, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f16, global> -> !fly.ptr<f16, #fly_rocdl.buffer_desc>
  %l = fly.static : !fly.layout<1:1>
  %v = fly.make_view(%b, %l) : (!fly.ptr<f16, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f16, #fly_rocdl.buffer_desc, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<16>, 16>
  fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<16>, 16>, vector<1xf16>, !fly.memref<f16, #fly_rocdl.buffer_desc, 1:1>) -> ()
  return
}

// -----

// Buffer atomics: fadd on f32, smax on i32, umin on i32, a packed f16 add.
// CHECK-LABEL: func.func @atomics
// CHECK:         rocdl.raw.ptr.buffer.atomic.fadd %{{.*}} : f32
// CHECK:         rocdl.raw.ptr.buffer.atomic.smax %{{.*}} : i32
// CHECK:         rocdl.raw.ptr.buffer.atomic.umin %{{.*}} : i32
// CHECK:         rocdl.raw.ptr.buffer.atomic.fadd %{{.*}} : vector<2xf16>
func.func @atomics(%base: !llvm.ptr<1>, %n: i64, %f: vector<1xf32>, %i: vector<1xi32>, %h: vector<2xf16>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %l = fly.static : !fly.layout<1:1>
  %v = fly.make_view(%b, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<add, f32>, 32>
  fly.copy_atom_call_ssa(%a, %f, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<add, f32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
  %gi = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<i32, global>
  %bi = fly_rocdl.make_buffer_ptr %gi, %n : !fly.ptr<i32, global> -> !fly.ptr<i32, #fly_rocdl.buffer_desc>
  %vi = fly.make_view(%bi, %l) : (!fly.ptr<i32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<i32, #fly_rocdl.buffer_desc, 1:1>
  %mx = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<max, i32>, 32>
  fly.copy_atom_call_ssa(%mx, %i, %vi) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<max, i32>, 32>, vector<1xi32>, !fly.memref<i32, #fly_rocdl.buffer_desc, 1:1>) -> ()
  %mn = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<min, i32>, 32>
  fly.copy_atom_call_ssa(%mn, %i, %vi) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<min, i32>, 32>, vector<1xi32>, !fly.memref<i32, #fly_rocdl.buffer_desc, 1:1>) -> ()
  %gh = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f16, global>
  %bh = fly_rocdl.make_buffer_ptr %gh, %n : !fly.ptr<f16, global> -> !fly.ptr<f16, #fly_rocdl.buffer_desc>
  %l2 = fly.static : !fly.layout<2:1>
  %vh = fly.make_view(%bh, %l2) : (!fly.ptr<f16, #fly_rocdl.buffer_desc>, !fly.layout<2:1>) -> !fly.memref<f16, #fly_rocdl.buffer_desc, 2:1>
  %pk = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<add, vector<2xf16>>, 16>
  fly.copy_atom_call_ssa(%pk, %h, %vh) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_atomic<add, vector<2xf16>>, 16>, vector<2xf16>, !fly.memref<f16, #fly_rocdl.buffer_desc, 2:1>) -> ()
  return
}

// -----

// get_buffer_rsrc is the resource (field 0), without the offset.
// CHECK-LABEL: func.func @rsrc
// CHECK:         %[[R:.*]] = rocdl.make.buffer.rsrc
// CHECK:         llvm.insertvalue %[[R]], %{{.*}}[0]
// CHECK:         arith.addi
// CHECK:         %[[Q:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1]
// CHECK-NEXT:    %[[E:.*]] = llvm.extractvalue %[[Q]][0] : !llvm.struct<(ptr<8>, i32)>
// CHECK-NEXT:    return %[[E]] : !llvm.ptr<8>
func.func @rsrc(%base: !llvm.ptr<1>, %n: i64) -> !llvm.ptr<8> {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global> -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %c8 = arith.constant 8 : i32
  %p = fly.add_offset(%b, %c8) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
  %r = fly_rocdl.get_buffer_rsrc %p : !fly.ptr<f32, #fly_rocdl.buffer_desc> -> !llvm.ptr<8>
  return %r : !llvm.ptr<8>
}
