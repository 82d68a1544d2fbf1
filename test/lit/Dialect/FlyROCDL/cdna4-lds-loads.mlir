// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 | FileCheck %s

// gfx950's LDS loads: cdna4.buffer_load_async_lds is the buffer LDS DMA
// (rocdl.raw.ptr.buffer.load.lds; LLVM 22 has no async form), here 96 bits;
// cdna4.global_load_async_lds is rocdl.global.load.lds (size 16, offset 0);
// cdna4.lds_read_trans<16, 64> is rocdl.ds.read.tr16.b64, its vector<4xi16>
// bitcast to the source's elements.

// CHECK-LABEL: func.func @buffer96
// CHECK-DAG:     %[[SIZE:.*]] = arith.constant 12 : i32
// CHECK:         rocdl.raw.ptr.buffer.load.lds %{{.*}}, %arg2, %[[SIZE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}
func.func @buffer96(%base: !llvm.ptr<1>, %n: i64, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<i32, global>
  %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<i32, global> -> !fly.ptr<i32, #fly_rocdl.buffer_desc>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<i32, shared>
  %l = fly.static : !fly.layout<3:1>
  %src = fly.make_view(%b, %l) : (!fly.ptr<i32, #fly_rocdl.buffer_desc>, !fly.layout<3:1>) -> !fly.memref<i32, #fly_rocdl.buffer_desc, 3:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<i32, shared>, !fly.layout<3:1>) -> !fly.memref<i32, shared, 3:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.buffer_load_async_lds<96>, 32>
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna4.buffer_load_async_lds<96>, 32>, !fly.memref<i32, #fly_rocdl.buffer_desc, 3:1>, !fly.memref<i32, shared, 3:1>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @global128
// CHECK:         rocdl.global.load.lds %arg0, %arg1, 16, 0, 0
func.func @global128(%base: !llvm.ptr<1>, %lds: !llvm.ptr<3>) {
  %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<bf16, global>
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<bf16, shared>
  %l = fly.static : !fly.layout<1:1>
  %src = fly.make_view(%g, %l) : (!fly.ptr<bf16, global>, !fly.layout<1:1>) -> !fly.memref<bf16, global, 1:1>
  %dst = fly.make_view(%s, %l) : (!fly.ptr<bf16, shared>, !fly.layout<1:1>) -> !fly.memref<bf16, shared, 1:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<128>, 128>
  fly.copy_atom_call(%a, %src, %dst) : (!fly.copy_atom<!fly_rocdl.cdna4.global_load_async_lds<128>, 128>, !fly.memref<bf16, global, 1:1>, !fly.memref<bf16, shared, 1:1>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @trans16
// CHECK:         %[[T:.*]] = rocdl.ds.read.tr16.b64 %arg0 : <3> -> vector<4xi16>
// CHECK:         llvm.bitcast %[[T]] : vector<4xi16> to vector<4xbf16>
func.func @trans16(%lds: !llvm.ptr<3>) -> vector<4xbf16> {
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<bf16, shared>
  %l = fly.static : !fly.layout<4:1>
  %src = fly.make_view(%s, %l) : (!fly.ptr<bf16, shared>, !fly.layout<4:1>) -> !fly.memref<bf16, shared, 4:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>
  %r = fly.copy_atom_call_ssa(%a, %src) : (!fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<16, 64>, 16>, !fly.memref<bf16, shared, 4:1>) -> vector<4xbf16>
  return %r : vector<4xbf16>
}

// -----

// CHECK-LABEL: func.func @trans8
// CHECK:         %[[T:.*]] = rocdl.ds.read.tr8.b64 %arg0 : <3> -> vector<2xi32>
// CHECK:         llvm.bitcast %[[T]] : vector<2xi32> to vector<8xi8>
func.func @trans8(%lds: !llvm.ptr<3>) -> vector<8xi8> {
  %s = fly.make_ptr(%lds) : (!llvm.ptr<3>) -> !fly.ptr<i8, shared>
  %l = fly.static : !fly.layout<8:1>
  %src = fly.make_view(%s, %l) : (!fly.ptr<i8, shared>, !fly.layout<8:1>) -> !fly.memref<i8, shared, 8:1>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<8, 64>, 8>
  %r = fly.copy_atom_call_ssa(%a, %src) : (!fly.copy_atom<!fly_rocdl.cdna4.lds_read_trans<8, 64>, 8>, !fly.memref<i8, shared, 8:1>) -> vector<8xi8>
  return %r : vector<8xi8>
}
