// 32x600 f32 of workgroup memory is 76800 bytes: more than a gfx942
// workgroup may allocate (64 KiB), within gfx950's 160 KiB. LLVM's resource
// error comes back as a diagnostic at the gpu.module, not as an exit of the
// process.

// RUN: fly-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-rocdl{chipset=gfx942 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | not fly-compile --chip=gfx942 --from=binary_prep 2>&1 | FileCheck %s --check-prefix=GFX942
// GFX942: error: LLVM: local memory (76800) exceeds limit (65536) in function 'big_tile'

// RUN: fly-opt %s --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-rocdl{chipset=gfx950 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=gfx950 --from=binary_prep --print-resources | FileCheck %s --check-prefix=GFX950
// GFX950: big_tile 64 {{[0-9]+}} 0 {{[0-9]+}} 0 0 76800 0 {{[0-9]+}}{{$}}

module attributes {gpu.container_module} {
  gpu.module @big {
    gpu.func @big_tile(%in: !llvm.ptr<1>)
        workgroup(%tile: memref<32x600xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %c599 = arith.constant 599 : index
      %v = llvm.load %in : !llvm.ptr<1> -> f32
      memref.store %v, %tile[%tx, %c599] : memref<32x600xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%c599, %tx] : memref<32x600xf32, #gpu.address_space<workgroup>>
      llvm.store %w, %in : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
