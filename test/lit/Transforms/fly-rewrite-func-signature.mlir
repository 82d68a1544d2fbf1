// RUN: fly-opt %s --fly-rewrite-func-signature --split-input-file | FileCheck %s
// The output is ready for the lowering: nothing opaque is left.
// RUN: fly-opt %s --fly-rewrite-func-signature --fly-canonicalize --fly-layout-lowering --fly-canonicalize --split-input-file | FileCheck %s --check-prefix=LOWER --implicit-check-not=fly.get_leaves --implicit-check-not=fly.get_iter

// A kernel with static arguments only: they leave the signature and are
// rebuilt with fly.static; the scalar stays. The ABI lists the new
// arguments only.
// CHECK-LABEL: gpu.func @static_only
// CHECK-SAME:    (%[[N:.*]]: i32 {llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["value:1"]
// CHECK-SAME:    fly.original_type = (!fly.layout<(4,8):(1,4)>, i32, !fly.tile<[4|8]>, !fly.swizzle<S<3,4,3>>) -> ()
// CHECK-NEXT:    %[[L:.*]] = fly.static : !fly.layout<(4,8):(1,4)>
// CHECK-NEXT:    %[[T:.*]] = fly.static : !fly.tile<[4|8]>
// CHECK-NEXT:    fly.logical_divide(%[[L]], %[[T]])
// CHECK-NOT:     fly.static : !fly.swizzle
// CHECK:         gpu.return
// LOWER-LABEL: gpu.func @static_only
// LOWER-SAME:    (%{{.*}}: i32 {llvm.noundef}) kernel
gpu.module @kernels {
  gpu.func @static_only(%l: !fly.layout<(4,8):(1,4)>, %n: i32, %t: !fly.tile<[4|8]>, %s: !fly.swizzle<S<3,4,3>>) kernel {
    %d = fly.logical_divide(%l, %t) : (!fly.layout<(4,8):(1,4)>, !fly.tile<[4|8]>) -> !fly.layout<((4,1),(8,1)):((1,0),(4,0))>
    gpu.return
  }
}

// -----

// A dynamic layout: one struct of its dynamic leaves, shape leaves first,
// i64 leaves as i64; rebuilt in normal form with the original type.
// CHECK-LABEL: gpu.func @dynamic_layout
// CHECK-SAME:    (%[[S:.*]]: !llvm.struct<(i32, i64)> {llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["leaves:0"]
// CHECK-NEXT:    %[[M:.*]] = llvm.extractvalue %[[S]][0] : !llvm.struct<(i32, i64)>
// CHECK-NEXT:    %[[LD:.*]] = llvm.extractvalue %[[S]][1] : !llvm.struct<(i32, i64)>
// CHECK-NEXT:    %[[SH:.*]] = fly.make_int_tuple(%[[M]]) : (i32) -> !fly.int_tuple<(?,8)>
// CHECK-NEXT:    %[[ST:.*]] = fly.make_int_tuple(%[[LD]]) : (i64) -> !fly.int_tuple<(1,?{i64 div=8})>
// CHECK-NEXT:    %[[L:.*]] = fly.make_layout(%[[SH]], %[[ST]]) : (!fly.int_tuple<(?,8)>, !fly.int_tuple<(1,?{i64 div=8})>) -> !fly.layout<(?,8):(1,?{i64 div=8})>
// CHECK-NEXT:    fly.size(%[[L]])
// LOWER-LABEL: gpu.func @dynamic_layout
// LOWER:         %[[M:.*]] = llvm.extractvalue %{{.*}}[0]
// LOWER:         arith.muli %[[M]], %{{.*}} : i32
gpu.module @kernels {
  gpu.func @dynamic_layout(%l: !fly.layout<(?,8):(1,?{i64 div=8})>) kernel {
    %z = fly.size(%l) : (!fly.layout<(?,8):(1,?{i64 div=8})>) -> !fly.int_tuple<?{div=8}>
    %v = fly.get_scalar(%z) : (!fly.int_tuple<?{div=8}>) -> i32
    gpu.printf "%d", %v : i32
    gpu.return
  }
}

