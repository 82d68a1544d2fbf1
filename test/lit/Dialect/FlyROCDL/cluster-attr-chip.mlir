// RUN: fly-opt %s --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(fly-rocdl-cluster-attr{chip=gfx942}))"

// Only gfx1250 has workgroup clusters.
gpu.module @m {
  // expected-error @+1 {{workgroup clusters (fly.cluster_dims) need a chip with clusters (gfx1250); this module is compiled for gfx942}}
  llvm.func @clustered() attributes {rocdl.kernel, fly.cluster_dims = array<i32: 2, 1, 1>} {
    llvm.return
  }
}
