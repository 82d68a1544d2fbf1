// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s

// gfx1250.tdm: one call copies the whole tile with one tensor instruction
// whose descriptor comes from the global tile's type (shape, static
// strides, element size), the pointers and the atom's fields. Ranks 1 and 2
// use the two-group .d2 forms, ranks 3 to 5 the four-group ones.

// A 128 x 64 f16 tile, row-major, to LDS. Group 1: data size log2(2) << 16,
// tile_dim0 = 64 in [127:112] (word 3's high half), tile_dim1 = 128 (word
// 4), the stride of dimension 1 = 64; group 0's type field (2 << 30).
// CHECK-LABEL: func.func @load2d
// CHECK-DAG:     llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK-DAG:     llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK-DAG:     arith.constant 65536 : i32
// CHECK-DAG:     arith.constant 4194304 : i32
// CHECK-DAG:     arith.constant 128 : i32
// CHECK-DAG:     arith.constant 64 : i64
// CHECK-DAG:     arith.constant -2147483648 : i32
// CHECK-DAG:     arith.constant 2147483647 : i32
// CHECK-DAG:     arith.maxsi
// CHECK:         rocdl.tensor.load.to.lds.d2 %{{.*}}, %{{.*}} cachepolicy 0 : vector<4xi32>, vector<8xi32>
// CHECK-NOT:     rocdl.tensor
func.func @load2d(%gp: !llvm.ptr<1>, %sp: !llvm.ptr<3>) {
  %g = fly.make_ptr(%gp) : (!llvm.ptr<1>) -> !fly.ptr<f16, global>
  %s = fly.make_ptr(%sp) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared>
  %l = fly.static : !fly.layout<(128,64):(64,1)>
  %gv = fly.make_view(%g, %l) : (!fly.ptr<f16, global>, !fly.layout<(128,64):(64,1)>) -> !fly.memref<f16, global, (128,64):(64,1)>
  %sv = fly.make_view(%s, %l) : (!fly.ptr<f16, shared>, !fly.layout<(128,64):(64,1)>) -> !fly.memref<f16, shared, (128,64):(64,1)>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 16>
  fly.copy_atom_call(%a, %gv, %sv) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 16>, !fly.memref<f16, global, (128,64):(64,1)>, !fly.memref<f16, shared, (128,64):(64,1)>) -> ()
  return
}

// -----

// LDS to global, with the fields: extent_0 (rows left) clamps tensor_dim1,
// stride_0 replaces the layout's stride, imm_offset moves the global
// address, the cache policy is the instruction's.
// CHECK-LABEL: func.func @store2d
// CHECK:         %[[G:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK:         arith.addi %[[G]], %arg4 : i64
// CHECK:         arith.subi %arg2, %{{.*}} : i32
// CHECK:         arith.trunci %arg3 : i64 to i32
// CHECK:         rocdl.tensor.store.from.lds.d2 %{{.*}}, %{{.*}} cachepolicy 3 : vector<4xi32>, vector<8xi32>
func.func @store2d(%gp: !llvm.ptr<1>, %sp: !llvm.ptr<3>, %rows: i32, %stride: i64, %imm: i64) {
  %g = fly.make_ptr(%gp) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %s = fly.make_ptr(%sp) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %gl = fly.static : !fly.layout<(16,32):(1000,1)>
  %sl = fly.static : !fly.layout<(16,32):(32,1)>
  %gv = fly.make_view(%g, %gl) : (!fly.ptr<f32, global>, !fly.layout<(16,32):(1000,1)>) -> !fly.memref<f32, global, (16,32):(1000,1)>
  %sv = fly.make_view(%s, %sl) : (!fly.ptr<f32, shared>, !fly.layout<(16,32):(32,1)>) -> !fly.memref<f32, shared, (16,32):(32,1)>
  %a0 = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>
  %a1 = fly.atom.set_value(%a0, %rows) {field = "extent_0"} : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>
  %a2 = fly.atom.set_value(%a1, %stride) {field = "stride_0"} : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>, i64) -> !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>
  %a3 = fly.atom.set_value(%a2, %imm) {field = "imm_offset"} : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>, i64) -> !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>
  fly.copy_atom_call(%a3, %sv, %gv) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 3, barrier = false, timeout = false>, 32>, !fly.memref<f32, shared, (16,32):(32,1)>, !fly.memref<f32, global, (16,32):(1000,1)>) -> ()
  return
}

