// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(fly-rocdl-cluster-attr{chip=gfx1250}))"

gpu.module @m {
  // expected-error @+1 {{fly.cluster_dims must be array<i32: x, y, z> of positive sizes, got array<i32: 2, 0, 1>}}
  llvm.func @zero_size() attributes {rocdl.kernel, fly.cluster_dims = array<i32: 2, 0, 1>} {
    llvm.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{fly.cluster_dims must be array<i32: x, y, z> of positive sizes}}
  llvm.func @two_dims() attributes {rocdl.kernel, fly.cluster_dims = array<i32: 2, 2>} {
    llvm.return
  }
}
