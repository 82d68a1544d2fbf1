// The rewritten signatures go all the way to a code object: the kernel takes
// the struct of the layout's dynamic leaves and no static tile, the launch
// passes the same struct, and the ABI attributes survive the conversions.
// (Until convert-fly-to-rocdl is in stage A, the kernel uses leaves only.)
// RUN: fly-opt %s --fly-rewrite-func-signature --fly-canonicalize --fly-layout-lowering --fly-canonicalize --canonicalize \
// RUN:   | fly-opt '--pass-pipeline=builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx942 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))' \
// RUN:   | FileCheck %s --check-prefix=ROCDL
// RUN: fly-opt %s --fly-rewrite-func-signature --fly-canonicalize --fly-layout-lowering --fly-canonicalize --canonicalize \
// RUN:   | fly-opt '--pass-pipeline=builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx942 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))' \
// RUN:   | fly-compile --chip=gfx942 --from=binary_prep --print-resources | FileCheck %s --check-prefix=CO

// ROCDL:      llvm.func @size_of(%[[L:.*]]: !llvm.struct<(i32, i32)> {llvm.noundef}, %{{.*}}: !llvm.ptr {llvm.noundef})
// ROCDL-SAME:   fly.abi = ["leaves:0", "value:2"]
// ROCDL-SAME:   rocdl.kernel
// ROCDL:        %[[M:.*]] = llvm.extractvalue %[[L]][0] : !llvm.struct<(i32, i32)>
// ROCDL:        llvm.mul %[[M]], %{{.*}} : i32
// ROCDL:      func.func @host(%[[HL:.*]]: !llvm.struct<(i32, i32)>, %[[OUT:.*]]: memref<4xi32>)
// ROCDL:        gpu.launch_func @kernels::@size_of {{.*}} args(%[[HL]] : !llvm.struct<(i32, i32)>, %[[OUT]] : memref<4xi32>)

// CO:      gpu.module @kernels: gfx942
// CO-NEXT: kernel
// CO-NEXT: size_of 64

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @size_of(%l: !fly.layout<(?,8):(1,?)>, %t: !fly.tile<[4]>, %out: memref<4xi32>) kernel {
      %z = fly.size(%l) : (!fly.layout<(?,8):(1,?)>) -> !fly.int_tuple<?{div=8}>
      %v = fly.get_scalar(%z) : (!fly.int_tuple<?{div=8}>) -> i32
      %c0 = arith.constant 0 : index
      memref.store %v, %out[%c0] : memref<4xi32>
      gpu.return
    }
  }
  func.func @host(%l: !fly.layout<(?,8):(1,?)>, %out: memref<4xi32>) {
    %one = arith.constant 1 : index
    %t = fly.static : !fly.tile<[4]>
    gpu.launch_func @kernels::@size_of blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%l : !fly.layout<(?,8):(1,?)>, %t : !fly.tile<[4]>, %out : memref<4xi32>)
    return
  }
}