// -----

// Rank 3 (4 x 8 x 16 i8) uses the four-group form; tile_dim2 = 4 and
// tile_dim1 = 8 share group 1's word 4 (4 << 16 | 8).
// CHECK-LABEL: func.func @load3d
// CHECK-DAG:     arith.constant 262152 : i32
// CHECK-DAG:     arith.constant 1048576 : i32
// CHECK:         rocdl.tensor.load.to.lds %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cachepolicy 0 : vector<4xi32>, vector<8xi32>
func.func @load3d(%gp: !llvm.ptr<1>, %sp: !llvm.ptr<3>) {
  %g = fly.make_ptr(%gp) : (!llvm.ptr<1>) -> !fly.ptr<i8, global>
  %s = fly.make_ptr(%sp) : (!llvm.ptr<3>) -> !fly.ptr<i8, shared>
  %gl = fly.static : !fly.layout<(4,8,16):(4096,64,1)>
  %sl = fly.static : !fly.layout<(4,8,16):(128,16,1)>
  %gv = fly.make_view(%g, %gl) : (!fly.ptr<i8, global>, !fly.layout<(4,8,16):(4096,64,1)>) -> !fly.memref<i8, global, (4,8,16):(4096,64,1)>
  %sv = fly.make_view(%s, %sl) : (!fly.ptr<i8, shared>, !fly.layout<(4,8,16):(128,16,1)>) -> !fly.memref<i8, shared, (4,8,16):(128,16,1)>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 3, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 8>
  fly.copy_atom_call(%a, %gv, %sv) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 3, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 8>, !fly.memref<i8, global, (4,8,16):(4096,64,1)>, !fly.memref<i8, shared, (4,8,16):(128,16,1)>) -> ()
  return
}

// -----

// Four waves share a 64 x 32 tile: 16 rows each, found from the wave id.
// Padding of 4 f32 after every 32-element row: interval 32 dwords
// (log2 - 1 = 4 at [24:22]), amount 4 dwords (3 at [31:25]), enable [20],
// data size 2 << 16: 0x7120000.
// CHECK-LABEL: func.func @waves_and_padding
// CHECK:         %[[W:.*]] = llvm.call_intrinsic "llvm.amdgcn.wave.id"() : () -> i32
// CHECK:         arith.remui %[[W]]
// CHECK-DAG:     arith.constant 118620160 : i32
// CHECK-DAG:     arith.constant 2097152 : i32
// CHECK:         rocdl.tensor.load.to.lds.d2
func.func @waves_and_padding(%gp: !llvm.ptr<1>, %sp: !llvm.ptr<3>) {
  %g = fly.make_ptr(%gp) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %s = fly.make_ptr(%sp) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %gl = fly.static : !fly.layout<(64,32):(32,1)>
  %sl = fly.static : !fly.layout<(64,32):(36,1)>
  %gv = fly.make_view(%g, %gl) : (!fly.ptr<f32, global>, !fly.layout<(64,32):(32,1)>) -> !fly.memref<f32, global, (64,32):(32,1)>
  %sv = fly.make_view(%s, %sl) : (!fly.ptr<f32, shared>, !fly.layout<(64,32):(36,1)>) -> !fly.memref<f32, shared, (64,32):(36,1)>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 4, pad = 32, 4, cache = 0, barrier = false, timeout = false>, 32>
  fly.copy_atom_call(%a, %gv, %sv) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 4, pad = 32, 4, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (64,32):(32,1)>, !fly.memref<f32, shared, (64,32):(36,1)>) -> ()
  return
}
