// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 | FileCheck %s

// The offsets of a buffer access without an explicit soffset
// (CDNA3/BufferOffsets.h): through a resource of max_size (num_records
// 4 GiB - 1, whose range checks cannot matter), the wave-uniform terms of
// the element offset (the block's tile, a multiple of a memref argument's
// stride) are the scalar offset and the lane's term the vector offset;
// the offset stays whole in the vector offset, soffset 0, when the range
// checks matter (a resource of num_records bytes), when a term may be
// negative, or when a term is an argument of a non-kernel function (not
// known uniform). An atom's soffset field is the scalar offset as given.

// max_size: voffset = 4 * (tid % 16) * stride, soffset = 4 * (bid * 64 + 16 * stride).
// CHECK-LABEL: gpu.func @split
// CHECK:         %[[STRIDE:.*]] = llvm.extractvalue %arg1[2]
// CHECK:         %[[TILE:.*]] = arith.muli %{{.*}}, %c64_i32 : i32
// CHECK:         %[[ROW:.*]] = arith.remsi %{{.*}}, %c16_i32 : i32
// CHECK:         %[[LANE:.*]] = arith.muli %[[ROW]], %[[STRIDE]] : i32
// CHECK:         %[[VALUE:.*]] = arith.muli %[[STRIDE]], %c16_i32 : i32
// CHECK:         %[[U:.*]] = arith.addi %[[TILE]], %[[VALUE]] : i32
// CHECK:         %[[V:.*]] = arith.muli %[[LANE]], %[[C4:.*]] : i32
// CHECK:         %[[S:.*]] = arith.muli %[[U]], %{{.*}} : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[S]], %{{.*}} : i32
gpu.module @m {
  gpu.func @split(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>) kernel attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1"], fly.original_type = (!fly.memref<f32, global, (?,?):(?,1)>, vector<1xf32>) -> ()} {
    %nr = arith.constant 4294967295 : i64
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %nr : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %lane = arith.muli %row, %stride : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}

// -----

// A resource of %n bytes: its range checks count voffset only, so nothing moves.
// CHECK-LABEL: gpu.func @checked
// CHECK:         llvm.bitcast %arg2 : vector<1xf32> to i32
// CHECK-NEXT:    %[[WHOLE:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[V:.*]] = arith.muli %[[WHOLE]], %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[Z]], %{{.*}} : i32
gpu.module @m {
  gpu.func @checked(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>, %n: i64) kernel attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1", "scalar:2"], fly.original_type = (!fly.memref<f32, global, (?,?):(?,1)>, vector<1xf32>, i64) -> ()} {
    
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %n : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %lane = arith.muli %row, %stride : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}

// -----

// A term of unknown sign (a difference): nothing moves.
// CHECK-LABEL: gpu.func @negative
// CHECK:         llvm.bitcast %arg2 : vector<1xf32> to i32
// CHECK-NEXT:    %[[WHOLE:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[V:.*]] = arith.muli %[[WHOLE]], %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[Z]], %{{.*}} : i32
gpu.module @m {
  gpu.func @negative(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>) kernel attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1"], fly.original_type = (!fly.memref<f32, global, (?,?):(?,1)>, vector<1xf32>) -> ()} {
    %nr = arith.constant 4294967295 : i64
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %nr : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %row0 = arith.subi %t, %c16 : i32
    %lane = arith.addi %row0, %row : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}

// -----

// A device function's arguments are not known uniform: nothing moves.
// CHECK-LABEL: gpu.func @device
// CHECK:         llvm.bitcast %arg2 : vector<1xf32> to i32
// CHECK-NEXT:    %[[WHOLE:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[V:.*]] = arith.muli %[[WHOLE]], %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[Z]], %{{.*}} : i32
gpu.module @m {
  gpu.func @device(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>) attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1"], fly.original_type = (!fly.memref<f32, global, (?,?):(?,1)>, vector<1xf32>) -> ()} {
    %nr = arith.constant 4294967295 : i64
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %nr : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %lane = arith.muli %row, %stride : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}

// -----

// The leaves of an int tuple argument may be negative: nothing moves.
// CHECK-LABEL: gpu.func @tuple_leaf
// CHECK:         llvm.bitcast %arg2 : vector<1xf32> to i32
// CHECK-NEXT:    %[[WHOLE:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[V:.*]] = arith.muli %[[WHOLE]], %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[Z]], %{{.*}} : i32
gpu.module @m {
  gpu.func @tuple_leaf(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>) kernel attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1"], fly.original_type = (!fly.int_tuple<?>, vector<1xf32>) -> ()} {
    %nr = arith.constant 4294967295 : i64
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %nr : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %lane = arith.muli %row, %stride : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}

// -----

// An explicit soffset is the scalar offset as given (elements, in bytes).
// CHECK-LABEL: gpu.func @explicit
// CHECK:         llvm.bitcast %arg2 : vector<1xf32> to i32
// CHECK-NEXT:    %[[WHOLE:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<8>, i32)>
// CHECK:         %[[V:.*]] = arith.muli %[[WHOLE]], %{{.*}} : i32
// CHECK:         %[[S:.*]] = arith.muli %arg3, %{{.*}} : i32
// CHECK:         rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %[[V]], %[[S]], %{{.*}} : i32
gpu.module @m {
  gpu.func @explicit(%base: !llvm.ptr<1>, %leaves: !llvm.struct<(i32, i32, i32)>, %x: vector<1xf32>, %so: i32) kernel attributes {fly.abi = ["ptr:0", "leaves:0", "scalar:1", "scalar:2"], fly.original_type = (!fly.memref<f32, global, (?,?):(?,1)>, vector<1xf32>, i32) -> ()} {
    %nr = arith.constant 4294967295 : i64
    %c64 = arith.constant 64 : i32
    %c16 = arith.constant 16 : i32
    %stride = llvm.extractvalue %leaves[2] : !llvm.struct<(i32, i32, i32)>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %bid = gpu.block_id x
    %bi = arith.index_cast %bid : index to i32
    %g = fly.make_ptr(%base) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    %b = fly_rocdl.make_buffer_ptr %g, %nr : !fly.ptr<f32, global, align<16>> -> !fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>
    %tile = arith.muli %bi, %c64 : i32
    %p1 = fly.add_offset(%b, %tile) : (!fly.ptr<f32, #fly_rocdl.buffer_desc, align<16>>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %row = arith.remsi %t, %c16 : i32
    %lane = arith.muli %row, %stride : i32
    %p2 = fly.add_offset(%p1, %lane) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %value = arith.muli %stride, %c16 : i32
    %p3 = fly.add_offset(%p2, %value) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, i32) -> !fly.ptr<f32, #fly_rocdl.buffer_desc>
    %l = fly.static : !fly.layout<1:1>
    %v = fly.make_view(%p3, %l) : (!fly.ptr<f32, #fly_rocdl.buffer_desc>, !fly.layout<1:1>) -> !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>
    %a0 = fly.static : !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    %a = fly.atom.set_value(%a0, %so) {field = "soffset"} : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, i32) -> !fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>
    fly.copy_atom_call_ssa(%a, %x, %v) : (!fly.copy_atom<!fly_rocdl.cdna3.buffer_copy<32>, 32>, vector<1xf32>, !fly.memref<f32, #fly_rocdl.buffer_desc, 1:1>) -> ()
    gpu.return
  }
}
