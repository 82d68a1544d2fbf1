// RUN: fly-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(fly-rocdl-cluster-attr{chip=gfx1250}))" | FileCheck %s

// A kernel launched in 2x1x1 clusters: the shape becomes LLVM's
// amdgpu-cluster-dims; the other passthrough entries stay.
// CHECK-LABEL: llvm.func @clustered
// CHECK-SAME:    passthrough = {{\[}}["amdgpu-num-vgpr", "64"], ["amdgpu-cluster-dims", "2,1,1"]]
// CHECK-NOT:     fly.cluster_dims
gpu.module @m {
  llvm.func @clustered() attributes {rocdl.kernel, fly.cluster_dims = array<i32: 2, 1, 1>, passthrough = [["amdgpu-num-vgpr", "64"]]} {
    llvm.return
  }
}

// -----

// Kernels without clusters are left alone.
// CHECK-LABEL: llvm.func @plain
// CHECK-NOT:     amdgpu-cluster-dims
gpu.module @m {
  llvm.func @plain() attributes {rocdl.kernel} {
    llvm.return
  }
}
