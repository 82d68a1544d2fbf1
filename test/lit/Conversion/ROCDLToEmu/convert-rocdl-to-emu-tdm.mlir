// The tensor data mover on the emulator: each tensor load or store stores
// its descriptor groups to a 20-dword frame slot (groups 2 and 3 zero for
// the .d2 forms) and calls fly_emu_tensor with its flags (1: store, 2:
// .d2); s_wait_tensorcnt goes away (the copies complete at once) and
// llvm.amdgcn.wave.id is the context's wave id (offset 56).
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s

// CHECK-LABEL: gpu.module @tdm
// CHECK: llvm.func @fly_emu_tensor(!llvm.ptr, i32, !llvm.ptr)
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[G0:.*]]: vector<4xi32>, %[[G1:.*]]: vector<8xi32>, %[[G2:.*]]: vector<4xi32>, %[[OUT:.*]]: !llvm.ptr)
// CHECK-COUNT-2: llvm.alloca %{{.*}} x !llvm.array<20 x i32>
// CHECK: %[[P0:.*]] = llvm.getelementptr inbounds %[[SLOT:.*]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.store %[[G0]], %[[P0]] {alignment = 4 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr inbounds %[[SLOT]][4] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.store %[[G1]], %[[P1]] {alignment = 4 : i64} : vector<8xi32>, !llvm.ptr
// CHECK: llvm.getelementptr inbounds %[[SLOT]][12]
// CHECK: llvm.getelementptr inbounds %[[SLOT]][16]
// CHECK: %[[FLAGS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: llvm.call @fly_emu_tensor(%[[CTX]], %[[FLAGS]], %[[SLOT]])
// CHECK: llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.call @fly_emu_tensor(
// CHECK: %[[W:.*]] = llvm.getelementptr inbounds %[[CTX]][56]
// CHECK-NEXT: llvm.load %[[W]]
// CHECK-NOT: rocdl.
gpu.module @tdm {
  llvm.func @k(%g0: vector<4xi32>, %g1: vector<8xi32>, %g2: vector<4xi32>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    rocdl.tensor.load.to.lds.d2 %g0, %g1 cachepolicy 0 : vector<4xi32>, vector<8xi32>
    rocdl.s.wait.tensorcnt 0
    rocdl.tensor.store.from.lds %g0, %g1, %g2, %g2 cachepolicy 0 : vector<4xi32>, vector<8xi32>
    %w = llvm.call_intrinsic "llvm.amdgcn.wave.id"() : () -> i32
    llvm.store %w, %out : i32, !llvm.ptr<1>
    llvm.return
  }
}
