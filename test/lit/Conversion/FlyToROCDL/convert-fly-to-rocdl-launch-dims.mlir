// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl | FileCheck %s

// gpu.block_dim and gpu.grid_dim read the HSA kernel dispatch packet
// (workgroup_size u16 at 4/6/8, grid_size in work-items u32 at 12/16/20;
// the grid in workgroups rounds up), not the device library; with
// known_block_size, block_dim is the constant.

// CHECK-LABEL: gpu.func @dims
// CHECK:      %[[P:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr inbounds %[[P]][6] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK-NEXT: %[[S:.*]] = llvm.load %[[AT]] invariant {alignment = 2 : i64} : !llvm.ptr<4> -> i16
// CHECK-NEXT: %[[S32:.*]] = llvm.zext %[[S]] : i16 to i32
// CHECK-NEXT: arith.index_castui %[[S32]] : i32 to index
// CHECK:      %[[P2:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"()
// CHECK-NEXT: %[[AT2:.*]] = llvm.getelementptr inbounds %[[P2]][8]
// CHECK-NEXT: %[[W:.*]] = llvm.load %[[AT2]] invariant {alignment = 2 : i64} : !llvm.ptr<4> -> i16
// CHECK-NEXT: %[[W32:.*]] = llvm.zext %[[W]] : i16 to i32
// CHECK-NEXT: %[[AT3:.*]] = llvm.getelementptr inbounds %[[P2]][20]
// CHECK-NEXT: %[[N:.*]] = llvm.load %[[AT3]] invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// CHECK-NEXT: %[[Q:.*]] = llvm.udiv %[[N]], %[[W32]] : i32
// CHECK-NEXT: %[[R:.*]] = llvm.urem %[[N]], %[[W32]] : i32
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[PART:.*]] = llvm.icmp "ne" %[[R]], %[[Z]] : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.zext %[[PART]] : i1 to i32
// CHECK-NEXT: %[[G:.*]] = llvm.add %[[Q]], %[[ONE]] : i32
// CHECK-NEXT: arith.index_castui %[[G]] : i32 to index
// CHECK-NOT: gpu.block_dim
// CHECK-NOT: gpu.grid_dim
gpu.module @m {
  gpu.func @dims(%out: memref<2xindex>) kernel {
    %y = gpu.block_dim y
    %z = gpu.grid_dim z
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %y, %out[%c0] : memref<2xindex>
    memref.store %z, %out[%c1] : memref<2xindex>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @known
// CHECK-NOT: dispatch.ptr
// CHECK: %[[C:.*]] = arith.constant 4 : index
// CHECK: memref.store %[[C]]
gpu.module @k {
  gpu.func @known(%out: memref<1xindex>) kernel attributes {known_block_size = array<i32: 64, 4, 1>} {
    %y = gpu.block_dim y
    %c0 = arith.constant 0 : index
    memref.store %y, %out[%c0] : memref<1xindex>
    gpu.return
  }
}
