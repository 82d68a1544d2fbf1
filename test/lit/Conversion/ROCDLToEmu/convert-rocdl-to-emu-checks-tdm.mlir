// The tensor data mover with the bounds or the race check: its ops call
// fly_emu_tensor_checked with the op's site appended, whose kind is the
// LDS side's (a load to LDS stores there: 1; a store from LDS loads: 0),
// memory LDS (1). Unchecked, and with init or barrier alone: plain
// fly_emu_tensor.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=race check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s --check-prefix=OFF
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=init,barrier check-alignment=false}))' | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %[[CTX:[^:]*]]: !llvm.ptr
// CHECK: %[[LOADFLAGS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[LSITE:.*]] = llvm.mlir.addressof @[[LOAD_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_tensor_checked(%[[CTX]], %[[LOADFLAGS]], %{{.*}}, %[[LSITE]])
// CHECK: %[[STOREFLAGS:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SSITE:.*]] = llvm.mlir.addressof @[[STORE_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_tensor_checked(%[[CTX]], %[[STOREFLAGS]], %{{.*}}, %[[SSITE]])
// CHECK-NOT: @fly_emu_tensor(
// CHECK: llvm.mlir.global internal constant @[[LOAD_SITE]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: llvm.mlir.global internal constant @[[STORE_SITE]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// OFF-NOT: fly_emu_tensor_checked
// OFF: llvm.call @fly_emu_tensor(%{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}}) :
// OFF: llvm.call @fly_emu_tensor(%{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}}) :
// OFF-NOT: fly_emu_tensor_checked
gpu.module @tdm {
  llvm.func @k(%g0: vector<4xi32>, %g1: vector<8xi32>, %g2: vector<4xi32>) attributes {rocdl.kernel} {
    rocdl.tensor.load.to.lds.d2 %g0, %g1 cachepolicy 0 : vector<4xi32>, vector<8xi32> loc("t.py":3:5)
    rocdl.s.wait.tensorcnt 0
    rocdl.tensor.store.from.lds %g0, %g1, %g2, %g2 cachepolicy 0 : vector<4xi32>, vector<8xi32> loc("t.py":5:5)
    llvm.return
  }
}