// -----

// A memref with a dynamic leading dimension: an aligned global pointer and
// the struct of its layout's dynamic leaves (the divisibility stays in the
// type); the tensor is make_view of make_ptr and the layout.
// CHECK-LABEL: gpu.func @memref_leading_dim
// CHECK-SAME:    (%[[P:.*]]: !llvm.ptr<1> {llvm.align = 16 : i64, llvm.noundef}, %[[S:.*]]: !llvm.struct<(i32)> {llvm.noundef}, %{{.*}}: i32 {llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["ptr:0", "leaves:0", "value:1"]
// CHECK-NEXT:    %[[FP:.*]] = fly.make_ptr(%[[P]]) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
// CHECK-NEXT:    %[[LD:.*]] = llvm.extractvalue %[[S]][0] : !llvm.struct<(i32)>
// CHECK-NEXT:    %[[SH:.*]] = fly.static : !fly.int_tuple<(64,32)>
// CHECK-NEXT:    %[[ST:.*]] = fly.make_int_tuple(%[[LD]]) : (i32) -> !fly.int_tuple<(1,?{div=4})>
// CHECK-NEXT:    %[[L:.*]] = fly.make_layout(%[[SH]], %[[ST]])
// CHECK-NEXT:    %[[T:.*]] = fly.make_view(%[[FP]], %[[L]]) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(64,32):(1,?{div=4})>) -> !fly.memref<f32, global, (64,32):(1,?{div=4}), align<16>>
// CHECK:         fly.memref.load(%[[T]], %{{.*}}) : (!fly.memref<f32, global, (64,32):(1,?{div=4}), align<16>>, !fly.int_tuple<(?,?)>) -> f32
gpu.module @kernels {
  gpu.func @memref_leading_dim(%a: !fly.memref<f32, global, (64,32):(1,?{div=4}), align<16>>, %i: i32) kernel {
    %c = fly.make_int_tuple(%i, %i) : (i32, i32) -> !fly.int_tuple<(?,?)>
    %x = fly.memref.load(%a, %c) : (!fly.memref<f32, global, (64,32):(1,?{div=4}), align<16>>, !fly.int_tuple<(?,?)>) -> f32
    gpu.printf "%f", %x : f32
    gpu.return
  }
}

// -----

// A static layout behind a pointer: the pointer alone; a swizzled shared
// memref keeps its composed layout, rebuilt by fly.static. A bare fly
// pointer is an LLVM pointer of its address space and alignment.
// CHECK-LABEL: gpu.func @static_memrefs
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1> {llvm.align = 4 : i64, llvm.noundef}, %[[SM:.*]]: !llvm.ptr<3> {llvm.align = 16 : i64, llvm.noundef}, %[[BP:.*]]: !llvm.ptr {llvm.align = 8 : i64, llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["ptr:0", "ptr:1", "ptr:2"]
// CHECK-DAG:     %[[FB:.*]] = fly.make_ptr(%[[BP]]) : (!llvm.ptr) -> !fly.ptr<i8, generic, align<8>>
// CHECK-DAG:     fly.ptr.load(%[[FB]])
// CHECK-DAG:     %[[FG:.*]] = fly.make_ptr(%[[G]]) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
// CHECK-DAG:     %[[LG:.*]] = fly.static : !fly.layout<(4,8):(8,1)>
// CHECK-DAG:     fly.make_view(%[[FG]], %[[LG]])
// CHECK-DAG:     %[[FS:.*]] = fly.make_ptr(%[[SM]]) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
// CHECK-DAG:     %[[LS:.*]] = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
// CHECK-DAG:     fly.make_view(%[[FS]], %[[LS]])
gpu.module @kernels {
  gpu.func @static_memrefs(%g: !fly.memref<f32, global, (4,8):(8,1)>, %s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, %p: !fly.ptr<i8, generic, align<8>>) kernel {
    %b = fly.ptr.load(%p) : (!fly.ptr<i8, generic, align<8>>) -> i8
    %z = fly.static : !fly.int_tuple<(0,0)>
    %x = fly.memref.load(%g, %z) : (!fly.memref<f32, global, (4,8):(8,1)>, !fly.int_tuple<(0,0)>) -> f32
    %y = fly.memref.load(%s, %z) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, !fly.int_tuple<(0,0)>) -> f16
    gpu.printf "%f %f %d", %x, %y, %b : f32, f16, i8
    gpu.return
  }
}

