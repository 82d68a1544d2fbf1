// fly-compile runs fly-check-launches first in stage A: a launch over the
// chip's LDS is an error at the launch's location, and nothing is written.
// RUN: not fly-compile %s --chip=gfx942 -o %t.bc 2>&1 | FileCheck %s
// RUN: not test -e %t.bc
// RUN: fly-compile %s --chip=gfx950 --to=pre_binary | FileCheck %s --check-prefix=OK950

// CHECK: check-launches-compile.mlir:[[@LINE+11]]:5: error: launch of kernel k: smem=70000 bytes of dynamic LDS exceed the 65536 bytes of LDS a workgroup can have on gfx942
// OK950: gpu.launch_func
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %smem = arith.constant 70000 : i32
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %smem
    return
  }
}
