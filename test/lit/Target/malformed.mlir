// A module that does not parse: the error points at the line and column,
// the exit status is 1, and no pass runs.
// RUN: not fly-compile %s --chip=gfx942 --from=binary_prep -o %t.hsaco 2>&1 | FileCheck %s
// CHECK: malformed.mlir:[[@LINE+4]]:21: error: expected non-function type
// CHECK-NOT: error:
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @k(%p: {
  }
}