// -----

// A coordinate tensor: its base leaves, then its layout's, in one struct;
// rebuilt as make_view of the base and the layout.
// CHECK-LABEL: gpu.func @coord_tensor
// CHECK-SAME:    (%[[S:.*]]: !llvm.struct<(i32, i32)> {llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["leaves:0"]
// CHECK-NEXT:    %[[B0:.*]] = llvm.extractvalue %[[S]][0]
// CHECK-NEXT:    %[[N:.*]] = llvm.extractvalue %[[S]][1]
// CHECK-NEXT:    %[[SH:.*]] = fly.make_int_tuple(%[[N]]) : (i32) -> !fly.int_tuple<(16,?)>
// CHECK-NEXT:    %[[ST:.*]] = fly.static : !fly.int_tuple<(1E0,1E1)>
// CHECK-NEXT:    %[[L:.*]] = fly.make_layout(%[[SH]], %[[ST]])
// CHECK-NEXT:    %[[B:.*]] = fly.make_int_tuple(%[[B0]]) : (i32) -> !fly.int_tuple<(?,0)>
// CHECK-NEXT:    fly.make_view(%[[B]], %[[L]]) : (!fly.int_tuple<(?,0)>, !fly.layout<(16,?):(1E0,1E1)>) -> !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>
gpu.module @kernels {
  gpu.func @coord_tensor(%c: !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>) kernel {
    %z = fly.size(%c) : (!fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>) -> !fly.int_tuple<?{div=16}>
    %v = fly.get_scalar(%z) : (!fly.int_tuple<?{div=16}>) -> i32
    gpu.printf "%d", %v : i32
    gpu.return
  }
}

// -----

// Mixed arguments, and the host function that launches the kernel: both
// signatures are rewritten by the same rule, so the launch's operands have
// the kernel's new types (the module verifies). The host's own memref and
// coordinate tensor are forwarded: its pointer and struct go straight to
// the launch; the static layout is dropped.
// CHECK-LABEL: gpu.func @mixed
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64, llvm.noundef}, %{{.*}}: !llvm.struct<(i32, i32)> {llvm.noundef}, %{{.*}}: i32 {llvm.noundef}, %{{.*}}: !llvm.struct<(i32, i32)> {llvm.noundef}) kernel
// CHECK-SAME:    fly.abi = ["ptr:0", "leaves:0", "value:2", "leaves:3"]
// CHECK-SAME:    fly.original_type = (!fly.memref<f32, global, (?,64):(1,?{div=4}), align<16>>, !fly.layout<(4,8):(1,4)>, i32, !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>) -> ()
// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%[[P:.*]]: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[S:.*]]: !llvm.struct<(i32, i32)>, %[[N:.*]]: i32, %[[C:.*]]: !llvm.struct<(i32, i32)>)
// CHECK-SAME:    fly.abi = ["ptr:0", "leaves:0", "value:1", "leaves:2"]
// CHECK-NOT:     fly.make_view
// CHECK:         gpu.launch_func @kernels::@mixed {{.*}} args(%[[P]] : !llvm.ptr<1>, %[[S]] : !llvm.struct<(i32, i32)>, %[[N]] : i32, %[[C]] : !llvm.struct<(i32, i32)>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mixed(%a: !fly.memref<f32, global, (?,64):(1,?{div=4}), align<16>>, %l: !fly.layout<(4,8):(1,4)>, %n: i32, %c: !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>) kernel {
      %s = fly.size(%a) : (!fly.memref<f32, global, (?,64):(1,?{div=4}), align<16>>) -> !fly.int_tuple<?{div=64}>
      %v = fly.get_scalar(%s) : (!fly.int_tuple<?{div=64}>) -> i32
      gpu.printf "%d", %v : i32
      gpu.return
    }
  }
  func.func @host(%a: !fly.memref<f32, global, (?,64):(1,?{div=4}), align<16>>, %n: i32, %c: !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>) {
    %one = arith.constant 1 : index
    %l = fly.static : !fly.layout<(4,8):(1,4)>
    gpu.launch_func @kernels::@mixed blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : !fly.memref<f32, global, (?,64):(1,?{div=4}), align<16>>, %l : !fly.layout<(4,8):(1,4)>, %n : i32, %c : !fly.coord_tensor<(?,0), (16,?):(1E0,1E1)>)
    return
  }
}

