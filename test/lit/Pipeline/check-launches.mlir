// fly-check-launches: each gpu.launch_func with constant sizes against the
// chip's limits (fly/Arch/Chip.h) and the launched kernel.

// Legal launches pass unchanged, at the exact limits too: 1024 work-items,
// the kernel's 40000 bytes of static LDS plus 25536 of dynamic LDS = 65536
// on gfx942; sizes that are not constants are left to the runtime.
// RUN: fly-opt %s --split-input-file --fly-check-launches=chip=gfx942 --verify-diagnostics -o /dev/null
// RUN: not fly-opt %s --split-input-file --fly-check-launches=chip=gfx942 2>/dev/null | FileCheck %s --check-prefix=OK
// The second case is over gfx942's 64 KiB but within gfx950's 160 KiB.
// RUN: not fly-opt %s --split-input-file --fly-check-launches=chip=gfx950 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MSG950
// RUN: not fly-opt %s --fly-check-launches=chip=gfx9000 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP

// OK-LABEL: func.func @legal
// OK: gpu.launch_func @m::@k blocks in (%{{.*}}) threads in (%{{.*}}) dynamic_shared_memory_size
// OK: gpu.launch_func @m::@k blocks in (%{{.*}}) threads in (%{{.*}})
// CHIP: fly-check-launches: unknown chip 'gfx9000'; supported chips: {{.*}}gfx942
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.mlir.global internal @lds() {addr_space = 3 : i32} : !llvm.array<40000 x i8>
    gpu.func @k() kernel {
      %p = llvm.mlir.addressof @lds : !llvm.ptr<3>
      gpu.return
    }
  }
  func.func @legal(%n: index) {
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %smem = arith.constant 25536 : i32
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1024, %c1, %c1) dynamic_shared_memory_size %smem
    gpu.launch_func @m::@k blocks in (%n, %c1, %c1) threads in (%n, %n, %c1)
    return
  }
}

// -----

// MSG950-NOT: error: launch of kernel k: the kernel's 40000
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.mlir.global internal @lds() {addr_space = 3 : i32} : !llvm.array<40000 x i8>
    gpu.func @k() kernel {
      %p = llvm.mlir.addressof @lds : !llvm.ptr<3>
      gpu.return
    }
  }
  func.func @one_byte_over() {
    %c1 = arith.constant 1 : index
    %smem = arith.constant 25537 : i32
    // expected-error @+1 {{launch of kernel k: the kernel's 40000 bytes of static LDS and smem=25537 bytes of dynamic LDS exceed the 65536 bytes of LDS a workgroup can have on gfx942}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %smem
    return
  }
}

// -----

// Static LDS reached through a called function counts too; dynamic LDS
// alone over the limit; a negative size.
// MSG950: error: launch of kernel k2: smem=-4: the dynamic LDS size cannot be negative
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.mlir.global internal @big() {addr_space = 3 : i32} : !llvm.array<70000 x i8>
    llvm.func @helper() {
      %p = llvm.mlir.addressof @big : !llvm.ptr<3>
      llvm.return
    }
    gpu.func @k() kernel {
      llvm.call @helper() : () -> ()
      gpu.return
    }
    gpu.func @k2() kernel {
      gpu.return
    }
  }
  func.func @lds() {
    %c1 = arith.constant 1 : index
    %big = arith.constant 70000 : i32
    %neg = arith.constant -4 : i32
    // expected-error @+1 {{launch of kernel k: the kernel's 70000 bytes of static LDS exceed the 65536 bytes of LDS a workgroup can have on gfx942}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    // expected-error @+1 {{launch of kernel k2: smem=70000 bytes of dynamic LDS exceed the 65536 bytes of LDS a workgroup can have on gfx942}}
    gpu.launch_func @m::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %big
    // expected-error @+1 {{launch of kernel k2: smem=-4: the dynamic LDS size cannot be negative}}
    gpu.launch_func @m::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %neg
    return
  }
}

// -----

// The dimensions and the workgroup size, on every chip.
// MSG950: error: launch of kernel k: grid=(1, 0, 1): dimension y is 0
// MSG950: error: launch of kernel kb: block=(32, 1, 1) contradicts
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
    gpu.func @kb() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
  func.func @dims() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c1025 = arith.constant 1025 : index
    %huge = arith.constant 4294967296 : index
    // expected-error @+1 {{launch of kernel k: grid=(1, 0, 1): dimension y is 0; each dimension must be at least 1}}
    gpu.launch_func @m::@k blocks in (%c1, %c0, %c1) threads in (%c1, %c1, %c1)
    // expected-error @+1 {{launch of kernel k: block=(1, 1, 4294967296): dimension z is 4294967296, beyond the launch's 32-bit limit of 4294967295}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %huge)
    // expected-error @+1 {{launch of kernel k: block=(1025, 1, 1) is a workgroup of 1025 work-items, over the limit of 1024 work-items per workgroup}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1025, %c1, %c1)
    // expected-error @+1 {{launch of kernel kb: block=(32, 1, 1) contradicts the kernel's known_block_size=(64, 1, 1)}}
    gpu.launch_func @m::@kb blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
    gpu.launch_func @m::@kb blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
    return
  }
}
