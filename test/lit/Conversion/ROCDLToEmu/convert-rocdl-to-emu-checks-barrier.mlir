// The barrier check's sites: barriers that share a source line get a site
// each, their location naming their order on that line; a barrier alone
// on its line keeps the plain file:line. Without `barrier`: plain barriers.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=barrier}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds}))' | FileCheck %s --check-prefix=OFF

// CHECK-DAG: llvm.mlir.global internal constant @[[FIRST:__fly_emu_text_[0-9]+]]("b.py:4 (barrier #1 of 2 on that line)\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[SECOND:__fly_emu_text_[0-9]+]]("b.py:4 (barrier #2 of 2 on that line)\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[ALONE:__fly_emu_text_[0-9]+]]("b.py:9\00")
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK: %[[S1:.*]] = llvm.mlir.addressof @[[SITE1:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_barrier_checked(%{{.*}}, %[[S1]]) :
// CHECK: %[[S2:.*]] = llvm.mlir.addressof @[[SITE2:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_barrier_checked(%{{.*}}, %[[S2]]) :
// CHECK: %[[S3:.*]] = llvm.mlir.addressof @[[SITE3:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_barrier_checked(%{{.*}}, %[[S3]]) :
// CHECK: llvm.mlir.global internal constant @[[SITE1]]()
// CHECK: llvm.mlir.addressof @[[FIRST]]
// CHECK: llvm.mlir.global internal constant @[[SITE2]]()
// CHECK: llvm.mlir.addressof @[[SECOND]]
// CHECK: llvm.mlir.global internal constant @[[SITE3]]()
// CHECK: llvm.mlir.addressof @[[ALONE]]
// OFF-NOT: fly_emu_barrier_checked
// OFF-COUNT-3: llvm.call @fly_emu_barrier(
// OFF-NOT: barrier #
gpu.module @m {
  llvm.func @k(%n: i32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %c = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %c, ^a, ^b
  ^a:
    rocdl.s.barrier loc("b.py":4:9)
    llvm.br ^join
  ^b:
    rocdl.s.barrier loc("b.py":4:30)
    llvm.br ^join
  ^join:
    rocdl.s.barrier loc("b.py":9:5)
    llvm.return
  }
}