// -----

// The host builds the kernel's arguments: values computed by the algebra
// (a divided tensor, a compact layout) are opened with fly.get_iter,
// fly.ptr.to_llvm and fly.get_leaves, which the lowering resolves.
// CHECK-LABEL: func.func @host_builds
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<1> {llvm.align = 4 : i64}, %{{.*}}: !llvm.struct<(i32, i32)>, %{{.*}}: i32)
// CHECK:         %[[T:.*]] = fly.logical_divide
// CHECK-DAG:     %[[IT:.*]] = fly.get_iter(%[[T]])
// CHECK-DAG:     %[[TL:.*]]:2 = fly.get_leaves(%[[T]])
// CHECK-DAG:     %[[LL:.*]] = fly.get_leaves(%{{.*}}) : (!fly.layout<?:1>) -> i32
// CHECK-DAG:     %[[LP:.*]] = fly.ptr.to_llvm(%[[IT]]) : (!fly.ptr<f32, global>) -> !llvm.ptr<1>
// CHECK:         %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[U0:.*]] = llvm.insertvalue %[[TL]]#0, %[[U]][0]
// CHECK-NEXT:    %[[U1:.*]] = llvm.insertvalue %[[TL]]#1, %[[U0]][1]
// CHECK-NEXT:    %[[V:.*]] = llvm.mlir.undef : !llvm.struct<(i32)>
// CHECK-NEXT:    %[[V0:.*]] = llvm.insertvalue %[[LL]], %[[V]][0]
// CHECK-NEXT:    gpu.launch_func @kernels::@tiles {{.*}} args(%[[LP]] : !llvm.ptr<1>, %[[U1]] : !llvm.struct<(i32, i32)>, %[[V0]] : !llvm.struct<(i32)>)
// LOWER-LABEL: func.func @host_builds
// LOWER:         arith.ceildivsi
// LOWER:         gpu.launch_func
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tiles(%t: !fly.memref<f32, global, ((4,?),8):((1,4),?)>, %l: !fly.layout<?:1>) kernel {
      gpu.return
    }
  }
  func.func @host_builds(%a: !fly.memref<f32, global, (?,8):(1,?)>, %m: i32) {
    %one = arith.constant 1 : index
    %tile = fly.static : !fly.tile<[4]>
    %t = fly.logical_divide(%a, %tile) : (!fly.memref<f32, global, (?,8):(1,?)>, !fly.tile<[4]>) -> !fly.memref<f32, global, ((4,?),8):((1,4),?)>
    %s = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<?>
    %l = fly.make_layout(%s) : (!fly.int_tuple<?>) -> !fly.layout<?:1>
    gpu.launch_func @kernels::@tiles blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%t : !fly.memref<f32, global, ((4,?),8):((1,4),?)>, %l : !fly.layout<?:1>)
    return
  }
}

// -----

