// RUN: fly-opt %s --fly-rewrite-func-signature --split-input-file -verify-diagnostics

// A tile with a dynamic leaf has no runtime form: named by its position.
// expected-error @+1 {{'func.func' op argument #1 of type '!fly.tile<[?:1|8]>' cannot be passed: a tile with dynamic leaves has no runtime form}}
func.func @dynamic_tile(%n: i32, %t: !fly.tile<[?:1|8]>) {
  return
}

// -----

// Register memory does not cross the host/device boundary.
gpu.module @kernels {
  // expected-error @+1 {{'gpu.func' op argument #0 of type '!fly.memref<f32, register, 4:1>' cannot be passed: register memory cannot be a kernel argument}}
  gpu.func @registers(%f: !fly.memref<f32, register, 4:1>) kernel {
    gpu.return
  }
}

// -----

// Results follow the rule of arguments.
// expected-error @+1 {{'func.func' op result #0 of type '!fly.tile<[(4,?):(1,4)]>' cannot be passed: a tile with dynamic leaves has no runtime form}}
func.func private @returns_dynamic_tile() -> !fly.tile<[(4,?):(1,4)]>