// func.call to a helper with Fly arguments and results: operands packed,
// the static tile dropped, results rebuilt after the call; the helper's
// returns pack their operands.
// CHECK-LABEL: func.func @helper
// CHECK-SAME:    (%[[X:.*]]: i64, %[[P:.*]]: !llvm.ptr<1> {llvm.align = 4 : i64}, %[[S:.*]]: !llvm.struct<(i32)>) -> (!llvm.struct<(i64)>, !llvm.ptr<1>, !llvm.struct<(i32)>)
// CHECK-SAME:    fly.abi = ["value:0", "ptr:2", "leaves:2"]
// CHECK-SAME:    fly.original_type = (i64, !fly.tile<[4|8]>, !fly.memref<f32, global, ?:1>) -> (!fly.int_tuple<(?{i64},4)>, !fly.int_tuple<(2,3)>, !fly.memref<f32, global, ?:1>)
// CHECK-SAME:    fly.result_abi = ["leaves:0", "ptr:2", "leaves:2"]
// CHECK:         %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i64)>
// CHECK-NEXT:    %[[U0:.*]] = llvm.insertvalue %[[X]], %[[U]][0]
// CHECK-NEXT:    return %[[U0]], %[[P]], %[[S]] : !llvm.struct<(i64)>, !llvm.ptr<1>, !llvm.struct<(i32)>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[X:.*]]: i64, %[[P:.*]]: !llvm.ptr<1> {llvm.align = 4 : i64}, %[[S:.*]]: !llvm.struct<(i32)>) -> i64
// CHECK:         %[[R:.*]]:3 = call @helper(%[[X]], %[[P]], %[[S]]) : (i64, !llvm.ptr<1>, !llvm.struct<(i32)>) -> (!llvm.struct<(i64)>, !llvm.ptr<1>, !llvm.struct<(i32)>)
// CHECK-NEXT:    %[[L:.*]] = llvm.extractvalue %[[R]]#0[0] : !llvm.struct<(i64)>
// CHECK-NEXT:    %[[T:.*]] = fly.make_int_tuple(%[[L]]) : (i64) -> !fly.int_tuple<(?{i64},4)>
// CHECK-NEXT:    fly.int_tuple_product(%[[T]])
// LOWER-LABEL: func.func @caller
// LOWER:         %[[R:.*]]:3 = call @helper
// LOWER-NEXT:    %[[L:.*]] = llvm.extractvalue %[[R]]#0[0]
// LOWER-NEXT:    %[[P:.*]] = arith.muli %[[L]], %{{.*}} : i64
// LOWER-NEXT:    return %[[P]] : i64
func.func @helper(%x: i64, %t: !fly.tile<[4|8]>, %m: !fly.memref<f32, global, ?:1>) -> (!fly.int_tuple<(?{i64},4)>, !fly.int_tuple<(2,3)>, !fly.memref<f32, global, ?:1>) {
  %r = fly.make_int_tuple(%x) : (i64) -> !fly.int_tuple<(?{i64},4)>
  %s = fly.static : !fly.int_tuple<(2,3)>
  return %r, %s, %m : !fly.int_tuple<(?{i64},4)>, !fly.int_tuple<(2,3)>, !fly.memref<f32, global, ?:1>
}
func.func @caller(%x: i64, %m: !fly.memref<f32, global, ?:1>) -> i64 {
  %t = fly.static : !fly.tile<[4|8]>
  %r:3 = func.call @helper(%x, %t, %m) : (i64, !fly.tile<[4|8]>, !fly.memref<f32, global, ?:1>) -> (!fly.int_tuple<(?{i64},4)>, !fly.int_tuple<(2,3)>, !fly.memref<f32, global, ?:1>)
  %p = fly.int_tuple_product(%r#0) : (!fly.int_tuple<(?{i64},4)>) -> !fly.int_tuple<?{i64 div=4}>
  %v = fly.get_scalar(%p) : (!fly.int_tuple<?{i64 div=4}>) -> i64
  return %v : i64
}

// -----

// A device helper may take register memory (a private pointer); an
// external declaration changes its signature only.
// CHECK-LABEL: func.func private @extern_helper
// CHECK-SAME:    (!llvm.ptr<5> {llvm.align = 4 : i64}, !llvm.struct<(i32)>)
// CHECK-SAME:    fly.abi = ["ptr:0", "leaves:1"]
gpu.module @kernels {
  func.func private @extern_helper(%f: !fly.memref<f32, register, 4:1>, %l: !fly.int_tuple<(?,2)>)
}

// -----

// A composed layout with dynamic offset and outer layout: one struct, in
// the order offset, outer shape, outer stride (the swizzle is static); a
// result computed by the algebra is opened with fly.get_leaves.
// CHECK-LABEL: func.func @composed
// CHECK-SAME:    (%[[S:.*]]: !llvm.struct<(i32, i32, i32)>) -> !llvm.struct<(i32)>
// CHECK-SAME:    fly.abi = ["leaves:0"]
// CHECK-SAME:    fly.result_abi = ["leaves:0"]
// CHECK:         %[[SW:.*]] = fly.static : !fly.swizzle<S<3,4,3>>
// CHECK:         %[[C:.*]] = fly.make_composed_layout(%[[SW]], %{{.*}}, %{{.*}}) : (!fly.swizzle<S<3,4,3>>, !fly.int_tuple<?>, !fly.layout<(8,?):(?,1)>) -> !fly.composed_layout<S<3,4,3> o ? o (8,?):(?,1)>
// CHECK:         %[[O:.*]] = fly.crd2idx(%{{.*}}, %[[C]])
// CHECK-NEXT:    %[[L:.*]] = fly.get_leaves(%[[O]]) : (!fly.int_tuple<?>) -> i32
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32)>
// CHECK-NEXT:    %[[R:.*]] = llvm.insertvalue %[[L]], %[[U]][0]
// CHECK-NEXT:    return %[[R]] : !llvm.struct<(i32)>
// LOWER-LABEL: func.func @composed
// LOWER:         arith.xori
func.func @composed(%c: !fly.composed_layout<S<3,4,3> o ? o (8,?):(?,1)>) -> !fly.int_tuple<?> {
  %i = fly.static : !fly.int_tuple<(1,1)>
  %o = fly.crd2idx(%i, %c) : (!fly.int_tuple<(1,1)>, !fly.composed_layout<S<3,4,3> o ? o (8,?):(?,1)>) -> !fly.int_tuple<?>
  return %o : !fly.int_tuple<?>
}

// -----

// A gpu.func's workgroup attributions stay after its new arguments.
// CHECK-LABEL: gpu.func @attributions
// CHECK-SAME:    (%[[S:.*]]: !llvm.struct<(i32)> {llvm.noundef}, %{{.*}}: i32 {llvm.noundef}) workgroup(%[[W:.*]] : memref<32xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:         memref.store %{{.*}}, %[[W]]
gpu.module @kernels {
  gpu.func @attributions(%l: !fly.layout<?:1>, %n: i32) workgroup(%w: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %z = fly.size(%l) : (!fly.layout<?:1>) -> !fly.int_tuple<?>
    %v = fly.get_scalar(%z) : (!fly.int_tuple<?>) -> i32
    %c0 = arith.constant 0 : index
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %w[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// A host function without Fly arguments (scalars and a stream) still gets
// the ABI its caller packs by; a private helper without them is left alone.
// CHECK-LABEL: func.func @host_scalars
// CHECK-SAME:    (%{{.*}}: i32, %{{.*}}: !llvm.ptr)
// CHECK-SAME:    fly.abi = ["value:0", "value:1"]
// CHECK-SAME:    fly.original_type = (i32, !llvm.ptr) -> ()
// CHECK-LABEL: func.func private @helper
// CHECK-NOT:     fly.abi
// CHECK:         return
func.func @host_scalars(%n: i32, %stream: !llvm.ptr) {
  func.call @helper(%n) : (i32) -> ()
  return
}
func.func private @helper(%n: i32) {
  return
}
